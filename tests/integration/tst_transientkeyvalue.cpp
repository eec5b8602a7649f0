// SPDX-License-Identifier: Apache-2.0
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

    // Seconds left on lease, -1 when it is gone; -2 when the read failed.
    qint64 ttlOf(qint64 lease)
    {
        const auto future = m_observer->leaseTimeToLive(lease);
        return awaitFuture(future) && future.result().status ? future.result().ttl : -2;
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

    // An operator deletes the key while its lease lives: told at once, honoured (the lease is
    // revoked and nothing puts the key back), and the state goes Lost.
    void keyDeletedByAnotherClientIsToldAndNotPutBack()
    {
        Client client(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        TransientKeyValue kv(&client, "/tkv/deleted", "v", quickOptions(2));
        QSignalSpy removed(&kv, &TransientKeyValue::removedByOther);
        QSignalSpy events(&kv, &TransientKeyValue::leaseEvent);
        Status started;
        QETCD_AWAIT(kv.start(), started);
        QVERIFY(started.isOk());
        const qint64 lease = kv.currentLeaseId();

        DeleteResult deleted;
        QETCD_AWAIT(m_observer->remove("/tkv/deleted"), deleted);
        QCOMPARE(deleted.deleted, 1);
        QTRY_VERIFY_WITH_TIMEOUT(!removed.isEmpty(), scaledMs(3000));  // not left to the TTL: as the delete lands
        QCOMPARE(removed.first().at(0).toLongLong(), deleted.header.revision);
        const Status cause = removed.first().at(1).value<Status>();
        QCOMPARE(cause.code(), StatusCode::OwnershipLost);
        QVERIFY2(cause.message().contains("\"/tkv/deleted\" was deleted by another client"), qPrintable(cause.toString()));
        QCOMPARE(kv.connectionState(), ConnectionState::Lost);
        QVERIFY(!kv.isHealthy());
        QTRY_COMPARE_WITH_TIMEOUT(ttlOf(lease), qint64(-1), scaledMs(3000));  // revoked
        // Past two TTLs, nothing has put it back, and no heal ran.
        QVERIFY(!putWithin(m_observer.get(), "/tkv/deleted", deleted.header.revision, scaledMs(5000)));
        QVERIFY(events.isEmpty());
        QCOMPARE(removed.size(), 1);
    }

    // Put on another lease by someone else: theirs now, told, and left as they wrote it.
    void keyMovedToAnotherLeaseIsToldAndLeftAlone()
    {
        Client client(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        TransientKeyValue kv(&client, "/tkv/moved", "v", quickOptions(2));
        QSignalSpy removed(&kv, &TransientKeyValue::removedByOther);
        Status started;
        QETCD_AWAIT(kv.start(), started);
        QVERIFY(started.isOk());
        PutResult put;
        QETCD_AWAIT(m_observer->put("/tkv/moved", "theirs"), put);
        QTRY_VERIFY_WITH_TIMEOUT(!removed.isEmpty(), scaledMs(3000));
        QCOMPARE(removed.first().at(0).toLongLong(), put.header.revision);
        const Status cause = removed.first().at(1).value<Status>();
        QVERIFY2(cause.message().contains("\"/tkv/moved\" was moved to no lease"), qPrintable(cause.toString()));
        QVERIFY(!putWithin(m_observer.get(), "/tkv/moved", put.header.revision + 1, scaledMs(5000)));
        QCOMPARE(read("/tkv/moved").value, QByteArray("theirs"));
        kv.close();
        QCOMPARE(read("/tkv/moved").value, QByteArray("theirs"));
        DeleteResult cleaned;
        QETCD_AWAIT(m_observer->remove("/tkv/moved"), cleaned);
    }

    // A revoke is an expiry, not a removal: the key is put back, and nothing says otherwise.
    void revokedLeaseStillHeals()
    {
        Client client(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        TransientKeyValue kv(&client, "/tkv/revoked", "v", quickOptions(2));
        QSignalSpy removed(&kv, &TransientKeyValue::removedByOther);
        QSignalSpy events(&kv, &TransientKeyValue::leaseEvent);
        Status started;
        QETCD_AWAIT(kv.start(), started);
        QVERIFY(started.isOk());
        const qint64 lease = kv.currentLeaseId();
        Result revoked;
        QETCD_AWAIT(m_observer->leaseRevoke(lease), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(leaseEventKinds(events), (QList{LeaseEventKind::Expired, LeaseEventKind::Restored}),
                                  scaledMs(15000));
        QCOMPARE(read("/tkv/revoked").lease, kv.currentLeaseId());
        QVERIFY(kv.currentLeaseId() != lease);
        QVERIFY(removed.isEmpty());
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
