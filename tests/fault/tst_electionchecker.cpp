// "Never two believed leaders": several candidates, each with its own Client behind its own
// FaultProxy, campaign on one election while a seeded driver cuts random candidates (the leader
// more often than not) off for random durations, some shorter and some longer than the TTL.
// Each candidate logs the intervals in which it believed it led, on the monotonic clock: from
// the start of takeLeadership to the last moment isLeader() said yes. No two may overlap.
//
// QETCD_CHECKER_SEED replays a run; the seed is printed either way.

#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/leaderselector.h>

#include <QtCore/QMutex>
#include <QtCore/QRandomGenerator>
#include <QtTest/QtTest>

#include <algorithm>
#include <array>
#include <limits>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
constexpr int candidateCount = 4;
constexpr milliseconds faultPeriod = 75s;

qint64 nowNs()
{
    return steady_clock::now().time_since_epoch().count();
}

struct Interval
{
    int candidate = -1;
    qint64 from = 0;  // ns, steady_clock
    qint64 to = 0;
};

class Candidate
{
    // Declared first so that they outlive the selector, whose term thread writes them.
    const int m_index;
    mutable QMutex m_mutex;
    QList<Interval> m_intervals;

public:
    Candidate(int index, quint16 etcdPort) : m_index(index), proxy(QStringLiteral("127.0.0.1"), etcdPort) {}

    bool start()
    {
        if (!proxy.start())
            return false;
        client = std::make_unique<Client>(ClientOptions::fromEndpoints({proxy.url()}));
        ElectionOptions options;
        options.ttlSeconds = 2;
        selector = std::make_unique<LeaderSelector>(
            client.get(), "/checker/election", QByteArray("candidate-") + QByteArray::number(m_index),
            [this](const StopToken &stop) { lead(stop); }, [] {}, options);
        QObject::connect(selector.get(), &LeaderSelector::leadershipLost, selector.get(), [this] { ++losses; },
                         Qt::DirectConnection);
        const QFuture<Status> queued = selector->start();
        return awaitFuture(queued, 20s) && queued.result().isOk();
    }

    QList<Interval> intervals() const
    {
        QMutexLocker locker(&m_mutex);
        return m_intervals;
    }

    FaultProxy proxy;
    std::unique_ptr<Client> client;
    std::unique_ptr<LeaderSelector> selector;
    std::atomic<int> losses{0};

private:
    // Acts as leader for as long as the library says so; a term whose very first check says
    // no never acted as leader and logs nothing.
    void lead(const StopToken &stop)
    {
        const qint64 from = nowNs();
        qint64 lastYes = 0;
        while (!stop.stopRequested() && selector->isLeader()) {
            lastYes = nowNs();
            QThread::msleep(2);  // the "work" of a leader between two checks
        }
        if (lastYes == 0)
            return;
        QMutexLocker locker(&m_mutex);
        m_intervals.append({m_index, from, lastYes});
    }
};
} // namespace

class tst_ElectionChecker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void neverTwoBelievedLeaders()
    {
        EtcdCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));

        quint32 seed = QRandomGenerator::system()->generate();
        if (qEnvironmentVariableIsSet("QETCD_CHECKER_SEED"))
            seed = qEnvironmentVariable("QETCD_CHECKER_SEED").toUInt();
        qInfo("election checker seed: %u (replay with QETCD_CHECKER_SEED=%u)", seed, seed);
        QRandomGenerator random(seed);

        std::vector<std::unique_ptr<Candidate>> candidates;
        for (int i = 0; i < candidateCount; ++i) {
            candidates.push_back(std::make_unique<Candidate>(i, cluster.clientPort(0)));
            QVERIFY2(candidates.back()->start(), qPrintable(QStringLiteral("candidate %1 did not start").arg(i)));
        }

        // The driver: every 0.5–2.5 s a new outage of 0.3–5 s (TTL 2 s) for the leader, or
        // for anyone; outages may overlap, so at times several candidates are cut off at once.
        std::array<qint64, candidateCount> cutUntil{};
        int outages = 0;
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < faultPeriod.count()) {
            int victim = int(random.bounded(candidateCount));
            if (random.bounded(2) == 0) {
                for (int i = 0; i < candidateCount; ++i) {
                    if (candidates[i]->selector->isLeader())
                        victim = i;
                }
            }
            const qint64 duration = 300 + random.bounded(4700);
            cutUntil[victim] = std::max(cutUntil[victim], clock.elapsed() + duration);
            candidates[victim]->proxy.setMode(FaultProxy::Mode::Blackhole);
            ++outages;
            const qint64 pause = 500 + random.bounded(2000);
            const qint64 pauseEnd = clock.elapsed() + pause;
            while (clock.elapsed() < pauseEnd) {
                for (int i = 0; i < candidateCount; ++i) {
                    if (cutUntil[i] && clock.elapsed() >= cutUntil[i]) {
                        cutUntil[i] = 0;
                        candidates[i]->proxy.setMode(FaultProxy::Mode::Pass);
                    }
                }
                QTest::qWait(20);  // the driver's tick; nothing here waits for a result
            }
        }
        for (auto &candidate : candidates)
            candidate->proxy.setMode(FaultProxy::Mode::Pass);

        // Once the network is whole again somebody leads.
        auto someoneLeads = [&] {
            return std::any_of(candidates.cbegin(), candidates.cend(),
                               [](const auto &candidate) { return candidate->selector->isLeader(); });
        };
        QTRY_VERIFY_WITH_TIMEOUT(someoneLeads(), scaledMs(60000));

        for (auto &candidate : candidates)
            candidate->selector->close();

        QList<Interval> intervals;
        int losses = 0;
        for (const auto &candidate : candidates) {
            intervals += candidate->intervals();
            losses += candidate->losses.load();
        }
        std::sort(intervals.begin(), intervals.end(),
                  [](const Interval &a, const Interval &b) { return a.from < b.from; });
        qint64 smallestGap = std::numeric_limits<qint64>::max();
        for (int i = 1; i < intervals.size(); ++i) {
            const Interval &before = intervals[i - 1];
            const Interval &after = intervals[i];
            QVERIFY2(after.from > before.to,
                     qPrintable(QStringLiteral("candidates %1 and %2 both believed they led: [%3, %4] ms and "
                                               "[%5, %6] ms (seed %7)")
                                    .arg(before.candidate)
                                    .arg(after.candidate)
                                    .arg(before.from / 1000000)
                                    .arg(before.to / 1000000)
                                    .arg(after.from / 1000000)
                                    .arg(after.to / 1000000)
                                    .arg(seed)));
            smallestGap = std::min(smallestGap, after.from - before.to);
        }
        qInfo("%d outages, %lld terms, %d leaderships lost, smallest hand-over gap %.1f ms", outages,
              qlonglong(intervals.size()), losses, smallestGap / 1e6);
        // A run without hand-overs and losses would have checked nothing.
        QVERIFY2(intervals.size() >= 3, "too few terms to check anything");
        QVERIFY2(losses >= 1, "no leadership was ever lost to a partition");
    }
};

QTEST_GUILESS_MAIN(tst_ElectionChecker)
#include "tst_electionchecker.moc"
