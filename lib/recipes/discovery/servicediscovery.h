#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/serviceinstance.h>
#include <QEtcd/serviceprovider.h>

#include <memory>

namespace QEtcd {

class ServiceCache;
class ServiceRegistry;
class ServiceDiscoveryPrivate;

// The front door of service discovery under one service path: registers through its own
// ServiceRegistry, answers queries with one read each, and hands out caches and providers
// that it closes with itself. Its connection state is aggregated over the registry and every
// cache and provider it made.
class QETCD_EXPORT ServiceDiscovery : public Recipe
{
    Q_OBJECT

public:
    ServiceDiscovery(Client *client, const QByteArray &servicePath, const RecipeOptions &options = RecipeOptions(),
                     QObject *parent = nullptr);
    ~ServiceDiscovery() override;

    QByteArray servicePath() const;
    QByteArray namesPath() const;  // <servicePath>/names
    ServiceRegistry *registry() const;

    QFuture<Status> registerService(const ServiceInstance &instance);
    QFuture<Status> updateService(const ServiceInstance &instance);
    QFuture<Status> unregisterService(const ServiceInstance &instance);

    // The names of the services that have at least one instance (not their keys, unlike
    // etcd-recipes).
    QFuture<ServiceNamesResult> queryForNames() const;
    QFuture<ServiceInstancesResult> queryForInstances(const QString &serviceName) const;
    // NotFound ("ServiceInstance <key> not present") when it is not registered.
    QFuture<ServiceInstanceResult> queryForInstance(const QString &serviceName, const QString &id) const;

    // Not started yet; owned by this object and closed with it. Null after close().
    ServiceCache *serviceCache(const QString &serviceName);
    ServiceProvider *serviceProvider(const QString &serviceName, std::unique_ptr<ProviderStrategy> strategy = nullptr,
                                     int errorThreshold = 3,
                                     std::chrono::milliseconds downPeriod = std::chrono::milliseconds(30000));

protected:
    void doClose() override;

private:
    std::unique_ptr<ServiceDiscoveryPrivate> d;
};

} // namespace QEtcd
