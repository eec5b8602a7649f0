// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/serviceinstance.h>

#include <QtCore/QMutex>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

namespace QEtcd {

/// How a ServiceProvider picks one instance among those available.
///
/// Picks one instance among those available. select() may be called from any thread at once.
/// Stateful strategies (round-robin, sticky) belong to one provider; never share one.
class QETCD_EXPORT ProviderStrategy
{
public:
    /// Destroys the strategy.
    virtual ~ProviderStrategy();
    /// One of \a instances (sorted by id, ejected ones left out); nothing when the list is empty.
    virtual std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) = 0;
};

/// Picks an instance at random each time.
class QETCD_EXPORT RandomStrategy : public ProviderStrategy
{
public:
    /// One of \a instances, at random.
    std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) override;
};

/// Picks the instances in turn.
class QETCD_EXPORT RoundRobinStrategy : public ProviderStrategy
{
public:
    /// The instance after the one picked last time, by position.
    std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) override;

private:
    std::atomic<quint64> m_cursor{0};
};

/// Keeps picking the same instance while it lasts.
///
/// The last pick again while it is still available (compared by value, id excluded), else
/// whatever the delegate picks.
class QETCD_EXPORT StickyStrategy : public ProviderStrategy
{
public:
    /// Sticks to what \a delegate picks.
    explicit StickyStrategy(std::unique_ptr<ProviderStrategy> delegate = std::make_unique<RandomStrategy>());
    /// The last pick, if it is among \a instances; else the delegate's pick.
    std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) override;

private:
    std::unique_ptr<ProviderStrategy> m_delegate;
    QMutex m_mutex;
    std::optional<ServiceInstance> m_last;
};

/// What a ServiceProvider is configured with.
struct QETCD_EXPORT ProviderOptions : RecipeOptions
{
    /// After this many noteError() calls an instance is left out for downPeriod; >= 1.
    int errorThreshold = 3;
    /// How long an ejected instance is left out; >= 0.
    std::chrono::milliseconds downPeriod{30000};
};

class ServiceCache;
class ServiceProviderPrivate;

/// Chooses one instance of a service, leaving out those that failed too often lately.
///
/// Hands out one instance of a service at a time, chosen by a strategy among those that are
/// not ejected. Before start() every request reads etcd; after it, an owned ServiceCache
/// answers without a round trip. Ejections are local to this provider and end by themselves.
class QETCD_EXPORT ServiceProvider : public Recipe
{
    Q_OBJECT

public:
    /// Hands out instances of \a serviceName under \a namesPath (ServiceRegistry::namesPath()),
    /// chosen by \a strategy; a null strategy means RandomStrategy.
    ServiceProvider(Client *client, const QByteArray &namesPath, const QString &serviceName,
                    std::unique_ptr<ProviderStrategy> strategy = nullptr,
                    const ProviderOptions &options = ProviderOptions(), QObject *parent = nullptr);
    /// Closes the provider and its cache.
    ~ServiceProvider() override;

    /// The service provided.
    QString serviceName() const;
    /// The cache it answers from once started.
    ServiceCache *cache() const;

    /// Starts the cache; one-shot. InvalidArgument for an errorThreshold below 1 or a negative
    /// downPeriod.
    QFuture<Status> start();

    /// One instance, chosen by the strategy; NotFound ("No instances available for service ...")
    /// when every instance is gone or ejected.
    QFuture<ServiceInstanceResult> instanceAsync();
    /// The blocking twin; answers at once from the cache once it is loaded.
    ServiceInstanceResult instance(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

    /// Counts an error against the instance (by value, id excluded); at errorThreshold it is
    /// ejected for downPeriod and its count starts again.
    void noteError(const ServiceInstance &instance);
    /// The instances left out right now.
    QList<ServiceInstance> ejectedInstances() const;

Q_SIGNALS:
    /// \a instance is left out for downPeriod. From the thread that called noteError().
    void instanceEjected(const QEtcd::ServiceInstance &instance);

protected:
    void doClose() override;

private:
    std::unique_ptr<ServiceProviderPrivate> d;
};

} // namespace QEtcd
