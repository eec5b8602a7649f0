#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/serviceinstance.h>
#include <QEtcd/watcher.h>

#include <memory>
#include <optional>

namespace QEtcd {

struct QETCD_EXPORT ServiceCacheEvent
{
    enum class Type { Put, Delete };
    Type type = Type::Put;
    bool isAdd = false;  // Put of an instance the cache did not hold
    QString key;         // "<service>/<id>", relative to the names path
    std::optional<ServiceInstance> instance;  // Delete: the one the cache held, if any
};

class ServiceCachePrivate;

// The live list of one service's instances, read from <namesPath>/<service>/ and kept by a
// resilient watch; after a compaction it re-reads and reports the difference as ordinary
// events, so listeners and instances() agree again. Values that are not instance JSON are
// recorded as errors and left out.
//
// Signals are emitted from the client's dispatcher thread; getters are safe from any thread.
class QETCD_EXPORT ServiceCache : public Recipe
{
    Q_OBJECT
    Q_PROPERTY(int count READ count NOTIFY instancesChanged)

public:
    // namesPath is the registry's <servicePath>/names.
    ServiceCache(Client *client, const QByteArray &namesPath, const QString &serviceName,
                 const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    ~ServiceCache() override;

    QString serviceName() const;

    // Reads the instances, then watches from right after the read; finishes once both are
    // done. One-shot. The initial instances are not replayed as events.
    QFuture<Status> start();

    // Sorted by id, so a model built from it keeps a stable order.
    QList<ServiceInstance> instances() const;
    int count() const;

Q_SIGNALS:
    void cacheChanged(const QEtcd::ServiceCacheEvent &event);
    // After every batch of changes, for models that re-read instances().
    void instancesChanged();
    void watchRecovery(const QEtcd::WatchRecoveryEvent &event);

protected:
    void doClose() override;

private:
    friend class ServiceCachePrivate;
    std::unique_ptr<ServiceCachePrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::ServiceCacheEvent)
