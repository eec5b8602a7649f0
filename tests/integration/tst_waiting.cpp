// SPDX-License-Identifier: Apache-2.0
// The shared waiting mechanics of the queueing recipes (lib/recipes/waiting_p.h), driven
// directly: some of their paths cannot be reached reliably through a recipe.

#include "../common/awaitfuture.h"

#include "waiting_p.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/watcher.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Internal;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

class tst_Waiting : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    // A key that was there at the returned revision and is gone now: a wait from now can only
    // learn of its deletion from the existence check.
    KeyValue deletedKey(const QByteArray &key, qint64 *observedRevision)
    {
        PutResult put;
        [&] { QETCD_AWAIT(m_client->put(key, "v"), put); }();
        RangeResult read;
        [&] { QETCD_AWAIT(m_client->get(key), read); }();
        DeleteResult removed;
        [&] { QETCD_AWAIT(m_client->remove(key), removed); }();
        *observedRevision = read.header.revision;
        return read.kvs.value(0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    // The predecessor went between the caller's read and the watch; the one check that can see
    // it is refused a few times ("too many requests"). The wait must ask again, not wait on.
    void aRefusedExistenceCheckIsAskedAgainUntilAnswered()
    {
        qint64 observedRevision = 0;
        const KeyValue observed = deletedKey("/waiting/refused", &observedRevision);
        QVERIFY(observed.createRevision > 0);
        std::atomic<int> reads{0};
        DeletionWatch how;
        how.fromNow = true;
        how.createRevision = observed.createRevision;
        Client *client = m_client.get();
        how.probeRead = [&reads, client](const QByteArray &key, const RangeOptions &options) {
            if (++reads <= 3) {
                RangeResult refused;
                refused.status = Status(StatusCode::ResourceExhausted, QStringLiteral("etcdserver: too many requests"));
                return QtFuture::makeReadyFuture(refused);
            }
            return client->get(key, options);
        };
        const QFuture<Deletion> wait = watchDeletion(client, observed.key, observedRevision, WatchResilience(),
                                                     StopToken(), how);
        QVERIFY2(awaitFuture(wait, 15s), "the wait still waits for a key that is gone");
        QCOMPARE(wait.result().status, Status());
        QCOMPARE(reads.load(), 4);
    }

    // Asking again never outlives a stop.
    void aStopEndsAWaitWhoseCheckIsAlwaysRefused()
    {
        qint64 observedRevision = 0;
        const KeyValue observed = deletedKey("/waiting/stopped", &observedRevision);
        std::atomic<int> reads{0};
        DeletionWatch how;
        how.fromNow = true;
        how.createRevision = observed.createRevision;
        how.probeRead = [&reads](const QByteArray &, const RangeOptions &) {
            ++reads;
            RangeResult refused;
            refused.status = Status(StatusCode::ResourceExhausted, QStringLiteral("etcdserver: too many requests"));
            return QtFuture::makeReadyFuture(refused);
        };
        StopSource stop;
        const QFuture<Deletion> wait = watchDeletion(m_client.get(), observed.key, observedRevision, WatchResilience(),
                                                     stop.token(), how);
        QTRY_VERIFY_WITH_TIMEOUT(reads.load() >= 1, scaledMs(5000));
        QVERIFY(!wait.isFinished());
        stop.requestStop();
        QVERIFY(awaitFuture(wait, 10s));
        QCOMPARE(wait.result().status.code(), StatusCode::Cancelled);
    }

private:
    // A guarded wait: the awaited key /waiting/<name>/a, the guard /waiting/<name>/c, and
    // /waiting/<name>/b between them, inside the one watch that spans both.
    struct Guarded
    {
        KeyValue awaited;
        KeyValue guard;
        qint64 observedRevision = 0;
    };

    Guarded putGuarded(const QByteArray &name)
    {
        const QByteArray prefix = "/waiting/" + name + '/';
        Guarded keys;
        for (const char *suffix : {"a", "b", "c"}) {
            PutResult put;
            [&] { QETCD_AWAIT(m_client->put(prefix + suffix, "v"), put); }();
        }
        RangeOptions all;
        all.range = KeyRange::prefix();
        RangeResult read;
        [&] { QETCD_AWAIT(m_client->get(prefix, all), read); }();
        keys.awaited = read.kvs.value(0);
        keys.guard = read.kvs.value(2);
        keys.observedRevision = read.header.revision;
        return keys;
    }

    QFuture<Deletion> waitGuarded(const Guarded &keys, const QList<KeyValue> &alongWith = {})
    {
        DeletionWatch how;
        how.fromNow = true;
        how.createRevision = keys.awaited.createRevision;
        how.guard = keys.guard.key;
        how.guardCreateRevision = keys.guard.createRevision;
        how.alongWith = alongWith;
        return watchDeletion(m_client.get(), keys.awaited.key, keys.observedRevision, WatchResilience(), StopToken(),
                             how);
    }

private Q_SLOTS:
    // The key goes while the guard stands: the wait says so. A deletion between the two keys
    // is in the watch's range but ends nothing.
    void aGuardedWaitTellsTheKeyWentWhileTheGuardStood()
    {
        const Guarded keys = putGuarded("stood");
        QVERIFY(keys.guard.key.endsWith("/c"));
        const QFuture<Deletion> wait = waitGuarded(keys);
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/waiting/stood/b"), removed);
        QVERIFY(!QTest::qWaitFor([&] { return wait.isFinished(); }, 500));
        QETCD_AWAIT(m_client->remove(keys.awaited.key), removed);
        QVERIFY(awaitFuture(wait, 15s));
        QCOMPARE(wait.result().status, Status());
        QVERIFY(wait.result().guardStood);
    }

    // Waiting for two keys: the first going ends nothing, the second ends the wait.
    void aWaitForSeveralEndsWithTheLastOfThem()
    {
        const Guarded keys = putGuarded("several");
        RangeResult middle;
        QETCD_AWAIT(m_client->get("/waiting/several/b"), middle);
        QCOMPARE(middle.kvs.size(), 1);
        const QFuture<Deletion> wait = waitGuarded(keys, middle.kvs);
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove(keys.awaited.key), removed);
        QVERIFY(!QTest::qWaitFor([&] { return wait.isFinished(); }, 500));
        QETCD_AWAIT(m_client->remove("/waiting/several/b"), removed);
        QVERIFY(awaitFuture(wait, 15s));
        QCOMPARE(wait.result().status, Status());
        QVERIFY(wait.result().guardStood);
    }

    // The guard goes first (an operator takes the waiter out of the queue): the wait ends at
    // once, while the key it waits for is still there, and not as if the guard had stood.
    void aGuardGoneFirstEndsTheWaitUnproven()
    {
        const Guarded keys = putGuarded("fell");
        const QFuture<Deletion> wait = waitGuarded(keys);
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove(keys.guard.key), removed);
        QVERIFY(awaitFuture(wait, 15s));
        QCOMPARE(wait.result().status, Status());
        QVERIFY(!wait.result().guardStood);
        RangeResult awaited;
        QETCD_AWAIT(m_client->get(keys.awaited.key), awaited);
        QCOMPARE(awaited.kvs.size(), 1);
    }

    // Both went between the caller's read and the watch, the guard first: only the existence
    // check can see them, and it must tell the guard gone too.
    void aGuardGoneBeforeTheWatchIsSeenByTheCheck()
    {
        const Guarded keys = putGuarded("gap");
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove(keys.guard.key), removed);
        QETCD_AWAIT(m_client->remove(keys.awaited.key), removed);
        const QFuture<Deletion> wait = waitGuarded(keys);
        QVERIFY2(awaitFuture(wait, 15s), "the check did not see the key gone");
        QCOMPARE(wait.result().status, Status());
        QVERIFY(!wait.result().guardStood);
    }

    // Both deleted in one revision (a whole queue removed at once), the awaited key first in
    // key order: the guard did not stand at that revision.
    void aGuardDeletedWithTheKeyDidNotStand()
    {
        const Guarded keys = putGuarded("together");
        const QFuture<Deletion> wait = waitGuarded(keys);
        Watcher started(m_client.get(), keys.awaited.key, WatchOptions{});
        QVERIFY(awaitFuture(started.start(), 15s));  // the wait's watch asked before this one
        DeleteOptions all;
        all.range = KeyRange::prefix();
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/waiting/together/", all), removed);
        QCOMPARE(removed.deleted, 3);
        QVERIFY(awaitFuture(wait, 15s));
        QCOMPARE(wait.result().status, Status());
        QVERIFY(!wait.result().guardStood);
    }

    // A put made after the caller looked and before the wait's watch exists ends the wait, and
    // the watch says when etcd created it: after that put.
    void aPutMadeBeforeTheWatchEndsTheWait()
    {
        PutResult before;
        QETCD_AWAIT(m_client->put("/waiting/put/unrelated", "v"), before);
        const qint64 observedRevision = before.header.revision;
        PutResult item;
        QETCD_AWAIT(m_client->put("/waiting/put/items/1", "v"), item);
        const QFuture<Status> wait = waitForPut(m_client.get(), "/waiting/put/items/", observedRevision,
                                                WatchResilience(), StopToken(), {});
        QVERIFY2(awaitFuture(wait, 15s), "the wait missed a put made before its watch");
        QCOMPARE(wait.result(), Status());

        Watcher watcher(m_client.get(), "/waiting/put/items/1", WatchOptions{});
        QCOMPARE(watcher.createdAtRevision(), 0);
        QVERIFY(awaitFuture(watcher.start(), 15s));
        QVERIFY(watcher.createdAtRevision() >= item.header.revision);
    }

    // Nothing under the prefix changes: the wait waits, even with other writes around it, and
    // ends with the next put.
    void aWaitOutlivesOtherWritesAndEndsWithAPut()
    {
        PutResult before;
        QETCD_AWAIT(m_client->put("/waiting/quiet/unrelated", "v"), before);
        const QFuture<Status> wait = waitForPut(m_client.get(), "/waiting/quiet/items/", before.header.revision,
                                                WatchResilience(), StopToken(), {});
        PutResult other;
        QETCD_AWAIT(m_client->put("/waiting/quiet/unrelated", "w"), other);
        QVERIFY(!QTest::qWaitFor([&] { return wait.isFinished(); }, 500));
        QETCD_AWAIT(m_client->put("/waiting/quiet/items/1", "v"), other);
        QVERIFY(awaitFuture(wait, 15s));
        QCOMPARE(wait.result(), Status());
    }
};

QTEST_GUILESS_MAIN(tst_Waiting)
#include "tst_waiting.moc"
