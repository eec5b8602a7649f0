// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/watcher.h>

#include <QtTest/QtTest>

#include <map>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
// Everything one Watcher reported, received on the test's thread in emission order.
class Recorder : public QObject
{
public:
    explicit Recorder(Watcher *watcher)
    {
        connect(watcher, &Watcher::eventsReceived, this, [this](const QList<WatchEvent> &batch, qint64 header) {
            for (const WatchEvent &event : batch) {
                events.append(event);
                QVERIFY(event.kv.modRevision <= header);
            }
            ++batches;
        });
        connect(watcher, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) { recoveries.append(event); });
        connect(watcher, &Watcher::progressed, this, [this](qint64 revision) { progress.append(revision); });
    }

    QList<qint64> revisions() const
    {
        QList<qint64> list;
        for (const WatchEvent &event : events)
            list.append(event.kv.modRevision);
        return list;
    }
    QList<QByteArray> keys() const
    {
        QList<QByteArray> list;
        for (const WatchEvent &event : events)
            list.append(event.kv.key);
        return list;
    }
    QList<QByteArray> values() const
    {
        QList<QByteArray> list;
        for (const WatchEvent &event : events)
            list.append(event.kv.value);
        return list;
    }
    QList<WatchRecoveryKind> kinds() const
    {
        QList<WatchRecoveryKind> list;
        for (const WatchRecoveryEvent &event : recoveries)
            list.append(event.kind);
        return list;
    }

    QList<WatchEvent> events;
    QList<WatchRecoveryEvent> recoveries;
    QList<qint64> progress;
    int batches = 0;
};

// Quick retries, so a test's outage ends soon after the fault does.
WatchResilience fastRetries()
{
    RetryPolicy::ExponentialBackoff backoff;
    backoff.initialDelay = 100ms;
    backoff.maxDelay = 1s;
    return WatchResilience{RetryPolicy::exponentialBackoff(backoff), true};
}
} // namespace

class tst_Watcher : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster{clusterOptions()};
    std::unique_ptr<Client> m_client;  // talks to etcd directly
    std::unique_ptr<FaultProxy> m_proxy;
    std::unique_ptr<Client> m_participant;  // talks to etcd through m_proxy

    static EtcdCluster::Options clusterOptions()
    {
        EtcdCluster::Options options;
        // Idle watches hear from etcd every second instead of every ten minutes.
        options.extraArgs = {QStringLiteral("--experimental-watch-progress-notify-interval=1s")};
        return options;
    }

    qint64 put(const QByteArray &key, const QByteArray &value)
    {
        PutResult result;
        [&] { QETCD_AWAIT(m_client->put(key, value), result); }();
        [&] { QVERIFY2(result.status.isOk(), qPrintable(result.status.toString())); }();
        return result.header.revision;
    }

    qint64 remove(const QByteArray &key)
    {
        DeleteResult result;
        [&] { QETCD_AWAIT(m_client->remove(key), result); }();
        [&] { QVERIFY2(result.status.isOk(), qPrintable(result.status.toString())); }();
        return result.header.revision;
    }

    static WatchOptions prefix()
    {
        WatchOptions options;
        options.range = KeyRange::prefix();
        return options;
    }

    static Status started(Watcher &watcher)
    {
        Status status(StatusCode::Unknown, QStringLiteral("start() did not finish"));
        const QFuture<Status> future = watcher.start();
        if (awaitFuture(future))
            status = future.result();
        return status;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<WatchEvent>();
        qRegisterMetaType<WatchRecoveryEvent>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void init()
    {
        m_proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(m_proxy->start(), qPrintable(m_proxy->errorString()));
        m_participant = std::make_unique<Client>(ClientOptions::fromEndpoints({m_proxy->url()}));
    }

    void cleanup()
    {
        m_participant.reset();
        m_proxy.reset();
    }

    void putsAndDeletesArriveInOrder()
    {
        Watcher watcher(m_client.get(), "/w/order");
        Recorder log(&watcher);
        const QFuture<Status> start = watcher.start();
        QVERIFY(awaitFuture(start));
        QVERIFY2(start.result().isOk(), qPrintable(start.result().toString()));
        QVERIFY(watcher.isHealthy());

        const qint64 r1 = put("/w/order", "a");
        const qint64 r2 = put("/w/order", "b");
        const qint64 r3 = remove("/w/order");
        put("/w/order-other", "x");  // a neighbour of a single-key watch is not watched
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 3, scaledMs(5000));
        QCOMPARE(log.revisions(), (QList<qint64>{r1, r2, r3}));
        QCOMPARE(log.events[0].type, WatchEvent::Type::Put);
        QCOMPARE(log.events[1].type, WatchEvent::Type::Put);
        QCOMPARE(log.events[2].type, WatchEvent::Type::Delete);
        QCOMPARE(log.values(), (QList<QByteArray>{"a", "b", ""}));
        QCOMPARE(log.keys(), (QList<QByteArray>{"/w/order", "/w/order", "/w/order"}));
        QCOMPARE(log.events[0].kv.createRevision, r1);
        QCOMPARE(log.events[1].kv.version, 2);
        QVERIFY(!log.events[1].prevKv.has_value());  // not asked for
        QCOMPARE(watcher.resumeRevision(), r3 + 1);
        QVERIFY(log.recoveries.isEmpty());
        // start() finished exactly once.
        QCOMPARE(start.resultCount(), 1);
    }

    void prevKvIsDeliveredWhenAskedFor()
    {
        WatchOptions options;
        options.prevKv = true;
        Watcher watcher(m_client.get(), "/w/prev", options);
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);
        put("/w/prev", "v1");
        put("/w/prev", "v2");
        remove("/w/prev");
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 3, scaledMs(5000));
        QVERIFY(!log.events[0].prevKv.has_value());  // a create has no previous value
        QVERIFY(log.events[1].prevKv.has_value());
        QCOMPARE(log.events[1].prevKv->value, QByteArray("v1"));
        QVERIFY(log.events[2].prevKv.has_value());
        QCOMPARE(log.events[2].prevKv->value, QByteArray("v2"));
        QCOMPARE(log.events[2].prevKv->key, QByteArray("/w/prev"));
    }

    void prefixAndSingleKeyShareTheStream()
    {
        Watcher whole(m_client.get(), "/w/p/", prefix());
        Watcher one(m_client.get(), "/w/p/a");
        Recorder wholeLog(&whole);
        Recorder oneLog(&one);
        QCOMPARE(started(whole).code(), StatusCode::Ok);
        QCOMPARE(started(one).code(), StatusCode::Ok);
        const qint64 a = put("/w/p/a", "1");
        const qint64 b = put("/w/p/b", "2");
        put("/w/p2/x", "3");  // "/w/p/" never matches "/w/p2/..."
        const qint64 last = put("/w/p/a", "4");
        QTRY_COMPARE_WITH_TIMEOUT(wholeLog.events.size(), 3, scaledMs(5000));
        QTRY_COMPARE_WITH_TIMEOUT(oneLog.events.size(), 2, scaledMs(5000));
        QCOMPARE(wholeLog.keys(), (QList<QByteArray>{"/w/p/a", "/w/p/b", "/w/p/a"}));
        QCOMPARE(wholeLog.revisions(), (QList<qint64>{a, b, last}));
        QCOMPARE(oneLog.revisions(), (QList<qint64>{a, last}));
        QCOMPARE(oneLog.values(), (QList<QByteArray>{"1", "4"}));
    }

    void startRevisionReplaysHistory()
    {
        const qint64 first = put("/w/history", "1");
        const qint64 second = put("/w/history", "2");
        const qint64 third = put("/w/history", "3");
        WatchOptions options;
        options.startRevision = first;
        Watcher watcher(m_client.get(), "/w/history", options);
        QCOMPARE(watcher.resumeRevision(), first);
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 3, scaledMs(5000));
        QCOMPARE(log.revisions(), (QList<qint64>{first, second, third}));
        QCOMPARE(log.values(), (QList<QByteArray>{"1", "2", "3"}));
        QCOMPARE(watcher.resumeRevision(), third + 1);
    }

    void filtersDropPutsOrDeletes()
    {
        WatchOptions noPut = prefix();
        noPut.noPut = true;
        WatchOptions noDelete = prefix();
        noDelete.noDelete = true;
        Watcher deletesOnly(m_client.get(), "/w/filter/", noPut);
        Watcher putsOnly(m_client.get(), "/w/filter/", noDelete);
        Recorder deletes(&deletesOnly);
        Recorder puts(&putsOnly);
        QCOMPARE(started(deletesOnly).code(), StatusCode::Ok);
        QCOMPARE(started(putsOnly).code(), StatusCode::Ok);
        const qint64 p1 = put("/w/filter/a", "1");
        const qint64 d1 = remove("/w/filter/a");
        const qint64 p2 = put("/w/filter/b", "2");
        const qint64 d2 = remove("/w/filter/b");
        QTRY_COMPARE_WITH_TIMEOUT(puts.events.size(), 2, scaledMs(5000));
        QTRY_COMPARE_WITH_TIMEOUT(deletes.events.size(), 2, scaledMs(5000));
        QCOMPARE(puts.revisions(), (QList<qint64>{p1, p2}));
        QCOMPARE(deletes.revisions(), (QList<qint64>{d1, d2}));
        for (const WatchEvent &event : puts.events)
            QCOMPARE(event.type, WatchEvent::Type::Put);
        for (const WatchEvent &event : deletes.events)
            QCOMPARE(event.type, WatchEvent::Type::Delete);
    }

    void namespaceIsAppliedAndStripped()
    {
        ClientOptions spaced = ClientOptions::fromEndpoints(m_cluster.clientUrls());
        spaced.keyNamespace = "/tenant-w";
        Client tenant(spaced);
        Watcher inside(&tenant, "/cfg/", prefix());
        Watcher raw(m_client.get(), "/tenant-w/cfg/", prefix());
        Recorder insideLog(&inside);
        Recorder rawLog(&raw);
        QCOMPARE(started(inside).code(), StatusCode::Ok);
        QCOMPARE(started(raw).code(), StatusCode::Ok);

        PutResult viaTenant;
        QETCD_AWAIT(tenant.put("/cfg/a", "1"), viaTenant);
        QVERIFY(viaTenant.status.isOk());
        put("/cfg/b", "outside");              // the same name outside the namespace
        const qint64 direct = put("/tenant-w/cfg/c", "2");  // inside it, written raw
        QTRY_COMPARE_WITH_TIMEOUT(insideLog.events.size(), 2, scaledMs(5000));
        QCOMPARE(insideLog.keys(), (QList<QByteArray>{"/cfg/a", "/cfg/c"}));
        QCOMPARE(insideLog.revisions(), (QList<qint64>{viaTenant.header.revision, direct}));
        QTRY_COMPARE_WITH_TIMEOUT(rawLog.events.size(), 2, scaledMs(5000));
        QCOMPARE(rawLog.keys(), (QList<QByteArray>{"/tenant-w/cfg/a", "/tenant-w/cfg/c"}));
        inside.close();
        raw.close();
    }

    void closeStopsDelivery()
    {
        Watcher watcher(m_client.get(), "/w/close/", prefix());
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);
        const qint64 first = put("/w/close/a", "1");
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 1, scaledMs(5000));

        watcher.close();
        QVERIFY(!watcher.isHealthy());
        watcher.close();  // idempotent
        // A second watch on the same stream sees the next change; the closed one must not.
        Watcher witness(m_client.get(), "/w/close/", prefix());
        Recorder witnessLog(&witness);
        QCOMPARE(started(witness).code(), StatusCode::Ok);
        const qint64 second = put("/w/close/b", "2");
        QTRY_COMPARE_WITH_TIMEOUT(witnessLog.events.size(), 1, scaledMs(5000));
        QCOMPARE(witnessLog.revisions(), QList<qint64>{second});
        QCOMPARE(log.revisions(), QList<qint64>{first});
        QCOMPARE(watcher.resumeRevision(), first + 1);

        Status again;
        QETCD_AWAIT(watcher.start(), again);
        QCOMPARE(again.code(), StatusCode::Closed);
    }

    // A lock waiter's watch lasts one hand-off: the stream it rode stays for the next one instead
    // of being torn down and set up again on etcd, and goes once nothing has watched for a while.
    void anIdleStreamLingersForTheNextWatchThenCloses()
    {
        const QString opened = QStringLiteral("grpc_server_started_total{grpc_method=\"Watch\"");
        // Gauges count every client's streams; no other client opens one while this test runs.
        const QString open = QStringLiteral("etcd_debugging_mvcc_watch_stream_total");
        double streamsBefore = 0;
        {
            Watcher first(m_participant.get(), "/w/linger");
            QCOMPARE(started(first).code(), StatusCode::Ok);
            streamsBefore = m_cluster.metric(0, opened);
            QVERIFY(streamsBefore >= 1);
        }
        {
            Watcher second(m_participant.get(), "/w/linger");
            Recorder log(&second);
            QCOMPARE(started(second).code(), StatusCode::Ok);
            const qint64 revision = put("/w/linger", "x");
            QTRY_COMPARE_WITH_TIMEOUT(log.revisions(), QList<qint64>{revision}, scaledMs(5000));
            QCOMPARE(m_cluster.metric(0, opened), streamsBefore);
        }
        QVERIFY(m_cluster.metric(0, open) >= 1);
        // Ten seconds after the last watch went, the client closes its stream (and any other
        // client's lingering one is gone by then too); the next watch needs a new one.
        QTRY_COMPARE_WITH_TIMEOUT(m_cluster.metric(0, open), 0.0, scaledMs(30000));
        Watcher third(m_participant.get(), "/w/linger");
        QCOMPARE(started(third).code(), StatusCode::Ok);
        QCOMPARE(m_cluster.metric(0, opened), streamsBefore + 1);
    }

    // A model or recipe destroyed after its client (an app's teardown order) must not touch the
    // client's freed watch stream or dispatcher thread.
    void watcherOutlivingItsClientClosesAndDiesQuietly()
    {
        auto client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        auto watcher = std::make_unique<Watcher>(client.get(), "/w/orphan");
        auto early = std::make_unique<Watcher>(client.get(), "/w/orphan-early");  // never started
        QCOMPARE(started(*watcher).code(), StatusCode::Ok);
        QVERIFY(watcher->isHealthy());

        client.reset();
        QVERIFY(!watcher->isHealthy());
        Status again;
        QETCD_AWAIT(watcher->start(), again);
        QCOMPARE(again.code(), StatusCode::Closed);
        QETCD_AWAIT(early->start(), again);
        QCOMPARE(again.code(), StatusCode::Closed);
        QVERIFY2(again.message().contains(QStringLiteral("client")), qPrintable(again.toString()));
        watcher->close();
        watcher.reset();
        early.reset();
    }

    void startFinishesExactlyOnce()
    {
        Watcher watcher(m_client.get(), "/w/once");
        const QFuture<Status> first = watcher.start();
        const QFuture<Status> second = watcher.start();
        QVERIFY(awaitFuture(first));
        QVERIFY(awaitFuture(second));
        QCOMPARE(first.result().code(), StatusCode::Ok);
        QCOMPARE(second.result().code(), StatusCode::AlreadyStarted);
        QCOMPARE(first.resultCount(), 1);

        // Closed before etcd answered the create: start() says so, once. The answer is held up
        // on its way, so that close() surely comes first however the threads are scheduled.
        m_proxy->setDelay(std::chrono::milliseconds(500));
        m_proxy->setMode(FaultProxy::Mode::Delay);
        Watcher early(m_participant.get(), "/w/once");
        const QFuture<Status> pending = early.start();
        early.close();
        QVERIFY(awaitFuture(pending));
        QCOMPARE(pending.resultCount(), 1);
        QCOMPARE(pending.result().code(), StatusCode::Closed);
        m_proxy->setMode(FaultProxy::Mode::Pass);

        Watcher closedFirst(m_client.get(), "/w/once");
        closedFirst.close();
        Status refused;
        QETCD_AWAIT(closedFirst.start(), refused);
        QCOMPARE(refused.code(), StatusCode::Closed);

        Watcher emptyKey(m_client.get(), QByteArray());
        QETCD_AWAIT(emptyKey.start(), refused);
        QCOMPARE(refused.code(), StatusCode::InvalidArgument);

        // Refused by etcd itself: nothing to recover, start() says why and nothing else is heard.
        WatchOptions backwards;
        backwards.range = KeyRange::upTo("/w/a");
        Watcher empty(m_client.get(), "/w/z", backwards);
        Recorder emptyLog(&empty);
        QETCD_AWAIT(empty.start(), refused);
        QCOMPARE(refused.code(), StatusCode::FailedPrecondition);
        QVERIFY2(refused.message().contains("watcher range is empty"), qPrintable(refused.toString()));
        QVERIFY(!empty.isHealthy());
        QVERIFY(emptyLog.recoveries.isEmpty());

        WatchOptions negative;
        negative.startRevision = -1;
        Watcher badRevision(m_client.get(), "/w/once", negative);
        QETCD_AWAIT(badRevision.start(), refused);
        QCOMPARE(refused.code(), StatusCode::InvalidArgument);
    }

    // A continuation without a context runs on the library's thread inside start()'s finish.
    // Closing the watcher from there, with nobody else holding start()'s future, used to
    // destroy that future under the finish still running and hang the library's thread.
    void closeFromTheStartContinuationFinishesOnce()
    {
        Watcher watcher(m_client.get(), "/w/reentry");
        // QFuture::then() on purpose: the pattern a user writes (see awaitfuture.h for the risk).
        const QFuture<Status> closedInside = watcher.start().then([&watcher](const Status &started) {
            watcher.close();
            return started;
        });
        QVERIFY(awaitFuture(closedInside));
        QCOMPARE(closedInside.result().code(), StatusCode::Ok);
        // The library's thread still answers: a second watch on the same client starts.
        Watcher after(m_client.get(), "/w/reentry");
        QCOMPARE(started(after).code(), StatusCode::Ok);
    }

    void progressNotificationsAdvanceTheResumePoint()
    {
        const qint64 before = put("/w/progress-other", "x");
        Watcher watcher(m_client.get(), "/w/progress");
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);
        QCOMPARE(watcher.resumeRevision(), before + 1);  // a watch from "now" knows where now is
        QCOMPARE(watcher.startRevision(), before + 1);
        const qint64 later = put("/w/progress-other", "y");  // not watched: no event, but history moves on
        QTRY_VERIFY_WITH_TIMEOUT(!log.progress.isEmpty() && log.progress.last() >= later, scaledMs(6000));
        QVERIFY(log.events.isEmpty());
        QVERIFY(watcher.resumeRevision() >= later + 1);
        QCOMPARE(watcher.resumeRevision(), log.progress.last() + 1);
        QCOMPARE(watcher.startRevision(), before + 1);  // where it started stays put

        WatchResilience quiet = fastRetries();
        quiet.progressNotify = false;
        Watcher silent(m_client.get(), "/w/progress", {}, quiet);
        Recorder silentLog(&silent);
        QCOMPARE(started(silent).code(), StatusCode::Ok);
        const int seen = log.progress.size();
        QTRY_VERIFY_WITH_TIMEOUT(log.progress.size() >= seen + 2, scaledMs(6000));
        QVERIFY(silentLog.progress.isEmpty());
    }

    void streamResetSuspendsThenResubscribesWithoutGapsOrRepeats()
    {
        Watcher watcher(m_participant.get(), "/w/reset/", prefix(), fastRetries());
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);
        QList<qint64> written{put("/w/reset/k", "0")};
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 1, scaledMs(5000));

        m_proxy->setMode(FaultProxy::Mode::Reset);
        QTRY_COMPARE_WITH_TIMEOUT(log.kinds(), QList{WatchRecoveryKind::Suspended}, scaledMs(5000));
        QVERIFY(!watcher.isHealthy());
        QVERIFY(!log.recoveries[0].cause.isOk());
        QCOMPARE(log.recoveries[0].watchedKey, QByteArray("/w/reset/"));
        for (int i = 1; i <= 5; ++i)
            written.append(put("/w/reset/k", QByteArray::number(i)));
        written.append(put("/w/reset/other", "x"));
        QCOMPARE(log.events.size(), 1);

        m_proxy->setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), written.size(), scaledMs(15000));
        QCOMPARE(log.kinds(), (QList{WatchRecoveryKind::Suspended, WatchRecoveryKind::Resubscribed}));
        QCOMPARE(log.recoveries[1].resumeRevision, written[0] + 1);  // right after the last one seen
        QVERIFY(log.recoveries[0].monotonicMs <= log.recoveries[1].monotonicMs);
        QVERIFY(watcher.isHealthy());

        written.append(put("/w/reset/k", "after"));
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), written.size(), scaledMs(5000));
        QCOMPARE(log.revisions(), written);  // every revision once, in order
        QCOMPARE(log.values(), (QList<QByteArray>{"0", "1", "2", "3", "4", "5", "x", "after"}));
        QCOMPARE(log.kinds().size(), 2);
    }

    void compactionWhilePartitionedResyncs()
    {
        struct ResyncState
        {
            int calls = 0;
            std::map<QByteArray, QByteArray> values;
            qint64 returned = 0;
        };
        auto state = std::make_shared<ResyncState>();
        Client *participant = m_participant.get();
        Watcher watcher(participant, "/w/compact/", prefix(), fastRetries());
        watcher.setResyncWith([participant, state] {
            RangeOptions all;
            all.range = KeyRange::prefix();
            return mapped(participant->get("/w/compact/", all), [state](const RangeResult &got) -> qint64 {
                if (!got.status)
                    return 0;  // counts as a failed attempt
                ++state->calls;
                state->values.clear();
                for (const KeyValue &kv : got.kvs)
                    state->values[kv.key] = kv.value;
                state->returned = got.header.revision + 1;
                return state->returned;
            });
        });
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);
        const qint64 first = put("/w/compact/a", "1");
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 1, scaledMs(5000));

        // Cut off silently; gRPC's keep-alive (10 s + 5 s) notices.
        m_proxy->setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(log.kinds(), QList{WatchRecoveryKind::Suspended}, scaledMs(30000));
        put("/w/compact/a", "2");
        put("/w/compact/b", "1");
        const qint64 removed = remove("/w/compact/a");
        const qint64 compactAt = put("/w/compact/c", "1");
        Result compacted;
        QETCD_AWAIT(m_client->compact(compactAt, true), compacted);
        QVERIFY2(compacted.status.isOk(), qPrintable(compacted.status.toString()));
        QVERIFY(watcher.resumeRevision() == first + 1);
        QCOMPARE(state->calls, 0);

        m_proxy->setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(log.kinds(), (QList{WatchRecoveryKind::Suspended, WatchRecoveryKind::Resynced}),
                                  scaledMs(20000));
        const WatchRecoveryEvent resynced = log.recoveries[1];
        QCOMPARE(resynced.compactRevision, compactAt);
        QCOMPARE(state->calls, 1);
        QCOMPARE(resynced.anchorRevision, state->returned);
        QVERIFY(resynced.anchorRevision > removed);
        // The hook re-read the world as it is after the gap.
        const std::map<QByteArray, QByteArray> expected{{"/w/compact/b", "1"}, {"/w/compact/c", "1"}};
        QVERIFY(state->values == expected);
        QVERIFY(watcher.isHealthy());
        QCOMPARE(watcher.resumeRevision(), resynced.anchorRevision);

        // The gap's events were not delivered; what follows the anchor is.
        const qint64 after = put("/w/compact/d", "1");
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 2, scaledMs(5000));
        QCOMPARE(log.revisions(), (QList<qint64>{first, after}));
        QCOMPARE(log.kinds().size(), 2);
    }

    void compactedStartWithoutHookResumesAfterTheCompaction()
    {
        const qint64 first = put("/w/nohook/a", "1");
        put("/w/nohook/a", "2");
        const qint64 compactAt = put("/w/nohook/a", "3");
        Result compacted;
        QETCD_AWAIT(m_client->compact(compactAt, true), compacted);
        QVERIFY2(compacted.status.isOk(), qPrintable(compacted.status.toString()));

        WatchOptions options;
        options.startRevision = first;
        Watcher watcher(m_client.get(), "/w/nohook/a", options, fastRetries());
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);  // etcd created it, then found it compacted
        QTRY_COMPARE_WITH_TIMEOUT(log.kinds(), (QList{WatchRecoveryKind::Suspended, WatchRecoveryKind::Resynced}),
                                  scaledMs(5000));
        QCOMPARE(log.recoveries[0].cause.code(), StatusCode::OutOfRange);
        QVERIFY(log.recoveries[0].cause.message().contains("compacted"));
        QCOMPARE(log.recoveries[1].compactRevision, compactAt);
        QCOMPARE(log.recoveries[1].anchorRevision, compactAt + 1);  // without a hook the gap is only reported
        QCOMPARE(watcher.resumeRevision(), compactAt + 1);
        const qint64 after = put("/w/nohook/a", "4");
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 1, scaledMs(5000));
        QCOMPARE(log.revisions(), QList<qint64>{after});
        QCOMPARE(log.kinds().size(), 2);
    }

    void neverRetryingPolicyFails()
    {
        Watcher watcher(m_participant.get(), "/w/never/", prefix(), WatchResilience{RetryPolicy::never(), true});
        Recorder log(&watcher);
        QCOMPARE(started(watcher).code(), StatusCode::Ok);
        const qint64 first = put("/w/never/a", "1");
        QTRY_COMPARE_WITH_TIMEOUT(log.events.size(), 1, scaledMs(5000));

        m_proxy->setMode(FaultProxy::Mode::Reset);
        QTRY_COMPARE_WITH_TIMEOUT(log.kinds(), (QList{WatchRecoveryKind::Suspended, WatchRecoveryKind::Failed}),
                                  scaledMs(5000));
        QVERIFY(!log.recoveries[1].cause.isOk());
        QVERIFY(!watcher.isHealthy());
        QCOMPARE(watcher.resumeRevision(), first + 1);

        // Dead for good: after the fault ends nothing more arrives, while a new watch on the
        // same client works.
        m_proxy->setMode(FaultProxy::Mode::Pass);
        Watcher witness(m_participant.get(), "/w/never/", prefix());
        Recorder witnessLog(&witness);
        QCOMPARE(started(witness).code(), StatusCode::Ok);
        const qint64 second = put("/w/never/a", "2");
        QTRY_COMPARE_WITH_TIMEOUT(witnessLog.events.size(), 1, scaledMs(10000));
        QCOMPARE(witnessLog.revisions(), QList<qint64>{second});
        QCOMPARE(log.events.size(), 1);
        QCOMPARE(log.kinds().size(), 2);
    }
};

QTEST_GUILESS_MAIN(tst_Watcher)
#include "tst_watcher.moc"
