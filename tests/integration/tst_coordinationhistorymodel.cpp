// SPDX-License-Identifier: Apache-2.0
// CoordinationHistoryModel against a real etcd member under QAbstractItemModelTester: a lock
// held from before the revisions replayed, handed on to its waiter and released, becomes one
// lane of bars with the right ends; keys taken with their lease at once are told apart from a
// deletion; a replay can be cancelled, and the model destroyed while one runs.
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedmutex.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "coordinationhistorymodel.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CoordinationHistoryModel : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    qint64 storeRevision()
    {
        RangeOptions probe;
        probe.countOnly = true;
        RangeResult now;
        [&] { QETCD_AWAIT(m_client->get("/", probe), now); }();
        return now.header.revision;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    void aHandOverFromBeforeTheRange()
    {
        LockOptions options;
        options.clientId = QStringLiteral("holder-1");
        DistributedMutex holder(m_client.get(), "/hm/lock", options);
        QVERIFY(holder.tryLock(std::chrono::seconds(10)));
        const qint64 held = storeRevision();
        options.clientId = QStringLiteral("waiter-1");
        DistributedMutex waiter(m_client.get(), "/hm/lock", options);
        QFuture<Status> waiting = waiter.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(storeRevision(), held + 1, scaledMs(10000));  // the waiter's key
        QVERIFY(holder.unlock());
        QVERIFY(awaitFuture(waiting));
        QVERIFY(waiter.unlock());
        QTRY_COMPARE_WITH_TIMEOUT(storeRevision(), held + 3, scaledMs(10000));  // its key deleted
        const qint64 end = held + 3;

        CoordinationHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.status(), ModelStatus::Null);
        model.setClient(m_client.get());
        model.setPrefix(QStringLiteral("/hm/"));
        model.setLastRevisions(end - held);  // the holder's acquisition is just before it
        model.start();
        QCOMPARE(model.status(), ModelStatus::Loading);
        QVERIFY(model.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(20000));
        QCOMPARE(model.firstRevision(), held + 1);
        QCOMPARE(model.lastRevision(), end);
        QVERIFY(!model.isCompacted());
        QCOMPARE(model.progress(), 1.0);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0).data(CoordinationHistoryModel::KindRole).toString(), QStringLiteral("lock"));
        QCOMPARE(model.index(0).data(CoordinationHistoryModel::PathRole).toString(), QStringLiteral("/hm/lock"));

        const CoordinationHistoryModel::Lane &lane = model.lanes().front();
        QCOMPARE(lane.bars.size(), size_t(3));
        const auto &first = lane.bars[0];
        QVERIFY(first.fromBefore);  // held before the first revision replayed: it runs from there
        QCOMPARE(first.from, held + 1);
        QCOMPARE(first.to, held + 2);
        QCOMPARE(first.end, CoordinationHistoryModel::MarkKind::HandedOn);
        QCOMPARE(first.who, QStringLiteral("holder-1"));
        const auto &queued = lane.bars[1];
        QVERIFY(queued.waiter);
        QCOMPARE(queued.from, held + 1);
        QCOMPARE(queued.to, held + 2);
        const auto &second = lane.bars[2];
        QVERIFY(!second.waiter && !second.fromBefore);
        QCOMPARE(second.who, QStringLiteral("waiter-1"));
        QCOMPARE(second.from, held + 2);
        QCOMPARE(second.to, end);
        QCOMPARE(second.end, CoordinationHistoryModel::MarkKind::Deleted);
        QCOMPARE(model.markKinds(), (QStringList{"handedOn", "deleted"}));
        QVERIFY2(model.describe(0, held + 1).contains(QLatin1String("held by holder-1")), qPrintable(model.describe(0, held + 1)));
        QVERIFY2(model.describe(0, held + 1).contains(QLatin1String("waiting: waiter-1")), qPrintable(model.describe(0, held + 1)));

        // Exported as JSON lines: the range, then holds, waits and events in revision order.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.jsonl"));
        QCOMPARE(model.exportJsonLines(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QList<QJsonObject> lines;
        for (const QByteArray &line : file.readAll().split('\n')) {
            if (!line.isEmpty())
                lines.append(QJsonDocument::fromJson(line).object());
        }
        QCOMPARE(lines.size(), 1 + 3 + 2);  // the range, three bars, two marks
        QCOMPARE(lines[0].value("record").toString(), QStringLiteral("range"));
        QCOMPARE(lines[0].value("first_revision").toInteger(), held + 1);
        QCOMPARE(lines[0].value("last_revision").toInteger(), end);
        QStringList records;
        qint64 previous = 0;
        for (const QJsonObject &line : lines.mid(1)) {
            const qint64 at = line.value(line.contains("revision") ? "revision" : "from").toInteger();
            QVERIFY(at >= previous);
            previous = at;
            records.append(line.value("record").toString() + ' ' + line.value(line.contains("event") ? "event" : "who").toString());
        }
        QCOMPARE(records, (QStringList{"hold holder-1", "wait waiter-1", "hold waiter-1", "event handedOn", "event deleted"}));
        QCOMPARE(lines[1].value("end").toString(), QStringLiteral("handedOn"));
        QVERIFY(lines[1].value("from_before").toBool());
        QVERIFY2(model.exportJsonLines(dir.filePath(QStringLiteral("no/such/dir/h.jsonl"))).startsWith(QLatin1String("cannot write ")),
                 "an export that cannot be written says so");
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("no/such/dir/h.jsonl"))));
    }

    // A lock held all through the range, with its waiter: a lane of its own, both bars running
    // from before the first revision to the end, though no event in the range touched it.
    void anObjectNothingChangedHasALane()
    {
        LockOptions options;
        options.clientId = QStringLiteral("steady-holder");
        DistributedMutex holder(m_client.get(), "/hm-steady/lock", options);
        QVERIFY(holder.tryLock(std::chrono::seconds(10)));
        options.clientId = QStringLiteral("steady-waiter");
        DistributedMutex waiter(m_client.get(), "/hm-steady/lock", options);
        QFuture<Status> waiting = waiter.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(m_client.get(), "/hm-steady/lock/"), 2, scaledMs(10000));
        QVERIFY(awaitFuture(m_client->put("/hm-steady/other", "x")));  // the one change in the range

        CoordinationHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClient(m_client.get());
        model.setPrefix(QStringLiteral("/hm-steady/"));
        model.setLastRevisions(1);
        model.start();
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(20000));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0).data(CoordinationHistoryModel::PathRole).toString(), QStringLiteral("/hm-steady/lock"));
        const CoordinationHistoryModel::Lane &lane = model.lanes().front();
        QCOMPARE(lane.bars.size(), size_t(2));
        QCOMPARE(lane.bars[0].who, QStringLiteral("steady-holder"));
        QVERIFY(!lane.bars[0].waiter);
        QCOMPARE(lane.bars[1].who, QStringLiteral("steady-waiter"));
        QVERIFY(lane.bars[1].waiter);
        for (const auto &bar : lane.bars) {
            QVERIFY(bar.fromBefore);
            QCOMPARE(bar.from, model.firstRevision());
            QCOMPARE(bar.to, 0);  // still on at the end
        }
        QVERIFY2(model.describe(0, model.lastRevision()).contains(QLatin1String("held by steady-holder")),
                 qPrintable(model.describe(0, model.lastRevision())));
        QVERIFY(!waiting.isFinished());
    }

    // Two locks on one lease, revoked: both ends are the lease's, not a deletion.
    void aLeaseThatTakesSeveralKeys()
    {
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(60), lease);
        PutOptions onLease;
        onLease.lease = lease.id;
        const QByteArray id = QByteArray::number(lease.id, 16);
        const qint64 before = storeRevision();
        QVERIFY(awaitFuture(m_client->put("/hl/a/" + id, {}, onLease)));
        QVERIFY(awaitFuture(m_client->put("/hl/b/" + id, {}, onLease)));
        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease.id), revoked);

        CoordinationHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClient(m_client.get());
        model.setPrefix(QStringLiteral("/hl/"));
        model.setLastRevisions(storeRevision() - before);
        model.start();
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(20000));
        QCOMPARE(model.rowCount(), 2);
        for (const CoordinationHistoryModel::Lane &lane : model.lanes()) {
            QCOMPARE(lane.bars.size(), size_t(1));
            QCOMPARE(lane.bars.front().end, CoordinationHistoryModel::MarkKind::LeaseEnded);
            QCOMPARE(lane.marks.back().kind, CoordinationHistoryModel::MarkKind::LeaseEnded);
        }
        QCOMPARE(model.markKinds(), (QStringList{"acquired", "leaseEnded"}));
    }

    // Past maxItems the oldest bars and marks go, a quarter at a time, and keptFrom says from
    // where everything is kept; a lower cap set later drops at once.
    void theCapDropsTheOldest()
    {
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(600), lease);
        PutOptions onLease;
        onLease.lease = lease.id;
        const QByteArray key = "/hcap/lock/" + QByteArray::number(lease.id, 16);
        const qint64 before = storeRevision();
        constexpr int Holds = 75;
        for (int i = 0; i < Holds; ++i) {
            QVERIFY(awaitFuture(m_client->put(key, {}, onLease)));
            QVERIFY(awaitFuture(m_client->remove(key)));
        }
        const qint64 replayed = storeRevision() - before;
        const auto kept = [](const CoordinationHistoryModel &model) {
            qsizetype items = 0;
            for (const CoordinationHistoryModel::Lane &lane : model.lanes())
                items += qsizetype(lane.bars.size() + lane.marks.size());
            return items;
        };

        CoordinationHistoryModel whole;
        whole.setClient(m_client.get());
        whole.setPrefix(QStringLiteral("/hcap/"));
        whole.setLastRevisions(replayed);
        whole.start();
        QTRY_COMPARE_WITH_TIMEOUT(whole.status(), ModelStatus::Ready, scaledMs(20000));
        QCOMPARE(whole.keptFrom(), 0);
        QCOMPARE(whole.lanes().front().bars.size(), size_t(Holds));
        const qsizetype everything = kept(whole);
        QVERIFY2(everything > 2 * Holds, qPrintable(QString::number(everything)));

        CoordinationHistoryModel capped;
        QAbstractItemModelTester tester(&capped, QAbstractItemModelTester::FailureReportingMode::QtTest);
        capped.setClient(m_client.get());
        capped.setPrefix(QStringLiteral("/hcap/"));
        capped.setLastRevisions(replayed);
        capped.setMaxItems(60);
        capped.start();
        QTRY_COMPARE_WITH_TIMEOUT(capped.status(), ModelStatus::Ready, scaledMs(20000));
        QVERIFY2(kept(capped) <= 60 && kept(capped) >= 30, qPrintable(QString::number(kept(capped))));
        QVERIFY(capped.keptFrom() > capped.firstRevision());
        const CoordinationHistoryModel::Lane &lane = capped.lanes().front();
        for (const auto &bar : lane.bars)
            QVERIFY(bar.to >= capped.keptFrom());
        for (const auto &mark : lane.marks)
            QVERIFY(mark.revision >= capped.keptFrom());
        // The newest are what stays: the last release, and the same bars as the whole replay's tail.
        QCOMPARE(lane.marks.back().revision, capped.lastRevision());
        QCOMPARE(lane.bars.back().from, whole.lanes().front().bars.back().from);
        QCOMPARE(lane.bars.back().to, whole.lanes().front().bars.back().to);

        whole.setMaxItems(20);
        QVERIFY2(kept(whole) <= 20, qPrintable(QString::number(kept(whole))));
        QVERIFY(whole.keptFrom() > 0);
    }

    // A range longer than twice NewestFirstRevisions: its newest revisions are painted before
    // the older ones are replayed, and a hold that runs across the seam between them is one bar.
    void theNewestRevisionsComeFirst()
    {
        const auto fill = [this](int revisions) {
            // Outside the prefix: revisions that tell the replay nothing.
            QList<QFuture<PutResult>> puts;
            for (int i = 0; i < revisions; ++i)
                puts.append(m_client->put("/hn-filler", QByteArray::number(i)));
            for (const QFuture<PutResult> &put : std::as_const(puts))
                QVERIFY(awaitFuture(put));
        };
        const qint64 start = storeRevision();
        LockOptions options;
        options.clientId = QStringLiteral("across");
        DistributedMutex across(m_client.get(), "/hn/lock", options);
        QVERIFY(across.tryLock(std::chrono::seconds(10)));
        const qint64 acquired = storeRevision();
        fill(2 * CoordinationHistoryModel::NewestFirstRevisions + 200);
        options.clientId = QStringLiteral("second");
        DistributedMutex second(m_client.get(), "/hn/lock", options);
        const qint64 joined = storeRevision() + 1;
        QFuture<Status> waiting = second.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(storeRevision(), joined, scaledMs(10000));  // the waiter's key
        QVERIFY(across.unlock());
        QVERIFY(awaitFuture(waiting));
        const qint64 handedOn = joined + 1;  // the holder's key deleted
        QCOMPARE(storeRevision(), handedOn);
        fill(100);
        QVERIFY(second.unlock());
        const qint64 end = handedOn + 101;
        QTRY_COMPARE_WITH_TIMEOUT(storeRevision(), end, scaledMs(10000));  // its key deleted

        CoordinationHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClient(m_client.get());
        model.setPrefix(QStringLiteral("/hn/"));
        model.setLastRevisions(end - start);
        // What is painted first: the hand-over, without the acquisition long before it.
        bool newestAlone = false;
        bool olderWhileShown = false;
        connect(&model, &CoordinationHistoryModel::lanesChanged, this, [&] {
            if (model.lanes().empty())
                return;
            const auto &marks = model.lanes().front().marks;
            const auto at = [&marks](qint64 revision) {
                return std::any_of(marks.begin(), marks.end(), [revision](const auto &mark) { return mark.revision == revision; });
            };
            newestAlone = newestAlone || (at(handedOn) && !at(acquired));
        });
        connect(&model, &CoordinationHistoryModel::progressChanged, this, [&] {
            olderWhileShown = olderWhileShown || (newestAlone && model.olderRevision() > 0 && model.status() == ModelStatus::Loading);
        });
        model.start();
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(60000));
        QVERIFY(newestAlone);
        QVERIFY(olderWhileShown);
        QCOMPARE(model.firstRevision(), start + 1);
        QCOMPARE(model.lastRevision(), end);
        QCOMPARE(model.olderRevision(), 0);
        QCOMPARE(model.progress(), 1.0);
        QCOMPARE(model.rowCount(), 1);

        // The same lane a replay in one go draws.
        const CoordinationHistoryModel::Lane &lane = model.lanes().front();
        QCOMPARE(lane.bars.size(), size_t(3));
        QCOMPARE(lane.bars[0].who, QStringLiteral("across"));
        QVERIFY(!lane.bars[0].fromBefore && !lane.bars[0].waiter);
        QCOMPARE(lane.bars[0].from, acquired);
        QCOMPARE(lane.bars[0].to, handedOn);
        QCOMPARE(lane.bars[0].end, CoordinationHistoryModel::MarkKind::HandedOn);
        QVERIFY(lane.bars[1].waiter);
        QCOMPARE(lane.bars[1].from, joined);
        QCOMPARE(lane.bars[1].to, handedOn);
        QCOMPARE(lane.bars[2].who, QStringLiteral("second"));
        QCOMPARE(lane.bars[2].from, handedOn);
        QCOMPARE(lane.bars[2].to, end);
        QStringList marks;
        for (const auto &mark : lane.marks)
            marks.append(QString::number(mark.revision) + ' ' + CoordinationHistoryModel::markKindName(mark.kind));
        QCOMPARE(marks, (QStringList{QString::number(acquired) + " acquired", QString::number(handedOn) + " handedOn",
                                     QString::number(end) + " deleted"}));

        // Stopped while the older revisions are replayed: the newest stay, and what the older
        // replay told by then.
        CoordinationHistoryModel stopped;
        stopped.setClient(m_client.get());
        stopped.setPrefix(QStringLiteral("/hn/"));
        stopped.setLastRevisions(end - start);
        bool cancelled = false;
        connect(&stopped, &CoordinationHistoryModel::progressChanged, this, [&] {
            if (!cancelled && stopped.olderRevision() > 0) {
                cancelled = true;
                stopped.cancel();
            }
        });
        stopped.start();
        QTRY_VERIFY_WITH_TIMEOUT(cancelled, scaledMs(30000));
        QCOMPARE(stopped.status(), ModelStatus::Error);
        QVERIFY2(stopped.errorString().contains(QLatin1String("cancelled")), qPrintable(stopped.errorString()));
        QCOMPARE(stopped.olderRevision(), 0);
        QVERIFY(!stopped.isRunning());
        QVERIFY(!stopped.lanes().empty());
        QCOMPARE(stopped.lanes().front().marks.back().revision, end);

        // Following: Ready once both parts are told, then live.
        CoordinationHistoryModel following;
        following.setClient(m_client.get());
        following.setPrefix(QStringLiteral("/hn/"));
        following.setLastRevisions(end - start);
        following.setFollowing(true);
        following.start();
        QTRY_COMPARE_WITH_TIMEOUT(following.status(), ModelStatus::Ready, scaledMs(60000));
        QVERIFY(following.isRunning());
        QCOMPARE(following.firstRevision(), start + 1);
        QCOMPARE(following.lanes().front().bars.size(), size_t(3));
        options.clientId = QStringLiteral("later");
        DistributedMutex later(m_client.get(), "/hn/lock", options);
        QVERIFY(later.tryLock(std::chrono::seconds(10)));
        QTRY_COMPARE_WITH_TIMEOUT(following.lanes().front().bars.size(), size_t(4), scaledMs(10000));
        QCOMPARE(following.lanes().front().bars.back().who, QStringLiteral("later"));
        QVERIFY(later.unlock());
        following.cancel();
        QCOMPARE(following.status(), ModelStatus::Ready);
    }

    void cancelAndDestroyWhileReplaying()
    {
        CoordinationHistoryModel model;
        model.setClient(m_client.get());
        model.start();  // the whole history, every key
        QVERIFY(model.isRunning());
        model.cancel();
        QVERIFY(!model.isRunning());
        QCOMPARE(model.status(), ModelStatus::Error);
        QVERIFY2(model.errorString().contains(QLatin1String("cancelled")), qPrintable(model.errorString()));
        // Nothing of the cancelled replay comes after it.
        const qint64 events = model.eventCount();
        // A whole replay through the same client afterwards: anything the cancelled one still
        // had on its way would have come by its end.
        CoordinationHistoryModel after;
        after.setClient(m_client.get());
        after.start();
        QTRY_VERIFY_WITH_TIMEOUT(!after.isRunning(), scaledMs(30000));
        QCOMPARE(after.status(), ModelStatus::Ready);
        QCOMPARE(model.eventCount(), events);

        // Every key (no prefix), over all etcd keeps: the history begins at revision 2 (the
        // state is read at 1, etcd's first), and the model is destroyed while it replays.
        auto replaying = std::make_unique<CoordinationHistoryModel>();
        replaying->setClient(m_client.get());
        replaying->start();
        QTRY_COMPARE_WITH_TIMEOUT(replaying->firstRevision(), 2, scaledMs(10000));
        QCOMPARE(replaying->errorString(), QString());
        replaying.reset();  // stops its thread on the way out

        // The last N revisions of every key.
        CoordinationHistoryModel recent;
        recent.setClient(m_client.get());
        recent.setLastRevisions(3);
        recent.start();
        QTRY_COMPARE_WITH_TIMEOUT(recent.status(), ModelStatus::Ready, scaledMs(20000));
        const qint64 now = storeRevision();
        QCOMPARE(recent.lastRevision(), now);
        QCOMPARE(recent.firstRevision(), now - 2);

        // Without a client the replay says why it cannot run.
        CoordinationHistoryModel alone;
        alone.start();
        QCOMPARE(alone.status(), ModelStatus::Error);
        QVERIFY(!alone.errorString().isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationHistoryModel)
#include "tst_coordinationhistorymodel.moc"
