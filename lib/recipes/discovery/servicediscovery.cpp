// SPDX-License-Identifier: Apache-2.0
#include "servicediscovery.h"

#include "client.h"
#include "continuation_p.h"
#include "discovery_p.h"
#include "keymirror_p.h"
#include "servicecache.h"
#include "serviceregistry.h"

#include <QtCore/QMutex>

#include <algorithm>
#include <vector>

namespace QEtcd {

namespace Internal {

QByteArray appendToPath(const QByteArray &a, const QByteArray &b)
{
    const QByteArray head = a.endsWith('/') ? a.chopped(1) : a;
    const QByteArray tail = b.startsWith('/') ? b.mid(1) : b;
    return head + '/' + tail;
}

QByteArray namesPathOf(const QByteArray &servicePath)
{
    return appendToPath(servicePath, "names");
}

QByteArray servicePrefix(const QByteArray &namesPath, const QString &serviceName)
{
    return appendToPath(namesPath, serviceName.toUtf8()) + '/';
}

Status checkServiceName(const QString &serviceName, const QString &context)
{
    if (serviceName.isEmpty() || serviceName.contains(QLatin1Char('/')))
        return Status(StatusCode::InvalidArgument,
                      context + QStringLiteral(": a service name must be non-empty and free of '/' (got \"%1\")")
                                    .arg(serviceName));
    return {};
}

QFuture<ServiceInstancesResult> readInstances(Client *client, const QByteArray &namesPath, const QString &serviceName,
                                              const QString &context)
{
    RangeOptions children;
    children.range = KeyRange::prefix();
    children.sortTarget = SortTarget::Key;
    children.sortOrder = SortOrder::Ascending;
    return after(client->get(servicePrefix(namesPath, serviceName), children), [context](const RangeResult &read) {
        ServiceInstancesResult result;
        result.status = read.status.withContext(context);
        for (const KeyValue &kv : read.kvs) {
            if (auto instance = ServiceInstance::fromJson(kv.value))
                result.instances.append(*instance);
        }
        return result;
    });
}

} // namespace Internal

using namespace Internal;

class ServiceDiscoveryPrivate
{
public:
    QByteArray servicePath;
    QByteArray namesPath;
    std::unique_ptr<ServiceRegistry> registry;

    QMutex mutex;
    std::vector<std::unique_ptr<Recipe>> made;  // caches and providers, guarded by mutex
};

ServiceDiscovery::ServiceDiscovery(Client *client, const QByteArray &servicePath, const RecipeOptions &options,
                                   QObject *parent)
    : Recipe(client, QStringLiteral("ServiceDiscovery"), servicePath, options, parent),
      d(std::make_unique<ServiceDiscoveryPrivate>())
{
    d->servicePath = servicePath;
    d->namesPath = namesPathOf(servicePath);
    RecipeOptions shared = options;
    shared.clientId = clientId();
    d->registry = std::make_unique<ServiceRegistry>(client, servicePath, shared);
    follow(d->registry.get(), QStringLiteral("registry"));
}

ServiceDiscovery::~ServiceDiscovery()
{
    close();
}


QByteArray ServiceDiscovery::servicePath() const
{
    return d->servicePath;
}

QByteArray ServiceDiscovery::namesPath() const
{
    return d->namesPath;
}

ServiceRegistry *ServiceDiscovery::registry() const
{
    return d->registry.get();
}

QFuture<Status> ServiceDiscovery::registerService(const ServiceInstance &instance)
{
    beginStart();
    return d->registry->registerService(instance);
}

QFuture<Status> ServiceDiscovery::updateService(const ServiceInstance &instance)
{
    return d->registry->updateService(instance);
}

QFuture<Status> ServiceDiscovery::unregisterService(const ServiceInstance &instance)
{
    return d->registry->unregisterService(instance);
}

QFuture<ServiceNamesResult> ServiceDiscovery::queryForNames() const
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(ServiceNamesResult{status, {}});
    RangeOptions keys;
    keys.range = KeyRange::prefix();
    keys.keysOnly = true;
    const QByteArray prefix = d->namesPath + '/';
    const QString where = context() + QStringLiteral(": queryForNames");
    return after(client()->get(prefix, keys), [prefix, where](const RangeResult &read) {
        ServiceNamesResult result;
        result.status = read.status.withContext(where);
        for (const KeyValue &kv : read.kvs) {
            const QByteArray rest = kv.key.mid(prefix.size());
            const qsizetype slash = rest.indexOf('/');
            if (slash > 0)
                result.names.append(QString::fromUtf8(rest.left(slash)));
        }
        result.names.sort();
        result.names.removeDuplicates();
        return result;
    });
}

QFuture<ServiceInstancesResult> ServiceDiscovery::queryForInstances(const QString &serviceName) const
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(ServiceInstancesResult{status, {}});
    if (Status status = checkServiceName(serviceName, context()); !status)
        return QtFuture::makeReadyFuture(ServiceInstancesResult{status, {}});
    return readInstances(client(), d->namesPath, serviceName, context() + QStringLiteral(": queryForInstances"));
}

QFuture<ServiceInstanceResult> ServiceDiscovery::queryForInstance(const QString &serviceName, const QString &id) const
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(ServiceInstanceResult{status, {}});
    if (Status status = checkServiceName(serviceName, context()); !status)
        return QtFuture::makeReadyFuture(ServiceInstanceResult{status, {}});
    const QByteArray key = servicePrefix(d->namesPath, serviceName) + id.toUtf8();
    const QString where = context() + QStringLiteral(": queryForInstance");
    return after(client()->get(key), [key, where](const RangeResult &read) {
        if (!read.status)
            return ServiceInstanceResult{read.status.withContext(where), {}};
        if (read.kvs.isEmpty())
            return ServiceInstanceResult{Status(StatusCode::NotFound,
                                                QStringLiteral("ServiceInstance %1 not present").arg(QString::fromUtf8(key))),
                                         {}};
        QString why;
        if (auto instance = ServiceInstance::fromJson(read.kvs.first().value, &why))
            return ServiceInstanceResult{Status(), *instance};
        return ServiceInstanceResult{
            Status(StatusCode::InvalidArgument, where + QStringLiteral(": %1 is not a service instance: %2")
                                                            .arg(QString::fromUtf8(key), why)),
            {}};
    });
}

ServiceCache *ServiceDiscovery::serviceCache(const QString &serviceName)
{
    if (isClosed())
        return nullptr;
    beginStart();
    RecipeOptions shared = options();
    shared.clientId = clientId();
    auto cache = std::make_unique<ServiceCache>(client(), d->namesPath, serviceName, shared);
    ServiceCache *made = cache.get();
    follow(made, QStringLiteral("cache ") + serviceName);
    QMutexLocker locker(&d->mutex);
    d->made.push_back(std::move(cache));
    return made;
}

ServiceProvider *ServiceDiscovery::serviceProvider(const QString &serviceName, std::unique_ptr<ProviderStrategy> strategy,
                                                   int errorThreshold, std::chrono::milliseconds downPeriod)
{
    if (isClosed())
        return nullptr;
    beginStart();
    ProviderOptions providerOptions;
    static_cast<RecipeOptions &>(providerOptions) = options();
    providerOptions.clientId = clientId();
    providerOptions.errorThreshold = errorThreshold;
    providerOptions.downPeriod = downPeriod;
    auto provider = std::make_unique<ServiceProvider>(client(), d->namesPath, serviceName, std::move(strategy),
                                                      providerOptions);
    ServiceProvider *made = provider.get();
    follow(made, QStringLiteral("provider ") + serviceName);
    QMutexLocker locker(&d->mutex);
    d->made.push_back(std::move(provider));
    return made;
}

void ServiceDiscovery::doClose()
{
    d->registry->close();
    QMutexLocker locker(&d->mutex);
    for (const auto &recipe : d->made)
        recipe->close();
}

} // namespace QEtcd
