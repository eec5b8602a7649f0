// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedbarrierwithcount.h>
#include <QEtcd/distributeddoublebarrier.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

// Counted and double barriers, each participant on a Client of its own.
class tst_DistributedBarrierWithCount : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_observer;
    std::vector<std::unique_ptr<Client>> m_clients;

    ClientOptions direct() const { return ClientOptions::fromEndpoints(m_cluster.clientUrls()); }

    Client *freshClient()
    {
        m_clients.push_back(std::make_unique<Client>(direct()));
        return m_clients.back().get();
    }

    static RecipeOptions named(const QString &clientId)
    {
        RecipeOptions options;
        options.clientId = clientId;
        options.ttlSeconds = 10;
        RetryPolicy::ExponentialBackoff backoff;
        backoff.maxDelay = 2s;
        options.resilience.lease = LeaseResilience{RetryPolicy::exponentialBackoff(backoff), 1s};
        return options;
    }

    QList<KeyValue> under(const QByteArray &prefix)
    {
        RangeOptions all;
        all.range = KeyRange::prefix();
        all.sortTarget = SortTarget::CreateRevision;
        all.sortOrder = SortOrder::Ascending;
        RangeResult got;
        [&] { QETCD_AWAIT(m_observer->get(prefix, all), got); }();
        return got.kvs;
    }

    static qint64 counted(const QFuture<qint64> &count)
    {
        return awaitFuture(count) ? count.result() : -2;
    }

    static qint64 waiters(const DistributedBarrierWithCount &barrier) { return counted(barrier.waiterCount()); }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ConnectionState>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_observer = std::make_unique<Client>(direct());
    }

    void cleanup() { m_clients.clear(); }

    void lastArrivalReleasesEveryone()
    {
        std::vector<std::unique_ptr<DistributedBarrierWithCount>> members;
        for (int i = 0; i < 3; ++i)
            members.push_back(std::make_unique<DistributedBarrierWithCount>(freshClient(), "/counted/rv", 3,
                                                                            named(QString("m%1").arg(i))));
        QCOMPARE(members[0]->context(), QString("DistributedBarrierWithCount[/counted/rv]"));
        QFuture<Status> first = members[0]->waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(waiters(*members[0]), 1, scaledMs(5000));
        QFuture<Status> second = members[1]->waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(waiters(*members[0]), 2, scaledMs(5000));

        // etcd-recipes' layout: the round's ready key holds the first arriver's token, not
        // leased; each member's key is its token, on its own lease.
        const QList<KeyValue> keys = under("/counted/rv/");
        QCOMPARE(keys.size(), 3);
        QCOMPARE(keys[0].key, QByteArray("/counted/rv/ready"));
        QCOMPARE(keys[0].lease, 0);
        const QRegularExpression token(QStringLiteral("^m[01]:[0-9A-Za-z]{7}$"));
        for (int i = 1; i < 3; ++i) {
            QVERIFY(keys[i].key.startsWith("/counted/rv/waiting/m" + QByteArray::number(i - 1) + ':'));
            QCOMPARE(keys[i].value, keys[i].key.mid(QByteArray("/counted/rv/waiting/").size()));
            QVERIFY2(token.match(QString::fromUtf8(keys[i].value)).hasMatch(), keys[i].value.constData());
            QVERIFY(keys[i].lease != 0);
        }
        QCOMPARE(keys[0].value, keys[1].value);
        QVERIFY(!first.isFinished());
        QVERIFY(!second.isFinished());

        QVERIFY(members[2]->waitOnBarrier(10s));
        Status released;
        QETCD_AWAIT(first, released);
        QVERIFY2(released.isOk(), qPrintable(released.toString()));
        QETCD_AWAIT(second, released);
        QVERIFY(released.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(under("/counted/rv/").isEmpty(), scaledMs(5000));
    }

    void memberThatTimesOutStopsCounting()
    {
        DistributedBarrierWithCount quitter(freshClient(), "/counted/quit", 2, named("quitter"));
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!quitter.waitOnBarrier(500ms));
        // Both sides of the deadline; not below 95% because the recipe's deadline is a coarse
        // QTimer, which Qt lets fire up to 5% early (the queue's is precise).
        QVERIFY2(clock.elapsed() >= 475 && clock.elapsed() < scaledMs(2000),
                 qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(waiters(quitter), 0);  // gone by the time the wait returned
        Status timedOut;
        QETCD_AWAIT(quitter.waitOnBarrierAsync(300ms), timedOut);
        QCOMPARE(timedOut.code(), StatusCode::DeadlineExceeded);

        // Had it still counted, this one member would make two.
        DistributedBarrierWithCount a(freshClient(), "/counted/quit", 2, named("a"));
        DistributedBarrierWithCount b(freshClient(), "/counted/quit", 2, named("b"));
        QFuture<Status> waiting = a.waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(waiters(a), 1, scaledMs(5000));
        QVERIFY(!QTest::qWaitFor([&] { return waiting.isFinished(); }, 500));
        QVERIFY(b.waitOnBarrier(10s));
        Status released;
        QETCD_AWAIT(waiting, released);
        QVERIFY(released.isOk());
    }

    // etcd 3.4 counts a count_only range before applying min_create_revision, so keys an earlier
    // round left behind (their members still alive) would make up the numbers of this one.
    void earlierRoundsKeysDoNotCountTowardsThisRound()
    {
        LeaseGrantResult lease;
        QETCD_AWAIT(m_observer->leaseGrant(60), lease);
        QVERIFY(lease.status);
        PutOptions onLease;
        onLease.lease = lease.id;
        for (const QByteArray stale : {"old1:aaaaaaa", "old2:bbbbbbb"}) {
            PutResult put;
            QETCD_AWAIT(m_observer->put("/counted/stale/waiting/" + stale, stale, onLease), put);
            QVERIFY(put.status);
        }

        DistributedBarrierWithCount alone(freshClient(), "/counted/stale", 3, named("alone"));
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!alone.waitOnBarrier(1500ms));
        QVERIFY2(clock.elapsed() >= 1425 && clock.elapsed() < scaledMs(3000),
                 qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(under("/counted/stale/waiting/").size(), 2);  // its own key went with it

        Result revoked;
        QETCD_AWAIT(m_observer->leaseRevoke(lease.id), revoked);
        QVERIFY(revoked.status);
    }

    void closeReleasesParkedWaitersWithFalse()
    {
        DistributedBarrierWithCount member(freshClient(), "/counted/close", 3, named("closing"));
        QFuture<Status> parked = member.waitOnBarrierAsync();
        bool blocked = true;
        QThread *thread = QThread::create([&] { blocked = member.waitOnBarrier(); });
        thread->start();
        QTRY_COMPARE_WITH_TIMEOUT(waiters(member), 2, scaledMs(5000));
        member.close();
        QVERIFY(thread->wait(scaledMs(5000)));
        delete thread;
        QVERIFY(!blocked);
        Status released;
        QETCD_AWAIT(parked, released);
        QCOMPARE(released.code(), StatusCode::Cancelled);
        QTRY_COMPARE_WITH_TIMEOUT(waiters(member), 0, scaledMs(5000));
        QETCD_AWAIT(member.waitOnBarrierAsync(), released);
        QCOMPARE(released.code(), StatusCode::Closed);
    }

    void revokedWaiterKeyHealsAndStillCounts()
    {
        DistributedBarrierWithCount a(freshClient(), "/counted/heal", 2, named("a"));
        QSignalSpy states(&a, &Recipe::connectionStateChanged);
        QFuture<Status> waiting = a.waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(under("/counted/heal/waiting/").size(), 1, scaledMs(5000));
        const KeyValue before = under("/counted/heal/waiting/").first();
        int exitCode = -1;
        m_cluster.etcdctl({"lease", "revoke", QString::number(before.lease, 16)}, &exitCode);
        QCOMPARE(exitCode, 0);
        QTRY_VERIFY_WITH_TIMEOUT(!under("/counted/heal/waiting/").isEmpty()
                                     && under("/counted/heal/waiting/").first().lease != before.lease,
                                 scaledMs(10000));
        QCOMPARE(under("/counted/heal/waiting/").first().key, before.key);
        QTRY_COMPARE_WITH_TIMEOUT(stateChanges(states),
                                  (QList<StateChange>{{ConnectionState::Lost, ConnectionState::Connected},
                                                      {ConnectionState::Reconnected, ConnectionState::Lost}}),
                                  scaledMs(5000));
        QVERIFY(!waiting.isFinished());

        DistributedBarrierWithCount b(freshClient(), "/counted/heal", 2, named("b"));
        QVERIFY(b.waitOnBarrier(10s));
        Status released;
        QETCD_AWAIT(waiting, released);
        QVERIFY(released.isOk());
    }

    // Another client deletes a waiting member's key while its lease lives: the member no longer
    // counts, and its wait ends with OwnershipLost instead of the key being put back.
    void waiterKeyDeletedByAnotherClientEndsItsWait()
    {
        DistributedBarrierWithCount a(freshClient(), "/counted/deleted", 2, named("a"));
        QFuture<Status> waiting = a.waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(under("/counted/deleted/waiting/").size(), 1, scaledMs(5000));
        const KeyValue key = under("/counted/deleted/waiting/").first();
        DeleteResult deleted;
        QETCD_AWAIT(m_observer->remove(key.key), deleted);
        QCOMPARE(deleted.deleted, 1);
        Status ended;
        QETCD_AWAIT(waiting, ended);
        QCOMPARE(ended.code(), StatusCode::OwnershipLost);
        QVERIFY2(ended.message().contains("was deleted by another client"), qPrintable(ended.toString()));
        QVERIFY(!putWithin(m_observer.get(), key.key, deleted.header.revision, scaledMs(2000)));
        QCOMPARE(waiters(a), qint64(0));
    }

    // A member cut off for long: its round trips meanwhile (its key still counted), its lease
    // goes, and the next round opens. Its heal, once it is back, must not put its key into the
    // new round, where it would count and trip that round a member short: the heal finds its
    // round over, and the member is released. Its watch is made to come back late, as after a
    // long outage, so that the heal is what finds out.
    void healAfterTheRoundClosedDoesNotCountInTheNext()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        m_clients.push_back(std::make_unique<Client>(ClientOptions::fromEndpoints({proxy.url()})));
        RecipeOptions cutOff = named("a");
        cutOff.resilience.watch.retryPolicy = RetryPolicy::bounded(3, milliseconds(scaledMs(12000)));
        DistributedBarrierWithCount a(m_clients.back().get(), "/counted/late", 2, cutOff);
        QFuture<Status> aWaits = a.waitOnBarrierAsync();
        QTRY_COMPARE_WITH_TIMEOUT(under("/counted/late/waiting/").size(), 1, scaledMs(5000));
        const KeyValue aKey = under("/counted/late/waiting/").first();

        proxy.setMode(FaultProxy::Mode::Reset);
        DistributedBarrierWithCount b(freshClient(), "/counted/late", 2, named("b"));
        QVERIFY(b.waitOnBarrier(10s));  // a's key still counted
        Result revoked;
        QETCD_AWAIT(m_observer->leaseRevoke(aKey.lease), revoked);
        QVERIFY(revoked.status);
        DistributedBarrierWithCount c(freshClient(), "/counted/late", 2, named("c"));
        QFuture<Status> cWaits = c.waitOnBarrierAsync();
        QTRY_VERIFY_WITH_TIMEOUT(under("/counted/late/waiting/").size() == 1
                                     && under("/counted/late/waiting/").first().key.startsWith("/counted/late/waiting/c:"),
                                 scaledMs(5000));
        QVERIFY(!aWaits.isFinished());

        proxy.setMode(FaultProxy::Mode::Pass);
        Status released;
        QETCD_AWAIT(aWaits, released);
        QVERIFY2(released.isOk(), qPrintable(released.toString()));
        QVERIFY2(!QTest::qWaitFor([&] { return cWaits.isFinished(); }, 2000), "a's heal tripped the next round");
        const QList<KeyValue> waiting = under("/counted/late/waiting/");
        QCOMPARE(waiting.size(), 1);
        QVERIFY(waiting.first().key.startsWith("/counted/late/waiting/c:"));
        c.close();
        QETCD_AWAIT(cWaits, released);
        QCOMPARE(released.code(), StatusCode::Cancelled);
    }

    void badArgumentsAreRefused()
    {
        DistributedBarrierWithCount none(m_observer.get(), "/counted/bad", 0);
        Status refused;
        QETCD_AWAIT(none.waitOnBarrierAsync(), refused);
        QCOMPARE(refused.code(), StatusCode::InvalidArgument);
        QVERIFY(refused.message().contains("memberCount"));
        QVERIFY(under("/counted/bad").isEmpty());
    }

    void doubleBarrierEntersAndLeavesTogether()
    {
        std::vector<std::unique_ptr<DistributedDoubleBarrier>> members;
        for (int i = 0; i < 3; ++i)
            members.push_back(std::make_unique<DistributedDoubleBarrier>(freshClient(), "/double/x", 3,
                                                                         named(QString("d%1").arg(i))));
        QCOMPARE(members[0]->memberCount(), 3);
        QFuture<Status> entering0 = members[0]->enterAsync();
        QFuture<Status> entering1 = members[1]->enterAsync();
        QTRY_COMPARE_WITH_TIMEOUT(counted(members[0]->enterWaiterCount()), 2, scaledMs(5000));
        // The clientId given to the double barrier names its members in both rendezvous.
        const QList<KeyValue> entered = under("/double/x/enter/waiting/");
        QCOMPARE(entered.size(), 2);
        QStringList names;
        for (const KeyValue &kv : entered)
            names.append(QString::fromUtf8(kv.key.left(QByteArray("/double/x/enter/waiting/d0:").size())));
        names.sort();
        QCOMPARE(names, (QStringList{"/double/x/enter/waiting/d0:", "/double/x/enter/waiting/d1:"}));
        QVERIFY(!entering0.isFinished());
        QVERIFY(members[2]->enter(10s));
        Status done;
        QETCD_AWAIT(entering0, done);
        QVERIFY(done.isOk());
        QETCD_AWAIT(entering1, done);
        QVERIFY(done.isOk());

        QFuture<Status> leaving0 = members[0]->leaveAsync();
        QVERIFY(!members[2]->leave(300ms));  // two of three: no one may go
        QVERIFY(!leaving0.isFinished());
        QFuture<Status> leaving2 = members[2]->leaveAsync();
        QTRY_COMPARE_WITH_TIMEOUT(counted(members[0]->leaveWaiterCount()), 2, scaledMs(5000));
        QVERIFY(members[1]->leave(10s));
        QETCD_AWAIT(leaving0, done);
        QVERIFY(done.isOk());
        QETCD_AWAIT(leaving2, done);
        QVERIFY(done.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(under("/double/x/").isEmpty(), scaledMs(5000));
    }

    void doubleBarrierTimesOutClosesAndReportsState()
    {
        DistributedDoubleBarrier member(freshClient(), "/double/lonely", 2, named("lonely"));
        QCOMPARE(member.context(), QString("DistributedDoubleBarrier[/double/lonely]"));
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!member.enter(300ms));
        QVERIFY2(clock.elapsed() >= 285 && clock.elapsed() < scaledMs(1500),
                 qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(counted(member.enterWaiterCount()), 0);

        QSignalSpy states(&member, &Recipe::connectionStateChanged);
        QFuture<Status> parked = member.enterAsync();
        QTRY_COMPARE_WITH_TIMEOUT(under("/double/lonely/enter/waiting/").size(), 1, scaledMs(5000));
        int exitCode = -1;
        m_cluster.etcdctl({"lease", "revoke", QString::number(under("/double/lonely/enter/waiting/").first().lease, 16)},
                          &exitCode);
        QCOMPARE(exitCode, 0);
        QTRY_COMPARE_WITH_TIMEOUT(stateChanges(states),
                                  (QList<StateChange>{{ConnectionState::Lost, ConnectionState::Connected},
                                                      {ConnectionState::Reconnected, ConnectionState::Lost}}),
                                  scaledMs(10000));
        bool expiryRecorded = false;
        for (const RecipeError &error : member.recentErrors())
            expiryRecorded |= error.context.startsWith("DistributedDoubleBarrier[/double/lonely] enter");
        QVERIFY(expiryRecorded);

        member.close();
        Status released;
        QETCD_AWAIT(parked, released);
        QCOMPARE(released.code(), StatusCode::Cancelled);
        QETCD_AWAIT(member.leaveAsync(), released);
        QCOMPARE(released.code(), StatusCode::Closed);
        QTRY_VERIFY_WITH_TIMEOUT(under("/double/lonely/enter/waiting/").isEmpty(), scaledMs(5000));
    }
};

QTEST_GUILESS_MAIN(tst_DistributedBarrierWithCount)
#include "tst_distributedbarrierwithcount.moc"
