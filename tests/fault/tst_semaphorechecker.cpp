#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedsemaphore.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtCore/QRandomGenerator>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
constexpr int permitCount = 2;
const QByteArray semaphorePath = QByteArrayLiteral("/checker/semaphore");

qint64 nowNs()
{
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

struct Interval
{
    qint64 start = 0;
    qint64 end = 0;
    int participant = 0;
};

// One contender: its own Client behind its own proxy, and a thread that acquires, works while
// it still believes it holds, and releases, over and over. It asks heldPermits() every 2 ms
// and reads the monotonic clock after each yes, so each believed interval errs on the long
// side: from acquire() returning to the last yes, or to the call of a release() that found
// the permit still held.
struct Participant
{
    Participant(int index, quint16 etcdPort) : index(index)
    {
        proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), etcdPort);
    }

    bool start(quint32 seed)
    {
        if (!proxy->start())
            return false;
        client = std::make_unique<Client>(ClientOptions::fromEndpoints({proxy->url()}));
        SemaphoreOptions options;
        options.ttlSeconds = 2;
        options.clientId = QStringLiteral("p%1").arg(index);
        semaphore = std::make_unique<DistributedSemaphore>(client.get(), semaphorePath, permitCount, options);
        QObject::connect(semaphore.get(), &DistributedSemaphore::permitLost, semaphore.get(), [this] { ++losses; },
                         Qt::DirectConnection);
        thread.reset(QThread::create([this, seed] { contend(seed); }));
        thread->start();
        return true;
    }

    void contend(quint32 seed)
    {
        QRandomGenerator random(seed);
        while (!stop) {
            if (!semaphore->acquire(3s).isOk()) {
                ++failures;
                QThread::msleep(50);  // pacing, so a refusing server is not hammered
                continue;
            }
            const qint64 start = nowNs();
            qint64 lastYes = 0;
            // Half short holds, half long enough for a partition to outlast the lease.
            const int holdMs = random.bounded(2) == 0 ? random.bounded(100, 1000) : random.bounded(1000, 6000);
            const qint64 until = start + holdMs * qint64(1000000);
            bool believed = true;
            while (!stop && nowNs() < until) {
                if (semaphore->heldPermits() == 0) {
                    believed = false;
                    break;
                }
                lastYes = nowNs();
                QThread::msleep(2);  // the critical section's work between two checks
            }
            const qint64 releasing = nowNs();
            const bool stillHeld = semaphore->release();
            if (!stillHeld)
                ++dispossessed;
            if (!believed) {
                ++lostWhileHeld;
                if (stillHeld)
                    ++contradictions;
            }
            if (lastYes == 0) {  // never believed, so never acted on
                ++unbelieved;
                continue;
            }
            if (believed && stillHeld)
                lastYes = releasing;
            holds.append({start, lastYes, index});
        }
    }

    const int index;
    std::unique_ptr<FaultProxy> proxy;
    std::unique_ptr<Client> client;
    std::unique_ptr<DistributedSemaphore> semaphore;
    std::unique_ptr<QThread> thread;
    QList<Interval> holds;  // its thread's until that thread has finished
    std::atomic<bool> stop{false};
    std::atomic<int> losses{0};         // permitLost() while the permit was still held
    std::atomic<int> lostWhileHeld{0};  // heldPermits() said no before the hold was done
    std::atomic<int> dispossessed{0};   // release() found the permit already lost
    std::atomic<int> contradictions{0}; // heldPermits() said no, yet release() found it held
    std::atomic<int> failures{0};
    std::atomic<int> unbelieved{0};  // acquire() succeeded but the first check said no
    bool faulted = false;  // the driver's
};
} // namespace

// Five participants contend for the two permits of one DistributedSemaphore while a seeded
// driver cuts random ones off through their proxies for 0.5–6 s, sometimes shorter than the
// 2 s TTL, sometimes well past it. Pass: at no instant did more than two participants believe
// they held a permit; every participant can still get one once the faults end; no entry is
// left behind.
class tst_SemaphoreChecker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void neverMoreBelievedHoldersThanPermits()
    {
        const int seconds = qEnvironmentVariableIntValue("QETCD_CHECKER_SECONDS") > 0
            ? qEnvironmentVariableIntValue("QETCD_CHECKER_SECONDS")
            : 60;
        const quint32 seed = qEnvironmentVariableIsSet("QETCD_CHECKER_SEED")
            ? qEnvironmentVariable("QETCD_CHECKER_SEED").toUInt()
            : QRandomGenerator::global()->generate();
        qInfo("seed %u (QETCD_CHECKER_SEED=%u repeats the fault schedule), %d s", seed, seed, seconds);
        QRandomGenerator random(seed);

        EtcdCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));

        std::vector<std::unique_ptr<Participant>> participants;
        for (int i = 0; i < 5; ++i) {
            participants.push_back(std::make_unique<Participant>(i, cluster.clientPort(0)));
            QVERIFY(participants.back()->start(random.generate()));
        }

        QTimer driver;
        int faults = 0;
        connect(&driver, &QTimer::timeout, this, [&] {
            Participant &p = *participants[random.bounded(int(participants.size()))];
            if (p.faulted)
                return;
            p.faulted = true;
            ++faults;
            p.proxy->setMode(FaultProxy::Mode::Blackhole);
            QTimer::singleShot(random.bounded(500, 6000), p.proxy.get(), [&p] {
                p.proxy->setMode(FaultProxy::Mode::Pass);
                p.faulted = false;
            });
        });
        driver.start(1000);
        QEventLoop run;
        QTimer::singleShot(seconds * 1000, &run, &QEventLoop::quit);
        run.exec();
        driver.stop();

        for (auto &p : participants) {
            p->stop = true;
            p->proxy->setMode(FaultProxy::Mode::Pass);
        }
        for (auto &p : participants)
            QVERIFY2(p->thread->wait(scaledMs(30000)), "a participant did not stop");

        // A sweep over every start and end: starts first at equal instants, so touching
        // intervals count as overlapping.
        QList<std::pair<qint64, int>> edges;
        int holdCount = 0;
        int losses = 0;
        int dispossessed = 0;
        int failures = 0;
        int unbelieved = 0;
        int neverHeld = 0;
        int lostWhileHeld = 0;
        int contradictions = 0;
        for (const auto &p : participants) {
            neverHeld += p->holds.isEmpty() ? 1 : 0;
            for (const Interval &hold : p->holds) {
                edges.append({hold.start, +1});
                edges.append({hold.end, -1});
            }
            holdCount += int(p->holds.size());
            losses += p->losses;
            dispossessed += p->dispossessed;
            failures += p->failures;
            unbelieved += p->unbelieved;
            lostWhileHeld += p->lostWhileHeld;
            contradictions += p->contradictions;
        }
        std::sort(edges.begin(), edges.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        int believed = 0;
        int peak = 0;
        for (const auto &[when, change] : edges) {
            believed += change;
            if (believed > permitCount) {
                QStringList who;
                for (const auto &p : participants) {
                    for (const Interval &hold : p->holds) {
                        if (hold.start <= when && when <= hold.end)
                            who << QStringLiteral("p%1 [%2, %3]").arg(hold.participant).arg(hold.start).arg(hold.end);
                    }
                }
                QFAIL(qPrintable(QStringLiteral("%1 participants believed they held a permit at %2 ns: %3")
                                     .arg(believed)
                                     .arg(when)
                                     .arg(who.join(QStringLiteral(", ")))));
            }
            peak = std::max(peak, believed);
        }
        qInfo("%d believed holds (%d more never believed), %d seen lost while held, %d releases found the permit "
              "lost, %d permitLost() signals, %d acquisitions failed, %d faults injected, peak %d",
              holdCount, unbelieved, lostWhileHeld, dispossessed, losses, failures, faults, peak);
        // A run that exercised too little proves nothing.
        QVERIFY(holdCount > 20);
        QCOMPARE(neverHeld, 0);
        QVERIFY2(lostWhileHeld >= 1, "no permit was seen lost while held");
        QVERIFY2(dispossessed >= 1, "no release() ever found its permit lost");
        QVERIFY2(contradictions == 0, "a permit heldPermits() called lost was released as if still held");
        QVERIFY(faults > seconds / 3);
        QCOMPARE(peak, permitCount);  // the permits were really shared, not handed out one by one

        // Nothing is stuck once the network is whole again.
        for (auto &p : participants) {
            QCOMPARE(p->semaphore->acquire(scaled(15s)), Status());
            QVERIFY(p->semaphore->release());
        }
        for (auto &p : participants)
            p->semaphore->close();
        const auto entriesLeft = [&] {
            RangeOptions countOnly;
            countOnly.range = KeyRange::prefix();
            countOnly.countOnly = true;
            const auto future = observer.get(semaphorePath + "/holders/", countOnly);
            return awaitFuture(future) ? future.result().count : qint64(-1);
        };
        QTRY_COMPARE_WITH_TIMEOUT(entriesLeft(), qint64(0), scaledMs(10000));
    }
};

QTEST_GUILESS_MAIN(tst_SemaphoreChecker)
#include "tst_semaphorechecker.moc"
