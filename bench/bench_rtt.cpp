// SPDX-License-Identifier: Apache-2.0
// Round trips per second and their latency for put, get and txn, with 1 and 16 callers sharing
// one Client, each sending its next request when the previous one is answered. Ours takes its
// answers in three ways, each measured: where an application with an event loop takes them,
// through a QFutureWatcher on the main thread or through the Client overloads taking a context
// object and an onAnswer function (one posted event to the main thread), so the figures include
// the wake-up of the caller's thread; and where they arrive (the overloads taking an onAnswer
// function alone, run on the completion-queue thread, as etcd's Go client hands an answer to the
// goroutine that waits for it without waking another thread). With --go-rtt (scripts/bench
// builds it from bench/gortt), etcd's own Go client measures each row on the same server too, its
// callers goroutines sharing one client. etcd's speed drifts on a shared machine, by half within
// seconds on a small VM, so a row's window is cut into --rounds slices for each of the clients
// measured, which take turns (in an order that rotates from round to round); each figure counts
// all its slices together.
//
// The txn is a lock's acquisition: put the key if nobody created it, else read it. Each
// request names a fresh key, so the put branch runs, as it does for every lock taken.
//
// Each figure says what the server spent on it too: etcd's CPU time and its read and write
// calls per round trip, taken at the same moments as the client's, so that a gap between two
// clients shows whether it lies in the client or in what the client has etcd do.
//
// A get on the local machine takes a fraction of a millisecond, so latencies here keep
// microseconds, unlike the other benchmarks' tenths of a millisecond.

#include "benchsupport.h"

#include <QEtcd/client.h>

#include <QtCore/QFutureWatcher>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
const QByteArray value = QByteArrayLiteral("value-of-sixteen");

double microRounded(double ms)
{
    return std::round(ms * 1000.0) / 1000.0;
}

// Why an answer does not count as the round trip asked for; empty when it does.
QString problemWith(const Result &answer)
{
    return answer.status ? QString() : answer.status.toString();
}

QString problemWith(const TxnResult &answer)
{
    if (!answer.status)
        return answer.status.toString();
    return answer.succeeded ? QString() : QStringLiteral("a txn found its fresh key taken");
}

struct Window
{
    milliseconds warmup;
    milliseconds measured;
    qint64 serverPid = 0;
};

// What etcd has spent so far: CPU time, and read and write calls (on its sockets, nearly all:
// its data file is mapped, and the WAL is the same for every client).
struct ServerCost
{
    qint64 cpuUs = 0;
    qint64 reads = 0;
    qint64 writes = 0;

    ServerCost &operator+=(const ServerCost &more)
    {
        cpuUs += more.cpuUs;
        reads += more.reads;
        writes += more.writes;
        return *this;
    }
    ServerCost since(const ServerCost &earlier) const
    {
        return {cpuUs - earlier.cpuUs, reads - earlier.reads, writes - earlier.writes};
    }
};

ServerCost serverCostOf(qint64 pid)
{
    const QString io = QStringLiteral("/proc/%1/io").arg(pid);
    return {qint64(statCpuSeconds(QStringLiteral("/proc/%1/stat").arg(pid)) * 1e6),
            procField("syscr:", io), procField("syscw:", io)};
}

// The answers one window counted, and the CPU time spent on them.
struct Sampled
{
    QList<double> latenciesMs;
    qint64 cpuUs = 0;
    milliseconds measured{0};
    ServerCost server;  // spent over the same window
};

QJsonObject figures(const QList<Sampled> &parts)
{
    QList<double> latencies;
    qint64 cpuUs = 0;
    milliseconds measured{0};
    ServerCost server;
    for (const Sampled &part : parts) {
        latencies += part.latenciesMs;
        cpuUs += part.cpuUs;
        measured += part.measured;
        server += part.server;
    }
    // Rounded to 1 / scale.
    const auto perOp = [&](qint64 spent, double scale) {
        return latencies.isEmpty() ? 0.0 : std::round(double(spent) / double(latencies.size()) * scale) / scale;
    };
    // What the client spends on one round trip, on all its threads: on a small machine shared
    // with the server, that is throughput taken from etcd.
    return {{"ops", latencies.size()},
            {"cpu_us_per_op", perOp(cpuUs, 10.0)},
            {"ops_per_s", std::round(double(latencies.size()) / double(measured.count()) * 10000.0) / 10.0},
            {"latency_ms", QJsonObject{{"p50", microRounded(percentile(latencies, 50))},
                                       {"p99", microRounded(percentile(latencies, 99))}}},
            {"etcd", QJsonObject{{"cpu_us_per_op", perOp(server.cpuUs, 10.0)},
                                 {"reads_per_op", perOp(server.reads, 100.0)},
                                 {"writes_per_op", perOp(server.writes, 100.0)}}}};
}

QByteArray ownKey(const QByteArray &prefix, int caller)
{
    return prefix + '/' + QByteArray::number(caller);
}

// What one window counted, as answers come in; thread-safe, because the direct overloads answer
// on the library's completion-queue thread.
class Tally
{
public:
    explicit Tally(const Window &window)
        : m_startNs(nowNs() + duration_cast<nanoseconds>(window.warmup).count()),
          m_endNs(m_startNs + duration_cast<nanoseconds>(window.measured).count()), m_measured(window.measured),
          m_windDownBound(window.warmup + window.measured + 60s), m_serverPid(window.serverPid)
    {
    }

    // Counts an answer to a request sent at sentNs; true when its caller should send the next.
    bool answered(qint64 sentNs, const QString &problem)
    {
        const qint64 answeredNs = nowNs();
        std::lock_guard lock(m_mutex);
        if (!problem.isEmpty()) {
            m_failure = problem;
            return false;
        }
        if (answeredNs >= m_startNs && answeredNs < m_endNs) {
            if (m_cpuAtStartUs < 0) {
                m_cpuAtStartUs = qint64(processCpuSeconds() * 1e6);
                m_serverAtStart = serverCostOf(m_serverPid);
            }
            m_samples.append(nsToMs(answeredNs - sentNs));
        } else if (answeredNs >= m_endNs && m_cpuAtEndUs < 0) {
            m_cpuAtEndUs = qint64(processCpuSeconds() * 1e6);
            m_serverAtEnd = serverCostOf(m_serverPid);
        }
        return answeredNs < m_endNs && !m_failure;
    }

    // Waits until no caller has a request outstanding, then returns what was counted.
    Sampled finish(const std::function<bool()> &anyBusy)
    {
        if (!waitUntil([&] { return !anyBusy(); }, m_windDownBound, 20ms))
            fail(QStringLiteral("callers did not wind down"));
        std::lock_guard lock(m_mutex);
        if (m_failure)
            fail(*m_failure);
        if (m_samples.isEmpty())
            return {m_samples, 0, m_measured, {}};
        return {m_samples, m_cpuAtEndUs - m_cpuAtStartUs, m_measured, m_serverAtEnd.since(m_serverAtStart)};
    }

private:
    const qint64 m_startNs;
    const qint64 m_endNs;
    const milliseconds m_measured;
    const milliseconds m_windDownBound;
    const qint64 m_serverPid;
    std::mutex m_mutex;
    QList<double> m_samples;
    std::optional<QString> m_failure;
    qint64 m_cpuAtStartUs = -1;
    qint64 m_cpuAtEndUs = -1;
    ServerCost m_serverAtStart;
    ServerCost m_serverAtEnd;
};

// callers requests outstanding at all times, each followed by the next as soon as it is
// answered, the answer taken on the main thread through a QFutureWatcher; only answers that
// arrive within the window count.
template <class T>
Sampled drive(int callers, const Window &window, const std::function<QFuture<T>(int caller, qint64 turn)> &issue)
{
    struct Caller
    {
        QFutureWatcher<T> watcher;
        qint64 sentNs = 0;
        qint64 turn = 0;
        bool busy = false;
    };
    std::vector<std::unique_ptr<Caller>> all;
    Tally tally(window);
    const auto send = [&](Caller &c, int index) {
        c.busy = true;
        c.sentNs = nowNs();
        c.watcher.setFuture(issue(index, c.turn++));
    };
    for (int i = 0; i < callers; ++i) {
        all.push_back(std::make_unique<Caller>());
        Caller &c = *all.back();
        QObject::connect(&c.watcher, &QFutureWatcherBase::finished, &c.watcher, [&, i] {
            Caller &me = *all[size_t(i)];
            me.busy = false;
            if (tally.answered(me.sentNs, problemWith(me.watcher.result())))
                send(me, i);
        });
    }
    for (int i = 0; i < callers; ++i)
        send(*all[size_t(i)], i);
    return tally.finish([&] { return std::any_of(all.begin(), all.end(), [](const auto &c) { return c->busy; }); });
}

// The same with the answer taken through the Client overloads that take an onAnswer function:
// where it arrives, each next request sent from the completion-queue thread, or, given a
// context, on the main thread through one posted event.
template <class T>
Sampled driveDirect(int callers, const Window &window,
                    const std::function<void(int caller, qint64 turn, Client::OnAnswer<T>)> &issue)
{
    struct Caller
    {
        qint64 sentNs = 0;
        qint64 turn = 0;
        std::atomic<bool> busy{false};
    };
    std::vector<std::unique_ptr<Caller>> all;
    Tally tally(window);
    std::function<void(int)> send = [&](int index) {
        Caller &c = *all[size_t(index)];
        c.busy = true;
        c.sentNs = nowNs();
        issue(index, c.turn++, [&, index](const T &answer) {
            Caller &me = *all[size_t(index)];
            if (tally.answered(me.sentNs, problemWith(answer)))
                send(index);
            else
                me.busy = false;
        });
    };
    for (int i = 0; i < callers; ++i)
        all.push_back(std::make_unique<Caller>());
    for (int i = 0; i < callers; ++i)
        send(i);
    return tally.finish([&] { return std::any_of(all.begin(), all.end(), [](const auto &c) { return c->busy.load(); }); });
}

// A lock's acquisition on a key nobody created yet.
Txn freshKeyTxn(const QByteArray &prefix, int caller, qint64 turn)
{
    const QByteArray key = ownKey(prefix, caller) + "/txn/" + QByteArray::number(turn);
    Txn txn;
    txn.compares = {Compare::createRevision(key, CompareResult::Equal, 0)};
    txn.success = {TxnOp::put(key, value)};
    txn.failure = {TxnOp::range(key)};
    return txn;
}

// How the callers take their answers, as --deliveries names them.
enum class Delivery { Watcher, Direct, Context };

Delivery deliveryNamed(const QString &name)
{
    if (name == QLatin1String("direct"))
        return Delivery::Direct;
    return name == QLatin1String("context") ? Delivery::Context : Delivery::Watcher;
}

// The name of a delivery's figures in the JSON.
QString figuresNamed(Delivery delivery)
{
    switch (delivery) {
    case Delivery::Direct:
        return QStringLiteral("qetcd_direct");
    case Delivery::Context:
        return QStringLiteral("qetcd_context");
    case Delivery::Watcher:
        break;
    }
    return QStringLiteral("qetcd");
}

// Each row writes under a prefix of its own: a txn's keys must be new to the server.
Sampled measure(Client &client, const QByteArray &prefix, const QString &op, int callers, const Window &window,
                Delivery delivery)
{
    for (int i = 0; i < callers; ++i) {
        if (!await(client.put(ownKey(prefix, i), value), QStringLiteral("fill")).status)
            fail(QStringLiteral("filling failed"));
    }
    const Client::Rpc rpc;
    if (delivery != Delivery::Watcher) {
        // Answered where they arrive without a context, on the main thread with one.
        QObject onMainThread;
        QObject *context = delivery == Delivery::Context ? &onMainThread : nullptr;
        if (op == QLatin1String("put"))
            return driveDirect<PutResult>(callers, window, [&](int caller, qint64, Client::OnAnswer<PutResult> done) {
                if (context)
                    return client.put(ownKey(prefix, caller), value, {}, rpc, context, std::move(done));
                client.put(ownKey(prefix, caller), value, {}, rpc, std::move(done));
            });
        if (op == QLatin1String("get"))
            return driveDirect<RangeResult>(callers, window, [&](int caller, qint64, Client::OnAnswer<RangeResult> done) {
                if (context)
                    return client.get(ownKey(prefix, caller), {}, rpc, context, std::move(done));
                client.get(ownKey(prefix, caller), {}, rpc, std::move(done));
            });
        return driveDirect<TxnResult>(callers, window, [&](int caller, qint64 turn, Client::OnAnswer<TxnResult> done) {
            if (context)
                return client.txn(freshKeyTxn(prefix, caller, turn), rpc, context, std::move(done));
            client.txn(freshKeyTxn(prefix, caller, turn), rpc, std::move(done));
        });
    }
    if (op == QLatin1String("put"))
        return drive<PutResult>(callers, window, [&](int caller, qint64) { return client.put(ownKey(prefix, caller), value); });
    if (op == QLatin1String("get"))
        return drive<RangeResult>(callers, window, [&](int caller, qint64) { return client.get(ownKey(prefix, caller)); });
    return drive<TxnResult>(callers, window,
                            [&](int caller, qint64 turn) { return client.txn(freshKeyTxn(prefix, caller, turn)); });
}

// One slice of etcd's Go client.
Sampled goRtt(const QString &program, const QStringList &endpoints, const QByteArray &prefix, const QString &op,
              int callers, const Window &window)
{
    const QJsonObject slice
        = runJsonProgram(program,
                         {QStringLiteral("--endpoints"), endpoints.join(','), QStringLiteral("--prefix"),
                          QString::fromLatin1(prefix), QStringLiteral("--op"), op, QStringLiteral("--callers"),
                          QString::number(callers), QStringLiteral("--window-ms"),
                          QString::number(window.measured.count()),
                          QStringLiteral("--warmup-ms"), QString::number(window.warmup.count()),
                          QStringLiteral("--server-pid"), QString::number(window.serverPid)},
                         duration_cast<milliseconds>(window.warmup + window.measured + 60s));
    Sampled sampled;
    for (const QJsonValue &latency : slice.value(QStringLiteral("latencies_ms")).toArray())
        sampled.latenciesMs.append(latency.toDouble());
    sampled.cpuUs = slice.value(QStringLiteral("cpu_us")).toInteger();
    const QJsonObject server = slice.value(QStringLiteral("server")).toObject();
    sampled.server = {server.value(QStringLiteral("cpu_us")).toInteger(), server.value(QStringLiteral("reads")).toInteger(),
                      server.value(QStringLiteral("writes")).toInteger()};
    sampled.measured = window.measured;
    return sampled;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(
        parser, app,
        QStringLiteral("Put, get and txn round trips per second and their latency with one or many callers sharing "
                       "one client. Prints one JSON object."),
        {{QStringLiteral("seconds"), QStringLiteral("Measuring window per row, for each client measured."),
          QStringLiteral("s"), QStringLiteral("5")},
         {QStringLiteral("rounds"), QStringLiteral("Slices each window is cut into, taking turns with the others'."),
          QStringLiteral("n"), QStringLiteral("2")},
         {QStringLiteral("warmup-ms"), QStringLiteral("Requests before each window, not counted."),
          QStringLiteral("ms"), QStringLiteral("1000")},
         {QStringLiteral("ops"), QStringLiteral("Comma-separated operations: put, get, txn."), QStringLiteral("list"),
          QStringLiteral("put,get,txn")},
         {QStringLiteral("callers"), QStringLiteral("Comma-separated numbers of concurrent callers."),
          QStringLiteral("list"), QStringLiteral("1,16")},
         {QStringLiteral("go-rtt"),
          QStringLiteral("The gortt program (bench/gortt): measure etcd's Go client beside ours."),
          QStringLiteral("path")},
         {QStringLiteral("deliveries"),
          QStringLiteral("How our callers take answers, comma-separated: watcher (a QFutureWatcher on the main "
                         "thread), direct (the onAnswer overloads, on the completion-queue thread), context (the "
                         "overloads with a context object, on the main thread)."),
          QStringLiteral("list"), QStringLiteral("watcher,direct,context")},
         {QStringLiteral("no-qetcd"), QStringLiteral("Measure only the Go client (for profiling).")},
         {QStringLiteral("no-go"), QStringLiteral("Skip the Go client even with --go-rtt (for profiling).")}});
    return run([&] {
        const Window window{milliseconds(positiveOption(parser, QStringLiteral("warmup-ms"))),
                            seconds(positiveOption(parser, QStringLiteral("seconds")))};
        const int rounds = positiveOption(parser, QStringLiteral("rounds"));
        const QList<int> levels = positiveList(parser, QStringLiteral("callers"));
        const QStringList ops = choiceList(parser, QStringLiteral("ops"), {"put", "get", "txn"});
        const bool withGo = parser.isSet(QStringLiteral("go-rtt")) && !parser.isSet(QStringLiteral("no-go"));
        // What each slice measures: our deliveries, then etcd's Go client.
        QStringList clients = parser.isSet(QStringLiteral("no-qetcd"))
            ? QStringList()
            : choiceList(parser, QStringLiteral("deliveries"), {"watcher", "direct", "context"});
        if (withGo)
            clients.append(QStringLiteral("go"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        const Window slice{window.warmup, window.measured / rounds, cluster.pid(0)};
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        QJsonArray rows;
        for (const QString &op : ops) {
            for (int callers : levels) {
                QJsonObject row{{"op", op}, {"callers", callers}};
                const QByteArray rowName = op.toLatin1() + '-' + QByteArray::number(callers);
                QHash<QString, QList<Sampled>> sampled;
                takeTurns(rounds, int(clients.size()), [&](int round, int turn) {
                    const QString &who = clients[turn];
                    // Each slice writes under a prefix of its own: a txn's keys must be new.
                    const QByteArray prefix
                        = "/bench/rtt/" + who.toLatin1() + '/' + rowName + '/' + QByteArray::number(round);
                    sampled[who].append(who == QLatin1String("go")
                                            ? goRtt(parser.value(QStringLiteral("go-rtt")), cluster.clientUrls(),
                                                    prefix, op, callers, slice)
                                            : measure(client, prefix, op, callers, slice, deliveryNamed(who)));
                });
                const QJsonObject go = withGo ? figures(sampled.value(QStringLiteral("go"))) : QJsonObject();
                if (withGo)
                    row.insert(QStringLiteral("go_clientv3"), go);
                for (const QString &who : std::as_const(clients)) {
                    if (who == QLatin1String("go"))
                        continue;
                    const QString name = figuresNamed(deliveryNamed(who));
                    const QJsonObject ourFigures = figures(sampled.value(who));
                    row.insert(name, ourFigures);
                    if (withGo)
                        row.insert(name + QStringLiteral("_ratio_to_go"),
                                   ratio(ourFigures[QStringLiteral("ops_per_s")].toDouble(),
                                         go.value(QStringLiteral("ops_per_s")).toDouble()));
                }
                rows.append(row);
            }
        }
        return QJsonObject{{"benchmark", "rtt"},
                           {"window_s", qint64(duration_cast<seconds>(window.measured).count())},
                           {"rounds", rounds},
                           {"warmup_ms", qint64(window.warmup.count())},
                           {"rows", rows}};
    });
}
