#pragma once

#include "keymodel.h"
#include "qetcdquickexport.h"

#include <QtCore/QAbstractItemModel>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

// The keys of a KeyModel as a tree by '/': "/app/locks/a" is /app > /locks > /a, each node
// named by its part with the '/' in front. A node may be a key and have children at once.
// It follows its source row by row, so both views share one set of pages and one watch;
// fetchMore() on the root loads the source's next page.
class QETCD_QUICK_EXPORT KeyTreeModel : public QAbstractItemModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QEtcd::KeyModel *source READ source WRITE setSource NOTIFY sourceChanged)

public:
    enum Role {
        NameRole = Qt::UserRole + 1,  // this node's part of the key
        KeyRole,                      // the key (or prefix) up to this node
        IsKeyRole,                    // a key exists at exactly this path
        KeyCountRole,                 // keys at and below this node
        CreateRevisionRole,
        ModRevisionRole,
        VersionRole,
        LeaseRole,
        ChangedAtRole,
    };
    Q_ENUM(Role)

    explicit KeyTreeModel(QObject *parent = nullptr);
    ~KeyTreeModel() override;

    KeyModel *source() const;
    void setSource(KeyModel *source);

    QModelIndex index(int row, int column, const QModelIndex &parent = QModelIndex()) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    bool hasChildren(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    void sourceChanged();

private:
    struct Node;
    void rebuild();
    void addKey(const QString &key, bool announce);
    void removeKey(const QString &key);
    void keyChanged(const QString &key);
    Node *find(const QString &key) const;
    QModelIndex indexOf(const Node *node) const;
    QStringList partsOf(const QString &key) const;

    QPointer<KeyModel> m_source;
    QMetaObject::Connection m_connections[6];
    std::unique_ptr<Node> m_root;
};

} // namespace QEtcd
