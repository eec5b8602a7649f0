// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "checkerrun.h"
#include "fencedrun.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/watcher.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
const QByteArray lockPath = QByteArrayLiteral("/checker/lock");
const QByteArray lockPrefix = lockPath + '/';
constexpr int participantCount = 5;
} // namespace

// Five processes contend for one DistributedMutex while a seeded driver partitions random
// ones (the holder more often than not) through their proxies, delays their traffic by more
// than the 2 s TTL, or freezes them with SIGSTOP. Inside each hold a participant makes blind
// writes to one key, guarded only by the fence (guardedTxn), and asks every 2 ms whether it
// still holds. Pass:
// - no two believed holds overlap;
// - etcd's own history (a watch from revision 1) shows every committed write landing while
//   its writer's lock key, with the token it wrote, was the lowest under the lock prefix;
// - every write answered "accepted" is in that history once, and none answered "refused";
// - the run exercised what it claims: every participant held, holds were lost while held,
//   stale writes reached etcd late and were refused, every line of output was understood,
//   and nothing was left under the lock prefix.
// The self-checks run the same checker against participants broken on purpose (--sabotage),
// and pass only when it catches them.
class tst_MutexChecker : public QObject
{
    Q_OBJECT

    // Participant i is sabotaged when i < sabotaged.
    static void start(FencedRun &run, CheckerRun &checker, const QString &sabotage = {}, int sabotaged = 0)
    {
        run.start(QStringLiteral(QETCD_MUTEX_PARTICIPANT), QStringLiteral("p"), [&checker] {
            return QStringList{"--lock", QString::fromUtf8(lockPath), "--seed", QString::number(checker.random.generate())};
        }, sabotage, sabotaged);
    }

    // Every second one participant not already in trouble, the holder two times in three,
    // is cut off, slowed or frozen for 0.5–4 s: sometimes shorter than the 2 s TTL,
    // sometimes well past it. A write held up past the holder's lease arrives stale.
    static FaultDriver::Plan faults() { return {1000ms, 500, 4000, 67}; }

private Q_SLOTS:
    void believedHoldsNeverOverlapAndFencedWritesLandInTheirHold()
    {
        CheckerRun checker(45);
        FencedRun run(participantCount, lockPrefix, 1);
        start(run, checker);
        if (QTest::currentTestFailed())
            return;
        std::vector<ParticipantProcess> &participants = run.participants;

        FaultDriver driver(participants, checker.random, faults());
        driver.runFor(checker.seconds);

        const QString stopped = stopParticipants(participants);
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        if (qEnvironmentVariableIsSet("QETCD_CHECKER_LOG")) {
            QFile log(qEnvironmentVariable("QETCD_CHECKER_LOG"));
            if (log.open(QIODevice::WriteOnly)) {
                for (const ParticipantProcess &p : participants) {
                    for (const QJsonObject &event : p.events)
                        log.write(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
                }
            }
        }

        // Believed holds never overlap.
        QHash<QString, QString> outcomes;  // "<name>/<seq>" -> accepted, refused or unknown
        QSet<QString> everHeld;
        int lostWhileHeld = 0;
        int unlockedLost = 0;  // unlock() returned false
        int lockLost = 0;
        int unbelieved = 0;
        int refused = 0;
        int accepted = 0;
        qint64 latestRefusalMs = 0;
        for (const ParticipantProcess &p : participants) {
            lockLost += int(p.eventsNamed("lockLost").size());
            for (const QJsonObject &event : p.eventsNamed("hold")) {
                unlockedLost += event.value("released").toBool() ? 0 : 1;
                if (!event.value("believed").toBool()) {
                    ++unbelieved;
                    continue;
                }
                everHeld.insert(p.name);
                lostWhileHeld += event.value("lost").toBool() ? 1 : 0;
            }
            for (const QJsonObject &event : p.eventsNamed("write")) {
                const QString outcome = event.value("outcome").toString();
                outcomes.insert(p.name + '/' + QString::number(event.value("seq").toInteger()), outcome);
                if (outcome == "accepted") {
                    ++accepted;
                } else if (outcome == "refused") {
                    ++refused;
                    latestRefusalMs = std::max(latestRefusalMs, (event.value("answered_ns").toInteger()
                                                                 - event.value("issued_ns").toInteger())
                                                                    / 1000000);
                }
            }
        }
        const QList<BelievedHold> holds = run.believedHolds();
        int peak = 0;
        const QString overlap = overCapacity(holds, 1, &peak);
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        // Never hidden: every hold unlock() found lost was told by lockLost() as well, even when
        // unlock() read the clock past the deadline before the loss thread told it.
        QVERIFY2(lockLost >= unlockedLost,
                 qPrintable(QStringLiteral("unlock() found %1 holds lost, %2 lockLost() signals")
                                .arg(unlockedLost)
                                .arg(lockLost)));

        // The fencing oracle: replay etcd's history up to a marker written after everyone stopped.
        run.awaitWholeHistory();
        if (QTest::currentTestFailed())
            return;
        FencingOracle oracle = run.oracle();
        const QString fenceBroken = oracle.takeAll(run.history.events);
        QVERIFY2(fenceBroken.isEmpty(), qPrintable(fenceBroken));
        const QSet<QString> &committed = oracle.committed();
        for (const QString &id : committed) {
            if (outcomes.value(id) != "accepted" && outcomes.value(id) != "unknown")
                QFAIL(qPrintable(QStringLiteral("write %1 committed, but its writer was told %2")
                                     .arg(id, outcomes.value(id, QStringLiteral("nothing")))));
        }
        for (auto it = outcomes.cbegin(); it != outcomes.cend(); ++it) {
            if (it.value() == "accepted" && !committed.contains(it.key()))
                QFAIL(qPrintable(QStringLiteral("write %1 was accepted but is not in etcd's history").arg(it.key())));
        }

        // Nothing is left behind once everyone has stopped: at most a lease running out.
        const auto lockEntries = [&] {
            RangeOptions countOnly;
            countOnly.range = KeyRange::prefix();
            countOnly.countOnly = true;
            const auto future = run.observer->get(lockPrefix, countOnly);
            return awaitFuture(future) ? future.result().count : qint64(-1);
        };
        QTRY_COMPARE_WITH_TIMEOUT(lockEntries(), qint64(0), scaledMs(5000));

        qInfo("%lld believed holds (%d never believed), %d lost while held; %lld writes: %d accepted, %d stale "
              "and refused (the latest answered after %lld ms), %lld with unknown outcome, %lld committed; "
              "faults: %s",
              qint64(holds.size()), unbelieved, lostWhileHeld, qint64(outcomes.size()), accepted, refused,
              latestRefusalMs, qint64(outcomes.size()) - accepted - refused, qint64(committed.size()),
              qPrintable(driver.summary()));
        // A run that exercised too little proves nothing.
        QCOMPARE(everHeld.size(), participantCount);
        QVERIFY2(lostWhileHeld >= 1, "no hold was ever lost while held");
        QVERIFY2(refused >= 1, "no stale write reached etcd: the fence was never tested");
        QVERIFY2(accepted >= 10, "too few writes were accepted");
        QVERIFY2(driver.blackholes >= 1 && driver.delays >= 1 && driver.freezes >= 1,
                 "a kind of fault was never injected");
    }

    // Every participant acts as holder whatever the mutex says: its holds outlast its losses (every
    // one, so that a fault on any holder can show it; with two of five a catch took up to 26 faults).
    void catchesHoldersThatIgnoreTheirLoss()
    {
        CheckerRun checker(0);
        FencedRun run(participantCount, lockPrefix, 1);
        start(run, checker, QStringLiteral("ignore-loss"), participantCount);
        if (QTest::currentTestFailed())
            return;
        const QString found = runUntilCaught(run.participants, checker.random, faults(), 120, [&run] { return run.violation(); });
        QVERIFY2(found.contains(QLatin1String("believed they held")),
                 qPrintable(QStringLiteral("the checker did not catch holders that ignore their loss (%1)")
                                .arg(found.isEmpty() ? QStringLiteral("nothing found") : found)));
        QVERIFY2(stopParticipants(run.participants).isEmpty(), "the participants did not stop cleanly");
    }

    // Every participant writes without the fence: a write held up past its hold lands late. Only a
    // holder's long cut-off or slow-down does that, and the driver hits a holder about half the
    // time, so with two saboteurs among honest ones a catch took up to 100 faults and CI's
    // 120 s once ran out; with five it takes about a dozen.
    void catchesWritesThatSkipTheFence()
    {
        CheckerRun checker(0);
        FencedRun run(participantCount, lockPrefix, 1);
        start(run, checker, QStringLiteral("unfenced"), participantCount);
        if (QTest::currentTestFailed())
            return;
        const QString found = runUntilCaught(run.participants, checker.random, faults(), 120, [&run] { return run.violation(); });
        QVERIFY2(found.startsWith(QLatin1String("fence broken")),
                 qPrintable(QStringLiteral("the fencing oracle did not catch unfenced writes (%1)")
                                .arg(found.isEmpty() ? QStringLiteral("nothing found") : found)));
        QVERIFY2(stopParticipants(run.participants).isEmpty(), "the participants did not stop cleanly");
    }
};

QTEST_GUILESS_MAIN(tst_MutexChecker)
#include "tst_mutexchecker.moc"
