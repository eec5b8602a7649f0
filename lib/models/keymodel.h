#pragma once

#include "modelstatus.h"

#include <QEtcd/client.h>

#include <QtCore/QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

namespace Internal {
class KeyIndex;
}

// The keys under a prefix as a flat list sorted by key: loaded lazily in keys-only pages
// (fetchMore(), which a ListView calls as it scrolls), kept current by one watch, changes
// applied at most once per frame. Values are read only for the selected key. KeyTreeModel
// shows the same keys as a tree by '/'.
class KeyModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    Q_PROPERTY(QString prefix READ prefix WRITE setPrefix NOTIFY prefixChanged)
    Q_PROPERTY(int pageSize READ pageSize WRITE setPageSize NOTIFY pageSizeChanged)
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
    Q_PROPERTY(qint64 total READ total NOTIFY progressChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(QString selectedKey READ selectedKey WRITE setSelectedKey NOTIFY selectedChanged)
    // key, value (UTF-8 text), size, createRevision, modRevision, version, lease (hex), error
    Q_PROPERTY(QVariantMap selected READ selected NOTIFY selectedChanged)

public:
    enum Role {
        KeyRole = Qt::UserRole + 1,
        NameRole,  // the key without the prefix
        CreateRevisionRole,
        ModRevisionRole,
        VersionRole,
        LeaseRole,        // hex, as etcdctl prints it; empty without a lease
        ChangedAtRole,    // ms since the epoch the watch last changed it (0: not since loading), to flash
    };
    Q_ENUM(Role)

    explicit KeyModel(QObject *parent = nullptr);
    ~KeyModel() override;

    Client *client() const;
    void setClient(Client *client);
    QString prefix() const;
    void setPrefix(const QString &prefix);
    int pageSize() const;
    void setPageSize(int pageSize);
    ModelStatus::Status status() const;
    QString errorString() const;
    double progress() const;
    qint64 total() const;
    int count() const;
    QString selectedKey() const;
    void setSelectedKey(const QString &key);
    QVariantMap selected() const;

    // Starts again from the first page (setting the client or the prefix does it too).
    Q_INVOKABLE void reload();
    // Loads every remaining page.
    Q_INVOKABLE void fetchAll();
    // The row of key, -1 when it is not loaded.
    Q_INVOKABLE int indexOf(const QString &key) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    void clientChanged();
    void prefixChanged();
    void pageSizeChanged();
    void statusChanged();
    void progressChanged();
    void countChanged();
    void selectedChanged();

private:
    std::unique_ptr<Internal::KeyIndex> m_index;
};

} // namespace QEtcd
