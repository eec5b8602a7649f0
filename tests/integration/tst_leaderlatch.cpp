// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/parkedthread.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/leaderlatch.h>

#include <QtCore/QMutex>
#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
// isLeader()/notLeader() in emission order, recorded on the dispatcher thread.
class Transitions : public QObject
{
public:
    explicit Transitions(LeaderLatch *latch)
    {
        connect(latch, &LeaderLatch::isLeader, this, [this] { append("isLeader"); }, Qt::DirectConnection);
        connect(latch, &LeaderLatch::notLeader, this, [this] { append("notLeader"); }, Qt::DirectConnection);
    }
    QStringList list() const
    {
        QMutexLocker locker(&m_mutex);
        return m_list;
    }

private:
    void append(const QString &what)
    {
        QMutexLocker locker(&m_mutex);
        m_list.append(what);
    }
    mutable QMutex m_mutex;
    QStringList m_list;
};

} // namespace

class tst_LeaderLatch : public QObject, protected RecipeFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    void firstLeadsTheOtherWaitsUntilItCloses()
    {
        LeaderLatch first(m_client.get(), "/latch/basic", {}, withTtl(10));
        Transitions firstTransitions(&first);
        QCOMPARE(first.await(100ms).code(), StatusCode::NotStarted);
        Status status;
        QETCD_AWAIT(first.start(), status);
        QVERIFY2(status.isOk(), qPrintable(status.toString()));
        QCOMPARE(first.await(scaled(10s)), Status());
        QVERIFY(first.hasLeadership());
        // await() returns once we lead; isLeader() is emitted on the dispatcher thread, maybe
        // a moment after.
        QTRY_COMPARE_WITH_TIMEOUT(firstTransitions.list(), QStringList{"isLeader"}, scaledMs(5000));
        const QList<KeyValue> keys = queue("/latch/basic");
        QCOMPARE(keys.size(), 1);
        QCOMPARE(first.key(), keys[0].key);
        QCOMPARE(first.fencingToken(), keys[0].createRevision);

        LeaderLatch second(m_other.get(), "/latch/basic", "second", withTtl(10));
        Transitions secondTransitions(&second);
        QETCD_AWAIT(second.start(), status);
        QVERIFY(status.isOk());
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(second.await(300ms).code(), StatusCode::DeadlineExceeded);
        QVERIFY(clock.elapsed() >= 250);
        QVERIFY(!second.hasLeadership());
        QCOMPARE(queue("/latch/basic").size(), 2);  // a timed-out await stays a candidate
        QFuture<Status> turn = second.awaitAsync();
        QVERIFY(!turn.isFinished());

        first.close();
        QCOMPARE(firstTransitions.list(), (QStringList{"isLeader", "notLeader"}));
        QVERIFY(!first.hasLeadership());
        QETCD_AWAIT(turn, status);
        QVERIFY2(status.isOk(), qPrintable(status.toString()));
        QVERIFY(second.hasLeadership());
        QCOMPARE(secondTransitions.list(), QStringList{"isLeader"});
        QVERIFY(second.fencingToken() > keys[0].createRevision);
        QCOMPARE(queue("/latch/basic")[0].value, QByteArray("second"));

        Txn write;
        write.success = {TxnOp::put("/latch/basic-data", "x")};
        TxnResult written;
        QETCD_AWAIT(second.guardedTxn(write), written);
        QVERIFY(written.status.isOk());
        QETCD_AWAIT(first.guardedTxn(write), written);
        QCOMPARE(written.status.code(), StatusCode::OwnershipLost);
        second.close();
        QTRY_VERIFY_WITH_TIMEOUT(queue("/latch/basic").isEmpty(), scaledMs(5000));
    }

    void closeReleasesWaitersAndRemovesTheKey()
    {
        LeaderLatch leader(m_client.get(), "/latch/close", {}, withTtl(10));
        Status status;
        QETCD_AWAIT(leader.start(), status);
        QCOMPARE(leader.await(scaled(10s)), Status());

        LeaderLatch waiter(m_other.get(), "/latch/close", {}, withTtl(10));
        QETCD_AWAIT(waiter.start(), status);
        QFuture<Status> unbounded = waiter.awaitAsync();
        Status blocked(StatusCode::Unknown, "not run");
        ParkedThread parked;
        QThread *thread = QThread::create([&] {
            parked.enter();
            blocked = waiter.await();
        });
        thread->start();
        QCOMPARE(queue("/latch/close").size(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(parked.parked(), scaledMs(5000));
        waiter.close();
        QETCD_AWAIT(unbounded, status);
        QCOMPARE(status.code(), StatusCode::Cancelled);
        QVERIFY(thread->wait(scaledMs(5000)));
        delete thread;
        QCOMPARE(blocked.code(), StatusCode::Cancelled);  // parked in the wait when close() came
        QTRY_COMPARE_WITH_TIMEOUT(queue("/latch/close").size(), 1, scaledMs(5000));
        QCOMPARE(waiter.await(10ms).code(), StatusCode::Closed);
        QVERIFY(leader.hasLeadership());
    }

    void aBlockingAwaitReturnsWhenItsThreadIsInterrupted()
    {
        LeaderLatch leader(m_client.get(), "/latch/interrupt", {}, withTtl(10));
        Status status;
        QETCD_AWAIT(leader.start(), status);
        QCOMPARE(leader.await(scaled(10s)), Status());
        LeaderLatch waiter(m_other.get(), "/latch/interrupt", {}, withTtl(10));
        QETCD_AWAIT(waiter.start(), status);
        Status blocked(StatusCode::Unknown, "not run");
        ParkedThread parked;
        QThread *thread = QThread::create([&] {
            parked.enter();
            blocked = waiter.await();
        });
        thread->start();
        QTRY_VERIFY_WITH_TIMEOUT(parked.parked(), scaledMs(5000));
        thread->requestInterruption();
        QVERIFY(thread->wait(scaledMs(5000)));
        delete thread;
        QCOMPARE(blocked.code(), StatusCode::Cancelled);
        QCOMPARE(queue("/latch/interrupt").size(), 2);  // interrupting an await is no withdrawal
    }

    void aLostLeadershipIsToldAndContestedAgain()
    {
        LeaderLatch latch(m_client.get(), "/latch/loss", {}, withTtl(3));
        Transitions transitions(&latch);
        QSignalSpy states(&latch, &Recipe::connectionStateChanged);
        Status status;
        QETCD_AWAIT(latch.start(), status);
        QCOMPARE(latch.await(scaled(10s)), Status());
        const QList<KeyValue> before = queue("/latch/loss");
        QCOMPARE(before.size(), 1);

        Result revoked;
        QETCD_AWAIT(m_other->leaseRevoke(before[0].lease), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(transitions.list(), (QStringList{"isLeader", "notLeader", "isLeader"}),
                                  scaledMs(10000));
        QVERIFY(latch.hasLeadership());
        const QList<KeyValue> after = queue("/latch/loss");
        QCOMPARE(after.size(), 1);
        QVERIFY(after[0].lease != before[0].lease);
        QVERIFY(latch.fencingToken() > before[0].createRevision);
        // Lost, then Reconnected; told from two threads, they may reach the spy in either order.
        QTRY_COMPARE_WITH_TIMEOUT(sortedStateChanges(states),
                                  sorted({{ConnectionState::Lost, ConnectionState::Connected},
                                          {ConnectionState::Reconnected, ConnectionState::Lost}}),
                                  scaledMs(5000));
        QCOMPARE(latch.connectionState(), ConnectionState::Reconnected);
        QVERIFY(!latch.recentErrors().isEmpty());
    }

    // Our key deleted by someone else while leading: the leadership is lost at once (another
    // candidate could be elected), told, and contested again with a new key.
    void aLeaderWhoseKeyIsDeletedIsToldAndContestsAgain()
    {
        LeaderLatch latch(m_client.get(), "/latch/taken", {}, withTtl(60));
        Transitions transitions(&latch);
        Status status;
        QETCD_AWAIT(latch.start(), status);
        QCOMPARE(latch.await(scaled(10s)), Status());
        const QList<KeyValue> before = queue("/latch/taken");
        QCOMPARE(before.size(), 1);

        DeleteResult removed;
        QETCD_AWAIT(m_other->remove(before[0].key), removed);
        QCOMPARE(removed.deleted, 1);
        QTRY_COMPARE_WITH_TIMEOUT(transitions.list(), (QStringList{"isLeader", "notLeader", "isLeader"}),
                                  scaledMs(10000));
        const QList<KeyValue> after = queue("/latch/taken");
        QCOMPARE(after.size(), 1);
        QVERIFY(after[0].createRevision > before[0].createRevision);
        // The error ring is written on the loss's way through the recipe, which need not come
        // before the new term's transitions reach this thread.
        const auto toldDeleted = [&latch] {
            const QList<RecipeError> errors = latch.recentErrors();
            return std::any_of(errors.cbegin(), errors.cend(), [](const RecipeError &error) {
                return error.status.code() == StatusCode::OwnershipLost
                    && error.status.message().contains(QStringLiteral(" was deleted by another client"));
            });
        };
        QTRY_VERIFY_WITH_TIMEOUT(toldDeleted(), scaledMs(5000));
        latch.close();
    }
};

QTEST_GUILESS_MAIN(tst_LeaderLatch)
#include "tst_leaderlatch.moc"
