// SPDX-License-Identifier: Apache-2.0
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

/// Registers, queries and follows the services under one service path.
///
/// The front door of service discovery under one service path: registers through its own
/// ServiceRegistry, answers queries with one read each, and hands out caches and providers
/// that it closes with itself. Its connection state is aggregated over the registry and every
/// cache and provider it made.
class QETCD_EXPORT ServiceDiscovery : public Recipe
{
    Q_OBJECT

public:
    /// Discovery of the services under \a servicePath, through \a client.
    ServiceDiscovery(Client *client, const QByteArray &servicePath, const RecipeOptions &options = RecipeOptions(),
                     QObject *parent = nullptr);
    /// Closes it, with its registry and every cache and provider it made: registered instances
    /// are removed.
    ~ServiceDiscovery() override;

    /// The service path.
    QByteArray servicePath() const;
    /// `<servicePath>/names`, where the instances live.
    QByteArray namesPath() const;
    /// The registry that registerService() goes through.
    ServiceRegistry *registry() const;

    /// As ServiceRegistry::registerService().
    QFuture<Status> registerService(const ServiceInstance &instance);
    /// As ServiceRegistry::updateService().
    QFuture<Status> updateService(const ServiceInstance &instance);
    /// As ServiceRegistry::unregisterService().
    QFuture<Status> unregisterService(const ServiceInstance &instance);

    /// The names of the services that have at least one instance (not their keys, unlike
    /// etcd-recipes).
    QFuture<ServiceNamesResult> queryForNames() const;
    /// Every instance of \a serviceName, sorted by id, in one read.
    QFuture<ServiceInstancesResult> queryForInstances(const QString &serviceName) const;
    /// The instance \a id of \a serviceName, in one read; NotFound ("ServiceInstance ... not
    /// present") when it is not registered.
    QFuture<ServiceInstanceResult> queryForInstance(const QString &serviceName, const QString &id) const;

    /// A cache of \a serviceName's instances, not started yet; owned by this object and closed
    /// with it. Null after close().
    ServiceCache *serviceCache(const QString &serviceName);
    /// A provider of \a serviceName's instances (a null \a strategy: RandomStrategy), ejecting
    /// an instance for \a downPeriod after \a errorThreshold errors; not started yet, owned by
    /// this object and closed with it. Null after close().
    ServiceProvider *serviceProvider(const QString &serviceName, std::unique_ptr<ProviderStrategy> strategy = nullptr,
                                     int errorThreshold = 3,
                                     std::chrono::milliseconds downPeriod = std::chrono::milliseconds(30000));

protected:
    void doClose() override;

private:
    std::unique_ptr<ServiceDiscoveryPrivate> d;
};

} // namespace QEtcd
