// Round trips per second and their latency for put, get and txn, with 1 and 16 callers sharing
// one Client, each sending its next request when the previous one is answered. The answer is
// taken where an application takes it: a QFutureWatcher on the main thread, so the figures
// include the hop back to the caller's event loop. With --go-rtt (scripts/bench builds it from
// bench/gortt), etcd's own Go client measures each row on the same server too, its callers
// goroutines sharing one client. etcd's speed drifts on a shared machine, so then ours runs half
// its window before Go's and half after, and its figures are those of both halves together.
//
// The txn is a lock's acquisition: put the key if nobody created it, else read it. Each
// request names a fresh key, so the put branch runs, as it does for every lock taken.
//
// A get on the local machine takes a fraction of a millisecond, so latencies here keep
// microseconds, unlike the other benchmarks' tenths of a millisecond.

#include "benchsupport.h"

#include <QEtcd/client.h>

#include <QtCore/QFutureWatcher>

#include <memory>
#include <optional>
#include <vector>

#include <sys/resource.h>

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

// CPU time this process (every thread, not etcd) has used so far.
qint64 processCpuUs()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return qint64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000 + usage.ru_utime.tv_usec
        + usage.ru_stime.tv_usec;
}

struct Window
{
    milliseconds warmup;
    milliseconds measured;
};

// The answers one window counted, and the CPU time spent on them.
struct Sampled
{
    QList<double> latenciesMs;
    qint64 cpuUs = 0;
    milliseconds measured{0};
};

QJsonObject figures(const QList<Sampled> &parts)
{
    QList<double> latencies;
    qint64 cpuUs = 0;
    milliseconds measured{0};
    for (const Sampled &part : parts) {
        latencies += part.latenciesMs;
        cpuUs += part.cpuUs;
        measured += part.measured;
    }
    // What the client spends on one round trip, on all its threads: on a small machine shared
    // with the server, that is throughput taken from etcd.
    const double cpuPerOp = latencies.isEmpty() ? 0.0 : double(cpuUs) / double(latencies.size());
    return {{"ops", latencies.size()},
            {"cpu_us_per_op", std::round(cpuPerOp * 10.0) / 10.0},
            {"ops_per_s", std::round(double(latencies.size()) / double(measured.count()) * 10000.0) / 10.0},
            {"latency_ms", QJsonObject{{"p50", microRounded(percentile(latencies, 50))},
                                       {"p99", microRounded(percentile(latencies, 99))}}}};
}

QByteArray ownKey(const QByteArray &prefix, int caller)
{
    return prefix + '/' + QByteArray::number(caller);
}

// callers requests outstanding at all times, each followed by the next as soon as it is
// answered; only answers that arrive within the window count.
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
    QList<double> samples;
    std::optional<QString> failure;
    qint64 cpuAtStartUs = -1;
    qint64 cpuAtEndUs = -1;
    const qint64 startNs = nowNs() + duration_cast<nanoseconds>(window.warmup).count();
    const qint64 endNs = startNs + duration_cast<nanoseconds>(window.measured).count();
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
            const qint64 answeredNs = nowNs();
            const QString problem = problemWith(me.watcher.result());
            me.busy = false;
            if (!problem.isEmpty()) {
                failure = problem;
                return;
            }
            if (answeredNs >= startNs && answeredNs < endNs) {
                if (cpuAtStartUs < 0)
                    cpuAtStartUs = processCpuUs();
                samples.append(nsToMs(answeredNs - me.sentNs));
            } else if (answeredNs >= endNs && cpuAtEndUs < 0) {
                cpuAtEndUs = processCpuUs();
            }
            if (answeredNs < endNs && !failure)
                send(me, i);
        });
    }
    for (int i = 0; i < callers; ++i)
        send(*all[size_t(i)], i);
    if (!waitUntil([&] { return std::none_of(all.begin(), all.end(), [](const auto &c) { return c->busy; }); },
                   window.warmup + window.measured + 60s, 20ms))
        fail(QStringLiteral("callers did not wind down"));
    if (failure)
        fail(*failure);
    return {samples, samples.isEmpty() ? 0 : cpuAtEndUs - cpuAtStartUs, window.measured};
}

// Each row writes under a prefix of its own: a txn's keys must be new to the server.
Sampled measure(Client &client, const QByteArray &prefix, const QString &op, int callers, const Window &window)
{
    for (int i = 0; i < callers; ++i) {
        if (!await(client.put(ownKey(prefix, i), value), QStringLiteral("fill")).status)
            fail(QStringLiteral("filling failed"));
    }
    if (op == QLatin1String("put"))
        return drive<PutResult>(callers, window, [&](int caller, qint64) { return client.put(ownKey(prefix, caller), value); });
    if (op == QLatin1String("get"))
        return drive<RangeResult>(callers, window, [&](int caller, qint64) { return client.get(ownKey(prefix, caller)); });
    return drive<TxnResult>(callers, window, [&](int caller, qint64 turn) {
        const QByteArray key = ownKey(prefix, caller) + "/txn/" + QByteArray::number(turn);
        Txn txn;
        txn.compares = {Compare::createRevision(key, CompareResult::Equal, 0)};
        txn.success = {TxnOp::put(key, value)};
        txn.failure = {TxnOp::range(key)};
        return client.txn(txn);
    });
}

QJsonObject goRtt(const QString &program, const QStringList &endpoints, const QByteArray &prefix, const QString &op,
                  int callers, const Window &window)
{
    return runGoReference(program,
                          {QStringLiteral("--endpoints"), endpoints.join(','), QStringLiteral("--prefix"),
                           QString::fromLatin1(prefix), QStringLiteral("--op"), op, QStringLiteral("--callers"),
                           QString::number(callers), QStringLiteral("--seconds"),
                           QString::number(duration_cast<seconds>(window.measured).count()),
                           QStringLiteral("--warmup-ms"), QString::number(window.warmup.count())},
                          duration_cast<milliseconds>(window.warmup + window.measured + 60s));
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
        {{QStringLiteral("seconds"), QStringLiteral("Measuring window per row."), QStringLiteral("s"),
          QStringLiteral("5")},
         {QStringLiteral("warmup-ms"), QStringLiteral("Requests before each window, not counted."),
          QStringLiteral("ms"), QStringLiteral("1000")},
         {QStringLiteral("ops"), QStringLiteral("Comma-separated operations: put, get, txn."), QStringLiteral("list"),
          QStringLiteral("put,get,txn")},
         {QStringLiteral("callers"), QStringLiteral("Comma-separated numbers of concurrent callers."),
          QStringLiteral("list"), QStringLiteral("1,16")},
         {QStringLiteral("go-rtt"),
          QStringLiteral("The gortt program (bench/gortt): measure etcd's Go client beside ours."),
          QStringLiteral("path")},
         {QStringLiteral("no-qetcd"), QStringLiteral("Measure only the Go client (for profiling).")},
         {QStringLiteral("no-go"), QStringLiteral("Skip the Go client even with --go-rtt (for profiling).")}});
    return run([&] {
        const Window window{milliseconds(positiveOption(parser, QStringLiteral("warmup-ms"))),
                            seconds(positiveOption(parser, QStringLiteral("seconds")))};
        const Window half{window.warmup, window.measured / 2};
        const QList<int> levels = positiveList(parser, QStringLiteral("callers"));
        const QStringList ops = choiceList(parser, QStringLiteral("ops"), {"put", "get", "txn"});
        const bool withGo = parser.isSet(QStringLiteral("go-rtt")) && !parser.isSet(QStringLiteral("no-go"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        QJsonArray rows;
        for (const QString &op : ops) {
            for (int callers : levels) {
                QJsonObject row{{"op", op}, {"callers", callers}};
                const QByteArray rowName = op.toLatin1() + '-' + QByteArray::number(callers);
                const bool withQetcd = !parser.isSet(QStringLiteral("no-qetcd"));
                const QByteArray ours = "/bench/rtt/qetcd/" + rowName;
                QList<Sampled> parts;
                if (withQetcd)
                    parts.append(measure(client, ours + "/before", op, callers, withGo ? half : window));
                QJsonObject go;
                if (withGo)
                    go = goRtt(parser.value(QStringLiteral("go-rtt")), cluster.clientUrls(), "/bench/rtt/go/" + rowName,
                               op, callers, window);
                if (withQetcd && withGo)
                    parts.append(measure(client, ours + "/after", op, callers, half));
                if (withQetcd)
                    row.insert(QStringLiteral("qetcd"), figures(parts));
                if (withGo) {
                    row.insert(QStringLiteral("go_clientv3"), go);
                    if (withQetcd)
                        row.insert(QStringLiteral("ratio_to_go"),
                                   ratio(row.value(QStringLiteral("qetcd"))[QStringLiteral("ops_per_s")].toDouble(),
                                         go.value(QStringLiteral("ops_per_s")).toDouble()));
                }
                rows.append(row);
            }
        }
        return QJsonObject{{"benchmark", "rtt"},
                           {"window_s", qint64(duration_cast<seconds>(window.measured).count())},
                           {"warmup_ms", qint64(window.warmup.count())},
                           {"rows", rows}};
    });
}
