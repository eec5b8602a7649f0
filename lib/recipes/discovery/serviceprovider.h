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

// Picks one instance among those available. select() may be called from any thread at once.
// Stateful strategies (round-robin, sticky) belong to one provider; never share one.
class QETCD_EXPORT ProviderStrategy
{
public:
    virtual ~ProviderStrategy();
    virtual std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) = 0;
};

class QETCD_EXPORT RandomStrategy : public ProviderStrategy
{
public:
    std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) override;
};

class QETCD_EXPORT RoundRobinStrategy : public ProviderStrategy
{
public:
    std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) override;

private:
    std::atomic<quint64> m_cursor{0};
};

// The last pick again while it is still available (compared by value, id excluded), else
// whatever the delegate picks.
class QETCD_EXPORT StickyStrategy : public ProviderStrategy
{
public:
    explicit StickyStrategy(std::unique_ptr<ProviderStrategy> delegate = std::make_unique<RandomStrategy>());
    std::optional<ServiceInstance> select(const QList<ServiceInstance> &instances) override;

private:
    std::unique_ptr<ProviderStrategy> m_delegate;
    QMutex m_mutex;
    std::optional<ServiceInstance> m_last;
};

struct QETCD_EXPORT ProviderOptions : RecipeOptions
{
    // After this many noteError() calls an instance is left out for downPeriod.
    int errorThreshold = 3;
    std::chrono::milliseconds downPeriod{30000};
};

class ServiceCache;
class ServiceProviderPrivate;

// Hands out one instance of a service at a time, chosen by a strategy among those that are
// not ejected. Before start() every request reads etcd; after it, an owned ServiceCache
// answers without a round trip. Ejections are local to this provider and end by themselves.
class QETCD_EXPORT ServiceProvider : public Recipe
{
    Q_OBJECT

public:
    // A null strategy means RandomStrategy.
    ServiceProvider(Client *client, const QByteArray &namesPath, const QString &serviceName,
                    std::unique_ptr<ProviderStrategy> strategy = nullptr,
                    const ProviderOptions &options = ProviderOptions(), QObject *parent = nullptr);
    ~ServiceProvider() override;

    QString serviceName() const;
    ServiceCache *cache() const;

    // Starts the cache; one-shot.
    QFuture<Status> start();

    // NotFound ("No instances available for service <name>") when every instance is gone
    // or ejected.
    QFuture<ServiceInstanceResult> instanceAsync();
    // The blocking twin; answers at once from the cache once it is loaded.
    ServiceInstanceResult instance(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

    // Counts an error against the instance (by value, id excluded); at errorThreshold it is
    // ejected for downPeriod and its count starts again.
    void noteError(const ServiceInstance &instance);
    QList<ServiceInstance> ejectedInstances() const;

Q_SIGNALS:
    // From the thread that called noteError().
    void instanceEjected(const QEtcd::ServiceInstance &instance);

protected:
    void doClose() override;

private:
    std::unique_ptr<ServiceProviderPrivate> d;
};

} // namespace QEtcd
