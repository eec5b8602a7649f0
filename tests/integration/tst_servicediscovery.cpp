// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/servicecache.h>
#include <QEtcd/servicediscovery.h>
#include <QEtcd/serviceprovider.h>
#include <QEtcd/serviceregistry.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
// "Put <key> add", "Put <key>", "Delete <key>": a cache's events in a comparable form.
QStringList cacheEvents(const QSignalSpy &spy)
{
    QStringList list;
    for (const QList<QVariant> &arguments : spy) {
        const auto event = arguments.at(0).value<ServiceCacheEvent>();
        list.append((event.type == ServiceCacheEvent::Type::Put ? QStringLiteral("Put ") : QStringLiteral("Delete "))
                    + event.key + (event.isAdd ? QStringLiteral(" add") : QString()));
    }
    return list;
}

QList<int> portsOf(const QList<ServiceInstance> &instances)
{
    QList<int> ports;
    for (const ServiceInstance &instance : instances)
        ports.append(instance.port());
    return ports;
}

ServiceInstance instanceOn(const QString &name, int port)
{
    ServiceInstance instance(name, QStringLiteral(R"({"port":%1})").arg(port));
    instance.setAddress(QStringLiteral("127.0.0.1"));
    instance.setPort(port);
    return instance;
}

// The instances sorted as the cache sorts them: by id.
QList<ServiceInstance> byId(QList<ServiceInstance> instances)
{
    std::sort(instances.begin(), instances.end(),
              [](const ServiceInstance &a, const ServiceInstance &b) { return a.id() < b.id(); });
    return instances;
}
} // namespace

class tst_ServiceDiscovery : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    ClientOptions direct() const { return ClientOptions::fromEndpoints(m_cluster.clientUrls()); }

    // Behind a proxy, with keep-alive pings that notice a blackhole within about 7 s.
    static ClientOptions through(const FaultProxy &proxy)
    {
        ClientOptions options = ClientOptions::fromEndpoints({proxy.url()});
        options.keepAliveTime = 5s;
        options.keepAliveTimeout = 2s;
        return options;
    }

    static RecipeOptions quick(qint64 ttl)
    {
        RecipeOptions options;
        options.ttlSeconds = ttl;
        RetryPolicy::ExponentialBackoff backoff;
        backoff.initialDelay = 100ms;
        backoff.maxDelay = 1s;
        options.resilience.lease = LeaseResilience{RetryPolicy::exponentialBackoff(backoff), 1s};
        options.resilience.watch = WatchResilience{RetryPolicy::exponentialBackoff(backoff), true};
        return options;
    }

    KeyValue read(const QByteArray &key)
    {
        const auto future = m_client->get(key);
        return awaitFuture(future) ? future.result().kvs.value(0) : KeyValue();
    }

    qint64 put(const QByteArray &key, const QByteArray &value)
    {
        const auto future = m_client->put(key, value);
        return awaitFuture(future) && future.result().status ? future.result().header.revision : -1;
    }

    template <class T>
    static T await(const QFuture<T> &future)
    {
        if (!awaitFuture(future))
            return T{Status(StatusCode::DeadlineExceeded, QStringLiteral("did not finish in time")), {}};
        return future.result();
    }

    static Status await(const QFuture<Status> &future)
    {
        if (!awaitFuture(future))
            return Status(StatusCode::DeadlineExceeded, QStringLiteral("did not finish in time"));
        return future.result();
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ConnectionState>();
        qRegisterMetaType<LeaseEvent>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(direct());
    }

    void layoutAndJsonAreTheReferences()
    {
        ServiceDiscovery discovery(m_client.get(), "/disc/layout/", quick(10));
        QCOMPARE(discovery.context(), QString("ServiceDiscovery[/disc/layout/]"));
        QCOMPARE(discovery.namesPath(), QByteArray("/disc/layout/names"));
        ServiceInstance orders("orders", R"({"zone":"eu-1"})");
        orders.setAddress("10.1.2.3");
        orders.setPort(8080);
        orders.setRegistrationTimeUtc(1700000000123);
        QCOMPARE(await(discovery.registerService(orders)), Status());

        const QByteArray key = "/disc/layout/names/orders/" + orders.id().toUtf8();
        QCOMPARE(discovery.registry()->instanceKey(orders), key);
        const KeyValue stored = read(key);
        QCOMPARE(stored.value, "{\"name\":\"orders\",\"jsonPayload\":\"{\\\"zone\\\":\\\"eu-1\\\"}\",\"address\":\"10.1.2.3\","
                               R"("port":8080,"sslPort":-1,"registrationTimeUTC":1700000000123,)"
                               R"("serviceType":"DYNAMIC","uri":"","enabled":true,"id":")"
                                   + orders.id().toUtf8() + R"("})");
        QVERIFY(stored.lease > 0);
        QCOMPARE(stored.lease, discovery.registry()->leaseIdOf(orders));

        // A registration written by etcd-recipes itself is read back field by field.
        const QByteArray foreign =
            R"({"name":"orders","jsonPayload":"","address":"h","port":1,"sslPort":2,"registrationTimeUTC":3,)"
            R"("serviceType":"STATIC","uri":"u","enabled":false,"id":"Kt1ab9Z"})";
        QVERIFY(put("/disc/layout/names/orders/Kt1ab9Z", foreign) > 0);
        QVERIFY(put("/disc/layout/names/billing/xyz1234", instanceOn("billing", 1).toJson()) > 0);
        // A sibling path that only shares the prefix's characters is not ours.
        QVERIFY(put("/disc/layout/names2/other/abc", instanceOn("other", 1).toJson()) > 0);

        const ServiceNamesResult names = await(discovery.queryForNames());
        QVERIFY2(names.status.isOk(), qPrintable(names.status.toString()));
        QCOMPARE(names.names, (QStringList{"billing", "orders"}));

        const ServiceInstancesResult all = await(discovery.queryForInstances("orders"));
        QVERIFY(all.status.isOk());
        QCOMPARE(all.instances.size(), 2);
        const ServiceInstance theirs = all.instances[0].id() == "Kt1ab9Z" ? all.instances[0] : all.instances[1];
        QCOMPARE(theirs.toJson(), foreign);
        QCOMPARE(theirs.serviceType(), ServiceInstance::ServiceType::Static);

        const ServiceInstanceResult one = await(discovery.queryForInstance("orders", orders.id()));
        QVERIFY(one.status.isOk());
        QCOMPARE(one.instance, orders);
        QCOMPARE(one.instance.id(), orders.id());
        const ServiceInstanceResult missing = await(discovery.queryForInstance("orders", "nope"));
        QCOMPARE(missing.status.code(), StatusCode::NotFound);
        QCOMPARE(missing.status.message(), QString("ServiceInstance /disc/layout/names/orders/nope not present"));
        QCOMPARE(await(discovery.queryForInstances("a/b")).status.code(), StatusCode::InvalidArgument);

        discovery.close();
        QTRY_VERIFY_WITH_TIMEOUT(read(key).key.isEmpty(), scaledMs(3000));
        QCOMPARE(read("/disc/layout/names/orders/Kt1ab9Z").value, foreign);  // not ours: untouched
    }

    void registerUpdateUnregister()
    {
        ServiceRegistry registry(m_client.get(), "/disc/crud", quick(10));
        ServiceInstance instance = instanceOn("api", 1);
        const QByteArray key = "/disc/crud/names/api/" + instance.id().toUtf8();
        QCOMPARE(await(registry.updateService(instance)).code(), StatusCode::NotFound);
        QCOMPARE(await(registry.registerService(instance)), Status());
        QCOMPARE(await(registry.registerService(instance)).code(), StatusCode::AlreadyExists);
        QCOMPARE(registry.registeredInstances(), QList{instance});

        // Another participant cannot take the key over.
        ServiceRegistry other(m_client.get(), "/disc/crud", quick(10));
        const Status taken = await(other.registerService(instance));
        QCOMPARE(taken.code(), StatusCode::OwnershipLost);
        QVERIFY(taken.message().contains("service registration failed for " + key));
        QVERIFY(other.registeredInstances().isEmpty());
        QCOMPARE(read(key).lease, registry.leaseIdOf(instance));

        const qint64 lease = registry.leaseIdOf(instance);
        instance.setPort(2);
        QCOMPARE(await(registry.updateService(instance)), Status());
        QCOMPARE(read(key).value, instance.toJson());
        QCOMPARE(read(key).lease, lease);

        QCOMPARE(await(registry.unregisterService(instance)), Status());
        QVERIFY(read(key).key.isEmpty());
        QCOMPARE(await(registry.unregisterService(instance)).code(), StatusCode::NotFound);
        QVERIFY(registry.registeredInstances().isEmpty());

        QCOMPARE(await(registry.registerService(ServiceInstance("a/b", ""))).code(), StatusCode::InvalidArgument);
        registry.close();
        QCOMPARE(await(registry.registerService(instanceOn("api", 3))).code(), StatusCode::Closed);
    }

    void registrationSurvivesAPartitionLongerThanItsTtl()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(through(proxy));
        ServiceRegistry registry(&cutOff, "/disc/heal", quick(2));
        QSignalSpy events(&registry, &ServiceRegistry::leaseEvent);
        QSignalSpy states(&registry, &Recipe::connectionStateChanged);
        ServiceInstance instance = instanceOn("api", 1);
        const QByteArray key = "/disc/heal/names/api/" + instance.id().toUtf8();
        QCOMPARE(await(registry.registerService(instance)), Status());
        // What heals re-put is the current JSON, not the first one.
        instance.setPort(2);
        QCOMPARE(await(registry.updateService(instance)), Status());
        const qint64 firstLease = registry.leaseIdOf(instance);

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(leaseEventKinds(events, 1),
                                  (QList{LeaseEventKind::Suspended, LeaseEventKind::Expired}), scaledMs(10000));
        QTRY_VERIFY_WITH_TIMEOUT(read(key).key.isEmpty(), scaledMs(10000));  // etcd expired it: gone for everyone
        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(events.size(), 3, scaledMs(15000));
        QCOMPARE(leaseEventKinds(events, 1).last(), LeaseEventKind::Restored);
        QCOMPARE(events.last().at(0).toByteArray(), key);

        const KeyValue back = read(key);
        QCOMPARE(back.value, instance.toJson());
        QVERIFY(back.lease != firstLease);
        QCOMPARE(back.lease, registry.leaseIdOf(instance));
        QCOMPARE(stateChanges(states),
                 (QList<StateChange>{{ConnectionState::Suspended, ConnectionState::Connected},
                                     {ConnectionState::Lost, ConnectionState::Suspended},
                                     {ConnectionState::Reconnected, ConnectionState::Lost}}));
        QVERIFY(!registry.recentErrors().isEmpty());
    }

    void aHealNeverTakesAKeyThatIsSomeoneElses()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(through(proxy));
        ServiceRegistry registry(&cutOff, "/disc/taken", quick(2));
        QSignalSpy events(&registry, &ServiceRegistry::leaseEvent);
        const ServiceInstance instance = instanceOn("api", 1);
        const QByteArray key = "/disc/taken/names/api/" + instance.id().toUtf8();
        QCOMPARE(await(registry.registerService(instance)), Status());

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_VERIFY_WITH_TIMEOUT(read(key).key.isEmpty(), scaledMs(10000));
        // Someone else publishes the same instance id while we are cut off.
        ServiceRegistry other(m_client.get(), "/disc/taken", quick(10));
        ServiceInstance theirs = *ServiceInstance::fromJson(instance.toJson());
        theirs.setPort(99);
        QCOMPARE(await(other.registerService(theirs)), Status());

        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(leaseEventKinds(events, 1).value(events.size() - 1), LeaseEventKind::Failed,
                                  scaledMs(15000));
        QCOMPARE(leaseEventKinds(events, 1),
                 (QList{LeaseEventKind::Suspended, LeaseEventKind::Expired, LeaseEventKind::Failed}));
        QCOMPARE(events.last().at(1).value<LeaseEvent>().cause.code(), StatusCode::OwnershipLost);
        QCOMPARE(registry.connectionState(), ConnectionState::Lost);
        QCOMPARE(read(key).value, theirs.toJson());
        QCOMPARE(read(key).lease, other.leaseIdOf(theirs));

        // Letting go of the failed registration leaves their key alone.
        QCOMPARE(await(registry.unregisterService(instance)), Status());
        QCOMPARE(read(key).value, theirs.toJson());
    }

    // Deleting an instance's key is how an operator deregisters it: the registry is told at
    // once, forgets the instance, revokes its lease and does not register it again; the
    // application may. Its own update beforehand was not taken for anyone else's.
    void deletingAnInstanceDeregistersIt()
    {
        ServiceRegistry registry(m_client.get(), "/disc/deleted", quick(2));
        QSignalSpy removed(&registry, &ServiceRegistry::registrationRemoved);
        QSignalSpy events(&registry, &ServiceRegistry::leaseEvent);
        QSignalSpy states(&registry, &Recipe::connectionStateChanged);
        ServiceInstance instance = instanceOn("api", 1);
        ServiceInstance staying = instanceOn("api", 2);
        const QByteArray key = registry.instanceKey(instance);
        QCOMPARE(await(registry.registerService(instance)), Status());
        QCOMPARE(await(registry.registerService(staying)), Status());
        const qint64 lease = registry.leaseIdOf(instance);
        instance.setPort(3);
        QCOMPARE(await(registry.updateService(instance)), Status());

        Client operatorsTool(direct());
        DeleteResult deleted;
        QETCD_AWAIT(operatorsTool.remove(key), deleted);
        QCOMPARE(deleted.deleted, 1);
        QTRY_VERIFY_WITH_TIMEOUT(!removed.isEmpty(), scaledMs(3000));
        QCOMPARE(removed.first().at(0).toByteArray(), key);
        QCOMPARE(removed.first().at(1).toLongLong(), deleted.header.revision);
        const Status cause = removed.first().at(2).value<Status>();
        QCOMPARE(cause.code(), StatusCode::OwnershipLost);
        QVERIFY2(cause.message().contains("\"" + QString::fromUtf8(key) + "\" was deleted by another client"),
                 qPrintable(cause.toString()));
        QCOMPARE(registry.registeredInstances(), QList{staying});
        QCOMPARE(registry.leaseIdOf(instance), qint64(-1));
        QCOMPARE(await(registry.unregisterService(instance)).code(), StatusCode::NotFound);
        const auto ttlLeft = [&] {
            const auto future = m_client->leaseTimeToLive(lease);
            return awaitFuture(future) && future.result().status ? future.result().ttl : -2;
        };
        QTRY_COMPARE_WITH_TIMEOUT(ttlLeft(), qint64(-1), scaledMs(3000));  // revoked

        // Past two TTLs nothing has put it back; the other instance and the registry are fine.
        QVERIFY(!putWithin(m_client.get(), key, deleted.header.revision, scaledMs(5000)));
        QCOMPARE(removed.size(), 1);
        QVERIFY(events.isEmpty());
        QVERIFY(states.isEmpty());
        QCOMPARE(registry.connectionState(), ConnectionState::Connected);
        QCOMPARE(read(registry.instanceKey(staying)).lease, registry.leaseIdOf(staying));

        // Registering again is the application's call.
        QCOMPARE(await(registry.registerService(instance)), Status());
        QCOMPARE(read(key).value, instance.toJson());
        QCOMPARE(await(registry.unregisterService(instance)), Status());
        QCOMPARE(await(registry.unregisterService(staying)), Status());
        QVERIFY(!removed.wait(scaledMs(1000)));  // its own unregistering is not another's
    }

    // A revoked lease looks like a partition from here: healed, not deregistered.
    void aRevokedLeaseStillHeals()
    {
        ServiceRegistry registry(m_client.get(), "/disc/revoked", quick(2));
        QSignalSpy removed(&registry, &ServiceRegistry::registrationRemoved);
        QSignalSpy events(&registry, &ServiceRegistry::leaseEvent);
        const ServiceInstance instance = instanceOn("api", 1);
        QCOMPARE(await(registry.registerService(instance)), Status());
        const qint64 lease = registry.leaseIdOf(instance);
        QCOMPARE(await(m_client->leaseRevoke(lease)).status, Status());
        QTRY_COMPARE_WITH_TIMEOUT(leaseEventKinds(events, 1), (QList{LeaseEventKind::Expired, LeaseEventKind::Restored}),
                                  scaledMs(15000));
        QCOMPARE(read(registry.instanceKey(instance)).lease, registry.leaseIdOf(instance));
        QVERIFY(registry.leaseIdOf(instance) != lease);
        QVERIFY(removed.isEmpty());
    }

    void providerEjectsAndTakesBack()
    {
        ServiceDiscovery discovery(m_client.get(), "/disc/provider", quick(10));
        const ServiceInstance one = instanceOn("web", 1);
        const ServiceInstance two = instanceOn("web", 2);
        QCOMPARE(await(discovery.registerService(one)), Status());
        QCOMPARE(await(discovery.registerService(two)), Status());
        ServiceProvider *provider = discovery.serviceProvider("web", std::make_unique<RoundRobinStrategy>(), 2, 1500ms);
        QSignalSpy ejected(provider, &ServiceProvider::instanceEjected);

        // Before start(): every request reads etcd.
        const ServiceInstanceResult unstarted = provider->instance();
        QVERIFY2(unstarted.status.isOk(), qPrintable(unstarted.status.toString()));
        QVERIFY(unstarted.instance == one || unstarted.instance == two);

        QCOMPARE(await(provider->start()), Status());
        QCOMPARE(provider->cache()->count(), 2);
        QSet<int> ports;
        for (int i = 0; i < 4; ++i)
            ports.insert(provider->instance().instance.port());
        QCOMPARE(ports, (QSet<int>{1, 2}));

        provider->noteError(one);
        QCOMPARE(ejected.size(), 0);
        provider->noteError(one);
        QCOMPARE(ejected.size(), 1);
        QElapsedTimer down;
        down.start();
        QCOMPARE(ejected.at(0).at(0).value<ServiceInstance>(), one);
        QCOMPARE(provider->ejectedInstances(), QList{one});
        QList<int> whileDown;
        for (int i = 0; i < 4; ++i)
            whileDown.append(provider->instance().instance.port());
        QCOMPARE(whileDown, (QList<int>{2, 2, 2, 2}));

        // Once the down period is over it is handed out again.
        bool back = false;
        QTRY_VERIFY_WITH_TIMEOUT(back || (back = provider->instance().instance.port() == 1), scaledMs(5000));
        QVERIFY(down.elapsed() >= 1400);
        QVERIFY(provider->ejectedInstances().isEmpty());

        // Every instance ejected: nothing to hand out.
        for (int i = 0; i < 2; ++i) {
            provider->noteError(one);
            provider->noteError(two);
        }
        const ServiceInstanceResult none = provider->instance();
        QCOMPARE(none.status.code(), StatusCode::NotFound);
        QCOMPARE(none.status.message(), QString("No instances available for service web"));
        QCOMPARE(ejected.size(), 3);

        discovery.close();
        QCOMPARE(provider->instance().status.code(), StatusCode::Closed);
    }

    void cacheFollowsRegistrationsLive()
    {
        ServiceDiscovery discovery(m_client.get(), "/disc/live", quick(10));
        const ServiceInstance first = instanceOn("db", 1);
        QCOMPARE(await(discovery.registerService(first)), Status());
        ServiceCache *cache = discovery.serviceCache("db");
        QCOMPARE(cache->context(), QString("ServiceCache[db]"));
        QSignalSpy changes(cache, &ServiceCache::cacheChanged);
        QSignalSpy changed(cache, &ServiceCache::instancesChanged);
        QCOMPARE(await(cache->start()), Status());
        QCOMPARE(cache->instances(), QList{first});  // the initial list is not replayed
        QCOMPARE(changes.size(), 0);
        QCOMPARE(await(cache->start()).code(), StatusCode::AlreadyStarted);

        ServiceInstance second = instanceOn("db", 2);
        QCOMPARE(await(discovery.registerService(second)), Status());
        QCOMPARE(await(discovery.registerService(instanceOn("other", 9))), Status());
        second.setEnabled(false);
        QCOMPARE(await(discovery.updateService(second)), Status());
        QCOMPARE(await(discovery.unregisterService(first)), Status());
        const QString firstKey = "db/" + first.id();
        const QString secondKey = "db/" + second.id();
        QTRY_COMPARE_WITH_TIMEOUT(cacheEvents(changes),
                                  (QStringList{"Put " + secondKey + " add", "Put " + secondKey, "Delete " + firstKey}),
                                  scaledMs(5000));
        QCOMPARE(changes.at(2).at(0).value<ServiceCacheEvent>().instance, std::optional(first));
        QCOMPARE(cache->instances(), QList{second});
        QVERIFY(!cache->instances().first().isEnabled());
        QVERIFY(changed.size() >= 1 && changed.size() <= 3);  // once per batch etcd sent

        // A value that is not an instance is reported, not listed.
        QVERIFY(put("/disc/live/names/db/garbage", "{not json") > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!cache->recentErrors().isEmpty(), scaledMs(5000));
        QCOMPARE(cache->count(), 1);
        QCOMPARE(changes.size(), 3);
    }

    void cacheResyncsAfterACompaction()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(through(proxy));
        ServiceRegistry registry(m_client.get(), "/disc/compact", quick(10));
        const ServiceInstance gone = instanceOn("q", 1);
        QCOMPARE(await(registry.registerService(gone)), Status());
        ServiceCache cache(&cutOff, "/disc/compact/names", "q", quick(10));
        QSignalSpy changes(&cache, &ServiceCache::cacheChanged);
        QSignalSpy recoveries(&cache, &ServiceCache::watchRecovery);
        QSignalSpy states(&cache, &Recipe::connectionStateChanged);
        QCOMPARE(await(cache.start()), Status());
        QCOMPARE(cache.instances(), QList{gone});

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(cache.connectionState(), ConnectionState::Suspended, scaledMs(30000));
        const ServiceInstance b = instanceOn("q", 2);
        const ServiceInstance c = instanceOn("q", 3);
        QCOMPARE(await(registry.registerService(b)), Status());
        QCOMPARE(await(registry.unregisterService(gone)), Status());
        QCOMPARE(await(registry.registerService(c)), Status());
        const qint64 compactAt = put("/disc/compact/elsewhere", "x");
        QCOMPARE(await(m_client->compact(compactAt, true)).status, Status());

        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(recoveries.size(), 2, scaledMs(20000));
        const auto resynced = recoveries.at(1).at(0).value<WatchRecoveryEvent>();
        QCOMPARE(resynced.kind, WatchRecoveryKind::Resynced);
        QCOMPARE(resynced.compactRevision, compactAt);
        QCOMPARE(cache.instances(), byId({b, c}));
        QStringList expected{"Delete q/" + gone.id()};
        for (const ServiceInstance &added : byId({b, c}))
            expected.append("Put q/" + added.id() + " add");
        QCOMPARE(cacheEvents(changes), expected);
        QCOMPARE(stateChanges(states),
                 (QList<StateChange>{{ConnectionState::Suspended, ConnectionState::Connected},
                                     {ConnectionState::Reconnected, ConnectionState::Suspended}}));

        // Live again after the anchor.
        ServiceInstance changed = b;
        changed.setPort(20);
        QCOMPARE(await(registry.updateService(changed)), Status());
        QTRY_COMPARE_WITH_TIMEOUT(changes.size(), 4, scaledMs(5000));
        QCOMPARE(cacheEvents(changes).last(), "Put q/" + b.id());
        QCOMPARE(portsOf(cache.instances()).contains(20), true);
    }

    // Last: it restarts the cluster's only member.
    void cacheConvergesAfterAMemberRestart()
    {
        ServiceDiscovery discovery(m_client.get(), "/disc/restart", quick(10));
        const ServiceInstance before = instanceOn("svc", 1);
        QCOMPARE(await(discovery.registerService(before)), Status());
        Client watching(direct());
        ServiceCache cache(&watching, "/disc/restart/names", "svc", quick(10));
        QSignalSpy states(&cache, &Recipe::connectionStateChanged);
        QCOMPARE(await(cache.start()), Status());

        QVERIFY2(m_cluster.restartMember(0), qPrintable(m_cluster.errorString()));
        const ServiceInstance after = instanceOn("svc", 2);
        Status registered(StatusCode::Unknown, "not yet");
        QTRY_VERIFY_WITH_TIMEOUT(registered.isOk() || (registered = await(discovery.registerService(after))).isOk(),
                                 scaledMs(20000));
        QTRY_COMPARE_WITH_TIMEOUT(cache.instances(), byId({before, after}), scaledMs(20000));
        QTRY_COMPARE_WITH_TIMEOUT(cache.connectionState(), ConnectionState::Reconnected, scaledMs(20000));
        QCOMPARE(stateChanges(states).first(), StateChange(ConnectionState::Suspended, ConnectionState::Connected));
    }
};

QTEST_GUILESS_MAIN(tst_ServiceDiscovery)
#include "tst_servicediscovery.moc"
