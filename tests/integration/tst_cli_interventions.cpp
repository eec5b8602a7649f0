// SPDX-License-Identifier: Apache-2.0
// An operator's interventions from the qetcd CLI (lock break, semaphore break, elect force,
// barrier lift and release) against a real etcd member, on participants that are real qetcd
// processes: each intervention must produce, in the process it hits, the event the library
// promises, and hand the object on to whoever is next.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedreadwritelock.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonArray>
#include <QtTest/QtTest>

#include <csignal>
#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CliInterventions : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }

    // Runs an intervention to its end; its one JSON line.
    QJsonObject intervene(const QStringList &arguments, int expectedExit = 0)
    {
        auto run = qetcd(QStringList{QStringLiteral("--json")} + arguments);
        const int exit = run->waitForExit();
        if (exit != expectedExit) {
            qWarning() << arguments << "exited" << exit << run->transcript();
            return {{QLatin1String("exit"), exit}};
        }
        return run->events().value(0);
    }

    int keysUnder(const QByteArray &prefix) { return Testing::keysUnder(m_client.get(), prefix); }

    bool exists(const QByteArray &key) { return keysUnder(key) > 0; }

    // Two participants on one object: the first establishes, the second queues behind it.
    std::pair<std::unique_ptr<Qetcd>, std::unique_ptr<Qetcd>> holderAndWaiter(const QStringList &first,
                                                                            const QStringList &second,
                                                                            const QString &established,
                                                                            const QByteArray &prefix)
    {
        auto holder = qetcd(first);
        [&] { QTRY_VERIFY2_WITH_TIMEOUT(holder->has(established), holder->transcript().constData(), scaledMs(15000)); }();
        auto waiter = qetcd(second);
        [&] { QTRY_COMPARE_WITH_TIMEOUT(keysUnder(prefix), 2, scaledMs(15000)); }();
        return {std::move(holder), std::move(waiter)};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    // The point of `lock break`: the holder learns of it, the next in line acquires, and a write
    // fenced by the old token is refused while one by the new token lands.
    void lockBreakTellsTheHolderAndHandsTheLockOn()
    {
        auto [holder, waiter] = holderAndWaiter({"lock", "/ci/lk", "--hold", "60s", "--ttl", "60"},
                                                {"lock", "/ci/lk", "--hold", "60s"}, QStringLiteral("acquired"), "/ci/lk/");
        QVERIFY2(holder->has("acquired") && !waiter->has("acquired"), waiter->transcript().constData());
        const QJsonObject acquired = holder->event("acquired");

        const QJsonObject broken = intervene({"lock", "break", "/ci/lk", "--yes"});
        QCOMPARE(text(broken, "intervention"), QStringLiteral("hold broken:"));
        // The holder's lease carried the lock's key alone: revoked, so any kind of holder hears.
        QCOMPARE(text(broken, "method"), QStringLiteral("lease_revoked"));
        QCOMPARE(text(broken, "lease_id"), text(acquired, "lease_id"));
        QCOMPARE(text(broken, "key"), text(acquired, "key"));
        QCOMPARE(integer(broken, "fencing_token"), integer(acquired, "fencing_token"));
        QCOMPARE(broken.value("removed_keys").toArray(), QJsonArray{text(acquired, "key")});

        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("lockLost"), holder->transcript().constData(), scaledMs(10000));
        QCOMPARE(holder->waitForExit(), 1);
        QCOMPARE(holder->outcomes(), (QStringList{"acquired", "lockLost", "closed"}));
        QTRY_VERIFY2_WITH_TIMEOUT(waiter->has("acquired"), waiter->transcript().constData(), scaledMs(10000));
        const QJsonObject next = waiter->event("acquired");
        QVERIFY(integer(next, "fencing_token") > integer(acquired, "fencing_token"));

        // The old holder's fenced write is refused and writes nothing; the new holder's lands.
        const QString oldFence = text(acquired, "key") + '=' + QString::number(integer(acquired, "fencing_token"));
        auto stale = qetcd({"put", "--fence", oldFence, "/ci/lk-out", "old"});
        QCOMPARE(stale->waitForExit(), 1);
        QVERIFY2(stale->standardError().contains("has ended"), stale->standardError().constData());
        QVERIFY(!exists("/ci/lk-out"));
        const QString newFence = text(next, "key") + '=' + QString::number(integer(next, "fencing_token"));
        auto current = qetcd({"put", "--fence", newFence, "/ci/lk-out", "new"});
        QCOMPARE(current->waitForExit(), 0);
        QVERIFY(exists("/ci/lk-out"));

        waiter->terminate();
        QCOMPARE(waiter->waitForExit(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/ci/lk/"), 0, scaledMs(5000));
    }

    // A lease that carries more than the hold (a Go session holding several locks) is spared:
    // only the hold's key goes.
    void lockBreakOnASharedLeaseDeletesOnlyTheKey()
    {
        const QFuture<LeaseGrantResult> granted = m_client->leaseGrant(60);
        QVERIFY(awaitFuture(granted) && granted.result().status);
        const qint64 lease = granted.result().id;
        PutOptions onLease;
        onLease.lease = lease;
        const QByteArray lockKey = "/ci/shared/" + QByteArray::number(lease, 16);
        QVERIFY(awaitFuture(m_client->put(lockKey, {}, onLease)));
        QVERIFY(awaitFuture(m_client->put("/ci/elsewhere", "kept", onLease)));

        const QJsonObject broken = intervene({"lock", "break", "/ci/shared", "--yes"});
        QCOMPARE(text(broken, "method"), QStringLiteral("keys_deleted"));
        QCOMPARE(broken.value("removed_keys").toArray(), QJsonArray{QString::fromUtf8(lockKey)});
        QVERIFY(!exists(lockKey));
        QVERIFY(exists("/ci/elsewhere"));
        QVERIFY(awaitFuture(m_client->leaseRevoke(lease)));
    }

    // --entry names a waiter: it leaves the queue, and its wait ends in a failure that says so.
    void lockBreakOfAWaiterRemovesItFromTheQueue()
    {
        auto [holder, waiter] = holderAndWaiter({"lock", "/ci/rw", "--hold", "60s"}, {"lock", "/ci/rw", "--hold", "60s"},
                                                QStringLiteral("acquired"), "/ci/rw/");
        QVERIFY2(holder->has("acquired"), holder->transcript().constData());
        const QString holderKey = text(holder->event("acquired"), "key");
        RangeOptions all;
        all.range = KeyRange::prefix();
        const QFuture<RangeResult> queue = m_client->get("/ci/rw/", all);
        QVERIFY(awaitFuture(queue) && queue.result().kvs.size() == 2);
        QByteArray waiterKey;
        for (const KeyValue &kv : queue.result().kvs) {
            if (kv.key != holderKey.toUtf8())
                waiterKey = kv.key;
        }
        const QJsonObject removed = intervene({"lock", "break", "/ci/rw", "--entry", waiterKey, "--yes"});
        QCOMPARE(text(removed, "intervention"), QStringLiteral("removed from"));
        QCOMPARE(text(removed, "method"), QStringLiteral("keys_deleted"));
        QCOMPARE(waiter->waitForExit(), 1);
        QVERIFY2(!waiter->has("acquired"), waiter->transcript().constData());
        QVERIFY2(waiter->standardError().contains(waiterKey), waiter->standardError().constData());
        // The holder goes on holding.
        QVERIFY(holder->isRunning());
        QVERIFY(exists(holderKey.toUtf8()));
        holder->terminate();
        QCOMPARE(holder->waitForExit(), 0);
    }

    void electForceEndsTheTermAndTheNextCandidateLeads()
    {
        auto [leader, candidate] = holderAndWaiter({"elect", "/ci/e", "alpha", "--hold", "60s", "--ttl", "60"},
                                                   {"elect", "/ci/e", "beta", "--hold", "60s"}, QStringLiteral("elected"),
                                                   "/ci/e/");
        QVERIFY2(leader->has("elected") && !candidate->has("elected"), candidate->transcript().constData());
        const QJsonObject elected = leader->event("elected");
        const QJsonObject forced = intervene({"elect", "force", "/ci/e", "--yes"});
        QCOMPARE(text(forced, "intervention"), QStringLiteral("term ended:"));
        QCOMPARE(integer(forced, "fencing_token"), integer(elected, "fencing_token"));
        QTRY_VERIFY2_WITH_TIMEOUT(leader->has("leadershipLost"), leader->transcript().constData(), scaledMs(10000));
        QCOMPARE(leader->waitForExit(), 1);
        QTRY_VERIFY2_WITH_TIMEOUT(candidate->has("elected"), candidate->transcript().constData(), scaledMs(10000));
        QVERIFY(integer(candidate->event("elected"), "fencing_token") > integer(elected, "fencing_token"));
        candidate->terminate();
        QCOMPARE(candidate->waitForExit(), 0);
    }

    // With two permits held, which one to take back must be said; the other holder holds on.
    void semaphoreBreakNeedsTheEntryWhenSeveralHold()
    {
        auto first = qetcd({"semaphore", "/ci/s", "--permits", "2", "--hold", "60s"});
        auto second = qetcd({"semaphore", "/ci/s", "--permits", "2", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(first->has("acquired") && second->has("acquired"),
                                  (first->transcript() + second->transcript()).constData(), scaledMs(15000));

        auto ambiguous = qetcd({"semaphore", "break", "/ci/s", "--yes"});
        QCOMPARE(ambiguous->waitForExit(), 128);
        QVERIFY2(ambiguous->standardError().contains("--entry"), ambiguous->standardError().constData());

        const QString firstKey = text(first->event("acquired"), "key");
        const QJsonObject broken = intervene({"semaphore", "break", "/ci/s", "--entry", firstKey, "--yes"});
        QCOMPARE(text(broken, "key"), firstKey);
        QTRY_VERIFY2_WITH_TIMEOUT(first->has("permitLost"), first->transcript().constData(), scaledMs(10000));
        QCOMPARE(first->waitForExit(), 1);
        QVERIFY(second->isRunning());
        QVERIFY2(!second->has("permitLost"), second->transcript().constData());
        second->terminate();
        QCOMPARE(second->waitForExit(), 0);
    }

    // `lock break` serves a read/write lock: with two readers it needs --entry, a broken reader
    // is told on its side, and once the readers are gone the queued writer takes over.
    void lockBreakServesReadWriteLocks()
    {
        DistributedReadWriteLock firstReader(m_client.get(), "/ci/rwl");
        DistributedReadWriteLock secondReader(m_client.get(), "/ci/rwl");
        DistributedReadWriteLock writer(m_client.get(), "/ci/rwl");
        QSignalSpy firstLost(&firstReader, &DistributedReadWriteLock::lockLost);
        QSignalSpy secondLost(&secondReader, &DistributedReadWriteLock::lockLost);
        QSignalSpy writerAcquired(&writer, &DistributedReadWriteLock::acquired);
        QCOMPARE(firstReader.readLock().lock(std::chrono::milliseconds(scaledMs(15000))), Status());
        QCOMPARE(secondReader.readLock().lock(std::chrono::milliseconds(scaledMs(15000))), Status());
        const QFuture<Status> writing = writer.writeLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/ci/rwl/"), 3, scaledMs(15000));

        auto ambiguous = qetcd({"lock", "break", "/ci/rwl", "--yes"});
        QCOMPARE(ambiguous->waitForExit(), 128);
        QVERIFY2(ambiguous->standardError().contains("read/write lock") && ambiguous->standardError().contains("--entry"),
                 ambiguous->standardError().constData());

        const QByteArray firstKey = firstReader.readLock().holdKey();
        const QJsonObject broken = intervene({"lock", "break", "/ci/rwl", "--entry", firstKey, "--yes"});
        QCOMPARE(text(broken, "intervention"), QStringLiteral("hold broken:"));
        QCOMPARE(text(broken, "key"), QString::fromUtf8(firstKey));
        QCOMPARE(integer(broken, "fencing_token"), firstReader.readLock().fencingToken());
        QTRY_COMPARE_WITH_TIMEOUT(firstLost.count(), 1, scaledMs(10000));
        QCOMPARE(firstLost.first().first().value<DistributedReadWriteLock::Side>(), DistributedReadWriteLock::Side::Read);
        QVERIFY(!firstReader.readLock().unlock());
        // One reader still holds: the writer waits on.
        QCOMPARE(writerAcquired.count(), 0);

        intervene({"lock", "break", "/ci/rwl", "--entry", secondReader.readLock().holdKey(), "--yes"});
        QTRY_COMPARE_WITH_TIMEOUT(secondLost.count(), 1, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(writerAcquired.count(), 1, scaledMs(10000));
        QVERIFY(awaitFuture(writing) && writing.result());
        const qint64 writerToken = writerAcquired.first().at(1).toLongLong();

        // The writer is the only holder now: no --entry needed.
        QSignalSpy writerLost(&writer, &DistributedReadWriteLock::lockLost);
        const QJsonObject writerBroken = intervene({"lock", "break", "/ci/rwl", "--yes"});
        QCOMPARE(integer(writerBroken, "fencing_token"), writerToken);
        QTRY_COMPARE_WITH_TIMEOUT(writerLost.count(), 1, scaledMs(10000));
        QCOMPARE(writerLost.first().first().value<DistributedReadWriteLock::Side>(), DistributedReadWriteLock::Side::Write);
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/ci/rwl/"), 0, scaledMs(10000));
    }

    // The waiters are released as by a deletion, and a live qetcd owner is told it was lifted by
    // someone else rather than setting it again.
    void barrierLiftReleasesTheWaitersAndTellsTheOwner()
    {
        auto owner = qetcd({"barrier", "hold", "/ci/b", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(owner->has("barrierSet"), owner->transcript().constData(), scaledMs(15000));
        auto firstWaiter = qetcd({"barrier", "wait", "/ci/b"});
        auto secondWaiter = qetcd({"barrier", "wait", "/ci/b"});
        QTRY_VERIFY2_WITH_TIMEOUT(firstWaiter->has("waiting") && secondWaiter->has("waiting"),
                                  (firstWaiter->transcript() + secondWaiter->transcript()).constData(), scaledMs(15000));

        const QJsonObject lifted = intervene({"barrier", "lift", "/ci/b", "--yes"});
        QCOMPARE(text(lifted, "method"), QStringLiteral("keys_deleted"));
        QCOMPARE(text(lifted, "key"), QStringLiteral("/ci/b"));
        for (ToolProcess *waiter : {firstWaiter.get(), secondWaiter.get()}) {
            QCOMPARE(waiter->waitForExit(), 0);
            QCOMPARE(text(waiter->event("barrierLifted"), "reason"), QStringLiteral("deleted"));
        }
        QTRY_VERIFY2_WITH_TIMEOUT(owner->has("liftedByOther"), owner->transcript().constData(), scaledMs(10000));
        QCOMPARE(owner->waitForExit(), 1);
        QVERIFY(!exists("/ci/b"));
    }

    void barrierReleaseLetsAnOpenRoundThroughShortOfItsCount()
    {
        auto first = qetcd({"barrier", "count", "/ci/c", "--members", "3"});
        auto second = qetcd({"barrier", "count", "/ci/c", "--members", "3"});
        QTRY_VERIFY2_WITH_TIMEOUT(first->has("arrived") && second->has("arrived"),
                                  (first->transcript() + second->transcript()).constData(), scaledMs(15000));
        const QJsonObject released = intervene({"barrier", "release", "/ci/c", "--yes"});
        QCOMPARE(text(released, "key"), QStringLiteral("/ci/c/ready"));
        for (ToolProcess *member : {first.get(), second.get()}) {
            QCOMPARE(member->waitForExit(), 0);
            QVERIFY2(member->has("released"), member->transcript().constData());
        }
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/ci/c/"), 0, scaledMs(5000));
    }

    // Off a terminal nothing is written without --yes; under --read-only not even with it.
    void interventionsAskForYesAndRespectReadOnly()
    {
        auto holder = qetcd({"lock", "/ci/ask", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("acquired"), holder->transcript().constData(), scaledMs(15000));

        auto unconfirmed = qetcd({"lock", "break", "/ci/ask"});
        QCOMPARE(unconfirmed->waitForExit(), 128);
        QVERIFY2(unconfirmed->standardError().contains("give --yes to confirm"), unconfirmed->standardError().constData());
        // The message says what would have happened.
        QVERIFY2(unconfirmed->standardError().contains("Break the hold of"), unconfirmed->standardError().constData());

        auto readOnly = qetcd({"--read-only", "lock", "break", "/ci/ask", "--yes"});
        QCOMPARE(readOnly->waitForExit(), 1);
        QVERIFY2(readOnly->standardError().contains("read-only"), readOnly->standardError().constData());

        auto misplaced = qetcd({"lock", "/ci/ask", "--yes"});
        QCOMPARE(misplaced->waitForExit(), 128);

        QVERIFY(holder->isRunning());
        QVERIFY2(!holder->has("lockLost"), holder->transcript().constData());
        QCOMPARE(keysUnder("/ci/ask/"), 1);
        holder->terminate();
        QCOMPARE(holder->waitForExit(), 0);
    }

    // A consumer dies holding an item: once its lease is gone the claim is orphaned, `requeue
    // --orphans` puts it back now rather than at the next sweep, and the next consumer gets it
    // as its second delivery.
    void workQueueOrphanRequeuedIsDeliveredAgainWithTheNextAttempt()
    {
        auto put = qetcd({"queue", "put", "/ci/wq", "job-1", "--work"});
        QCOMPARE(put->waitForExit(), 0);
        auto hung = qetcd({"queue", "work", "/ci/wq", "--no-ack", "--ttl", "2"});
        QTRY_VERIFY2_WITH_TIMEOUT(hung->has("received"), hung->transcript().constData(), scaledMs(15000));
        QCOMPARE(integer(hung->event("received"), "attempt"), 1);
        const QString id = text(hung->event("received"), "id");
        hung->signal(SIGKILL);
        QCOMPARE(hung->waitForExit(), -1);
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/ci/wq/claims/"), 0, scaledMs(15000));  // its lease ran out
        QCOMPARE(keysUnder("/ci/wq/claimed/"), 1);

        const QJsonObject requeued = intervene({"queue", "requeue", "/ci/wq", "--orphans", "--yes"});
        QCOMPARE(text(requeued, "requeued"), QStringLiteral("orphans"));
        QCOMPARE(keysUnder("/ci/wq/claimed/"), 0);
        auto next = qetcd({"queue", "work", "/ci/wq", "--timeout", "10s"});
        QCOMPARE(next->waitForExit(), 0);
        QCOMPARE(next->outcomes(), (QStringList{"received", "acked"}));
        QCOMPARE(text(next->event("received"), "id"), id);
        QCOMPARE(integer(next->event("received"), "attempt"), 2);
        QCOMPARE(keysUnder("/ci/wq/"), 0);
    }

    // Dead letters (the layout's facts: dlq/<id> beside attempts/<id>) go for good, counts and
    // all; a requeued one is delivered afresh.
    void workQueueDeadLettersArePurgedOrRequeued()
    {
        const QByteArray five("\0\0\0\5", 4);
        for (const char *id : {"a", "b", "c"}) {
            QVERIFY(awaitFuture(m_client->put(QByteArray("/ci/dlq/dlq/") + id, QByteArray("letter-") + id)));
            QVERIFY(awaitFuture(m_client->put(QByteArray("/ci/dlq/attempts/") + id, five)));
        }
        const QJsonObject requeued = intervene({"queue", "requeue", "/ci/dlq", "--id", "c", "--yes"});
        QCOMPARE(requeued.value("requeued").toArray(), QJsonArray{"c"});
        auto consumer = qetcd({"queue", "work", "/ci/dlq", "--timeout", "10s"});
        QCOMPARE(consumer->waitForExit(), 0);
        QCOMPARE(text(consumer->event("received"), "value"), QStringLiteral("letter-c"));
        QCOMPARE(integer(consumer->event("received"), "attempt"), 1);

        auto unconfirmed = qetcd({"queue", "purge", "/ci/dlq"});
        QCOMPARE(unconfirmed->waitForExit(), 128);
        QVERIFY2(unconfirmed->standardError().contains("Delete the 2 dead letter(s)"), unconfirmed->standardError().constData());
        const QJsonObject purged = intervene({"queue", "purge", "/ci/dlq", "--yes"});
        QCOMPARE(purged.value("purged").toArray(), (QJsonArray{"a", "b"}));
        for (const char *under : {"/ci/dlq/dlq/", "/ci/dlq/attempts/", "/ci/dlq/claims/", "/ci/dlq/claimed/"})
            QCOMPARE(keysUnder(under), 0);
    }

    void queueDeleteTakesOneItemOut()
    {
        for (const char *value : {"first", "second"})
            QCOMPARE(qetcd({"queue", "put", "/ci/fq", value})->waitForExit(), 0);
        RangeOptions all;
        all.range = KeyRange::prefix();
        const QFuture<RangeResult> items = m_client->get("/ci/fq/", all);
        QVERIFY(awaitFuture(items) && items.result().kvs.size() == 2);
        const QString first = QString::fromUtf8(items.result().kvs.first().key);
        const QJsonObject deleted = intervene({"queue", "delete", "/ci/fq", first, "--yes"});
        QCOMPARE(text(deleted, "key"), first);
        auto take = qetcd({"queue", "take", "/ci/fq", "--timeout", "5s"});
        QCOMPARE(take->waitForExit(), 0);
        QCOMPARE(text(take->event("taken"), "value"), QStringLiteral("second"));
        auto notAnItem = qetcd({"queue", "delete", "/ci/fq", "/elsewhere", "--yes"});
        QCOMPARE(notAnItem->waitForExit(), 1);
    }

    void counterSetComparesAgainstWhatItRead()
    {
        QCOMPARE(qetcd({"counter", "/ci/n", "add", "5"})->waitForExit(), 0);
        auto unconfirmed = qetcd({"counter", "/ci/n", "set", "42"});
        QCOMPARE(unconfirmed->waitForExit(), 128);
        QVERIFY2(unconfirmed->standardError().contains("from 5 to 42"), unconfirmed->standardError().constData());
        const QJsonObject set = intervene({"counter", "/ci/n", "set", "42", "--yes"});
        QCOMPARE(integer(set, "previous"), 5);
        QCOMPARE(integer(set, "value"), 42);
        auto read = qetcd({"counter", "/ci/n"});
        QCOMPARE(read->waitForExit(), 0);
        QCOMPARE(read->standardOutput().trimmed(), QByteArray("42"));
    }

    void interventionOnNothingSaysSo()
    {
        auto noLock = qetcd({"lock", "break", "/ci/none", "--yes"});
        QCOMPARE(noLock->waitForExit(), 1);
        QVERIFY2(noLock->standardError().contains("no lock at \"/ci/none\""), noLock->standardError().constData());
        auto noBarrier = qetcd({"barrier", "lift", "/ci/none", "--yes"});
        QCOMPARE(noBarrier->waitForExit(), 1);
        QVERIFY2(noBarrier->standardError().contains("is not set"), noBarrier->standardError().constData());
        auto badFence = qetcd({"put", "--fence", "/ci/none", "/ci/x", "v"});
        QCOMPARE(badFence->waitForExit(), 128);
        QVERIFY2(badFence->standardError().contains("LOCK_KEY=FENCING_TOKEN"), badFence->standardError().constData());
    }
};

QTEST_GUILESS_MAIN(tst_CliInterventions)
#include "tst_cli_interventions.moc"
