#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;

namespace {
constexpr int memberCount = 3;
const QString barrierPath = QStringLiteral("/checker/counted");

qint64 nowNs()
{
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

// One `qetcd barrier count` run: from just before the process was started to just after it
// was seen to exit, so it errs long on both sides.
struct Run
{
    qint64 started = 0;
    qint64 exited = 0;
};

// A thread that runs `qetcd barrier count` again each time the last one exits released.
struct Arriver
{
    void loop(const QString &endpoint, int rounds)
    {
        for (int round = 0; round < rounds && !stop; ++round) {
            Run run;
            run.started = nowNs();
            Qetcd qetcd(endpoint, {QStringLiteral("barrier"), QStringLiteral("count"), barrierPath,
                                   QStringLiteral("--members"), QString::number(memberCount),
                                   QStringLiteral("--timeout"), QStringLiteral("60s")});
            const int exitCode = qetcd.waitForExit(scaledMs(90000));
            run.exited = nowNs();
            if (exitCode != 0 || !qetcd.has(QStringLiteral("released"))) {
                failure = QStringLiteral("round %1 exited %2: %3")
                              .arg(round)
                              .arg(exitCode)
                              .arg(QString::fromUtf8(qetcd.transcript()));
                return;
            }
            runs.append(run);
        }
    }

    std::unique_ptr<QThread> thread;
    QList<Run> runs;  // its thread's until that thread has finished
    QString failure;
    std::atomic<bool> stop{false};
};
} // namespace

// Three separate `qetcd barrier count --members 3` processes meet at one counted barrier,
// round after round, each starting its next run as soon as its last one was released. A
// correct barrier keeps them in step, so the k-th run of each belongs to round k. Pass: every
// run is released, and in no round did a run exit released before another member's run of
// that round had even started. Rounds: QETCD_CHECKER_ROUNDS (default 200, about 80 s).
class tst_BarrierChecker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noRoundReleasesBeforeAllMembersArrived()
    {
        const int rounds = qEnvironmentVariableIntValue("QETCD_CHECKER_ROUNDS") > 0
            ? qEnvironmentVariableIntValue("QETCD_CHECKER_ROUNDS")
            : 200;
        EtcdCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        const QString endpoint = cluster.clientUrls().first();

        QElapsedTimer clock;
        clock.start();
        std::vector<std::unique_ptr<Arriver>> members;
        for (int i = 0; i < memberCount; ++i) {
            members.push_back(std::make_unique<Arriver>());
            Arriver *member = members.back().get();
            member->thread.reset(QThread::create([member, endpoint, rounds] { member->loop(endpoint, rounds); }));
            member->thread->start();
        }
        for (auto &member : members) {
            const bool finished = member->thread->wait(QDeadlineTimer(scaledMs(rounds * 2000 + 60000)));
            if (!finished) {
                for (auto &each : members)
                    each->stop = true;
                QVERIFY2(member->thread->wait(QDeadlineTimer(scaledMs(120000))), "a member did not stop");
            }
        }
        for (const auto &member : members)
            QVERIFY2(member->failure.isEmpty(), qPrintable(member->failure));

        for (int round = 0; round < rounds; ++round) {
            qint64 lastStart = 0;
            qint64 firstExit = std::numeric_limits<qint64>::max();
            int lastStarter = -1;
            int firstExiter = -1;
            for (int i = 0; i < memberCount; ++i) {
                const Run &run = members[i]->runs.at(round);
                if (run.started > lastStart) {
                    lastStart = run.started;
                    lastStarter = i;
                }
                if (run.exited < firstExit) {
                    firstExit = run.exited;
                    firstExiter = i;
                }
            }
            if (firstExit < lastStart) {
                QFAIL(qPrintable(QStringLiteral("round %1: member %2 exited released %3 ms before member %4 started")
                                     .arg(round)
                                     .arg(firstExiter)
                                     .arg((lastStart - firstExit) / 1000000.0)
                                     .arg(lastStarter)));
            }
        }
        qInfo("%d rounds of %d members in %.1f s", rounds, memberCount, clock.elapsed() / 1000.0);

        // Every member took its key with it.
        Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));
        RangeOptions countOnly;
        countOnly.range = KeyRange::prefix();
        countOnly.countOnly = true;
        const auto left = [&] {
            const auto future = observer.get(barrierPath.toUtf8() + "/waiting/", countOnly);
            return awaitFuture(future) ? future.result().count : qint64(-1);
        };
        QTRY_COMPARE_WITH_TIMEOUT(left(), qint64(0), scaledMs(10000));
    }
};

QTEST_GUILESS_MAIN(tst_BarrierChecker)
#include "tst_barrierchecker.moc"
