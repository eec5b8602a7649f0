#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/transientkeyvalue.h>

#include <QtCore/QJsonObject>
#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

class tst_TransientKeyValue : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_observer;

    RecipeOptions quickOptions(qint64 ttl) const
    {
        RecipeOptions options;
        options.ttlSeconds = ttl;
        RetryPolicy::ExponentialBackoff backoff;
        backoff.maxDelay = 2s;
        options.resilience.lease = LeaseResilience{RetryPolicy::exponentialBackoff(backoff), 1s};
        return options;
    }

    KeyValue read(const QByteArray &key)
    {
        const auto future = m_observer->get(key);
        return awaitFuture(future) ? future.result().kvs.value(0) : KeyValue();
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<LeaseEvent>();
        qRegisterMetaType<ConnectionState>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_observer = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void lifecycle()
    {
        Client client(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        TransientKeyValue kv(&client, "/tkv/life", "here", quickOptions(10));
        QVERIFY(kv.clientId().contains(QString::number(QCoreApplication::applicationPid())));
        QCOMPARE(kv.context(), QString("TransientKeyValue[/tkv/life]"));
        kv.close();  // before start(): a no-op
        QVERIFY(!kv.isClosed());
        Status started;
        QETCD_AWAIT(kv.start(), started);
        QVERIFY2(started.isOk(), qPrintable(started.toString()));
        QCOMPARE(kv.connectionState(), ConnectionState::Connected);
        QVERIFY(kv.isHealthy());
        QCOMPARE(read("/tkv/life").value, QByteArray("here"));
        QCOMPARE(read("/tkv/life").lease, kv.currentLeaseId());
        QETCD_AWAIT(kv.start(), started);
        QCOMPARE(started.code(), StatusCode::AlreadyStarted);
        Status pinged;
        QETCD_AWAIT(kv.ping(), pinged);
        QVERIFY(pinged.isOk());

        kv.close();
        QVERIFY(kv.isClosed());
        QVERIFY(!kv.isHealthy());
        QTRY_VERIFY_WITH_TIMEOUT(read("/tkv/life").key.isEmpty(), scaledMs(3000));
    }

    void badInputIsRefused()
    {
        Client client(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        TransientKeyValue emptyKey(&client, QByteArray(), "v");
        Status started;
        QETCD_AWAIT(emptyKey.start(), started);
        QCOMPARE(started.code(), StatusCode::InvalidArgument);
        RecipeOptions zeroTtl;
        zeroTtl.ttlSeconds = 0;
        TransientKeyValue noTtl(&client, "/tkv/bad", "v", zeroTtl);
        QETCD_AWAIT(noTtl.start(), started);
        QCOMPARE(started.code(), StatusCode::InvalidArgument);
        QVERIFY(started.message().contains("TTL"));
        QVERIFY(read("/tkv/bad").key.isEmpty());
    }

    void partitionLongerThanTtl()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client client(ClientOptions::fromEndpoints({proxy.url()}));
        TransientKeyValue kv(&client, "/tkv/partition", "v", quickOptions(2));
        QSignalSpy events(&kv, &TransientKeyValue::leaseEvent);
        QSignalSpy states(&kv, &Recipe::connectionStateChanged);
        Status started;
        QETCD_AWAIT(kv.start(), started);
        QVERIFY(started.isOk());

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(leaseEventKinds(events), (QList{LeaseEventKind::Suspended, LeaseEventKind::Expired}),
                                  scaledMs(10000));
        QTRY_VERIFY_WITH_TIMEOUT(read("/tkv/partition").key.isEmpty(), scaledMs(10000));
        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(events.size(), 3, scaledMs(15000));
        QCOMPARE(leaseEventKinds(events).last(), LeaseEventKind::Restored);
        QCOMPARE(stateChanges(states),
                 (QList<StateChange>{{ConnectionState::Suspended, ConnectionState::Connected},
                                     {ConnectionState::Lost, ConnectionState::Suspended},
                                     {ConnectionState::Reconnected, ConnectionState::Lost}}));
        QCOMPARE(read("/tkv/partition").lease, kv.currentLeaseId());
        // The expiry is remembered.
        QVERIFY(!kv.recentErrors().isEmpty());
        QVERIFY(kv.history().size() >= 6);
    }

    void blipShorterThanTtlReturnsToReconnected()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client client(ClientOptions::fromEndpoints({proxy.url()}));
        TransientKeyValue kv(&client, "/tkv/blip", "v", quickOptions(6));
        QSignalSpy states(&kv, &Recipe::connectionStateChanged);
        Status started;
        QETCD_AWAIT(kv.start(), started);
        const qint64 lease = kv.currentLeaseId();
        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(states.size(), 1, scaledMs(6000));
        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(states.size(), 2, scaledMs(6000));
        QCOMPARE(stateChanges(states),
                 (QList<StateChange>{{ConnectionState::Suspended, ConnectionState::Connected},
                                     {ConnectionState::Reconnected, ConnectionState::Suspended}}));
        QCOMPARE(kv.currentLeaseId(), lease);
    }

    void typedJson()
    {
        Client client(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        const QJsonDocument document(QJsonObject{{"host", "a"}, {"port", 80}});
        TypedTransientKeyValue<JsonCodec> kv(&client, "/tkv/json", document, quickOptions(10));
        Status started;
        QETCD_AWAIT(kv.start(), started);
        QVERIFY(started.isOk());
        QCOMPARE(JsonCodec::decode(read("/tkv/json").value).value(), document);
        QCOMPARE(kv.value(), document);
        QVERIFY(!JsonCodec::decode("{not json").has_value());
        QVERIFY(!StringCodec::decode("\xff\xfe").has_value());
        QCOMPARE(StringCodec::decode("grüß").value(), QString::fromUtf8("grüß"));
    }
};

QTEST_GUILESS_MAIN(tst_TransientKeyValue)
#include "tst_transientkeyvalue.moc"
