// SPDX-License-Identifier: Apache-2.0
// `qetcd history` and `qetcd inspect --rev` against a real etcd member: a scripted coordination
// story (a lock handed on five times between qetcd, etcdctl and qetcd again, two locks of one
// lease that expires, an election whose leader resigns, a barrier set and removed, a service
// that flaps and heals), told back from etcd's history, before and after a partial compaction.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedbarrier.h>
#include <QEtcd/distributedmutex.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/revisiontimes.h>
#include <QEtcd/serviceregistry.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;

class tst_CliHistory : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<Client> m_other;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }

    // A finished run's JSON lines; empty (and a warning) when it did not exit 0.
    QList<QJsonObject> run(const QStringList &arguments)
    {
        auto process = qetcd(QStringList{QStringLiteral("--json")} + arguments);
        if (const int exit = process->waitForExit(); exit != 0) {
            qWarning() << arguments << "exited" << exit << process->standardError();
            return {};
        }
        return process->events();
    }

    // The call finished, and Ok.
    static bool done(const QFuture<Status> &call) { return awaitFuture(call) && call.result(); }
    template <class Answer>
    static bool done(const QFuture<Answer> &call)
    {
        return awaitFuture(call) && call.result().status;
    }

    qint64 storeRevision()
    {
        const QFuture<RangeResult> read = m_client->get("/");
        return awaitFuture(read) ? read.result().header.revision : -1;
    }

    int keysUnder(const QByteArray &prefix) { return Testing::keysUnder(m_client.get(), prefix); }

    // The events of one kind on one path, as "event who" in revision order.
    static QStringList story(const QList<QJsonObject> &events, const QString &path)
    {
        QStringList told;
        for (const QJsonObject &event : events) {
            if (text(event, "path") == path)
                told.append(text(event, "event") + (event.contains("cause") ? ":" + text(event, "cause") : QString()));
        }
        return told;
    }

    // inspect's objects without the fields that age with the clock.
    static QList<QJsonObject> timeless(QList<QJsonObject> objects)
    {
        const std::function<QJsonValue(const QJsonValue &)> strip = [&strip](const QJsonValue &value) -> QJsonValue {
            if (value.isArray()) {
                QJsonArray array;
                for (const QJsonValue &each : value.toArray())
                    array.append(strip(each));
                return array;
            }
            if (!value.isObject())
                return value;
            QJsonObject object = value.toObject();
            object.remove(QLatin1String("age_ms"));
            object.remove(QLatin1String("oldest_age_ms"));
            for (auto it = object.begin(); it != object.end(); ++it)
                *it = strip(*it);
            return object;
        };
        for (QJsonObject &object : objects)
            object = strip(object).toObject();
        return objects;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        m_other = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase()
    {
        m_other.reset();
        m_client.reset();
    }

    void storyToldBackFromHistoryAndAfterACompaction()
    {
        const qint64 before = storeRevision();
        DistributedMutex first(m_client.get(), "/hist/lk");
        DistributedMutex second(m_other.get(), "/hist/lk");
        QCOMPARE(first.lock(milliseconds(scaledMs(10000))), Status());

        // etcdctl queues behind the first holder, qetcd behind etcdctl.
        ToolProcess etcdctl(QStringLiteral("etcdctl"),
                            {QStringLiteral("--endpoints"), m_cluster.clientUrl(0), QStringLiteral("lock"), QStringLiteral("/hist/lk")},
                            {}, Printed::JsonAndPlainLines);
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/lk/"), 2, scaledMs(10000));
        QFuture<Status> secondTakes = second.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/lk/"), 3, scaledMs(10000));

        // The state with a holder and two waiters, live, to compare with `inspect --rev` later.
        const qint64 queued = storeRevision();
        const QList<QJsonObject> liveQueued = timeless(run({"inspect", "/hist/"}));
        QCOMPARE(liveQueued.size(), 1);

        QVERIFY(first.unlock());  // 1: to etcdctl
        QTRY_VERIFY_WITH_TIMEOUT(etcdctl.standardOutput().contains("/hist/lk/"), scaledMs(10000));
        QFuture<Status> firstTakes = first.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/lk/"), 3, scaledMs(10000));
        etcdctl.terminate();  // 2: to the second qetcd holder
        QVERIFY(awaitFuture(secondTakes) && secondTakes.result());
        QVERIFY(second.unlock());  // 3: to the first
        QVERIFY(awaitFuture(firstTakes) && firstTakes.result());
        secondTakes = second.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/lk/"), 2, scaledMs(10000));
        QVERIFY(first.unlock());  // 4: to the second
        QVERIFY(awaitFuture(secondTakes) && secondTakes.result());
        firstTakes = first.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/lk/"), 2, scaledMs(10000));
        QVERIFY(second.unlock());  // 5: to the first
        QVERIFY(awaitFuture(firstTakes) && firstTakes.result());
        QVERIFY(first.unlock());
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/lk/"), 0, scaledMs(10000));
        const qint64 compactAt = storeRevision();

        // A Go session holding two locks on one lease, which it stops renewing.
        const QFuture<LeaseGrantResult> granted = m_client->leaseGrant(2);
        QVERIFY(awaitFuture(granted) && granted.result().status);
        const qint64 session = granted.result().id;
        PutOptions onSession;
        onSession.lease = session;
        const QByteArray sessionName = QByteArray::number(session, 16);
        QVERIFY(done(m_client->put("/hist/db/" + sessionName, {}, onSession)));
        QVERIFY(done(m_client->put("/hist/cache/" + sessionName, {}, onSession)));
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/db/") + keysUnder("/hist/cache/"), 0, scaledMs(15000));

        // An election whose leader resigns for the next candidate.
        auto alpha = qetcd({"elect", "/hist/e", "alpha", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(alpha->has("elected"), alpha->transcript().constData(), scaledMs(15000));
        auto beta = qetcd({"elect", "/hist/e", "beta", "--hold", "60s"});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/e/"), 2, scaledMs(10000));
        alpha->terminate();
        QTRY_VERIFY2_WITH_TIMEOUT(beta->has("elected"), beta->transcript().constData(), scaledMs(15000));
        beta->terminate();
        QCOMPARE(beta->waitForExit(), 0);

        // A barrier set and removed by its owner.
        {
            DistributedBarrier gate(m_client.get(), "/hist/gate");
            QVERIFY(gate.setBarrier());
            QVERIFY(gate.removeBarrier());
        }

        // A service instance that flaps, then loses its lease and is healed by its registry.
        ServiceRegistry registry(m_client.get(), "/hist/svc");
        ServiceInstance api(QStringLiteral("api"), QStringLiteral(R"({"port":1})"));
        QVERIFY(done(registry.registerService(api)));
        QVERIFY(done(registry.unregisterService(api)));
        QVERIFY(done(registry.registerService(api)));
        const qint64 lease = registry.leaseIdOf(api);
        QVERIFY(lease > 0);
        QVERIFY(done(m_client->leaseRevoke(lease)));
        QTRY_VERIFY_WITH_TIMEOUT(registry.leaseIdOf(api) > 0 && registry.leaseIdOf(api) != lease, scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/hist/svc/"), 1, scaledMs(15000));
        const qint64 end = storeRevision();

        // The whole story, from before it began.
        const QList<QJsonObject> told = run({"history", "/hist/", "--since", QString::number(before + 1)});
        QVERIFY(!told.isEmpty());
        QCOMPARE(text(told.first(), "event"), QStringLiteral("began"));
        QCOMPARE(integer(told.first(), "from_revision"), before + 1);
        QVERIFY(integer(told.first(), "until_revision") >= end);
        const QList<QJsonObject> events = told.mid(1);
        for (qsizetype i = 1; i < events.size(); ++i)
            QVERIFY(integer(events[i], "revision") >= integer(events[i - 1], "revision"));

        QCOMPARE(story(events, "/hist/lk"),
                 (QStringList{"acquired", "waiterJoined", "waiterJoined", "handedOn", "waiterJoined", "handedOn",
                              "handedOn", "waiterJoined", "handedOn", "waiterJoined", "handedOn", "released:deleted"}));
        QStringList sessionLocks = story(events, "/hist/db") + story(events, "/hist/cache");
        QCOMPARE(sessionLocks, (QStringList{"acquired", "released:leaseEnded", "acquired", "released:leaseEnded"}));
        const QStringList election = story(events, "/hist/e");
        QCOMPARE(election.mid(0, 3), (QStringList{"elected", "candidateJoined", "elected"}));
        QCOMPARE(story(events, "/hist/gate"), (QStringList{"barrierSet", "barrierLifted:removedByOwner"}));
        // From outside, a registration revoked and made again under the same id is one that
        // went with its lease and came back on a new one: healed, as the registry's own heal is.
        QCOMPARE(story(events, "/hist/svc/names/api"),
                 (QStringList{"instanceUp", "instanceDown:deleted", "instanceUp", "healed", "instanceDown:deleted",
                              "instanceUp", "healed"}));

        // The hand-overs name who gave and who took: etcdctl's entry is known by its lease.
        const auto handedOn = std::find_if(events.begin(), events.end(),
                                           [](const QJsonObject &e) { return text(e, "event") == "handedOn"; });
        QVERIFY(handedOn != events.end());
        QCOMPARE(text(*handedOn, "previous_who"), first.clientId());
        QVERIFY2(text(*handedOn, "who").startsWith("lease "), qPrintable(text(*handedOn, "who")));

        // `inspect --rev` shows the queue as it was, as inspect showed it live then.
        QCOMPARE(timeless(run({"inspect", "/hist/", "--rev", QString::number(queued)})), liveQueued);

        // After a compaction, history says where it begins and tells exactly what came after.
        const QFuture<Result> compacted = m_client->compact(compactAt);
        QVERIFY(awaitFuture(compacted) && compacted.result().status);
        const QList<QJsonObject> rest = run({"history", "/hist/"});
        QVERIFY(!rest.isEmpty());
        QCOMPARE(integer(rest.first(), "compacted_before"), compactAt + 1);
        QCOMPARE(integer(rest.first(), "from_revision"), compactAt + 1);
        QList<QJsonObject> expected;
        for (const QJsonObject &event : events) {
            if (integer(event, "revision") > compactAt && integer(event, "revision") <= integer(rest.first(), "until_revision"))
                expected.append(event);
        }
        QCOMPARE(rest.mid(1), expected);

        auto gone = qetcd({"inspect", "/hist/", "--rev", QString::number(queued)});
        QVERIFY(gone->waitForExit() > 0);
        QVERIFY2(gone->standardError().contains("no longer keeps revision"), gone->standardError().constData());
    }

    // `qetcd record` keeps the map; history then puts each event between two samples that
    // bracket when the test made it happen, and takes --since as a duration.
    void recordedMapSaysWhen()
    {
        QTemporaryDir dir;
        const QString map = dir.filePath(QStringLiteral("revisions.map"));
        auto record = qetcd({"record", "--map", map, "--interval", "100ms"});
        QTRY_VERIFY2_WITH_TIMEOUT(record->has("established"), record->transcript().constData(), scaledMs(10000));
        Status loaded;
        const qint64 firstRevision = RevisionTimes::load(map, &loaded).samples().value(0).revision;
        QCOMPARE(loaded, Status());

        const qint64 startedMs = QDateTime::currentMSecsSinceEpoch();
        DistributedMutex mutex(m_client.get(), "/rec/lk");
        QCOMPARE(mutex.lock(milliseconds(scaledMs(10000))), Status());
        QVERIFY(mutex.unlock());
        // unlock() returns before etcd has the release: its revision is the end.
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/rec/lk/"), 0, scaledMs(10000));
        const qint64 doneMs = QDateTime::currentMSecsSinceEpoch();
        const qint64 end = storeRevision();
        // A sample at (or after) the end bounds the last change from above.
        QTRY_VERIFY_WITH_TIMEOUT(RevisionTimes::load(map, &loaded).samples().constLast().revision >= end, scaledMs(10000));
        record->terminate();
        QCOMPARE(record->waitForExit(), 0);
        QCOMPARE(record->outcomes(), (QStringList{"established", "closed"}));

        const QList<QJsonObject> told = run({"history", "/rec/", "--map", map, "--since", QString::number(firstRevision + 1)});
        QCOMPARE(story(told, "/rec/lk"), (QStringList{"acquired", "released:deleted"}));
        for (const QJsonObject &event : told.mid(1)) {
            QVERIFY2(integer(event, "after_ms") <= integer(event, "by_ms"), qPrintable(QJsonDocument(event).toJson()));
            // The two samples bracket the moment: not after the test was done, not before it began.
            QVERIFY(integer(event, "after_ms") <= doneMs);
            QVERIFY(integer(event, "by_ms") >= startedMs);
        }

        // --since 5m starts right after the revision the store had five minutes ago, by the map:
        // one that says the store was at firstRevision ten minutes ago and at end a minute ago.
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QFile older(dir.filePath(QStringLiteral("older.map")));
        QVERIFY(older.open(QIODevice::WriteOnly));
        older.write(QByteArray::number(now - 600000) + ' ' + QByteArray::number(firstRevision) + '\n'
                    + QByteArray::number(now - 60000) + ' ' + QByteArray::number(end) + '\n');
        older.close();
        const QList<QJsonObject> recent = run({"history", "/rec/", "--map", older.fileName(), "--since", "5m"});
        QVERIFY(!recent.isEmpty());
        QCOMPARE(integer(recent.first(), "from_revision"), firstRevision + 1);
        QCOMPARE(story(recent, "/rec/lk"), (QStringList{"acquired", "released:deleted"}));
        // Nothing since a minute ago: an empty answer, not an error.
        const QList<QJsonObject> quiet = run({"history", "/rec/", "--map", older.fileName(), "--since", "30s"});
        QCOMPARE(quiet.size(), 1);
        QCOMPARE(integer(quiet.first(), "from_revision"), end + 1);
        auto noMap = qetcd({"history", "/rec/", "--since", "10m"});
        QCOMPARE(noMap->waitForExit(), 128);
        QVERIFY2(noMap->standardError().contains("needs --map"), noMap->standardError().constData());
    }

    // A history longer than one window of the replay (2,000 revisions) is told whole and in
    // order: every put once, at its own revision, across the windows' seams.
    void aLongHistoryIsToldWholeAcrossWindows()
    {
        const qint64 before = storeRevision();
        QList<QFuture<PutResult>> puts;
        for (int i = 0; i < 4500; ++i) {
            const QByteArray key = "/long/q/" + QByteArray::number(1700000000000000000LL + i) + "-abc";
            puts.append(m_client->put(key, QByteArray::number(i)));
        }
        QSet<qint64> putRevisions;
        for (const QFuture<PutResult> &put : puts) {
            QVERIFY(done(put));
            putRevisions.insert(put.result().header.revision);
        }
        QCOMPARE(putRevisions.size(), 4500);

        const QList<QJsonObject> told = run({"history", "/long/", "--since", QString::number(before + 1)});
        QVERIFY(!told.isEmpty());
        QSet<qint64> toldRevisions;
        qint64 previous = 0;
        for (const QJsonObject &event : told.mid(1)) {
            QCOMPARE(text(event, "event"), QStringLiteral("itemsPut"));
            QCOMPARE(integer(event, "count"), 1);
            QVERIFY(integer(event, "revision") > previous);
            previous = integer(event, "revision");
            toldRevisions.insert(previous);
        }
        QCOMPARE(toldRevisions, putRevisions);
    }

    // --follow: the replay, then what happens as it happens, until SIGTERM ends it with 0.
    void followPrintsWhatHappensNow()
    {
        QVERIFY(done(m_client->put("/follow/count", QByteArray(8, '\0'))));
        auto follower = qetcd({"--json", "history", "/follow/", "--follow"});
        QTRY_VERIFY2_WITH_TIMEOUT(follower->has("began"), follower->transcript().constData(), scaledMs(10000));
        const qint64 lease = [this] {
            const QFuture<LeaseGrantResult> granted = m_other->leaseGrant(60);
            return awaitFuture(granted) ? granted.result().id : 0;
        }();
        QVERIFY(lease);
        PutOptions onLease;
        onLease.lease = lease;
        QVERIFY(done(m_other->put("/follow/locks/db/" + QByteArray::number(lease, 16), {}, onLease)));
        QTRY_VERIFY2_WITH_TIMEOUT(follower->has("acquired"), follower->transcript().constData(), scaledMs(10000));
        QCOMPARE(text(follower->event("acquired"), "path"), QStringLiteral("/follow/locks/db"));
        QVERIFY(done(m_other->leaseRevoke(lease)));
        QTRY_VERIFY2_WITH_TIMEOUT(follower->has("released"), follower->transcript().constData(), scaledMs(10000));
        QVERIFY(follower->isRunning());
        follower->terminate();
        QCOMPARE(follower->waitForExit(), 0);

        auto bounded = qetcd({"history", "/follow/", "--follow", "--until", "3"});
        QCOMPARE(bounded->waitForExit(), 128);
        QVERIFY2(bounded->standardError().contains("--follow goes on past now"), bounded->standardError().constData());
    }

    void badRangesAreRefused()
    {
        auto backwards = qetcd({"history", "/x", "--since", "9", "--until", "3"});
        QCOMPARE(backwards->waitForExit(), 128);
        QVERIFY2(backwards->standardError().contains("--since 9 comes after --until 3"), backwards->standardError().constData());
        auto future = qetcd({"history", "/x", "--until", QString::number(storeRevision() + 1000)});
        QVERIFY(future->waitForExit() > 0);
        QVERIFY2(future->standardError().contains("in the future"), future->standardError().constData());
        auto words = qetcd({"inspect", "/x", "--rev", "yesterday"});
        QCOMPARE(words->waitForExit(), 128);
        QVERIFY2(words->standardError().contains("--rev takes a revision"), words->standardError().constData());
    }
};

QTEST_GUILESS_MAIN(tst_CliHistory)
#include "tst_cli_history.moc"
