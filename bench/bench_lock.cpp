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
// overhead.
//
// etcd's commit speed drifts on a shared machine, by half within seconds on a small VM. So a
// level's window is cut into --rounds slices for each of ours, bare, bare followed and Go's, and
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
double bareTxnDeleteRate(Client &client, milliseconds window)
{
    int pairs = 0;
    const qint64 start = nowNs();
    while (nowNs() - start < duration_cast<nanoseconds>(window).count()) {
        txnThenDelete(client, "/bench/bare");
        ++pairs;
    }
    return pairs / nsToMs(nowNs() - start) * 1000.0;
}

struct Contender
{
    std::unique_ptr<Client> client;
    std::unique_ptr<DistributedMutex> mutex;
    bool busy = false;
};

// What one stretch of contention counted.
struct Contention
{
    int cycles = 0;
    double elapsedMs = 0;
    QList<double> handoffs;
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
                       {}};
    for (const QJsonValue &handoff : slice.value(QStringLiteral("handoffs_ms")).toArray())
        counted.handoffs.append(handoff.toDouble());
    return counted;
}

QJsonObject figures(int count, const QList<Contention> &parts)
{
    Contention all;
    for (const Contention &part : parts) {
        all.cycles += part.cycles;
        all.elapsedMs += part.elapsedMs;
        all.handoffs += part.handoffs;
    }
    return {{"contenders", count},
            {"cycles", all.cycles},
            {"cycles_per_s", rounded(all.cycles / all.elapsedMs * 1000.0)},
            {"handoff_ms", summary(all.handoffs, {{"p50", 50}, {"p99", 99}})}};
}

Contention contend(const QStringList &endpoints, int count, milliseconds window)
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
        c.mutex->lockAsync().then(c.mutex.get(), [&](const Status &acquired) {
            if (!acquired)
                fail(QStringLiteral("lock failed: ") + acquired.toString());
            if (lastUnlockNs)
                handoffs.append(nsToMs(nowNs() - lastUnlockNs));
            ++cycles;
            c.mutex->unlock();
            lastUnlockNs = nowNs();
            c.busy = false;
            if (running)
                cycle(c);
        });
    };
    const qint64 start = nowNs();
    for (Contender &c : contenders)
        cycle(c);
    pause(window);
    running = false;
    const int counted = cycles;
    const double elapsedMs = nsToMs(nowNs() - start);
    if (!waitUntil([&] { return std::none_of(contenders.begin(), contenders.end(),
                                             [](const Contender &c) { return c.busy; }); },
                   60s))
        fail(QStringLiteral("contenders did not wind down"));
    return {counted, elapsedMs, handoffs};
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
          QStringLiteral("Measuring window per level, for each of ours, bare, bare followed and Go's."),
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
            QJsonArray bare;
            double bareSum = 0;
            QJsonArray followed;
            double followedSum = 0;
            enum Turn { Ours, Bare, BareFollowed, Go };
            takeTurns(rounds, Go + 1, [&](int, int turn) {
                switch (Turn(turn)) {
                case Ours:
                    ours.append(contend(cluster.clientUrls(), count, slice));
                    break;
                case Bare: {
                    const double rate = bareTxnDeleteRate(client, slice);
                    bare.append(rounded(rate));
                    bareSum += rate;
                    break;
                }
                case BareFollowed:
                    // One contender has no waiters, and nothing follows its deletions.
                    if (count > 1) {
                        const Followers followers(cluster.clientUrls(), "/bench/bare", count - 1);
                        const double rate = bareTxnDeleteRate(client, slice);
                        followed.append(rounded(rate));
                        followedSum += rate;
                    }
                    break;
                case Go:
                    if (withGo)
                        go.append(goLock(parser.value(QStringLiteral("go-lock")), cluster.clientUrls(), count, slice));
                    break;
                }
            });
            QJsonObject measured = figures(count, ours);
            const double rate = measured.value(QStringLiteral("cycles_per_s")).toDouble();
            measured.insert(QStringLiteral("bare_txn_delete_per_s"), bare);
            measured.insert(QStringLiteral("ratio_to_bare_txn_delete"), ratio(rate, bareSum / rounds));
            if (count > 1) {
                measured.insert(QStringLiteral("bare_followed_txn_delete_per_s"), followed);
                measured.insert(QStringLiteral("followers"), count - 1);
                measured.insert(QStringLiteral("ratio_to_bare_followed"), ratio(rate, followedSum / rounds));
            }
            if (withGo) {
                QJsonObject goFigures = figures(count, go);
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
