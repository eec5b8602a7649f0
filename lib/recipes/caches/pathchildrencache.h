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

struct QETCD_EXPORT ChildData
{
    QByteArray name;  // relative to the cache's prefix; may contain '/'
    KeyValue kv;      // kv.key is the full key
};

struct QETCD_EXPORT PathChildrenCacheEvent
{
    enum class Type { ChildAdded, ChildUpdated, ChildRemoved, Initialized };
    Type type = Type::ChildAdded;
    QByteArray childName;           // empty for Initialized
    std::optional<KeyValue> data;   // ChildRemoved: what the cache held, if it held the child
    QList<ChildData> initialData;   // Initialized only
};

class PathChildrenCachePrivate;

// A live local copy of every key under <path>/ (all descendants, so child names may contain
// '/'), kept by a resilient watch. After a compaction swallowed events the cache re-reads
// the prefix and reports the difference as ordinary added/updated/removed events, so a
// listener's view and currentData() agree again.
//
// Events and recovery signals are emitted from the client's dispatcher thread, in etcd's
// order; getters are safe from any thread.
class QETCD_EXPORT PathChildrenCache : public Recipe
{
    Q_OBJECT

public:
    enum class StartMode {
        Normal,               // no initial read: children appear as they are touched
        BuildInitialCache,    // read the children first, then watch from right after the read
        PostInitializedEvent  // the same, then one Initialized event carrying the initial data
    };
    Q_ENUM(StartMode)

    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    PathChildrenCache(Client *client, const QByteArray &path, const RecipeOptions &options = RecipeOptions(),
                      QObject *parent = nullptr);
    ~PathChildrenCache() override;

    QByteArray prefix() const;  // the path with exactly one trailing '/'

    // Finishes once the initial read (if any) is loaded and the watch is created; one-shot.
    QFuture<Status> start(StartMode mode = StartMode::Normal);
    // The blocking twin of start()'s future: Ok, DeadlineExceeded, NotStarted, or why start failed.
    Status waitOnStartComplete(std::chrono::milliseconds timeout = WaitForever) const;

    QList<ChildData> currentData() const;  // sorted by name
    std::optional<ChildData> currentData(const QByteArray &childName) const;
    QMap<QByteArray, QByteArray> currentDataAsMap() const;  // name -> value

    // Re-reads the children and applies the difference in place (never empty in between);
    // changes the watch delivers meanwhile win over the older read.
    QFuture<Status> rebuild();
    // Forgets the local copy; etcd is not touched and no event is emitted.
    void clear();

Q_SIGNALS:
    void cacheEvent(const QEtcd::PathChildrenCacheEvent &event);
    void watchRecovery(const QEtcd::WatchRecoveryEvent &event);

protected:
    void doClose() override;

private:
    friend class PathChildrenCachePrivate;
    std::unique_ptr<PathChildrenCachePrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::PathChildrenCacheEvent)
