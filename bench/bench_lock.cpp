// SPDX-License-Identifier: Apache-2.0
// Lock cycles per second (acquire + release) with 1, 4 and 16 contenders on one
// DistributedMutex name, and hand-off latency from one holder's unlock() returning to the next
// holder's acquisition. Every etcd lock pays at least one Txn and one Delete commit per cycle,
// so the rate of bare Txn(put if absent) + Delete round trips on the same server is reported
// beside it. With --go-lock (scripts/bench builds it from bench/golock), etcd's own Go lock runs
// each level on the same server too.
//
// Waiters learn of departures through a watch on the lock's prefix, so with N contenders etcd
// sends every delete to N - 1 watchers, and each of their clients answers it (gRPC sends a
// window update for every message a stream receives). That cost is the server's and gRPC's,
// whatever the lock does: "bare followed" is the bare loop again while N - 1 other clients watch
// its key as waiters watch a lock's prefix. Between the two bare figures lies the library's own
// overhead. A lock's contender keeps a second watch, though: on its own entry's key, while it
// holds and for a while after, so that it is told when its entry goes by any hand but its own.
// "Bare watched as locked" is the bare loop again with N clients watching as contenders do, both
// watches each: the lock's whole fan-out, without the lock. Each figure comes with the
// CPU it took per cycle (or bare pair), this process's and etcd's apart, to tell whose work a
// slower cycle is.
//
// Our contenders are counted from when each has held once (its client connected, its lease
// granted, its watches started), as the bare loops count once their clients and watches are up
// and Go's lock once its sessions are.
//
// etcd's commit speed drifts on a shared machine, by half within seconds on a small VM. So a
// level's window is cut into --rounds slices for each of ours, the three bare loops and Go's, and
// those take turns (in an order that rotates from round to round); each figure counts all its
// slices together, so the drift weighs on them alike.
//
// unlock() sends the delete and returns without waiting for its commit, while Go's Unlock()
// returns after the delete: our hand-off figure includes that commit, Go's does not.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedmutex.h>

#include <functional>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
// CPU seconds spent over measured windows by this process (the lock's or the bare loop's
// clients, and the followers') and by etcd, to tell whose work a slower cycle is.
struct CpuSpent
{
    double client = 0;
    double etcd = 0;
};

class CpuMeter
{
public:
    explicit CpuMeter(qint64 etcdPid)
        : m_etcdStat(QStringLiteral("/proc/%1/stat").arg(etcdPid)), m_client(processCpuSeconds()),
          m_etcd(statCpuSeconds(m_etcdStat))
    {
    }
    void addTo(CpuSpent *spent) const
    {
        spent->client += processCpuSeconds() - m_client;
        spent->etcd += statCpuSeconds(m_etcdStat) - m_etcd;
    }

private:
    const QString m_etcdStat;
    const double m_client;
    const double m_etcd;
};

// CPU milliseconds per cycle (or bare pair).
QJsonObject cpuPerCycle(const CpuSpent &spent, int cycles)
{
    const auto perCycle = [cycles](double seconds) { return cycles ? rounded(seconds * 1000.0 / cycles) : 0.0; };
    return {{"client", perCycle(spent.client)}, {"etcd", perCycle(spent.etcd)}};
}

// One of the bare Txn + Delete loops, over its slices.
struct BareLoop
{
    QJsonArray ratePerSlice;
    double rateSum = 0;
    CpuSpent cpu;
    int pairs = 0;

    void measure(Client &client, milliseconds window, qint64 etcdPid)
    {
        int counted = 0;
        const CpuMeter meter(etcdPid);
        const qint64 start = nowNs();
        while (nowNs() - start < duration_cast<nanoseconds>(window).count()) {
            txnThenDelete(client, "/bench/bare");
            ++counted;
        }
        meter.addTo(&cpu);
        pairs += counted;
        const double rate = counted / nsToMs(nowNs() - start) * 1000.0;
        ratePerSlice.append(rounded(rate));
        rateSum += rate;
    }

    // Its figures into measured, under name, beside the lock's rate.
    void report(QJsonObject *measured, const QString &name, double lockRate, int rounds) const
    {
        measured->insert(name + QStringLiteral("_txn_delete_per_s"), ratePerSlice);
        measured->insert(QStringLiteral("ratio_to_") + name + QStringLiteral("_txn_delete"),
                         ratio(lockRate, rateSum / rounds));
        measured->insert(name + QStringLiteral("_cpu_ms_per_pair"), cpuPerCycle(cpu, pairs));
    }
};

struct Contender
{
    std::unique_ptr<Client> client;
    std::unique_ptr<DistributedMutex> mutex;
    bool busy = false;
    bool heldOnce = false;
};

// What one stretch of contention counted.
struct Contention
{
    int cycles = 0;
    double elapsedMs = 0;
    QList<double> handoffs;
    CpuSpent cpu;
};

// One slice of etcd's Go lock, as a Contention.
Contention goLock(const QString &program, const QStringList &endpoints, int count, milliseconds window)
{
    const QJsonObject slice
        = runJsonProgram(program,
                         {QStringLiteral("--endpoints"), endpoints.join(','), QStringLiteral("--contenders"),
                          QString::number(count), QStringLiteral("--window-ms"), QString::number(window.count())},
                         window + 60s);
    Contention counted{slice.value(QStringLiteral("cycles")).toInt(), slice.value(QStringLiteral("elapsed_ms")).toDouble(),
                       {}, {}};
    for (const QJsonValue &handoff : slice.value(QStringLiteral("handoffs_ms")).toArray())
        counted.handoffs.append(handoff.toDouble());
    return counted;
}

// Go's lock runs in a process of its own, its CPU not measured here (cpuMeasured false).
QJsonObject figures(int count, const QList<Contention> &parts, bool cpuMeasured)
{
    Contention all;
    for (const Contention &part : parts) {
        all.cycles += part.cycles;
        all.elapsedMs += part.elapsedMs;
        all.handoffs += part.handoffs;
        all.cpu.client += part.cpu.client;
        all.cpu.etcd += part.cpu.etcd;
    }
    QJsonObject result{{"contenders", count},
                       {"cycles", all.cycles},
                       {"cycles_per_s", rounded(all.cycles / all.elapsedMs * 1000.0)},
                       {"handoff_ms", summary(all.handoffs, {{"p50", 50}, {"p99", 99}})}};
    if (cpuMeasured)
        result.insert(QStringLiteral("cpu_ms_per_cycle"), cpuPerCycle(all.cpu, all.cycles));
    return result;
}

Contention contend(const QStringList &endpoints, int count, milliseconds window, qint64 etcdPid)
{
    std::vector<Contender> contenders{size_t(count)};
    for (Contender &c : contenders) {
        c.client = std::make_unique<Client>(ClientOptions::fromEndpoints(endpoints));
        LockOptions options;
        options.ttlSeconds = 10;
        c.mutex = std::make_unique<DistributedMutex>(c.client.get(), "/bench/lock", options);
    }
    qint64 lastUnlockNs = 0;
    QList<double> handoffs;
    int cycles = 0;
    bool running = true;
    // Everything runs on the main thread: the hold belongs to the thread that asked for it.
    std::function<void(Contender &)> cycle = [&](Contender &c) {
        c.busy = true;
        QEtcd::Testing::whenFinishedOn(c.mutex->lockAsync(), c.mutex.get(), [&](const Status &acquired) {
            if (!acquired)
                fail(QStringLiteral("lock failed: ") + acquired.toString());
            if (lastUnlockNs)
                handoffs.append(nsToMs(nowNs() - lastUnlockNs));
            ++cycles;
            c.heldOnce = true;
            c.mutex->unlock();
            lastUnlockNs = nowNs();
            c.busy = false;
            if (running)
                cycle(c);
        });
    };
    for (Contender &c : contenders)
        cycle(c);
    // Counted from when every contender has held once, as the bare loops and Go's lock count
    // from when their clients are connected and their watches or sessions are set up: a
    // contender's first turn connects its client, grants its lease and starts its watches.
    if (!waitUntil([&] { return std::all_of(contenders.begin(), contenders.end(),
                                            [](const Contender &c) { return c.heldOnce; }); },
                   60s))
        fail(QStringLiteral("not every contender took the lock within 60 s"));
    cycles = 0;
    handoffs.clear();
    const CpuMeter meter(etcdPid);
    const qint64 start = nowNs();
    pause(window);
    running = false;
    const int counted = cycles;
    const double elapsedMs = nsToMs(nowNs() - start);
    CpuSpent cpu;
    meter.addTo(&cpu);
    if (!waitUntil([&] { return std::none_of(contenders.begin(), contenders.end(),
                                             [](const Contender &c) { return c.busy; }); },
                   60s))
        fail(QStringLiteral("contenders did not wind down"));
    return {counted, elapsedMs, handoffs, cpu};
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(
        parser, app,
        QStringLiteral("Lock cycles per second and hand-off latency at several contention levels, next to bare "
                       "Txn+Delete round trips on the same server, alone and with the waiters' watches. Prints one "
                       "JSON object."),
        {{QStringLiteral("seconds"),
          QStringLiteral("Measuring window per level, for each of ours, bare, bare followed, bare watched as locked and Go's."),
          QStringLiteral("s"), QStringLiteral("10")},
         {QStringLiteral("rounds"), QStringLiteral("Slices each window is cut into, taking turns with the others'."),
          QStringLiteral("n"), QStringLiteral("5")},
         {QStringLiteral("contenders"), QStringLiteral("Comma-separated contention levels."), QStringLiteral("list"),
          QStringLiteral("1,4,16")},
         {QStringLiteral("go-lock"),
          QStringLiteral("The golock program (bench/golock): measure etcd's Go lock beside ours."),
          QStringLiteral("path")}});
    return run([&] {
        const seconds window(positiveOption(parser, QStringLiteral("seconds")));
        const int rounds = positiveOption(parser, QStringLiteral("rounds"));
        const milliseconds slice = duration_cast<milliseconds>(window) / rounds;
        const QList<int> contenders = positiveList(parser, QStringLiteral("contenders"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        const bool withGo = parser.isSet(QStringLiteral("go-lock"));
        QJsonArray levels;
        for (const int count : contenders) {
            QList<Contention> ours;
            QList<Contention> go;
            BareLoop bare;
            BareLoop followed;
            BareLoop watchedAsLocked;
            const qint64 etcdPid = cluster.pid(0);
            enum Turn { Ours, Bare, BareFollowed, BareWatchedAsLocked, Go };
            takeTurns(rounds, Go + 1, [&](int, int turn) {
                switch (Turn(turn)) {
                case Ours:
                    ours.append(contend(cluster.clientUrls(), count, slice, etcdPid));
                    break;
                case Bare:
                    bare.measure(client, slice, etcdPid);
                    break;
                case BareFollowed:
                    // One contender has no waiters, and nothing follows its deletions.
                    if (count > 1) {
                        const Followers followers(cluster.clientUrls(), "/bench/bare", count - 1);
                        followed.measure(client, slice, etcdPid);
                    }
                    break;
                case BareWatchedAsLocked:
                    if (count > 1) {
                        const Followers contenders(cluster.clientUrls(), "/bench/bare", count, "/bench/bare");
                        watchedAsLocked.measure(client, slice, etcdPid);
                    }
                    break;
                case Go:
                    if (withGo)
                        go.append(goLock(parser.value(QStringLiteral("go-lock")), cluster.clientUrls(), count, slice));
                    break;
                }
            });
            QJsonObject measured = figures(count, ours, true);
            const double rate = measured.value(QStringLiteral("cycles_per_s")).toDouble();
            bare.report(&measured, QStringLiteral("bare"), rate, rounds);
            if (count > 1) {
                measured.insert(QStringLiteral("followers"), count - 1);
                followed.report(&measured, QStringLiteral("bare_followed"), rate, rounds);
                watchedAsLocked.report(&measured, QStringLiteral("bare_watched_as_locked"), rate, rounds);
            }
            if (withGo) {
                QJsonObject goFigures = figures(count, go, false);
                goFigures.insert(QStringLiteral("client"), QStringLiteral("go.etcd.io/etcd/clientv3/concurrency.Mutex"));
                measured.insert(QStringLiteral("go_concurrency_mutex"), goFigures);
                measured.insert(QStringLiteral("ratio_to_go"),
                                ratio(rate, goFigures.value(QStringLiteral("cycles_per_s")).toDouble()));
            }
            levels.append(measured);
        }
        return QJsonObject{{"benchmark", "lock"},
                           {"window_s", qint64(window.count())},
                           {"rounds", rounds},
                           {"levels", levels}};
    });
}
