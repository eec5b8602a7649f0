// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "eventsession.h"
#include "kvformat.h"
#include "recipeoutput.h"

#include <QEtcd/servicecache.h>
#include <QEtcd/servicediscovery.h>
#include <QEtcd/serviceregistry.h>

namespace QEtcd::Cli {

namespace {
QByteArray servicePath(const Invocation &invocation)
{
    return invocation.value(QStringLiteral("service-path")).toUtf8();
}

QJsonObject instanceJson(const ServiceInstance &instance)
{
    QJsonObject object{{QLatin1String("name"), instance.name()},
                       {QLatin1String("id"), instance.id()},
                       {QLatin1String("address"), instance.address()},
                       {QLatin1String("port"), instance.port()},
                       {QLatin1String("ssl_port"), instance.sslPort()},
                       {QLatin1String("uri"), instance.uri()},
                       {QLatin1String("enabled"), instance.isEnabled()},
                       {QLatin1String("service_type"), ServiceInstance::serviceTypeName(instance.serviceType())},
                       {QLatin1String("registration_time_utc"), instance.registrationTimeUtc()}};
    if (!instance.jsonPayload().isEmpty())
        object.insert(QLatin1String("payload"), instance.jsonPayload());
    return object;
}

int runRegister(Invocation &invocation)
{
    const QString name = invocation.arguments().value(1);
    if (!invocation.isSet(QStringLiteral("address")) || !invocation.isSet(QStringLiteral("port")))
        return invocation.usageError(QStringLiteral("register needs --address and --port"));
    const auto port = parseCount(invocation.value(QStringLiteral("port")), 0);
    if (!port || *port > 65535) {
        return invocation.usageError(QStringLiteral("--port must be a number from 0 to 65535, not \"%1\"")
                                         .arg(invocation.value(QStringLiteral("port"))));
    }
    RecipeOptions options;
    std::optional<std::chrono::milliseconds> hold;
    if (QString error; !parseLeaseOptions(invocation, &options, &hold, &error))
        return invocation.usageError(error);

    ServiceInstance instance(name, invocation.value(QStringLiteral("payload")));
    instance.setAddress(invocation.value(QStringLiteral("address")));
    instance.setPort(int(*port));

    EventSession session(invocation, hold);
    ServiceRegistry registry(&invocation.client(), servicePath(invocation), options);
    const QString key = QString::fromUtf8(registry.instanceKey(instance));
    QObject::connect(&registry, &ServiceRegistry::leaseEvent, &session,
                     [&session](const QByteArray &instanceKey, const LeaseEvent &event) {
                         QJsonObject fields = leaseEventFields(event);
                         fields.insert(QLatin1String("key"), QString::fromUtf8(instanceKey));
                         session.write(QStringLiteral("leaseEvent"), fields);
                         if (event.kind == LeaseEventKind::Failed) {
                             session.fail(event.cause.withContext(
                                 QStringLiteral("service register: healing lease %1 stopped").arg(leaseHex(event.leaseId))));
                         }
                     });
    QObject::connect(&registry, &ServiceRegistry::registrationRemoved, &session,
                     [&session](const QByteArray &instanceKey, qint64 revision, const Status &cause) {
                         QJsonObject fields{{QLatin1String("key"), QString::fromUtf8(instanceKey)},
                                            {QLatin1String("revision"), revision}};
                         insertCause(&fields, cause);
                         session.write(QStringLiteral("registrationRemoved"), fields);
                         session.fail(cause.withContext(QStringLiteral("service register")));
                     });
    session.reportConnectionState(registry);

    const QFuture<Status> registered = registry.registerService(instance);
    session.run(registered, QStringLiteral("service register \"%1\"").arg(name), [&] {
        QJsonObject fields = instanceJson(instance);
        fields.insert(QLatin1String("key"), key);
        fields.insert(QLatin1String("lease_id"), leaseHex(registry.leaseIdOf(instance)));
        fields.insert(QLatin1String("ttl"), options.ttlSeconds);
        session.write(QStringLiteral("registered"), fields);
    });

    // Waiting for the answer, because destroying the client cancels calls still in flight, so
    // that the instance is gone when the process exits.
    bool unregistered = false;
    if (session.isEstablished() && !session.hasFailed()) {
        const Status status =
            invocation.await(registry.unregisterService(instance), QStringLiteral("unregister \"%1\"").arg(key));
        unregistered = status.isOk();
        if (!unregistered)
            session.fail(status);
    }
    registry.close();
    waitFor(registered, invocation.requestDeadline());
    return session.finish({{QLatin1String("key"), key}, {QLatin1String("unregistered"), unregistered}});
}

int runWatchList(Invocation &invocation, const QString &name)
{
    std::optional<std::chrono::milliseconds> hold;
    QString error;
    if (!parseHold(invocation, &hold, &error))
        return invocation.usageError(error);

    EventSession session(invocation, hold);
    ServiceDiscovery discovery(&invocation.client(), servicePath(invocation));
    ServiceCache *cache = discovery.serviceCache(name);
    QObject::connect(cache, &ServiceCache::cacheChanged, &session, [&session](const ServiceCacheEvent &event) {
        QJsonObject fields = event.instance ? instanceJson(*event.instance) : QJsonObject();
        fields.insert(QLatin1String("key"), event.key);
        if (event.type == ServiceCacheEvent::Type::Delete)
            session.write(QStringLiteral("instanceRemoved"), fields);
        else
            session.write(event.isAdd ? QStringLiteral("instanceAdded") : QStringLiteral("instanceUpdated"), fields);
    });
    QObject::connect(cache, &ServiceCache::watchRecovery, &session, [&session](const WatchRecoveryEvent &event) {
        QJsonObject fields{{QLatin1String("kind"), enumName(event.kind)},
                           {QLatin1String("resume_revision"), event.resumeRevision}};
        insertCause(&fields, event.cause);
        session.write(QStringLiteral("watchRecovery"), fields);
        if (event.kind == WatchRecoveryKind::Failed)
            session.fail(event.cause.withContext(QStringLiteral("service list: the watch gave up")));
    });
    session.reportConnectionState(*cache);
    session.run(cache->start(), QStringLiteral("service list \"%1\"").arg(name), [&] {
        for (const ServiceInstance &instance : cache->instances())
            session.write(QStringLiteral("instance"), instanceJson(instance));
        session.write(QStringLiteral("established"),
                      {{QLatin1String("name"), name}, {QLatin1String("count"), cache->count()}});
    });
    discovery.close();
    return session.finish({{QLatin1String("name"), name}});
}

int runServiceList(Invocation &invocation)
{
    const QString name = invocation.arguments().value(1);
    if (invocation.isSet(QStringLiteral("watch"))) {
        if (name.isEmpty())
            return invocation.usageError(QStringLiteral("--watch needs a service NAME"));
        return runWatchList(invocation, name);
    }
    if (invocation.isSet(QStringLiteral("hold")))
        return invocation.usageError(QStringLiteral("--hold only applies with --watch"));
    ServiceDiscovery discovery(&invocation.client(), servicePath(invocation));
    if (name.isEmpty()) {
        const ServiceNamesResult result = invocation.await(discovery.queryForNames(), QStringLiteral("list services"));
        if (!result.status)
            return invocation.failed(result.status);
        for (const QString &service : result.names)
            invocation.print(QJsonObject{{QLatin1String("name"), service}});
        return Success;
    }
    const ServiceInstancesResult result = invocation.await(discovery.queryForInstances(name),
                                                           QStringLiteral("list service \"%1\"").arg(name));
    if (!result.status)
        return invocation.failed(result.status);
    for (const ServiceInstance &instance : result.instances)
        invocation.print(instanceJson(instance));
    return Success;
}

int runService(Invocation &invocation)
{
    return runAction(invocation,
                     {{QStringLiteral("register"), {QStringLiteral("NAME")},
                       {QStringLiteral("address"), QStringLiteral("port"), QStringLiteral("ttl"),
                        QStringLiteral("payload"), QStringLiteral("hold")},
                       runRegister},
                      {QStringLiteral("list"), {QStringLiteral("[NAME]")}, {QStringLiteral("watch"), QStringLiteral("hold")},
                       runServiceList}});
}
} // namespace

Command serviceCommand()
{
    Command command;
    command.name = QStringLiteral("service");
    command.summary = QStringLiteral("Register or list service instances (service register|list [NAME])");
    command.details = QStringLiteral(
        "Actions:\n"
        "  register NAME  Publishes an instance of NAME (--address, --port) at\n"
        "                 <service-path>/names/NAME/<id> on a self-healing lease of --ttl\n"
        "                 seconds, keeps it until SIGINT or SIGTERM, or until --hold has\n"
        "                 passed, then unregisters it and exits 0. Deleting its key\n"
        "                 (etcdctl del) deregisters it: \"registrationRemoved\", it is\n"
        "                 not registered again, exit 1.\n"
        "  list [NAME]    Without NAME: one {\"name\"} line per service with instances.\n"
        "                 With NAME: one JSON line per instance. With --watch: the\n"
        "                 instances as \"instance\" events, then changes until SIGINT,\n"
        "                 SIGTERM or --hold.\n"
        "\n"
        "Output: JSON lines (whatever --json says). An instance has \"name\", \"id\",\n"
        "\"address\", \"port\", \"ssl_port\", \"uri\", \"enabled\", \"service_type\",\n"
        "\"registration_time_utc\" (ms since the epoch) and \"payload\" when there is one.\n"
        "register and list --watch print events, each starting with \"event\" and\n"
        "\"mono_ms\" (CLOCK_MONOTONIC in milliseconds):\n"
        "  registered       the instance, \"key\", \"lease_id\", \"ttl\"\n"
        "  leaseEvent       \"key\", \"kind\" Suspended/Expired/Restored/Failed (healing\n"
        "                   gave up or someone took the key: exit 1), \"lease_id\",\n"
        "                   \"new_lease_id\" for Restored, \"cause\"/\"cause_code\"\n"
        "  registrationRemoved  \"key\", \"revision\", \"cause\", \"cause_code\"\n"
        "                   (OwnershipLost): another client deleted the instance or moved\n"
        "                   it to another lease; exit 1\n"
        "  connectionState  \"state\" and \"previous\"\n"
        "  instance         list --watch: an instance present at the start\n"
        "  established      list --watch: \"name\", \"count\"\n"
        "  instanceAdded, instanceUpdated, instanceRemoved   the instance (when known)\n"
        "                   and \"key\" (<name>/<id>)\n"
        "  watchRecovery    \"kind\", \"resume_revision\", \"cause\"; Failed exits 1\n"
        "  closed           \"reason\" (SIGINT, SIGTERM, hold or failed); register:\n"
        "                   \"key\", \"unregistered\"\n");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("register or list")},
                         {QStringLiteral("NAME"), QStringLiteral("The service's name"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("service-path"),
                           QStringLiteral("Where the services live [default /services]"), QStringLiteral("PATH"),
                           QStringLiteral("/services")),
        QCommandLineOption(QStringLiteral("address"), QStringLiteral("register: the instance's address"),
                           QStringLiteral("ADDRESS")),
        QCommandLineOption(QStringLiteral("port"), QStringLiteral("register: the instance's port"),
                           QStringLiteral("PORT")),
        QCommandLineOption(QStringLiteral("payload"), QStringLiteral("register: the instance's payload text"),
                           QStringLiteral("TEXT")),
        ttlOption(),
        QCommandLineOption(QStringLiteral("watch"), QStringLiteral("list: keep printing changes")),
        holdOption(),
    };
    command.run = runService;
    return command;
}

} // namespace QEtcd::Cli
