// SPDX-License-Identifier: Apache-2.0
// CoordinationInterventions against a real etcd member: each takes away exactly the entry that
// was shown, and nothing when that entry has changed since (tst_cli_interventions shows what
// the participants it hits are told).
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationinterventions.h>
#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/distributedbarrier.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CoordinationInterventions : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    qint64 grant()
    {
        const QFuture<LeaseGrantResult> granted = m_client->leaseGrant(60);
        return awaitFuture(granted) && granted.result().status ? granted.result().id : 0;
    }

    // The entry as the recogniser would show key now.
    CoordinationEntry entryOf(const QByteArray &key)
    {
        const QFuture<RangeResult> read = m_client->get(key);
        if (!awaitFuture(read) || read.result().kvs.isEmpty())
            return {};
        const KeyValue kv = read.result().kvs.first();
        CoordinationEntry entry;
        entry.key = kv.key;
        entry.value = kv.value;
        entry.lease = kv.lease;
        entry.createRevision = kv.createRevision;
        entry.modRevision = kv.modRevision;
        return entry;
    }

    bool exists(const QByteArray &key) { return !entryOf(key).key.isEmpty(); }

    bool leaseAlive(qint64 lease)
    {
        const QFuture<LeaseTimeToLiveResult> ttl = m_client->leaseTimeToLive(lease);
        return awaitFuture(ttl) && ttl.result().status && ttl.result().ttl > 0;
    }

    InterventionResult await(const QFuture<InterventionResult> &future)
    {
        if (!awaitFuture(future))
            return {Status(StatusCode::DeadlineExceeded, QStringLiteral("no answer")), {}, {}, {}, {}};
        return future.result();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    void breakHoldRevokesALeaseThatCarriesTheKeyAlone()
    {
        const qint64 lease = grant();
        PutOptions onLease;
        onLease.lease = lease;
        QVERIFY(awaitFuture(m_client->put("/iv/alone/k", {}, onLease)));
        const InterventionResult result = await(CoordinationInterventions::breakHold(m_client.get(), entryOf("/iv/alone/k")));
        QVERIFY2(result.status, qPrintable(result.status.message()));
        QCOMPARE(result.method, InterventionResult::Method::LeaseRevoked);
        QCOMPARE(result.lease, lease);
        QCOMPARE(result.removedKeys, QList<QByteArray>{"/iv/alone/k"});
        QVERIFY(result.revision > 0);
        QVERIFY(!leaseAlive(lease));
    }

    void breakHoldOfAKeyWithoutLeaseDeletesIt()
    {
        QVERIFY(awaitFuture(m_client->put("/iv/bare", "x")));
        const InterventionResult result = await(CoordinationInterventions::breakHold(m_client.get(), entryOf("/iv/bare")));
        QVERIFY2(result.status, qPrintable(result.status.message()));
        QCOMPARE(result.method, InterventionResult::Method::KeysDeleted);
        QVERIFY(!exists("/iv/bare"));
    }

    // A new hold in the old one's place is not the one the operator chose to break.
    void anEntryReplacedSinceItWasReadIsLeftAlone()
    {
        const qint64 lease = grant();
        PutOptions onLease;
        onLease.lease = lease;
        QVERIFY(awaitFuture(m_client->put("/iv/replaced", {}, onLease)));
        const CoordinationEntry shown = entryOf("/iv/replaced");
        QVERIFY(awaitFuture(m_client->remove("/iv/replaced")));
        QVERIFY(awaitFuture(m_client->put("/iv/replaced", {}, onLease)));

        for (const auto &intervene : {&CoordinationInterventions::breakHold, &CoordinationInterventions::removeEntry}) {
            const InterventionResult result = await(intervene(m_client.get(), shown));
            QCOMPARE(result.status.code(), StatusCode::Mismatch);
            QVERIFY2(result.status.message().contains(QStringLiteral("replaced")), qPrintable(result.status.message()));
            QCOMPARE(result.method, InterventionResult::Method::None);
            QVERIFY(exists("/iv/replaced"));
            QVERIFY(leaseAlive(lease));
        }
    }

    void aKeyMovedToAnotherLeaseIsLeftAlone()
    {
        const qint64 first = grant(), second = grant();
        PutOptions onLease;
        onLease.lease = first;
        QVERIFY(awaitFuture(m_client->put("/iv/moved", {}, onLease)));
        const CoordinationEntry shown = entryOf("/iv/moved");
        onLease.lease = second;
        QVERIFY(awaitFuture(m_client->put("/iv/moved", {}, onLease)));
        const InterventionResult result = await(CoordinationInterventions::breakHold(m_client.get(), shown));
        QCOMPARE(result.status.code(), StatusCode::Mismatch);
        QVERIFY2(result.status.message().contains(QStringLiteral("another lease")), qPrintable(result.status.message()));
        QVERIFY(leaseAlive(first));
        QVERIFY(leaseAlive(second));
    }

    void aGoneEntryIsNotFound()
    {
        QVERIFY(awaitFuture(m_client->put("/iv/gone", "x")));
        const CoordinationEntry shown = entryOf("/iv/gone");
        QVERIFY(awaitFuture(m_client->remove("/iv/gone")));
        QCOMPARE(await(CoordinationInterventions::removeEntry(m_client.get(), shown)).status.code(), StatusCode::NotFound);
        QCOMPARE(await(CoordinationInterventions::breakHold(m_client.get(), shown)).status.code(), StatusCode::NotFound);
    }

    void aReadOnlyClientRefusesBeforeSending()
    {
        QVERIFY(awaitFuture(m_client->put("/iv/ro", "x")));
        ClientOptions options = ClientOptions::fromEndpoints(m_cluster.clientUrls());
        options.readOnly = true;
        Client readOnly(options);
        const QFuture<InterventionResult> refused = CoordinationInterventions::breakHold(&readOnly, entryOf("/iv/ro"));
        QVERIFY(refused.isFinished());  // refused in the call: nothing was sent
        QCOMPARE(refused.result().status.code(), StatusCode::ReadOnly);
        QVERIFY(exists("/iv/ro"));
    }

    // The owner, told of the lift, may revoke its lease before a waiter asks whether the
    // barrier went with it: the waiter must still hear "deleted", not a spurious expiry. The
    // waiter's link is slow, so the revoke always lands before its question.
    void aLiftedBarrierIsToldDeletedWhenItsOwnerRevokesAtOnce()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client slow(ClientOptions::fromEndpoints({proxy.url()}));
        for (int round = 0; round < 3; ++round) {
            proxy.setMode(FaultProxy::Mode::Pass);
            const QByteArray path = "/iv/gate" + QByteArray::number(round);
            DistributedBarrier owner(m_client.get(), path);
            Status set;
            QETCD_AWAIT(owner.setBarrierAsync(), set);
            QVERIFY2(set, qPrintable(set.toString()));
            DistributedBarrier waiter(&slow, path);
            QSignalSpy started(&waiter, &DistributedBarrier::waitStarted);
            const QFuture<DistributedBarrier::WaitResult> waited = waiter.waitOnBarrierAsync();
            // Emitted on the client's dispatcher thread, perhaps before a started.wait() here
            // could begin: counted, not waited for.
            QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), scaledMs(10000));
            proxy.setDelay(std::chrono::milliseconds(300));
            proxy.setMode(FaultProxy::Mode::Delay);

            RangeOptions asIs;
            const QFuture<RangeResult> read = m_client->get(path, asIs);
            QVERIFY(awaitFuture(read) && read.result().kvs.size() == 1);
            const QList<CoordinationObject> objects = CoordinationRecogniser::recognise(read.result().kvs);
            QCOMPARE(objects.size(), 1);
            const InterventionResult lifted = await(CoordinationInterventions::liftBarrier(m_client.get(), objects.first()));
            QVERIFY2(lifted.status, qPrintable(lifted.status.message()));
            QVERIFY(awaitFuture(m_client->leaseRevoke(read.result().kvs.first().lease)));

            QVERIFY(awaitFuture(waited));
            QCOMPARE(waited.result().reason, DistributedBarrier::LiftReason::Deleted);
        }
    }

    void objectsOfTheWrongKindAreRefused()
    {
        CoordinationObject lock;
        lock.kind = CoordinationObject::Kind::Lock;
        lock.path = "/iv/lock";
        lock.holders = {entryOf("/iv/ro")};
        QCOMPARE(await(CoordinationInterventions::liftBarrier(m_client.get(), lock)).status.code(), StatusCode::InvalidArgument);
        QCOMPARE(await(CoordinationInterventions::forceReelection(m_client.get(), lock)).status.code(), StatusCode::InvalidArgument);
        QCOMPARE(await(CoordinationInterventions::releaseRound(m_client.get(), lock)).status.code(), StatusCode::InvalidArgument);
        CoordinationObject election;
        election.kind = CoordinationObject::Kind::Election;
        QCOMPARE(await(CoordinationInterventions::forceReelection(m_client.get(), election)).status.code(), StatusCode::NotFound);
        QCOMPARE(await(CoordinationInterventions::removeEntry(m_client.get(), CoordinationEntry{})).status.code(),
                 StatusCode::InvalidArgument);
        QVERIFY(exists("/iv/ro"));
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationInterventions)
#include "tst_coordinationinterventions.moc"
