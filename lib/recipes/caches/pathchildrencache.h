// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/watcher.h>

#include <QtCore/QMap>

#include <chrono>
#include <memory>
#include <optional>

namespace QEtcd {

/// One child of a PathChildrenCache.
struct QETCD_EXPORT ChildData
{
    QByteArray name;  ///< Relative to the cache's prefix; may contain '/'.
    KeyValue kv;      ///< The key; kv.key is the full key.
};

/// One change of a PathChildrenCache.
struct QETCD_EXPORT PathChildrenCacheEvent
{
    /// What happened.
    enum class Type {
        ChildAdded,    ///< A child appeared.
        ChildUpdated,  ///< A child was written again.
        ChildRemoved,  ///< A child went.
        Initialized    ///< The initial read is in (StartMode::PostInitializedEvent only).
    };
    Type type = Type::ChildAdded;   ///< What happened.
    QByteArray childName;           ///< The child; empty for Initialized.
    /// The child now; for ChildRemoved what the cache held, if it held the child.
    std::optional<KeyValue> data;
    QList<ChildData> initialData;   ///< Initialized only: every child read.
};

class PathChildrenCachePrivate;

/// A live local copy of every key under a prefix, resynchronised after compaction.
///
/// A live local copy of every key under `<path>/` (all descendants, so child names may contain
/// '/'), kept by a resilient watch. After a compaction swallowed events the cache re-reads
/// the prefix and reports the difference as ordinary added/updated/removed events, so a
/// listener's view and currentData() agree again.
///
/// Events and recovery signals are emitted from the client's dispatcher thread, in etcd's
/// order; getters are safe from any thread.
class QETCD_EXPORT PathChildrenCache : public Recipe
{
    Q_OBJECT

public:
    /// How start() begins.
    enum class StartMode {
        Normal,               ///< No initial read: children appear as they are touched.
        BuildInitialCache,    ///< Read the children first, then watch from right after the read.
        PostInitializedEvent  ///< The same, then one Initialized event carrying the initial data.
    };
    Q_ENUM(StartMode)

    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// A copy of every key under \a path, through \a client.
    PathChildrenCache(Client *client, const QByteArray &path, const RecipeOptions &options = RecipeOptions(),
                      QObject *parent = nullptr);
    /// Closes the cache: its watch ends.
    ~PathChildrenCache() override;

    /// The path with exactly one trailing '/'.
    QByteArray prefix() const;

    /// Finishes once the initial read (if any) is loaded and the watch is created; one-shot.
    QFuture<Status> start(StartMode mode = StartMode::Normal);
    /// Blocks until start()'s future finishes: Ok, DeadlineExceeded, NotStarted, or why start()
    /// failed.
    Status waitOnStartComplete(std::chrono::milliseconds timeout = WaitForever) const;

    /// Every child the cache holds, sorted by name.
    QList<ChildData> currentData() const;
    /// The child \a childName; nothing when the cache does not hold it.
    std::optional<ChildData> currentData(const QByteArray &childName) const;
    /// Every child's value by its name.
    QMap<QByteArray, QByteArray> currentDataAsMap() const;

    /// Re-reads the children and applies the difference in place (never empty in between);
    /// changes the watch delivers meanwhile win over the older read.
    QFuture<Status> rebuild();
    /// Forgets the local copy; etcd is not touched and no event is emitted.
    void clear();

Q_SIGNALS:
    /// A child was added, updated or removed, or the initial read is in.
    void cacheEvent(const QEtcd::PathChildrenCacheEvent &event);
    /// The cache's watch failed, recovered, or gave up (then the copy stops changing).
    void watchRecovery(const QEtcd::WatchRecoveryEvent &event);

protected:
    void doClose() override;

private:
    friend class PathChildrenCachePrivate;
    std::unique_ptr<PathChildrenCachePrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::PathChildrenCacheEvent)
