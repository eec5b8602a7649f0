#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QtCore/QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include <memory>
#include <vector>

namespace QEtcd {

namespace Internal {
class KeyIndex;
struct KeyEntry;
}

// The keys under a prefix as a flat list sorted by key: loaded lazily in keys-only pages
// (fetchMore(), which a ListView calls as it scrolls; the first of pageSize keys, each next
// one twice as large up to 32,768), kept current by one watch, changes
// applied at most once per frame. Values are read only for the selected key. KeyTreeModel
// shows the same keys as a tree by '/'.
class QETCD_QUICK_EXPORT KeyModel : public QAbstractListModel
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
    // key, value (UTF-8 text), size, createRevision, modRevision, version, lease (hex), error,
    // and views: the value as text, JSON, hex and a recipe's encoding (see valuedescription_p.h)
    Q_PROPERTY(QVariantMap selected READ selected NOTIFY selectedChanged)
    // While paused the rows and the selected value stay as they were when the pause began (a
    // key the operator selects meanwhile is still read); on resume they catch up row by row,
    // so a view keeps its place.
    Q_PROPERTY(bool paused READ isPaused WRITE setPaused NOTIFY pausedChanged)
    // Changes to the rows (pages, watch events, reloads) that arrived during the pause.
    Q_PROPERTY(int heldChanges READ heldChanges NOTIFY heldChangesChanged)

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
    bool isPaused() const { return m_frozen != nullptr; }
    void setPaused(bool paused);
    int heldChanges() const { return m_heldChanges; }

    // Starts again from the first page (setting the client or the prefix does it too).
    Q_INVOKABLE void reload();
    // Loads the next page, unless one is on its way or every key is in: what a view calls as
    // it nears its end, ahead of Qt Quick's own fetchMore(), which comes only once the last
    // loaded row is built (and a steady scroll then meets blank rows).
    Q_INVOKABLE void fetchNextPage();
    // Loads every remaining page.
    Q_INVOKABLE void fetchAll();
    // The row of key, -1 when it is not loaded.
    Q_INVOKABLE int indexOf(const QString &key) const;

    // Writes for an operator, each one transaction that refuses to change what the operator
    // did not see: create() only where the key does not exist, update() and remove() only while
    // the key is still at expectedModRevision (update() keeps the key's lease). Each ends in
    // writeFinished(); a read-only client refuses them with StatusCode::ReadOnly before
    // anything is sent. The watch brings the change into the rows.
    Q_INVOKABLE void create(const QString &key, const QString &value);
    Q_INVOKABLE void update(const QString &key, const QString &value, qint64 expectedModRevision);
    Q_INVOKABLE void remove(const QString &key, qint64 expectedModRevision);

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
    void pausedChanged();
    void heldChangesChanged();
    // action is "create", "update" or "remove"; a failed status names the key and etcd's answer.
    void writeFinished(const QString &action, const QString &key, const QEtcd::Status &status);

private:
    const std::vector<Internal::KeyEntry> &rows() const;
    QVariantMap liveSelected() const;
    void onSelectedChanged();
    // False, counting the change as held, while paused.
    bool live();
    void write(const QString &action, const QByteArray &key, const Compare &expected, const TxnOp &change);

    std::unique_ptr<Internal::KeyIndex> m_index;
    // The rows shown while paused; null while live. The index goes on underneath.
    std::unique_ptr<std::vector<Internal::KeyEntry>> m_frozen;
    QVariantMap m_frozenSelected;
    bool m_selectionPending = false;  // selected while paused, value not read yet
    int m_heldChanges = 0;
};

} // namespace QEtcd
