// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "keymodel.h"
#include "qetcdquickexport.h"

#include <QtCore/QAbstractItemModel>
#include <QtCore/QHash>
#include <QtCore/QPointer>
#include <QtCore/QSet>
#include <QtCore/QTimer>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

class Watcher;
struct RangeResult;
struct WatchEvent;

/// `KeyTreeModel` in QML: the keys under a KeyModel's prefix as a tree by '/', read a folder
/// at a time.
///
/// "/app/locks/a" is /app > /locks > /a, each node named by its part with the '/' in front; a
/// node may be a key and have children at once. etcd has no call that lists a folder, so a
/// folder is listed by reading its keys (keys only) in pages that grow, skipping each child
/// folder's own keys as soon as one is seen: a level of a thousand folders costs a few reads,
/// not the hundred thousand keys below it. The top level is listed at once; a folder when it is
/// expanded (fetchMore()). Each folder's keyCount is counted by etcd on its own. One watch
/// keeps what is listed current; news of a part not listed yet waits for its listing.
///
/// It follows its source's client, prefix, revision (a past revision is listed as it was, not
/// watched), pause and reloads.
class QETCD_QUICK_EXPORT KeyTreeModel : public QAbstractItemModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The KeyModel whose client, prefix and revision the tree reads.
    Q_PROPERTY(QEtcd::KeyModel *source READ source WRITE setSource NOTIFY sourceChanged)
    /// A folder is being listed.
    Q_PROPERTY(bool listing READ isListing NOTIFY listingChanged)
    /// The key of the folder being listed (the prefix for the top level); empty when none is.
    Q_PROPERTY(QString listingKey READ listingKey NOTIFY listingChanged)
    /// The children found so far by the listings running.
    Q_PROPERTY(int listedChildren READ listedChildren NOTIFY listingChanged)
    /// A listing was stopped, or failed, before its folder was wholly listed.
    Q_PROPERTY(bool stopped READ isStopped NOTIFY listingChanged)
    /// Why the last listing failed; empty when none did.
    Q_PROPERTY(QString errorString READ errorString NOTIFY listingChanged)

public:
    /// The roles of a node, with the names QML reads them by.
    enum Role {
        NameRole = Qt::UserRole + 1,  ///< `name`: this node's part of the key.
        KeyRole,                      ///< `key`: the key (or prefix) up to this node.
        IsKeyRole,                    ///< `isKey`: a key exists at exactly this path.
        KeyCountRole,                 ///< `keyCount`: keys at and below this node; -1 until counted.
        CreateRevisionRole,           ///< `createRevision`, when isKey.
        ModRevisionRole,              ///< `modRevision`, when isKey.
        VersionRole,                  ///< `version`, when isKey.
        LeaseRole,                    ///< `lease` in hex, when isKey.
        ChangedAtRole,                ///< `changedAt`: ms since the epoch the watch last changed it; 0 if not.
    };
    Q_ENUM(Role)

    /// A KeyTreeModel without source yet.
    explicit KeyTreeModel(QObject *parent = nullptr);
    /// Destroys the tree (not its source).
    ~KeyTreeModel() override;

    /// The source.
    KeyModel *source() const;
    /// Sets the source and lists the top level under its prefix.
    void setSource(KeyModel *source);
    /// A folder is being listed.
    bool isListing() const;
    /// The key of the first folder being listed; empty when none is.
    QString listingKey() const;
    /// The children the running listings found so far.
    int listedChildren() const { return m_listedChildren; }
    /// A listing was stopped, or failed, before its folder was wholly listed.
    bool isStopped() const { return !m_stopped.isEmpty(); }
    /// Why the last listing failed; empty when none did.
    QString errorString() const { return m_error; }

    /// Stops every listing after the page on its way: what was found stays, and fetchMore() on
    /// a folder goes on from there.
    Q_INVOKABLE void stopListing();
    /// Goes on with every listing stopped or failed, from where each was.
    Q_INVOKABLE void resumeListing();

    /// The node at \a row under \a parent.
    QModelIndex index(int row, int column, const QModelIndex &parent = QModelIndex()) const override;
    /// The node above \a child.
    QModelIndex parent(const QModelIndex &child) const override;
    /// The nodes listed under \a parent.
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// One column.
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    /// \a parent is a folder: keys exist below it, listed or not.
    bool hasChildren(const QModelIndex &parent = QModelIndex()) const override;
    /// A node's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;
    /// \a parent is a folder not (or not wholly) listed, and no listing of it runs.
    bool canFetchMore(const QModelIndex &parent) const override;
    /// Lists the folder \a parent, page after page until every child is in or stopListing().
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    /// source changed.
    void sourceChanged();
    /// listing, listingKey, listedChildren or errorString changed.
    void listingChanged();

private:
    struct Node;
    void rebuild();
    void startListing(Node *node);
    void requestPage(Node *node);
    void onPage(const QByteArray &path, quint64 generation, const RangeResult &page);
    void endListing(Node *node);
    void onEvents(const QList<WatchEvent> &events);
    // Applies one change where its parent is listed; false when it waits for a listing.
    bool apply(const WatchEvent &event);
    void applyHeld();
    void scheduleCount(const Node *folder);
    void countScheduled();
    void onCount(const QByteArray &path, quint64 generation, const RangeResult &count);
    void removeNode(Node *node);
    // Drops a folder left empty, and each one above it that it empties; what is left.
    Node *pruneIfEmpty(Node *folder);
    void dropFolder(Node *folder);
    Node *insertChild(Node *parent, const QByteArray &part);
    Node *find(const QByteArray &path) const;  // the node at path, or null
    QByteArray childrenStart(const Node *node) const;
    QByteArray childrenEnd(const Node *node) const;
    QModelIndex indexOf(const Node *node) const;
    void changed(Node *node, const QList<int> &roles = {});

    QPointer<KeyModel> m_source;
    QList<QMetaObject::Connection> m_connections;
    std::unique_ptr<Node> m_root;
    quint64 m_generation = 0;  // a rebuild forgets the answers still on their way
    Watcher *m_watcher = nullptr;
    QList<Node *> m_listings;  // running, oldest first; a node removed meanwhile leaves
    QList<QByteArray> m_stopped;  // the folders whose listing stopped or failed
    int m_listedChildren = 0;
    QString m_error;
    // The latest news of each key whose folder is not listed (far enough) yet.
    QHash<QByteArray, WatchEvent> m_ahead;
    // While the source is paused: the news, applied when it goes on.
    QList<WatchEvent> m_held;
    // Folders' paths, counted together once changes settle (or views asked).
    mutable QSet<QByteArray> m_toCount;
    QTimer m_countTimer;
};

} // namespace QEtcd
