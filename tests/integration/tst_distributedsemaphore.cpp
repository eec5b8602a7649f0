// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/blockeddispatcher.h"
#include "../common/recipefixture.h"
#include "testhooks_p.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedmutex.h>
#include <QEtcd/distributedsemaphore.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

class tst_DistributedSemaphore : public QObject, protected RecipeFixture
{
    Q_OBJECT

private:
    QList<KeyValue> holders(const QByteArray &path) { return keysByCreation(m_client.get(), path + "/holders/"); }

    qint64 countUnder(const QByteArray &prefix)
    {
        RangeOptions countOnly;
        countOnly.range = KeyRange::prefix();
        countOnly.countOnly = true;
        const auto future = m_client->get(prefix, countOnly);
        return awaitFuture(future) ? future.result().count : -1;
    }

    static SemaphoreOptions ttl(qint64 seconds) { return withTtl<SemaphoreOptions>(seconds); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    void thePermitCountIsStoredOnceAndAMismatchIsRefused()
    {
        DistributedSemaphore three(m_client.get(), "/sem/count", 3, ttl(10));
        AvailablePermitsResult available;
        QETCD_AWAIT(three.availablePermits(), available);
        QVERIFY2(available.status.isOk(), qPrintable(available.status.toString()));
        QCOMPARE(available.permits, 3);
        QCOMPARE(available.available, 3);

        const auto stored = m_client->get("/sem/count/permits");
        QVERIFY(awaitFuture(stored));
        QCOMPARE(stored.result().kvs.size(), 1);
        QCOMPARE(stored.result().kvs[0].value, QByteArray::fromHex("00000003"));
        QCOMPARE(stored.result().kvs[0].lease, 0);

        QCOMPARE(three.acquire(), Status());
        QCOMPARE(three.heldPermits(), 1);
        const QList<KeyValue> keys = holders("/sem/count");
        QCOMPARE(keys.size(), 1);
        const QByteArray expected = "/sem/count/holders/" + three.clientId().toUtf8() + ':';
        QVERIFY2(keys[0].key.startsWith(expected), keys[0].key.constData());
        QCOMPARE(keys[0].key.size(), expected.size() + 7);
        QCOMPARE(keys[0].value, three.clientId().toUtf8());
        QCOMPARE(keys[0].lease, three.leaseId());
        QCOMPARE(three.fencingToken(), keys[0].createRevision);
        QCOMPARE(three.holdKey(), keys[0].key);
        QETCD_AWAIT(three.availablePermits(), available);
        QCOMPARE(available.available, 2);

        DistributedSemaphore two(m_other.get(), "/sem/count", 2, ttl(10));
        const Status refused = two.acquire(5s);
        QCOMPARE(refused.code(), StatusCode::Mismatch);
        QVERIFY2(refused.message().contains("asks for 2 permits") && refused.message().contains("says 3"),
                 qPrintable(refused.message()));
        QETCD_AWAIT(two.availablePermits(), available);
        QCOMPARE(available.status.code(), StatusCode::Mismatch);
        QCOMPARE(holders("/sem/count").size(), 1);

        QVERIFY(three.release());
        QTRY_VERIFY_WITH_TIMEOUT(holders("/sem/count").isEmpty(), scaledMs(5000));
        const auto still = m_client->get("/sem/count/permits");
        QVERIFY(awaitFuture(still));
        QCOMPARE(still.result().kvs.value(0).value, QByteArray::fromHex("00000003"));
    }

    void aStoredValueThatIsNotAPermitCountIsRefused()
    {
        const auto put = m_client->put("/sem/garbage/permits", "three");
        QVERIFY(awaitFuture(put));
        DistributedSemaphore semaphore(m_client.get(), "/sem/garbage", 3, ttl(10));
        const Status refused = semaphore.acquire(5s);
        QCOMPARE(refused.code(), StatusCode::Mismatch);
        QVERIFY2(refused.message().contains("not a 4-byte"), qPrintable(refused.message()));
        DistributedSemaphore none(m_client.get(), "/sem/garbage", 0, ttl(10));
        QCOMPARE(none.acquire().code(), StatusCode::InvalidArgument);
    }

    void upToPermitsHoldersInTheOrderTheyCame()
    {
        Client third(direct());
        Client fourth(direct());
        DistributedSemaphore a(m_client.get(), "/sem/order", 2, ttl(10));
        DistributedSemaphore b(m_other.get(), "/sem/order", 2, ttl(10));
        DistributedSemaphore c(&third, "/sem/order", 2, ttl(10));
        DistributedSemaphore d(&fourth, "/sem/order", 2, ttl(10));
        QCOMPARE(a.acquire(), Status());
        QCOMPARE(b.acquire(5s), Status());
        QFuture<Status> cTurn = c.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/order").size(), 3, scaledMs(5000));
        QFuture<Status> dTurn = d.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/order").size(), 4, scaledMs(5000));
        AvailablePermitsResult available;
        QETCD_AWAIT(a.availablePermits(), available);
        QCOMPARE(available.available, 0);
        QVERIFY(!cTurn.isFinished());

        QVERIFY(b.release());
        Status turn;
        QETCD_AWAIT(cTurn, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QVERIFY(!dTurn.isFinished());
        QCOMPARE(c.heldPermits(), 1);
        QVERIFY(a.release());
        QETCD_AWAIT(dTurn, turn);
        QVERIFY(turn.isOk());
        QVERIFY(c.release());
        QVERIFY(d.release());
        QTRY_VERIFY_WITH_TIMEOUT(holders("/sem/order").isEmpty(), scaledMs(5000));
        QETCD_AWAIT(a.availablePermits(), available);
        QCOMPARE(available.available, 2);
    }

    // release() sends the entry's delete itself: a holder whose client's dispatcher thread is
    // busy (here blocked outright) still lets the next waiter in at once.
    void aPermitReleasedWhileItsDispatcherIsBusyLetsTheNextIn()
    {
        Client holderClient(direct());
        DistributedSemaphore holder(&holderClient, "/sem/busyrelease", 1, ttl(10));
        DistributedSemaphore waiter(m_other.get(), "/sem/busyrelease", 1, ttl(10));
        QCOMPARE(holder.acquire(), Status());
        const QFuture<Status> waiting = waiter.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/busyrelease").size(), 2, scaledMs(5000));

        BlockedDispatcher busy(&holderClient, int(scaledMs(5000)));
        QVERIFY(busy.isBlocked());
        QVERIFY(holder.release());
        const bool letInWhileBlocked = QTest::qWaitFor([&] { return waiting.isFinished(); }, int(scaledMs(5000)));
        busy.free();
        QVERIFY2(letInWhileBlocked, "the waiter got in only once the holder's dispatcher was free");
        QCOMPARE(waiting.result(), Status());
        QCOMPARE(waiter.heldPermits(), 1);
        QVERIFY(waiter.release());
        QTRY_VERIFY_WITH_TIMEOUT(holders("/sem/busyrelease").isEmpty(), scaledMs(5000));
    }

    void permitsBelongToTheInstanceAndComeBackLastInFirstOut()
    {
        DistributedSemaphore semaphore(m_client.get(), "/sem/lifo", 3, ttl(10));
        QSignalSpy released(&semaphore, &DistributedSemaphore::released);
        QCOMPARE(semaphore.acquire(), Status());
        const qint64 first = semaphore.fencingToken();
        QCOMPARE(semaphore.acquire(), Status());
        const qint64 second = semaphore.fencingToken();
        QVERIFY(second > first);
        QCOMPARE(semaphore.heldPermits(), 2);
        QCOMPARE(holders("/sem/lifo").size(), 2);

        // Any thread may give a permit back; the most recent one goes first.
        bool releasedElsewhere = false;
        std::unique_ptr<QThread> elsewhere(QThread::create([&] { releasedElsewhere = semaphore.release(); }));
        elsewhere->start();
        QVERIFY(elsewhere->wait(scaledMs(5000)));
        QVERIFY(releasedElsewhere);
        QTRY_COMPARE_WITH_TIMEOUT(released.size(), 1, scaledMs(5000));
        QCOMPARE(released.at(0).at(0).toLongLong(), second);
        QCOMPARE(semaphore.fencingToken(), first);
        QCOMPARE(semaphore.heldPermits(), 1);
        QVERIFY(semaphore.release());
        QCOMPARE(semaphore.heldPermits(), 0);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("release\\(\\) without a permit"));
        QVERIFY(!semaphore.release());
        QTRY_VERIFY_WITH_TIMEOUT(holders("/sem/lifo").isEmpty(), scaledMs(5000));
    }

    void permitsAreNotReentrantAndATimeoutLeavesNoEntry()
    {
        DistributedSemaphore semaphore(m_client.get(), "/sem/single", 1, ttl(10));
        QCOMPARE(semaphore.acquire(), Status());
        QElapsedTimer clock;
        clock.start();
        const Status second = semaphore.acquire(500ms);
        QCOMPARE(second.code(), StatusCode::DeadlineExceeded);
        // Both sides of the deadline; not below 95% because the recipe's deadline is a coarse
        // QTimer, which Qt lets fire up to 5% early (the queue's is precise).
        QVERIFY2(clock.elapsed() >= 475 && clock.elapsed() < scaledMs(2000),
                 qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(semaphore.heldPermits(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/single").size(), 1, scaledMs(5000));
        QVERIFY(semaphore.release());
    }

    void lossIsToldAndTheWaiterGetsInAfterwards()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(ClientOptions::fromEndpoints({proxy.url()}));
        DistributedSemaphore holder(&cutOff, "/sem/loss", 1, ttl(2));
        QSignalSpy lost(&holder, &DistributedSemaphore::permitLost);
        std::atomic<qint64> lostAt{0};
        connect(&holder, &DistributedSemaphore::permitLost, this,
                [&] { lostAt = steady_clock::now().time_since_epoch().count(); }, Qt::DirectConnection);
        QCOMPARE(holder.acquire(), Status());
        const qint64 token = holder.fencingToken();

        DistributedSemaphore waiter(m_other.get(), "/sem/loss", 1, ttl(10));
        std::atomic<qint64> acquiredAt{0};
        connect(&waiter, &DistributedSemaphore::acquired, this,
                [&] { acquiredAt = steady_clock::now().time_since_epoch().count(); }, Qt::DirectConnection);
        QFuture<Status> waiting = waiter.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/loss").size(), 2, scaledMs(5000));

        proxy.setMode(FaultProxy::Mode::Blackhole);
        Status turn;
        QETCD_AWAIT(waiting, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QCOMPARE(lost.size(), 1);
        QVERIFY(lostAt.load() > 0 && lostAt.load() < acquiredAt.load());
        QCOMPARE(holder.connectionState(), ConnectionState::Lost);
        QCOMPARE(holder.heldPermits(), 0);
        QCOMPARE(holder.fencingToken(), token);

        proxy.setMode(FaultProxy::Mode::Pass);
        Status written;
        QETCD_AWAIT(holder.guardedPut("/sem/loss-data", "stale"), written);
        QCOMPARE(written.code(), StatusCode::OwnershipLost);
        QETCD_AWAIT(waiter.guardedPut("/sem/loss-data", "fresh"), written);
        QVERIFY2(written.isOk(), qPrintable(written.toString()));
        QVERIFY(!holder.release());
        QVERIFY(waiter.release());
        QCOMPARE(lost.size(), 1);
    }

    // An operator deletes a holder's key: the permit is free for the next in line, so the
    // holder is told at once that its permit is lost.
    void aPermitWhoseKeyIsDeletedIsLost()
    {
        DistributedSemaphore holder(m_client.get(), "/sem/taken", 1, ttl(60));
        QSignalSpy lost(&holder, &DistributedSemaphore::permitLost);
        QCOMPARE(holder.acquire(), Status());
        const QByteArray key = holder.holdKey();
        DistributedSemaphore waiter(m_other.get(), "/sem/taken", 1, ttl(60));
        QFuture<Status> waiting = waiter.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/taken").size(), 2, scaledMs(5000));

        DeleteResult removed;
        QETCD_AWAIT(m_other->remove(key), removed);
        QCOMPARE(removed.deleted, 1);
        QTRY_COMPARE_WITH_TIMEOUT(lost.size(), 1, scaledMs(5000));
        const Status cause = lost.at(0).at(0).value<Status>();
        QCOMPARE(cause.code(), StatusCode::OwnershipLost);
        QVERIFY2(cause.message().contains(QString::fromUtf8(key) + QStringLiteral(" was deleted by another client")),
                 qPrintable(cause.toString()));
        QCOMPARE(holder.connectionState(), ConnectionState::Lost);
        QCOMPARE(holder.heldPermits(), 0);
        Status turn;
        QETCD_AWAIT(waiting, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QVERIFY(!holder.release());
        QVERIFY(waiter.release());
        QCOMPARE(lost.size(), 1);
    }

    void interruptOnPermitLossCancelsALibraryWait()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(ClientOptions::fromEndpoints({proxy.url()}));
        SemaphoreOptions interrupting = ttl(2);
        interrupting.interruptOnPermitLoss = true;
        DistributedSemaphore holder(&cutOff, "/sem/interrupt", 1, interrupting);
        LockOptions blocking;
        blocking.ttlSeconds = 10;
        DistributedMutex blocker(m_other.get(), "/sem/other", blocking);
        QCOMPARE(blocker.lock(), Status());

        // The holder's thread takes a permit, then parks in a library wait on a lock.
        Status parkedOutcome(StatusCode::Unknown, "not run");
        bool sawStop = false;
        std::unique_ptr<QThread> worker(QThread::create([&] {
            if (!holder.acquire().isOk())
                return;
            DistributedMutex other(&cutOff, "/sem/other", blocking);
            parkedOutcome = other.lock();
            sawStop = holder.stopToken().stopRequested();
        }));
        worker->start();
        QTRY_COMPARE_WITH_TIMEOUT(countUnder("/sem/other/"), 2, scaledMs(5000));
        proxy.setMode(FaultProxy::Mode::Blackhole);
        QVERIFY(worker->wait(scaledMs(15000)));
        QCOMPARE(parkedOutcome.code(), StatusCode::Cancelled);
        QVERIFY(sawStop);
        proxy.setMode(FaultProxy::Mode::Pass);
        QVERIFY(!holder.release());
        QVERIFY(blocker.unlock());
    }

    void aWaiterWhoseLeaseDiesRequeues()
    {
        DistributedSemaphore holder(m_client.get(), "/sem/requeue", 1, ttl(10));
        DistributedSemaphore waiter(m_other.get(), "/sem/requeue", 1, ttl(10));
        QSignalSpy lost(&waiter, &DistributedSemaphore::permitLost);
        QCOMPARE(holder.acquire(), Status());
        QFuture<Status> waiting = waiter.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/requeue").size(), 2, scaledMs(5000));
        const KeyValue queued = holders("/sem/requeue").at(1);

        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(queued.lease), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(saidInHistory(waiter, "re-queues with a fresh lease"), scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/requeue").size(), 2, scaledMs(5000));
        const KeyValue again = holders("/sem/requeue").at(1);
        QVERIFY(again.lease != queued.lease);
        QVERIFY(!waiting.isFinished());

        QVERIFY(holder.release());
        Status turn;
        QETCD_AWAIT(waiting, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QCOMPARE(waiter.holdKey(), again.key);
        QVERIFY(waiter.release());
        QCOMPARE(lost.size(), 0);
    }

    // The answer of a permit check comes back after its semaphore is gone: the caller's future
    // still finishes, and says so, instead of being left cancelled by a continuation with no
    // context to run on.
    void availablePermitsOfASemaphoreDestroyedMidCallSaysClosed()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client slow(ClientOptions::fromEndpoints({proxy.url()}));
        auto semaphore = std::make_unique<DistributedSemaphore>(&slow, "/sem/gone", 2, ttl(10));
        proxy.setDelay(500ms);
        proxy.setMode(FaultProxy::Mode::Delay);
        const QFuture<AvailablePermitsResult> counted = semaphore->availablePermits();
        semaphore.reset();
        QVERIFY2(awaitFuture(counted), "availablePermits() never finished");
        QVERIFY2(!counted.isCanceled(), "availablePermits() was cancelled with its semaphore");
        QCOMPARE(counted.result().status.code(), StatusCode::Closed);
    }

    void closeWakesWaitersAndReleases()
    {
        DistributedSemaphore holder(m_client.get(), "/sem/close", 1, ttl(10));
        QCOMPARE(holder.acquire(), Status());
        DistributedSemaphore waiter(m_other.get(), "/sem/close", 1, ttl(10));
        QFuture<Status> waiting = waiter.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/close").size(), 2, scaledMs(5000));
        waiter.close();
        Status turn;
        QETCD_AWAIT(waiting, turn);
        QCOMPARE(turn.code(), StatusCode::Cancelled);
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/close").size(), 1, scaledMs(5000));
        holder.close();
        QCOMPARE(holder.heldPermits(), 0);
        QVERIFY(!holder.release());  // released by close(): nothing was left to release
        QTRY_VERIFY_WITH_TIMEOUT(holders("/sem/close").isEmpty(), scaledMs(5000));
        QETCD_AWAIT(waiter.acquireAsync(), turn);
        QCOMPARE(turn.code(), StatusCode::Closed);
    }
    // N10: after a fail-over to a member that lags, a serializable look may not find a waiter's
    // entry yet. Only the leader's word that the entry is gone may cost the waiter its place:
    // here the one behind it would otherwise take the permit first.
    void aLaggingMembersLookDoesNotCostAWaiterItsPlace()
    {
        DistributedSemaphore holder(m_client.get(), "/sem/lagging", 1, ttl(10));
        QCOMPARE(holder.acquire(), Status());
        Client secondsClient(direct());
        DistributedSemaphore second(&secondsClient, "/sem/lagging", 1, ttl(10));
        QFuture<Status> secondAcquired = second.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/lagging").size(), 2, scaledMs(5000));
        DistributedSemaphore third(m_other.get(), "/sem/lagging", 1, ttl(10));
        QFuture<Status> thirdAcquired = third.acquireAsync();
        QTRY_COMPARE_WITH_TIMEOUT(holders("/sem/lagging").size(), 3, scaledMs(5000));
        const KeyValue secondsEntry = holders("/sem/lagging").at(1);

        std::atomic<int> answeredFromBehind{0};
        Internal::setBeforeSend(&secondsClient, [&answeredFromBehind, key = QString::fromUtf8(secondsEntry.key)](
                                                    const QString &what) {
            const bool looksAtOurEntry = what.startsWith(QLatin1String("txn comparing")) && what.contains(key);
            return looksAtOurEntry && answeredFromBehind.fetch_add(1) == 0 ? Internal::SendFault::AnswerFromBehind
                                                                           : Internal::SendFault::None;
        });
        QVERIFY(holder.release());
        Status status;
        QETCD_AWAIT(secondAcquired, status);
        QCOMPARE(status, Status());
        Internal::setBeforeSend(&secondsClient, {});
        QVERIFY(answeredFromBehind.load() >= 1);
        QCOMPARE(second.holdKey(), secondsEntry.key);
        QCOMPARE(second.fencingToken(), secondsEntry.createRevision);
        QVERIFY(!saidInHistory(second, "vanished"));
        QVERIFY(!thirdAcquired.isFinished());
        QVERIFY(second.release());
        QETCD_AWAIT(thirdAcquired, status);
        QCOMPARE(status, Status());
        QVERIFY(third.release());
    }
};

QTEST_GUILESS_MAIN(tst_DistributedSemaphore)
#include "tst_distributedsemaphore.moc"
