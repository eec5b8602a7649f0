// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/serviceinstance.h>
#include <QEtcd/watcher.h>

#include <memory>
#include <optional>

namespace QEtcd {

/// One change of a ServiceCache.
struct QETCD_EXPORT ServiceCacheEvent
{
    /// What changed.
    enum class Type {
        Put,    ///< An instance was registered or updated.
        Delete  ///< An instance went.
    };
    Type type = Type::Put;  ///< What changed.
    bool isAdd = false;     ///< A Put of an instance the cache did not hold.
    QString key;            ///< "service/id", relative to the names path.
    /// The instance; for a Delete, the one the cache held, if any.
    std::optional<ServiceInstance> instance;
};

class ServiceCachePrivate;

/// The live list of one service's instances.
///
/// The live list of one service's instances, read from `<namesPath>/<service>/` and kept by a
/// resilient watch; after a compaction it re-reads and reports the difference as ordinary
/// events, so listeners and instances() agree again. Values that are not instance JSON are
/// recorded as errors and left out.
///
/// Signals are emitted from the client's dispatcher thread; getters are safe from any thread.
class QETCD_EXPORT ServiceCache : public Recipe
{
    Q_OBJECT
    /// How many instances the cache holds.
    Q_PROPERTY(int count READ count NOTIFY instancesChanged)

public:
    /// The instances of \a serviceName under \a namesPath, the registry's
    /// `<servicePath>/names` (ServiceRegistry::namesPath()).
    ServiceCache(Client *client, const QByteArray &namesPath, const QString &serviceName,
                 const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    /// Closes the cache: its watch ends.
    ~ServiceCache() override;

    /// The service followed.
    QString serviceName() const;

    /// Reads the instances, then watches from right after the read; finishes once both are
    /// done. One-shot. The initial instances are not replayed as events.
    QFuture<Status> start();

    /// The instances, sorted by id, so a model built from it keeps a stable order.
    QList<ServiceInstance> instances() const;
    /// How many instances the cache holds.
    int count() const;

Q_SIGNALS:
    /// One instance was put or deleted.
    void cacheChanged(const QEtcd::ServiceCacheEvent &event);
    /// After every batch of changes, for models that re-read instances().
    void instancesChanged();
    /// The cache's watch failed, recovered, or gave up (then the copy stops changing).
    void watchRecovery(const QEtcd::WatchRecoveryEvent &event);

protected:
    void doClose() override;

private:
    friend class ServiceCachePrivate;
    std::unique_ptr<ServiceCachePrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::ServiceCacheEvent)
