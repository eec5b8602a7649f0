// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "keymodel.h"
#include "qetcdquickexport.h"

#include <QtCore/QAbstractItemModel>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

/// `KeyTreeModel` in QML: a KeyModel's keys as a tree by '/'.
///
/// The keys of a KeyModel as a tree by '/': "/app/locks/a" is /app > /locks > /a, each node
/// named by its part with the '/' in front. A node may be a key and have children at once.
/// It follows its source row by row, so both views share one set of pages and one watch;
/// fetchMore() on the root loads the source's next page.
class QETCD_QUICK_EXPORT KeyTreeModel : public QAbstractItemModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The KeyModel whose keys the tree shows.
    Q_PROPERTY(QEtcd::KeyModel *source READ source WRITE setSource NOTIFY sourceChanged)

public:
    /// The roles of a node, with the names QML reads them by.
    enum Role {
        NameRole = Qt::UserRole + 1,  ///< `name`: this node's part of the key.
        KeyRole,                      ///< `key`: the key (or prefix) up to this node.
        IsKeyRole,                    ///< `isKey`: a key exists at exactly this path.
        KeyCountRole,                 ///< `keyCount`: keys at and below this node.
        CreateRevisionRole,           ///< `createRevision`, when isKey.
        ModRevisionRole,              ///< `modRevision`, when isKey.
        VersionRole,                  ///< `version`, when isKey.
        LeaseRole,                    ///< `lease` in hex, when isKey.
        ChangedAtRole,                ///< `changedAt`, as KeyModel's, when isKey.
    };
    Q_ENUM(Role)

    /// A KeyTreeModel without source yet.
    explicit KeyTreeModel(QObject *parent = nullptr);
    /// Destroys the tree (not its source).
    ~KeyTreeModel() override;

    /// The source.
    KeyModel *source() const;
    /// Sets the source and builds the tree from its rows.
    void setSource(KeyModel *source);

    /// The node at \a row under \a parent.
    QModelIndex index(int row, int column, const QModelIndex &parent = QModelIndex()) const override;
    /// The node above \a child.
    QModelIndex parent(const QModelIndex &child) const override;
    /// The nodes under \a parent.
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// One column.
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    /// \a parent has nodes under it.
    bool hasChildren(const QModelIndex &parent = QModelIndex()) const override;
    /// A node's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;
    /// The source has more keys to load (asked of the root only).
    bool canFetchMore(const QModelIndex &parent) const override;
    /// Loads the source's next page (asked of the root only).
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    /// source changed.
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
