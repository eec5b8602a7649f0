#include "checkerrun.h"
#include "participantprocess.h"

#include <QEtcd/etcdcluster.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
constexpr int candidateCount = 4;
} // namespace

// "Never two believed leaders": four candidate processes campaign on one election, each a
// LeaderSelector behind a proxy of its own, while a seeded driver cuts candidates (the leader
// half the time) off, slows their traffic or freezes them with SIGSTOP, for 0.3–5 s: some
// outages shorter than the 2 s TTL, some longer. Each candidate logs the terms in which it
// believed it led, on the monotonic clock, from the start of takeLeadership to the last moment
// isLeader() said yes (participants/electionparticipant.cpp). Pass:
// - no two believed terms overlap;
// - once the network is whole again somebody leads;
// - the run exercised what it claims: hand-overs, leaderships lost, every candidate led, every
//   kind of fault was injected, and every line of output was understood.
//
// QETCD_CHECKER_SECONDS sets the length of the run, QETCD_CHECKER_SEED replays one.
class tst_ElectionChecker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void neverTwoBelievedLeaders()
    {
        CheckerRun checker(60);

        EtcdCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));

        std::vector<ParticipantProcess> candidates(candidateCount);
        for (int i = 0; i < candidateCount; ++i) {
            QVERIFY(candidates[i].start(QStringLiteral(QETCD_ELECTION_PARTICIPANT), QStringLiteral("c%1").arg(i),
                                        cluster.clientPort(0), {"--election", "/checker/election"}));
        }

        FaultDriver driver(candidates, checker.random, {1000ms, 300, 5000, 50});
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

        QList<BelievedHold> terms;
        int losses = 0;
        int neverLed = 0;
        for (const ParticipantProcess &candidate : candidates) {
            terms += candidate.believedHolds();
            neverLed += candidate.believedHolds().isEmpty() ? 1 : 0;
            losses += int(candidate.eventsNamed("leadershipLost").size());
        }
        int peak = 0;
        const QString overlap = overCapacity(terms, 1, &peak);
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap + QStringLiteral(" (seed %1)").arg(checker.seed)));
        std::sort(terms.begin(), terms.end(),
                  [](const BelievedHold &a, const BelievedHold &b) { return a.start < b.start; });
        qint64 smallestGap = std::numeric_limits<qint64>::max();
        for (qsizetype i = 1; i < terms.size(); ++i)
            smallestGap = std::min(smallestGap, terms[i].start - terms[i - 1].end);
        qInfo("%lld terms, %d leaderships lost, %d candidates never led, smallest hand-over gap %.1f ms; faults: %s",
              qint64(terms.size()), losses, neverLed, smallestGap / 1e6, qPrintable(driver.summary()));

        // A run without hand-overs and losses would have checked nothing.
        QVERIFY2(terms.size() >= 3, "too few terms to check anything");
        QVERIFY2(losses >= 1, "no leadership was ever lost to a fault");
        QCOMPARE(neverLed, 0);
        QVERIFY2(driver.blackholes >= 1 && driver.delays >= 1 && driver.freezes >= 1,
                 "a kind of fault was never injected");
    }
};

QTEST_GUILESS_MAIN(tst_ElectionChecker)
#include "tst_electionchecker.moc"
