// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/nodecache.h>
#include <QEtcd/serviceinstance.h>

#include <QtCore/QJsonObject>
#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
// "Created v1", "Updated v2", "Deleted".
QStringList described(const QSignalSpy &spy)
{
    QStringList list;
    for (const QList<QVariant> &arguments : spy) {
        const auto event = arguments.at(0).value<NodeCacheEvent>();
        switch (event.type) {
        case NodeCacheEvent::Type::Created: list.append("Created " + QString::fromUtf8(event.kv.value)); break;
        case NodeCacheEvent::Type::Updated: list.append("Updated " + QString::fromUtf8(event.kv.value)); break;
        case NodeCacheEvent::Type::Deleted: list.append("Deleted"); break;
        }
    }
    return list;
}
} // namespace

class tst_NodeCache : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    qint64 put(const QByteArray &key, const QByteArray &value)
    {
        const auto future = m_client->put(key, value);
        return awaitFuture(future) && future.result().status ? future.result().header.revision : -1;
    }

    qint64 remove(const QByteArray &key)
    {
        const auto future = m_client->remove(key);
        return awaitFuture(future) && future.result().status ? future.result().header.revision : -1;
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
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void followsOneKey()
    {
        NodeCache cache(m_client.get(), "/node/a");
        QCOMPARE(cache.context(), QString("NodeCache[/node/a]"));
        QSignalSpy events(&cache, &NodeCache::nodeChanged);
        QCOMPARE(await(cache.start()), Status());
        QVERIFY(!cache.current().has_value());
        QCOMPARE(cache.currentBytes(), QByteArray());

        put("/node/a", "v1");
        put("/node/a", "v2");
        put("/node/ab", "neighbour");  // a single key, not a prefix
        remove("/node/a");
        const qint64 last = put("/node/a", "v3");
        QTRY_COMPARE_WITH_TIMEOUT(described(events), (QStringList{"Created v1", "Updated v2", "Deleted", "Created v3"}),
                                  scaledMs(5000));
        QCOMPARE(cache.currentBytes(), QByteArray("v3"));
        QCOMPARE(cache.current()->modRevision, last);
        QCOMPARE(events.at(2).at(0).value<NodeCacheEvent>().kv.key, QByteArray("/node/a"));
        QCOMPARE(await(cache.start()).code(), StatusCode::AlreadyStarted);

        cache.close();
        QVERIFY(cache.isClosed());
    }

    void initialValueIsStateNotNews()
    {
        put("/node/initial", "here");
        NodeCache cache(m_client.get(), "/node/initial");
        QSignalSpy events(&cache, &NodeCache::nodeChanged);
        QCOMPARE(await(cache.start()), Status());
        QCOMPARE(cache.currentBytes(), QByteArray("here"));
        put("/node/initial", "changed");
        QTRY_COMPARE_WITH_TIMEOUT(described(events), QStringList{"Updated changed"}, scaledMs(5000));
    }

    void typedThroughACodec()
    {
        TypedNodeCache<JsonCodec> cache(m_client.get(), "/node/json");
        QSignalSpy events(cache.untyped(), &NodeCache::nodeChanged);
        QCOMPARE(await(cache.start()), Status());
        QVERIFY(!cache.current().has_value());
        put("/node/json", R"({"v":1})");
        put("/node/json", "{broken");  // recorded, not told
        put("/node/json", R"({"v":2})");
        QTRY_COMPARE_WITH_TIMEOUT(described(events), (QStringList{R"(Created {"v":1})", R"(Updated {"v":2})"}),
                                  scaledMs(5000));
        QCOMPARE(cache.current()->object().value("v").toInt(), 2);
        QCOMPARE(TypedNodeCache<JsonCodec>::valueOf(events.at(0).at(0).value<NodeCacheEvent>())->object().value("v").toInt(),
                 1);
        QCOMPARE(cache.untyped()->recentErrors().size(), 1);
        QVERIFY(cache.untyped()->recentErrors().first().status.message().contains("does not decode"));

        // A service instance is one codec among others.
        TypedNodeCache<ServiceInstanceCodec> instance(m_client.get(), "/node/instance");
        QCOMPARE(await(instance.start()), Status());
        const ServiceInstance written("svc", "{}");
        put("/node/instance", written.toJson());
        QTRY_VERIFY_WITH_TIMEOUT(instance.current().has_value(), scaledMs(5000));
        QCOMPARE(*instance.current(), written);
        QCOMPARE(instance.current()->id(), written.id());
    }

    void resyncsAfterACompaction()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        ClientOptions throughProxy = ClientOptions::fromEndpoints({proxy.url()});
        throughProxy.keepAliveTime = 5s;
        throughProxy.keepAliveTimeout = 2s;
        Client cutOff(throughProxy);
        put("/node/compact", "v1");
        RecipeOptions quick;
        RetryPolicy::ExponentialBackoff backoff;
        backoff.initialDelay = 100ms;
        backoff.maxDelay = 1s;
        quick.resilience.watch = WatchResilience{RetryPolicy::exponentialBackoff(backoff), true};
        NodeCache cache(&cutOff, "/node/compact", quick);
        QSignalSpy events(&cache, &NodeCache::nodeChanged);
        QSignalSpy recoveries(&cache, &NodeCache::watchRecovery);
        QSignalSpy states(&cache, &Recipe::connectionStateChanged);
        QCOMPARE(await(cache.start()), Status());

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(cache.connectionState(), ConnectionState::Suspended, scaledMs(30000));
        put("/node/compact", "v2");
        const qint64 compactAt = put("/node/compact", "v3");
        const auto compacted = m_client->compact(compactAt, true);
        QVERIFY(awaitFuture(compacted));
        QCOMPARE(compacted.result().status, Status());

        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(recoveries.size(), 2, scaledMs(20000));
        QCOMPARE(recoveries.at(1).at(0).value<WatchRecoveryEvent>().kind, WatchRecoveryKind::Resynced);
        QCOMPARE(described(events), QStringList{"Updated v3"});  // the gap's net effect, once
        QCOMPARE(cache.currentBytes(), QByteArray("v3"));
        QCOMPARE(states.size(), 2);
        QCOMPARE(cache.connectionState(), ConnectionState::Reconnected);

        remove("/node/compact");
        QTRY_COMPARE_WITH_TIMEOUT(described(events), (QStringList{"Updated v3", "Deleted"}), scaledMs(5000));
        QVERIFY(!cache.current().has_value());
    }
};

QTEST_GUILESS_MAIN(tst_NodeCache)
#include "tst_nodecache.moc"
