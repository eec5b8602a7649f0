// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedreadwritelock.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

using Side = DistributedReadWriteLock::Side;

class tst_DistributedReadWriteLock : public QObject, protected RecipeFixture
{
    Q_OBJECT

private:
    QList<KeyValue> entries(const QByteArray &path) { return keysByCreation(m_client.get(), path + '/'); }

    bool exists(const QByteArray &key)
    {
        const auto future = m_client->get(key);
        return awaitFuture(future) && future.result().kvs.size() == 1;
    }

    static LockOptions ttl(qint64 seconds) { return withTtl<LockOptions>(seconds); }

    // Records, in the order they happened, which lock got in (direct: from the dispatcher).
    void logAcquisitions(DistributedReadWriteLock *lock, const QString &name, QStringList *log, QMutex *mutex)
    {
        connect(lock, &DistributedReadWriteLock::acquired, this,
                [=](Side side, qint64, const QByteArray &) {
                    QMutexLocker locker(mutex);
                    log->append(name + (side == Side::Write ? QStringLiteral(":write") : QStringLiteral(":read")));
                },
                Qt::DirectConnection);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    void entriesFollowTheLayoutAndHoldsAreReentrant()
    {
        DistributedReadWriteLock lock(m_client.get(), "/rw/basic", ttl(10));
        QCOMPARE(lock.readLock().side(), Side::Read);
        QCOMPARE(lock.writeLock().side(), Side::Write);
        QCOMPARE(lock.writeLock().lock(), Status());
        QCOMPARE(lock.writeLock().lock(), Status());
        QCOMPARE(lock.writeLock().holdCount(), 2);
        QVERIFY(lock.writeLock().isHeldByCurrentThread());
        QVERIFY(!lock.readLock().isHeldByCurrentThread());

        const QList<KeyValue> keys = entries("/rw/basic");
        QCOMPARE(keys.size(), 1);
        const QByteArray expected = "/rw/basic/write-" + lock.clientId().toUtf8() + ':';
        QVERIFY2(keys[0].key.startsWith(expected), keys[0].key.constData());
        QCOMPARE(keys[0].key.size(), expected.size() + 7);
        QCOMPARE(keys[0].value, lock.clientId().toUtf8());
        QCOMPARE(keys[0].lease, lock.writeLock().leaseId());
        QCOMPARE(lock.writeLock().fencingToken(), keys[0].createRevision);
        QCOMPARE(lock.writeLock().holdKey(), keys[0].key);
        bool locked = false;
        QETCD_AWAIT(lock.writeLock().isLocked(), locked);
        QVERIFY(locked);
        QETCD_AWAIT(lock.readLock().isLocked(), locked);
        QVERIFY(!locked);

        QVERIFY(lock.writeLock().unlock());
        QVERIFY(lock.writeLock().isHeldByCurrentThread());
        QVERIFY(lock.writeLock().unlock());
        QVERIFY(!lock.writeLock().isHeldByCurrentThread());
        QTRY_VERIFY_WITH_TIMEOUT(entries("/rw/basic").isEmpty(), scaledMs(5000));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("unlock\\(\\) of the write lock by a thread that holds nothing"));
        QVERIFY(!lock.writeLock().unlock());
    }

    void readersShare()
    {
        DistributedReadWriteLock first(m_client.get(), "/rw/share", ttl(10));
        DistributedReadWriteLock second(m_other.get(), "/rw/share", ttl(10));
        QCOMPARE(first.readLock().lock(), Status());
        QCOMPARE(second.readLock().lock(5s), Status());
        QVERIFY(first.readLock().isHeldByCurrentThread());
        QVERIFY(second.readLock().isHeldByCurrentThread());
        QCOMPARE(entries("/rw/share").size(), 2);
        bool locked = false;
        QETCD_AWAIT(first.readLock().isLocked(), locked);
        QVERIFY(locked);
        QETCD_AWAIT(first.writeLock().isLocked(), locked);
        QVERIFY(!locked);

        // A writer waits for both.
        Client third(direct());
        DistributedReadWriteLock writer(&third, "/rw/share", ttl(10));
        QVERIFY(!writer.writeLock().tryLock(700ms));
        QVERIFY(first.readLock().unlock());
        QVERIFY(!writer.writeLock().tryLock(700ms));
        QVERIFY(second.readLock().unlock());
        QCOMPARE(writer.writeLock().lock(5s), Status());
        QVERIFY(writer.writeLock().unlock());
    }

    void aQueuedWriterIsNotStarvedByLaterReaders()
    {
        QStringList log;
        QMutex logMutex;
        Client third(direct());
        DistributedReadWriteLock reader(m_client.get(), "/rw/fair", ttl(10));
        DistributedReadWriteLock writer(m_other.get(), "/rw/fair", ttl(10));
        DistributedReadWriteLock lateReader(&third, "/rw/fair", ttl(10));
        logAcquisitions(&reader, "reader", &log, &logMutex);
        logAcquisitions(&writer, "writer", &log, &logMutex);
        logAcquisitions(&lateReader, "lateReader", &log, &logMutex);

        QCOMPARE(reader.readLock().lock(), Status());
        QFuture<Status> writing = writer.writeLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/fair").size(), 2, scaledMs(5000));
        QFuture<Status> lateReading = lateReader.readLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/fair").size(), 3, scaledMs(5000));
        // Later readers would share with the first one, but the writer came before them.
        Client fourth(direct());
        DistributedReadWriteLock another(&fourth, "/rw/fair", ttl(10));
        QVERIFY(!another.readLock().tryLock(700ms));
        QVERIFY(!writing.isFinished());
        QVERIFY(!lateReading.isFinished());

        QVERIFY(reader.readLock().unlock());
        Status turn;
        QETCD_AWAIT(writing, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QVERIFY(!lateReading.isFinished());
        QVERIFY(writer.writeLock().unlock());
        QETCD_AWAIT(lateReading, turn);
        QVERIFY(turn.isOk());
        QVERIFY(lateReader.readLock().unlock());

        QMutexLocker locker(&logMutex);
        QCOMPARE(log, QStringList({"reader:read", "writer:write", "lateReader:read"}));
    }

    void downgradeLetsReadersIn()
    {
        DistributedReadWriteLock lock(m_client.get(), "/rw/downgrade", ttl(10));
        DistributedReadWriteLock reader(m_other.get(), "/rw/downgrade", ttl(10));
        QSignalSpy released(&lock, &DistributedReadWriteLock::released);
        QCOMPARE(lock.writeLock().lock(), Status());
        QFuture<Status> reading = reader.readLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/downgrade").size(), 2, scaledMs(5000));

        // Taking the read lock under the write lock does not queue behind anyone.
        QCOMPARE(lock.readLock().lock(5s), Status());
        QVERIFY(lock.readLock().isHeldByCurrentThread());
        QVERIFY(lock.writeLock().isHeldByCurrentThread());
        QVERIFY(!reading.isFinished());

        QVERIFY(lock.writeLock().unlock());
        Status turn;
        QETCD_AWAIT(reading, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QVERIFY(lock.readLock().isHeldByCurrentThread());
        QVERIFY(!lock.writeLock().isHeldByCurrentThread());
        QCOMPARE(released.size(), 1);
        QCOMPARE(released.at(0).at(0).value<Side>(), Side::Write);
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/downgrade").size(), 2, scaledMs(5000));
        for (const KeyValue &entry : entries("/rw/downgrade"))
            QVERIFY(entry.key.startsWith("/rw/downgrade/read-"));

        Status written;
        QETCD_AWAIT(lock.readLock().guardedPut("/rw/downgrade-data", "shared"), written);
        QVERIFY2(written.isOk(), qPrintable(written.toString()));
        QVERIFY(lock.readLock().unlock());
        QVERIFY(reader.readLock().unlock());
        QTRY_VERIFY_WITH_TIMEOUT(entries("/rw/downgrade").isEmpty(), scaledMs(5000));
    }

    void downgradeKeepsAWriterQueuedInBetweenOut()
    {
        Client third(direct());
        DistributedReadWriteLock lock(m_client.get(), "/rw/between", ttl(10));
        DistributedReadWriteLock writer(m_other.get(), "/rw/between", ttl(10));
        DistributedReadWriteLock reader(&third, "/rw/between", ttl(10));
        QCOMPARE(lock.writeLock().lock(), Status());
        const QByteArray writeEntry = lock.writeLock().holdKey();
        QFuture<Status> writing = writer.writeLock().lockAsync(scaled(6000ms));
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/between").size(), 2, scaledMs(5000));
        QFuture<Status> reading = reader.readLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/between").size(), 3, scaledMs(5000));

        // The writer queued between our two entries would get in if our write entry went now.
        QCOMPARE(lock.readLock().lock(5s), Status());
        QVERIFY(lock.writeLock().unlock());
        QVERIFY(!lock.writeLock().isHeldByCurrentThread());
        QVERIFY(lock.readLock().isHeldByCurrentThread());
        QVERIFY(!writer.writeLock().isHeldByCurrentThread());
        QTest::qWait(scaledMs(1000));  // a negative check: nothing may change meanwhile
        QVERIFY(!writing.isFinished());
        QVERIFY(!reading.isFinished());
        QVERIFY(exists(writeEntry));

        // Once that writer gives up, nobody can slip in: the write entry goes, the reader comes in.
        Status turn;
        QETCD_AWAIT(writing, turn);
        QCOMPARE(turn.code(), StatusCode::DeadlineExceeded);
        QETCD_AWAIT(reading, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QVERIFY(!exists(writeEntry));
        QVERIFY(saidInHistory(lock, "downgrade settled"));
        QVERIFY(lock.readLock().isHeldByCurrentThread());
        QVERIFY(lock.readLock().unlock());
        QVERIFY(reader.readLock().unlock());
        QTRY_VERIFY_WITH_TIMEOUT(entries("/rw/between").isEmpty(), scaledMs(5000));
    }

    void aDowngradedReadIsLostWithItsWriteEntry()
    {
        DistributedReadWriteLock lock(m_client.get(), "/rw/anchor", ttl(10));
        DistributedReadWriteLock writer(m_other.get(), "/rw/anchor", ttl(10));
        QSignalSpy lost(&lock, &DistributedReadWriteLock::lockLost);
        QCOMPARE(lock.writeLock().lock(), Status());
        const qint64 writeLease = lock.writeLock().leaseId();
        QFuture<Status> writing = writer.writeLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/anchor").size(), 2, scaledMs(5000));
        QCOMPARE(lock.readLock().lock(5s), Status());

        Result revoked;
        QETCD_AWAIT(m_other->leaseRevoke(writeLease), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(lost.size(), 2, scaledMs(10000));
        QCOMPARE(lost.at(0).at(0).value<Side>(), Side::Write);
        QCOMPARE(lost.at(1).at(0).value<Side>(), Side::Read);
        QVERIFY(!lock.readLock().isHeldByCurrentThread());
        QVERIFY(!lock.writeLock().isHeldByCurrentThread());
        Status turn;
        QETCD_AWAIT(writing, turn);
        QVERIFY(turn.isOk());
        Status written;
        QETCD_AWAIT(lock.readLock().guardedPut("/rw/anchor-data", "stale"), written);
        QCOMPARE(written.code(), StatusCode::OwnershipLost);
        QVERIFY(!lock.readLock().unlock());
        QVERIFY(!lock.writeLock().unlock());
        QVERIFY(writer.writeLock().unlock());
        QCOMPARE(lost.size(), 2);
    }

    void upgradeIsRefused()
    {
        DistributedReadWriteLock lock(m_client.get(), "/rw/upgrade", ttl(10));
        QCOMPARE(lock.readLock().lock(), Status());
        QElapsedTimer clock;
        clock.start();
        const Status refused = lock.writeLock().lock();
        QCOMPARE(refused.code(), StatusCode::Unsupported);
        QVERIFY2(refused.message().contains("upgrade"), qPrintable(refused.message()));
        QVERIFY(!lock.writeLock().tryLock(10s));
        QVERIFY(clock.elapsed() < 2000);
        QCOMPARE(entries("/rw/upgrade").size(), 1);
        QVERIFY(lock.readLock().unlock());
        QCOMPARE(lock.writeLock().lock(5s), Status());
        QVERIFY(lock.writeLock().unlock());
    }

    void tryLockTimesOutAndLeavesNoEntry()
    {
        DistributedReadWriteLock holder(m_client.get(), "/rw/timeout", ttl(10));
        QCOMPARE(holder.writeLock().lock(), Status());
        DistributedReadWriteLock waiter(m_other.get(), "/rw/timeout", ttl(10));
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!waiter.readLock().tryLock(500ms));
        // Both sides of the deadline; not below 95% because the recipe's deadline is a coarse
        // QTimer, which Qt lets fire up to 5% early (the queue's is precise).
        QVERIFY2(clock.elapsed() >= 475 && clock.elapsed() < scaledMs(2000),
                 qPrintable(QString::number(clock.elapsed())));
        QVERIFY(!waiter.readLock().isHeldByCurrentThread());
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/timeout").size(), 1, scaledMs(5000));
        QVERIFY(holder.writeLock().unlock());
    }

    void lossIsToldAndTheQueuedReaderGetsInAfterwards()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(ClientOptions::fromEndpoints({proxy.url()}));
        DistributedReadWriteLock holder(&cutOff, "/rw/loss", ttl(2));
        QSignalSpy lost(&holder, &DistributedReadWriteLock::lockLost);
        std::atomic<qint64> lostAt{0};
        connect(&holder, &DistributedReadWriteLock::lockLost, this,
                [&] { lostAt = steady_clock::now().time_since_epoch().count(); }, Qt::DirectConnection);
        QCOMPARE(holder.writeLock().lock(), Status());
        const qint64 token = holder.writeLock().fencingToken();

        DistributedReadWriteLock reader(m_other.get(), "/rw/loss", ttl(10));
        std::atomic<qint64> acquiredAt{0};
        connect(&reader, &DistributedReadWriteLock::acquired, this,
                [&] { acquiredAt = steady_clock::now().time_since_epoch().count(); }, Qt::DirectConnection);
        QFuture<Status> reading = reader.readLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/loss").size(), 2, scaledMs(5000));

        proxy.setMode(FaultProxy::Mode::Blackhole);
        Status turn;
        QETCD_AWAIT(reading, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QCOMPARE(lost.size(), 1);
        QCOMPARE(lost.at(0).at(0).value<Side>(), Side::Write);
        QVERIFY(lostAt.load() > 0 && lostAt.load() < acquiredAt.load());
        QCOMPARE(holder.connectionState(), ConnectionState::Lost);
        QVERIFY(!holder.writeLock().isHeldByCurrentThread());
        QCOMPARE(holder.writeLock().fencingToken(), token);

        proxy.setMode(FaultProxy::Mode::Pass);
        Status written;
        QETCD_AWAIT(holder.writeLock().guardedPut("/rw/loss-data", "stale"), written);
        QCOMPARE(written.code(), StatusCode::OwnershipLost);
        QETCD_AWAIT(reader.readLock().guardedPut("/rw/loss-data", "fresh"), written);
        QVERIFY2(written.isOk(), qPrintable(written.toString()));
        QVERIFY(!holder.writeLock().unlock());
        QVERIFY(reader.readLock().unlock());
        QCOMPARE(lost.size(), 1);
    }

    // Someone else deletes the writer's entry: the reader queued behind it gets in, so the
    // writer is told its lock is lost, and a read it took under that write goes with it.
    void aWriteWhoseEntryIsDeletedIsLostWithItsDowngradedRead()
    {
        DistributedReadWriteLock holder(m_client.get(), "/rw/taken", ttl(60));
        QSignalSpy lost(&holder, &DistributedReadWriteLock::lockLost);
        QCOMPARE(holder.writeLock().lock(), Status());
        QCOMPARE(holder.readLock().lock(), Status());  // a downgrade, standing on the write entry
        const QByteArray key = holder.writeLock().holdKey();
        DistributedReadWriteLock writer(m_other.get(), "/rw/taken", ttl(60));
        QFuture<Status> writing = writer.writeLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/taken").size(), 3, scaledMs(5000));

        DeleteResult removed;
        QETCD_AWAIT(m_other->remove(key), removed);
        QCOMPARE(removed.deleted, 1);
        QTRY_COMPARE_WITH_TIMEOUT(lost.size(), 2, scaledMs(5000));
        QCOMPARE(lost.at(0).at(0).value<Side>(), Side::Write);
        QCOMPARE(lost.at(0).at(1).value<Status>().code(), StatusCode::OwnershipLost);
        QCOMPARE(lost.at(1).at(0).value<Side>(), Side::Read);
        QCOMPARE(holder.connectionState(), ConnectionState::Lost);
        QVERIFY(!holder.writeLock().isHeldByCurrentThread());
        QVERIFY(!holder.readLock().isHeldByCurrentThread());
        Status turn;
        QETCD_AWAIT(writing, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QVERIFY(!holder.readLock().unlock());
        QVERIFY(!holder.writeLock().unlock());
        QVERIFY(writer.writeLock().unlock());
        QCOMPARE(lost.size(), 2);
    }

    void aWaiterWhoseLeaseDiesRequeues()
    {
        DistributedReadWriteLock holder(m_client.get(), "/rw/requeue", ttl(10));
        DistributedReadWriteLock waiter(m_other.get(), "/rw/requeue", ttl(10));
        QSignalSpy lost(&waiter, &DistributedReadWriteLock::lockLost);
        QCOMPARE(holder.writeLock().lock(), Status());
        QFuture<Status> waiting = waiter.writeLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/requeue").size(), 2, scaledMs(5000));
        const KeyValue queued = entries("/rw/requeue").at(1);

        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(queued.lease), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(saidInHistory(waiter, "re-queues with a fresh lease"), scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/requeue").size(), 2, scaledMs(5000));
        const KeyValue again = entries("/rw/requeue").at(1);
        QVERIFY(again.lease != queued.lease);
        QVERIFY(again.key != queued.key);
        QVERIFY(!waiting.isFinished());

        QVERIFY(holder.writeLock().unlock());
        Status turn;
        QETCD_AWAIT(waiting, turn);
        QVERIFY2(turn.isOk(), qPrintable(turn.toString()));
        QCOMPARE(waiter.writeLock().holdKey(), again.key);
        QVERIFY(waiter.writeLock().unlock());
        QCOMPARE(lost.size(), 0);  // nothing held was lost
    }

    void closeWakesWaitersAndReleases()
    {
        DistributedReadWriteLock holder(m_client.get(), "/rw/close", ttl(10));
        QCOMPARE(holder.writeLock().lock(), Status());
        QCOMPARE(holder.readLock().lock(), Status());
        DistributedReadWriteLock waiter(m_other.get(), "/rw/close", ttl(10));
        QFuture<Status> waiting = waiter.readLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/close").size(), 3, scaledMs(5000));
        waiter.close();
        Status turn;
        QETCD_AWAIT(waiting, turn);
        QCOMPARE(turn.code(), StatusCode::Cancelled);
        QTRY_COMPARE_WITH_TIMEOUT(entries("/rw/close").size(), 2, scaledMs(5000));
        holder.close();
        QVERIFY(!holder.writeLock().isHeldByCurrentThread());
        QVERIFY(!holder.readLock().unlock());  // released by close(): nothing was left to release
        QVERIFY(!holder.writeLock().unlock());
        QTRY_VERIFY_WITH_TIMEOUT(entries("/rw/close").isEmpty(), scaledMs(5000));
        QETCD_AWAIT(waiter.writeLock().lockAsync(), turn);
        QCOMPARE(turn.code(), StatusCode::Closed);
    }
};

QTEST_GUILESS_MAIN(tst_DistributedReadWriteLock)
#include "tst_distributedreadwritelock.moc"
