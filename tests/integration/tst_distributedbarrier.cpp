// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedbarrier.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/watcher.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

using LiftReason = DistributedBarrier::LiftReason;
using WaitResult = DistributedBarrier::WaitResult;
namespace {
QList<WatchEvent> flatten(const QSignalSpy &spy)
{
    QList<WatchEvent> all;
    for (const QList<QVariant> &arguments : spy)
        all += arguments.at(0).value<QList<WatchEvent>>();
    return all;
}

// etcd-recipes' token: "<clientId>:" and seven alphanumerics.
bool isToken(const QByteArray &value, const QByteArray &clientId)
{
    static const QRegularExpression tail(QStringLiteral("^:[0-9A-Za-z]{7}$"));
    return value.startsWith(clientId) && tail.match(QString::fromUtf8(value.mid(clientId.size()))).hasMatch();
}
} // namespace

class tst_DistributedBarrier : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_observer;

    ClientOptions direct() const { return ClientOptions::fromEndpoints(m_cluster.clientUrls()); }

    static BarrierOptions named(const QString &clientId, qint64 ttl = 10)
    {
        BarrierOptions options;
        options.clientId = clientId;
        options.ttlSeconds = ttl;
        RetryPolicy::ExponentialBackoff backoff;
        backoff.maxDelay = 2s;
        options.resilience.lease = LeaseResilience{RetryPolicy::exponentialBackoff(backoff), 1s};
        return options;
    }

    KeyValue read(const QByteArray &key)
    {
        RangeResult got;
        [&] { QETCD_AWAIT(m_observer->get(key), got); }();
        return got.kvs.value(0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<LeaseEvent>();
        qRegisterMetaType<ConnectionState>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_observer = std::make_unique<Client>(direct());
    }

    void fiveWaitersBlockUntilRemoved()
    {
        DistributedBarrier owner(m_observer.get(), "/barriers/five", named("owner"));
        QCOMPARE(owner.context(), QString("DistributedBarrier[/barriers/five]"));
        QVERIFY(owner.setBarrier());
        QVERIFY(owner.isOwner());
        QVERIFY(owner.setBarrier());  // already ours
        const KeyValue armed = read("/barriers/five");
        QVERIFY2(isToken(armed.value, "owner"), armed.value.constData());
        QVERIFY(armed.lease != 0);
        bool set = false;
        QETCD_AWAIT(owner.isBarrierSet(), set);
        QVERIFY(set);

        std::vector<std::unique_ptr<Client>> clients;
        std::vector<std::unique_ptr<DistributedBarrier>> waiters;
        for (int i = 0; i < 5; ++i) {
            clients.push_back(std::make_unique<Client>(direct()));
            waiters.push_back(std::make_unique<DistributedBarrier>(clients.back().get(), "/barriers/five",
                                                                   named(QString("waiter%1").arg(i))));
        }
        // Someone else cannot set it, and nothing of theirs is written.
        Status refused;
        QETCD_AWAIT(waiters[0]->setBarrierAsync(), refused);
        QCOMPARE(refused.code(), StatusCode::AlreadyExists);
        QVERIFY(!waiters[0]->isOwner());
        QCOMPARE(read("/barriers/five").value, armed.value);

        // As the reference's container test: each waiter first times out on a 1 s wait...
        QList<QFuture<WaitResult>> waits;
        for (const auto &waiter : waiters)
            waits.append(waiter->waitOnBarrierAsync(1s));
        for (const auto &wait : waits) {
            WaitResult result;
            QETCD_AWAIT(wait, result);
            QCOMPARE(result.status.code(), StatusCode::DeadlineExceeded);
        }
        // ...then all block until the owner removes the barrier.
        waits.clear();
        for (const auto &waiter : waiters)
            waits.append(waiter->waitOnBarrierAsync());
        const WaitResult stillSet = waiters[0]->waitOnBarrier(500ms);
        QCOMPARE(stillSet.status.code(), StatusCode::DeadlineExceeded);
        for (const auto &wait : waits)
            QVERIFY(!wait.isFinished());

        // A raw watch sees removeBarrier()'s two steps: the marked value, then the delete.
        WatchOptions history;
        history.prevKv = true;
        Watcher raw(m_observer.get(), "/barriers/five", history);
        QSignalSpy events(&raw, &Watcher::eventsReceived);
        Status watching;
        QETCD_AWAIT(raw.start(), watching);
        QVERIFY(watching.isOk());

        QVERIFY(owner.removeBarrier());
        QVERIFY(!owner.isOwner());
        for (const auto &wait : waits) {
            WaitResult result;
            QETCD_AWAIT(wait, result);
            QVERIFY2(result.isLifted(), qPrintable(result.status.toString()));
            QCOMPARE(result.reason, LiftReason::Removed);
            QVERIFY(!result.isSpurious());
        }
        QVERIFY(read("/barriers/five").key.isEmpty());
        QETCD_AWAIT(owner.isBarrierSet(), set);
        QVERIFY(!set);
        QTRY_COMPARE_WITH_TIMEOUT(flatten(events).size(), 2, scaledMs(5000));
        const WatchEvent marked = flatten(events).at(0);
        QCOMPARE(marked.type, WatchEvent::Type::Put);
        QCOMPARE(marked.kv.value, armed.value + ";removing");
        const WatchEvent removed = flatten(events).at(1);
        QCOMPARE(removed.type, WatchEvent::Type::Delete);
        QCOMPARE(removed.prevKv->value, armed.value + ";removing");

        QVERIFY(!owner.removeBarrier());  // nothing left to remove
        // Unlike the reference, an instance may set its barrier again.
        QVERIFY(owner.setBarrier());
        const QByteArray second = read("/barriers/five").value;
        QVERIFY(isToken(second, "owner"));
        QVERIFY(second != armed.value);
        // Back to back, the new barrier waits for the old one to be gone.
        QFuture<Status> down = owner.removeBarrierAsync();
        QFuture<Status> up = owner.setBarrierAsync();
        Status outcome;
        QETCD_AWAIT(down, outcome);
        QVERIFY2(outcome.isOk(), qPrintable(outcome.toString()));
        QETCD_AWAIT(up, outcome);
        QVERIFY2(outcome.isOk(), qPrintable(outcome.toString()));
        const QByteArray third = read("/barriers/five").value;
        QVERIFY(isToken(third, "owner"));
        QVERIFY(third != second);
        QVERIFY(owner.removeBarrier());
    }

    void waiterOnAMissingBarrier()
    {
        Client other(direct());
        DistributedBarrier patient(&other, "/barriers/missing", named("patient"));
        QVERIFY(patient.waitOnMissingBarriers());
        QFuture<WaitResult> waiting = patient.waitOnBarrierAsync();

        BarrierOptions passing = named("passing");
        passing.waitOnMissingBarriers = false;
        DistributedBarrier hasty(m_observer.get(), "/barriers/missing", passing);
        const WaitResult passed = hasty.waitOnBarrier(5s);
        QVERIFY(passed.isLifted());
        QCOMPARE(passed.reason, LiftReason::NotSet);

        // The patient one waits for the barrier to be set and then removed.
        DistributedBarrier owner(m_observer.get(), "/barriers/missing", named("owner"));
        QCOMPARE(patient.waitOnBarrier(500ms).status.code(), StatusCode::DeadlineExceeded);
        QVERIFY(owner.setBarrier());
        QCOMPARE(patient.waitOnBarrier(500ms).status.code(), StatusCode::DeadlineExceeded);
        QVERIFY(!waiting.isFinished());
        QVERIFY(owner.removeBarrier());
        WaitResult result;
        QETCD_AWAIT(waiting, result);
        QVERIFY(result.isLifted());
        QCOMPARE(result.reason, LiftReason::Removed);
    }

    void waitStartedTellsWhatTheWaitRead()
    {
        DistributedBarrier early(m_observer.get(), "/barriers/started", named("early"));
        QSignalSpy earlyStarted(&early, &DistributedBarrier::waitStarted);
        QFuture<WaitResult> earlyWait = early.waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(earlyStarted.count(), 1, scaledMs(10000));
        QCOMPARE(earlyStarted.at(0).at(0).toBool(), false);

        DistributedBarrier owner(m_observer.get(), "/barriers/started", named("owner"));
        QVERIFY(owner.setBarrier());
        DistributedBarrier late(m_observer.get(), "/barriers/started", named("late"));
        QSignalSpy lateStarted(&late, &DistributedBarrier::waitStarted);
        QFuture<WaitResult> lateWait = late.waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(lateStarted.count(), 1, scaledMs(10000));
        QCOMPARE(lateStarted.at(0).at(0).toBool(), true);

        // Removed the moment the signal came: both waits have it as their news.
        QVERIFY(owner.removeBarrier());
        for (QFuture<WaitResult> *waiting : {&earlyWait, &lateWait}) {
            WaitResult result;
            QETCD_AWAIT(*waiting, result);
            QVERIFY2(result.isLifted(), qPrintable(result.status.toString()));
            QCOMPARE(result.reason, LiftReason::Removed);
        }
        QCOMPARE(earlyStarted.count(), 1);
    }

    void aPlainDeleteAndAReferenceBarrier()
    {
        // A barrier as etcd-recipes sets it: the token on a lease. Deleted by hand, not removed.
        LeaseGrantResult lease;
        QETCD_AWAIT(m_observer->leaseGrant(30), lease);
        PutOptions onLease;
        onLease.lease = lease.id;
        PutResult put;
        QETCD_AWAIT(m_observer->put("/barriers/reference", "DistributedBarrier:ab12cd3", onLease), put);
        Client other(direct());
        DistributedBarrier waiter(&other, "/barriers/reference", named("waiter"));
        QFuture<WaitResult> waiting = waiter.waitOnBarrierAsync();
        QCOMPARE(waiter.waitOnBarrier(300ms).status.code(), StatusCode::DeadlineExceeded);
        DeleteResult deleted;
        QETCD_AWAIT(m_observer->remove("/barriers/reference"), deleted);
        WaitResult result;
        QETCD_AWAIT(waiting, result);
        QVERIFY(result.isLifted());
        QCOMPARE(result.reason, LiftReason::Deleted);

        // The same barrier going with its lease.
        QETCD_AWAIT(m_observer->put("/barriers/reference", "DistributedBarrier:ab12cd3", onLease), put);
        waiting = waiter.waitOnBarrierAsync();
        QCOMPARE(waiter.waitOnBarrier(300ms).status.code(), StatusCode::DeadlineExceeded);
        Result revoked;
        QETCD_AWAIT(m_observer->leaseRevoke(lease.id), revoked);
        QETCD_AWAIT(waiting, result);
        QCOMPARE(result.reason, LiftReason::LeaseExpired);
        QVERIFY(result.isSpurious());
    }

    void partitionedOwnerLiftsSpuriouslyThenReArms()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(ClientOptions::fromEndpoints({proxy.url()}));
        DistributedBarrier owner(&cutOff, "/barriers/partition", named("owner", 2));
        QSignalSpy events(&owner, &DistributedBarrier::leaseEvent);
        QSignalSpy states(&owner, &Recipe::connectionStateChanged);
        QVERIFY(owner.setBarrier());
        const KeyValue armed = read("/barriers/partition");

        Client other(direct());
        DistributedBarrier waiter(&other, "/barriers/partition", named("waiter"));
        QFuture<WaitResult> waiting = waiter.waitOnBarrierAsync();
        QCOMPARE(waiter.waitOnBarrier(300ms).status.code(), StatusCode::DeadlineExceeded);

        proxy.setMode(FaultProxy::Mode::Blackhole);
        WaitResult result;
        QETCD_AWAIT(waiting, result);
        QVERIFY2(result.isLifted(), qPrintable(result.status.toString()));
        QCOMPARE(result.reason, LiftReason::LeaseExpired);
        QVERIFY(result.isSpurious());
        QTRY_VERIFY_WITH_TIMEOUT(leaseEventKinds(events).contains(LeaseEventKind::Expired), scaledMs(10000));
        QVERIFY(owner.isOwner());  // still its barrier: the healer will put it back

        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(leaseEventKinds(events).size(), 3, scaledMs(15000));
        QCOMPARE(leaseEventKinds(events),
                 (QList{LeaseEventKind::Suspended, LeaseEventKind::Expired, LeaseEventKind::Restored}));
        QCOMPARE(stateChanges(states),
                 (QList<StateChange>{{ConnectionState::Suspended, ConnectionState::Connected},
                                     {ConnectionState::Lost, ConnectionState::Suspended},
                                     {ConnectionState::Reconnected, ConnectionState::Lost}}));
        const KeyValue rearmed = read("/barriers/partition");
        QCOMPARE(rearmed.value, armed.value);
        QCOMPARE(rearmed.lease, events.at(2).at(0).value<LeaseEvent>().newLeaseId);
        bool expiryRecorded = false;
        for (const RecipeError &error : owner.recentErrors())
            expiryRecorded |= error.context.contains("barrier lease");
        QVERIFY(expiryRecorded);

        // Re-armed: a new waiter blocks again, and is released by the removal.
        waiting = waiter.waitOnBarrierAsync();
        QCOMPARE(waiter.waitOnBarrier(500ms).status.code(), StatusCode::DeadlineExceeded);
        QVERIFY(!waiting.isFinished());
        QVERIFY(owner.removeBarrier());
        QETCD_AWAIT(waiting, result);
        QCOMPARE(result.reason, LiftReason::Removed);
    }

    // The lease must be renewed from its grant on: on a slow server, putting the barrier takes
    // most of a short TTL, and a lease first renewed only after that would already be gone.
    void slowServerDoesNotLiftAFreshBarrier()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client slow(ClientOptions::fromEndpoints({proxy.url()}));
        DistributedBarrier owner(&slow, "/barriers/slow", named("owner", 3));
        QSignalSpy events(&owner, &DistributedBarrier::leaseEvent);
        Client other(direct());
        DistributedBarrier waiter(&other, "/barriers/slow", named("waiter"));

        QVERIFY(awaitFuture(slow.ping()));  // connected before the server turns slow
        // Each round trip takes 1.2 s: the grant and the put take 2.4 s of the 3 s TTL, so a
        // lease first renewed after the put is acknowledged only after its TTL ran out.
        proxy.setDelay(600ms);
        proxy.setMode(FaultProxy::Mode::Delay);
        QVERIFY(owner.setBarrier());
        const KeyValue armed = read("/barriers/slow");
        QVERIFY(armed.lease != 0);
        const WaitResult waited = waiter.waitOnBarrier(std::chrono::milliseconds(scaledMs(4000)));
        QCOMPARE(waited.status.code(), StatusCode::DeadlineExceeded);
        QVERIFY2(!leaseEventKinds(events).contains(LeaseEventKind::Expired),
                 qPrintable(QString::number(events.size())));
        QCOMPARE(read("/barriers/slow").lease, armed.lease);

        proxy.setMode(FaultProxy::Mode::Pass);
        QVERIFY(owner.removeBarrier());
    }

    void anotherOwnerDuringThePartitionWins()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(ClientOptions::fromEndpoints({proxy.url()}));
        DistributedBarrier owner(&cutOff, "/barriers/stolen", named("owner", 2));
        QSignalSpy events(&owner, &DistributedBarrier::leaseEvent);
        QVERIFY(owner.setBarrier());

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_VERIFY_WITH_TIMEOUT(read("/barriers/stolen").key.isEmpty(), scaledMs(10000));
        DistributedBarrier usurper(m_observer.get(), "/barriers/stolen", named("usurper"));
        QVERIFY(usurper.setBarrier());
        const KeyValue theirs = read("/barriers/stolen");

        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_VERIFY_WITH_TIMEOUT(leaseEventKinds(events).contains(LeaseEventKind::Failed), scaledMs(15000));
        QCOMPARE(leaseEventKinds(events).last(), LeaseEventKind::Failed);
        QVERIFY(!leaseEventKinds(events).contains(LeaseEventKind::Restored));
        QCOMPARE(events.last().at(0).value<LeaseEvent>().cause.code(), StatusCode::OwnershipLost);
        QCOMPARE(owner.connectionState(), ConnectionState::Lost);
        QVERIFY(!owner.isOwner());
        QCOMPARE(read("/barriers/stolen").value, theirs.value);
        QCOMPARE(read("/barriers/stolen").lease, theirs.lease);

        // The one who lost it cannot take it down, nor set it.
        Status removed;
        QETCD_AWAIT(owner.removeBarrierAsync(), removed);
        QCOMPARE(removed.code(), StatusCode::OwnershipLost);
        QVERIFY(!owner.setBarrier());
        const KeyValue after = read("/barriers/stolen");
        QCOMPARE(after.value, theirs.value);
        QCOMPARE(after.lease, theirs.lease);
        QCOMPARE(after.modRevision, theirs.modRevision);
        QVERIFY(usurper.removeBarrier());
    }

    void closeWakesWaitersAndTakesItsBarrierDown()
    {
        DistributedBarrier owner(m_observer.get(), "/barriers/close", named("owner"));
        QVERIFY(owner.setBarrier());
        Client other(direct());
        DistributedBarrier closing(&other, "/barriers/close", named("closing"));
        DistributedBarrier staying(&other, "/barriers/close", named("staying"));
        QFuture<WaitResult> woken = closing.waitOnBarrierAsync();
        QFuture<WaitResult> lifted = staying.waitOnBarrierAsync();

        // A blocked thread is woken too.
        WaitResult blocked;
        QThread *thread = QThread::create([&] { blocked = closing.waitOnBarrier(); });
        thread->start();
        QCOMPARE(staying.waitOnBarrier(500ms).status.code(), StatusCode::DeadlineExceeded);
        closing.close();
        QVERIFY(thread->wait(scaledMs(5000)));
        delete thread;
        QCOMPARE(blocked.status.code(), StatusCode::Cancelled);
        WaitResult result;
        QETCD_AWAIT(woken, result);
        QCOMPARE(result.status.code(), StatusCode::Cancelled);
        QVERIFY(!lifted.isFinished());
        QETCD_AWAIT(closing.waitOnBarrierAsync(), result);
        QCOMPARE(result.status.code(), StatusCode::Closed);

        // Closing the owner removes its barrier the way removeBarrier() does.
        owner.close();
        QETCD_AWAIT(lifted, result);
        QVERIFY(result.isLifted());
        QCOMPARE(result.reason, LiftReason::Removed);
        QTRY_VERIFY_WITH_TIMEOUT(read("/barriers/close").key.isEmpty(), scaledMs(5000));
    }

    // An operator lifts the barrier by deleting its key while the owner's lease lives: the owner
    // is told at once and is no longer the owner; waiters pass; nobody sets the barrier again.
    void ownerLearnsItsBarrierWasLiftedByAnotherClient()
    {
        DistributedBarrier owner(m_observer.get(), "/barriers/lifted", named("owner", 2));
        QSignalSpy lifted(&owner, &DistributedBarrier::liftedByOther);
        QSignalSpy states(&owner, &Recipe::connectionStateChanged);
        QVERIFY(owner.setBarrier());
        Client other(direct());
        DistributedBarrier waiter(&other, "/barriers/lifted", named("waiter"));
        QSignalSpy started(&waiter, &DistributedBarrier::waitStarted);
        QFuture<WaitResult> waiting = waiter.waitOnBarrierAsync();
        QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), scaledMs(5000));

        Client operatorsTool(direct());
        DeleteResult deleted;
        QETCD_AWAIT(operatorsTool.remove("/barriers/lifted"), deleted);
        QCOMPARE(deleted.deleted, 1);
        QTRY_VERIFY_WITH_TIMEOUT(!lifted.isEmpty(), scaledMs(3000));  // as the delete lands, not at the next renewal
        QCOMPARE(lifted.first().at(0).toLongLong(), deleted.header.revision);
        const Status cause = lifted.first().at(1).value<Status>();
        QCOMPARE(cause.code(), StatusCode::OwnershipLost);
        QVERIFY2(cause.message().contains("\"/barriers/lifted\" was deleted by another client"), qPrintable(cause.toString()));
        QVERIFY(!owner.isOwner());
        WaitResult result;
        QETCD_AWAIT(waiting, result);
        QVERIFY(result.isLifted());
        QCOMPARE(result.reason, LiftReason::Deleted);

        // Past two TTLs nothing has set it again; the owner has nothing left to remove, and its
        // state never said anything was wrong: it simply does not own a barrier.
        QVERIFY(!putWithin(m_observer.get(), "/barriers/lifted", deleted.header.revision, scaledMs(5000)));
        QCOMPARE(lifted.size(), 1);
        Status removed;
        QETCD_AWAIT(owner.removeBarrierAsync(), removed);
        QCOMPARE(removed.code(), StatusCode::FailedPrecondition);
        QVERIFY(states.isEmpty());
        QVERIFY(saidInHistory(owner, "deleted by another client"));
        // It may set the barrier again, and then it is its own again.
        QVERIFY(owner.setBarrier());
        QVERIFY(owner.isOwner());
        QVERIFY(owner.removeBarrier());
        QCOMPARE(lifted.size(), 1);
    }

    // Told of a lift by another, the owner keeps its lease a third of its TTL before revoking it:
    // a waiter slow to ask whether the key's lease lived (its process loaded, say) still hears
    // that it did, and reads Deleted, not a spurious LeaseExpired.
    void anOwnerKeepsItsLeaseAWhileAfterALiftByAnother()
    {
        DistributedBarrier owner(m_observer.get(), "/barriers/slow-waiter", named("owner", 6));
        QSignalSpy lifted(&owner, &DistributedBarrier::liftedByOther);
        QVERIFY(owner.setBarrier());
        const qint64 lease = read("/barriers/slow-waiter").lease;
        QVERIFY(lease > 0);
        const auto secondsLeft = [&] {
            LeaseTimeToLiveResult left;
            [&] { QETCD_AWAIT(m_observer->leaseTimeToLive(lease), left); }();
            return left.status ? left.ttl : -2;
        };

        QElapsedTimer sinceDelete;
        sinceDelete.start();
        DeleteResult deleted;
        QETCD_AWAIT(m_observer->remove("/barriers/slow-waiter"), deleted);
        QCOMPARE(deleted.deleted, 1);
        QTRY_VERIFY_WITH_TIMEOUT(!lifted.isEmpty(), scaledMs(3000));
        QVERIFY(!owner.isOwner());
        QVERIFY2(secondsLeft() >= 0, "the lease was revoked as the owner was told");
        QTRY_COMPARE_WITH_TIMEOUT(secondsLeft(), qint64(-1), scaledMs(10000));
        // 2 s after the owner was told; a coarse timer may fire up to 5 % early.
        QVERIFY2(sinceDelete.elapsed() >= 1800, qPrintable(QString::number(sinceDelete.elapsed())));
    }

    // Its own removal is not another client's, nor is its own marker before the delete.
    void ownRemovalIsNotALiftByAnother()
    {
        DistributedBarrier owner(m_observer.get(), "/barriers/own", named("owner"));
        QSignalSpy lifted(&owner, &DistributedBarrier::liftedByOther);
        QVERIFY(owner.setBarrier());
        QVERIFY(owner.removeBarrier());
        QVERIFY(!lifted.wait(scaledMs(1500)));
        QVERIFY(owner.setBarrier());
        owner.close();
        QVERIFY(!lifted.wait(scaledMs(1500)));
    }

    // Moved onto someone else's lease: theirs, told, and left as it is.
    void ownerLearnsItsBarrierWasMovedToAnotherLease()
    {
        DistributedBarrier owner(m_observer.get(), "/barriers/moved", named("owner"));
        QSignalSpy lifted(&owner, &DistributedBarrier::liftedByOther);
        QVERIFY(owner.setBarrier());
        Client operatorsTool(direct());
        PutResult put;
        QETCD_AWAIT(operatorsTool.put("/barriers/moved", "theirs"), put);
        QTRY_VERIFY_WITH_TIMEOUT(!lifted.isEmpty(), scaledMs(3000));
        QVERIFY2(lifted.first().at(1).value<Status>().message().contains("\"/barriers/moved\" was moved to no lease"),
                 qPrintable(lifted.first().at(1).value<Status>().toString()));
        QVERIFY(!owner.isOwner());
        Status removed;
        QETCD_AWAIT(owner.removeBarrierAsync(), removed);
        QCOMPARE(removed.code(), StatusCode::FailedPrecondition);
        owner.close();
        QCOMPARE(read("/barriers/moved").value, QByteArray("theirs"));
        DeleteResult cleaned;
        QETCD_AWAIT(operatorsTool.remove("/barriers/moved"), cleaned);
    }
};

QTEST_GUILESS_MAIN(tst_DistributedBarrier)
#include "tst_distributedbarrier.moc"
