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
constexpr int candidateCount = 4;
const QByteArray electionPath = QByteArrayLiteral("/checker/election");
const QByteArray electionPrefix = electionPath + '/';
} // namespace

// "Never two believed leaders": four candidate processes campaign on one election, each a
// LeaderSelector behind a proxy of its own, while a seeded driver cuts candidates (the leader
// half the time) off, slows their traffic or freezes them with SIGSTOP, for 0.3–5 s: some
// outages shorter than the 2 s TTL, some longer. Each candidate logs the terms in which it
// believed it led, on the monotonic clock, from the start of takeLeadership to the last moment
// isLeader() said yes, and writes one key blindly while it leads, through the fence
// (participants/electionparticipant.cpp). Pass:
// - no two believed terms overlap;
// - etcd's own history (a watch from revision 1) shows every committed write landing while its
//   writer's key, with the token it wrote, was the oldest candidate: the leader;
// - once the network is whole again somebody leads;
// - the run exercised what it claims: hand-overs, leaderships lost, every candidate led, writes
//   accepted and stale ones refused, every kind of fault was injected, and every line of output
//   was understood.
// The self-checks run the same checker against candidates broken on purpose (--sabotage), and
// pass only when it catches them.
//
// QETCD_CHECKER_SECONDS sets the length of the run, QETCD_CHECKER_SEED replays one.
class tst_ElectionChecker : public QObject
{
    Q_OBJECT

    // Candidate i is sabotaged when i < sabotaged.
    static void start(FencedRun &run, const QString &sabotage = {}, int sabotaged = 0)
    {
        run.start(QStringLiteral(QETCD_ELECTION_PARTICIPANT), QStringLiteral("c"),
                  [] { return QStringList{"--election", QString::fromUtf8(electionPath)}; }, sabotage, sabotaged);
    }

    static FaultDriver::Plan faults() { return {1000ms, 300, 5000, 50}; }

private Q_SLOTS:
    void neverTwoBelievedLeaders()
    {
        CheckerRun checker(60);
        FencedRun run(candidateCount, electionPrefix, 1);
        start(run);
        if (QTest::currentTestFailed())
            return;
        std::vector<ParticipantProcess> &candidates = run.participants;

        FaultDriver driver(candidates, checker.random, faults());
        driver.runFor(checker.seconds);

        // Once the network is whole again somebody leads.
        for (ParticipantProcess &candidate : candidates) {
            candidate.proxy->setMode(FaultProxy::Mode::Pass);
            candidate.signal(SIGCONT);
        }
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(candidates.cbegin(), candidates.cend(),
                                             [](const ParticipantProcess &c) { return c.holding; }),
                                 scaledMs(60000));

        const QString stopped = stopParticipants(candidates);
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));

        QList<BelievedHold> terms = run.believedHolds();
        int losses = 0;
        int neverLed = 0;
        int accepted = 0;
        int refused = 0;
        for (const ParticipantProcess &candidate : candidates) {
            neverLed += candidate.believedHolds().isEmpty() ? 1 : 0;
            losses += int(candidate.eventsNamed("leadershipLost").size());
            for (const QJsonObject &write : candidate.eventsNamed("write")) {
                accepted += write.value("outcome") == QLatin1String("accepted") ? 1 : 0;
                refused += write.value("outcome") == QLatin1String("refused") ? 1 : 0;
            }
        }
        int peak = 0;
        const QString overlap = overCapacity(terms, 1, &peak);
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap + QStringLiteral(" (seed %1)").arg(checker.seed)));

        // The fencing oracle: replay etcd's history up to a marker written after everyone stopped.
        run.awaitWholeHistory();
        if (QTest::currentTestFailed())
            return;
        FencingOracle oracle = run.oracle();
        const QString fenceBroken = oracle.takeAll(run.history.events);
        QVERIFY2(fenceBroken.isEmpty(), qPrintable(fenceBroken + QStringLiteral(" (seed %1)").arg(checker.seed)));

        std::sort(terms.begin(), terms.end(),
                  [](const BelievedHold &a, const BelievedHold &b) { return a.start < b.start; });
        qint64 smallestGap = std::numeric_limits<qint64>::max();
        for (qsizetype i = 1; i < terms.size(); ++i)
            smallestGap = std::min(smallestGap, terms[i].start - terms[i - 1].end);
        qInfo("%lld terms, %d leaderships lost, %d candidates never led, smallest hand-over gap %.1f ms; writes: %d "
              "accepted, %d refused by the fence, %lld committed; faults: %s",
              qint64(terms.size()), losses, neverLed, smallestGap / 1e6, accepted, refused,
              qint64(oracle.committed().size()), qPrintable(driver.summary()));

        // A run without hand-overs and losses would have checked nothing.
        QVERIFY2(terms.size() >= 3, "too few terms to check anything");
        QVERIFY2(losses >= 1, "no leadership was ever lost to a fault");
        QCOMPARE(neverLed, 0);
        QVERIFY2(oracle.committed().size() >= 10, "too few writes committed to test the fence");
        QVERIFY2(driver.blackholes >= 1 && driver.delays >= 1 && driver.freezes >= 1,
                 "a kind of fault was never injected");
    }

    // Two candidates go on acting as leader for 3 s after their term was stopped.
    void catchesLeadersThatIgnoreTheirLoss()
    {
        CheckerRun checker(0);
        FencedRun run(candidateCount, electionPrefix, 1);
        start(run, QStringLiteral("ignore-loss"), 2);
        if (QTest::currentTestFailed())
            return;
        const QString found = runUntilCaught(run.participants, checker.random, faults(), 120, [&run] { return run.violation(); });
        QVERIFY2(found.contains(QLatin1String("believed they held")),
                 qPrintable(QStringLiteral("the checker did not catch leaders that ignore their loss (%1)")
                                .arg(found.isEmpty() ? QStringLiteral("nothing found") : found)));
        QVERIFY2(stopParticipants(run.participants).isEmpty(), "the candidates did not stop cleanly");
    }

    // Every candidate writes without the fence: a write held up past its term lands late (every
    // one, so that a fault on any leader can show it; see tst_mutexchecker).
    void catchesWritesThatSkipTheFence()
    {
        CheckerRun checker(0);
        FencedRun run(candidateCount, electionPrefix, 1);
        start(run, QStringLiteral("unfenced"), candidateCount);
        if (QTest::currentTestFailed())
            return;
        const QString found = runUntilCaught(run.participants, checker.random, faults(), 120, [&run] { return run.violation(); });
        QVERIFY2(found.startsWith(QLatin1String("fence broken")),
                 qPrintable(QStringLiteral("the fencing oracle did not catch unfenced writes (%1)")
                                .arg(found.isEmpty() ? QStringLiteral("nothing found") : found)));
        QVERIFY2(stopParticipants(run.participants).isEmpty(), "the candidates did not stop cleanly");
    }
};

QTEST_GUILESS_MAIN(tst_ElectionChecker)
#include "tst_electionchecker.moc"
