// Lock cycles per second (acquire + release) with 1, 4 and 16 contenders on one
// DistributedMutex name, and hand-off latency from one holder's unlock() returning to the next
// holder's acquisition. Every etcd lock pays at least one Txn and one Delete commit per cycle,
// so the rate of bare Txn(put if absent) + Delete round trips on the same server is reported
// beside it: the gap is the library's own overhead. etcd's commit speed drifts on a shared
// machine, so the bare rate is measured around each level (half a window before, half after)
// and the level is compared with their mean. With --go-lock (scripts/bench builds it from
// bench/golock), etcd's own Go lock runs each level on the same server too, in the middle of
// ours: half our window before it and half after, counted together, so a drifting server
// weighs on both alike.
//
// unlock() returns at once and deletes in the background, while Go's Unlock() returns after
// the delete: our hand-off figure includes that commit, Go's does not.

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
    Txn take;
    take.compares = {Compare::absent("/bench/bare")};
    take.success = {TxnOp::put("/bench/bare", "x")};
    int pairs = 0;
    const qint64 start = nowNs();
    while (nowNs() - start < duration_cast<nanoseconds>(window).count()) {
        if (!await(client.txn(take), QStringLiteral("bare txn")).succeeded)
            fail(QStringLiteral("the bare key was not free"));
        await(client.remove("/bench/bare"), QStringLiteral("bare delete"));
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

QJsonObject goLock(const QString &program, const QStringList &endpoints, int count, seconds window)
{
    return runGoReference(program,
                          {QStringLiteral("--endpoints"), endpoints.join(','), QStringLiteral("--contenders"),
                           QString::number(count), QStringLiteral("--seconds"), QString::number(window.count())},
                          duration_cast<milliseconds>(window + 60s));
}

// What one stretch of contention counted.
struct Contention
{
    int cycles = 0;
    double elapsedMs = 0;
    QList<double> handoffs;
};

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
                       "Txn+Delete round trips on the same server. Prints one JSON object."),
        {{QStringLiteral("seconds"), QStringLiteral("Measuring window per level."), QStringLiteral("s"),
          QStringLiteral("10")},
         {QStringLiteral("contenders"), QStringLiteral("Comma-separated contention levels."), QStringLiteral("list"),
          QStringLiteral("1,4,16")},
         {QStringLiteral("go-lock"),
          QStringLiteral("The golock program (bench/golock): measure etcd's Go lock beside ours."),
          QStringLiteral("path")}});
    return run([&] {
        const seconds window(positiveOption(parser, QStringLiteral("seconds")));
        const QList<int> contenders = positiveList(parser, QStringLiteral("contenders"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        const bool withGo = parser.isSet(QStringLiteral("go-lock"));
        const milliseconds half = window / 2;
        QJsonArray levels;
        for (const int count : contenders) {
            const double bareBefore = bareTxnDeleteRate(client, half);
            QList<Contention> ours{contend(cluster.clientUrls(), count, withGo ? half : milliseconds(window))};
            QJsonObject go;
            if (withGo) {
                go = goLock(parser.value(QStringLiteral("go-lock")), cluster.clientUrls(), count, window);
                ours.append(contend(cluster.clientUrls(), count, half));
            }
            const double bareAfter = bareTxnDeleteRate(client, half);
            QJsonObject measured = figures(count, ours);
            const double rate = measured.value(QStringLiteral("cycles_per_s")).toDouble();
            measured.insert(QStringLiteral("bare_txn_delete_per_s"),
                            QJsonObject{{"before", rounded(bareBefore)}, {"after", rounded(bareAfter)}});
            measured.insert(QStringLiteral("ratio_to_bare_txn_delete"), ratio(rate, (bareBefore + bareAfter) / 2));
            if (withGo) {
                measured.insert(QStringLiteral("go_concurrency_mutex"), go);
                measured.insert(QStringLiteral("ratio_to_go"),
                                ratio(rate, go.value(QStringLiteral("cycles_per_s")).toDouble()));
            }
            levels.append(measured);
        }
        return QJsonObject{{"benchmark", "lock"}, {"window_s", qint64(window.count())}, {"levels", levels}};
    });
}
