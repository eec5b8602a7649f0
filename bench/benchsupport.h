// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every benchmark program shares: failing with a message, waiting while the event loop
// runs (results and the proxy's sockets need it), summarising samples, and printing the one
// JSON object that is the program's output.

#include "../tests/common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/watcher.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QDeadlineTimer>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QProcess>
#include <QtCore/QThread>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace Bench {

using Clock = std::chrono::steady_clock;

// Thrown on the main thread only, never through an event loop: main() reports it and exits 1.
struct Failure : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const QString &why)
{
    throw Failure(why.toStdString());
}

// The library stamps LeaseEvent::monotonicMs with the same clock.
inline qint64 nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

inline double nsToMs(qint64 ns)
{
    return double(ns) / 1e6;
}

// Tenths of a millisecond: finer digits would claim a precision the clocks involved lack.
inline double rounded(double ms)
{
    return std::round(ms * 10.0) / 10.0;
}

template <class T>
T await(const QFuture<T> &future, const QString &what,
        std::chrono::milliseconds timeout = std::chrono::milliseconds(30000))
{
    if (!QEtcd::Testing::awaitFuture(future, timeout))
        fail(QStringLiteral("%1 did not finish within %2 ms").arg(what).arg(timeout.count()));
    return future.result();
}

// Lets the event loop run for the given time; precise, because pacing is part of what is measured.
inline void pause(std::chrono::milliseconds duration)
{
    if (duration <= std::chrono::milliseconds::zero())
        return;
    QEventLoop loop;
    QTimer::singleShot(duration, Qt::PreciseTimer, &loop, &QEventLoop::quit);
    loop.exec();
}

// Polls condition with the event loop running in between; false if it still fails at the deadline.
inline bool waitUntil(const std::function<bool()> &condition, std::chrono::milliseconds timeout,
                      std::chrono::milliseconds interval = std::chrono::milliseconds(5))
{
    const QDeadlineTimer deadline(timeout);
    while (!condition()) {
        if (deadline.hasExpired())
            return false;
        pause(interval);
    }
    return true;
}

inline void startCluster(QEtcd::Testing::EtcdCluster &cluster)
{
    if (!cluster.start())
        fail(QStringLiteral("etcd did not start: ") + cluster.errorString());
}

// A benchmark's command line: what it measures (and prints), --help, and its options.
inline void parseCommandLine(QCommandLineParser &parser, const QCoreApplication &app, const QString &description,
                             const QList<QCommandLineOption> &options)
{
    parser.setApplicationDescription(description);
    parser.addHelpOption();
    parser.addOptions(options);
    parser.process(app);
}

inline int positiveOption(const QCommandLineParser &parser, const QString &name)
{
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok || value <= 0)
        fail(QStringLiteral("--%1 wants a positive integer, got \"%2\"").arg(name, parser.value(name)));
    return value;
}

// A comma-separated list of positive integers, e.g. --contenders 1,4,16.
inline QList<int> positiveList(const QCommandLineParser &parser, const QString &name)
{
    QList<int> list;
    for (const QString &item : parser.value(name).split(',')) {
        bool ok = false;
        const int n = item.toInt(&ok);
        if (!ok || n <= 0)
            fail(QStringLiteral("--%1 wants positive integers, got \"%2\"").arg(name, item));
        list.append(n);
    }
    return list;
}

// A comma-separated list of choices from allowed, in the order given, e.g. --modes fixed,jitter.
inline QStringList choiceList(const QCommandLineParser &parser, const QString &name, const QStringList &allowed)
{
    const QStringList chosen = parser.value(name).split(',');
    for (const QString &choice : chosen) {
        if (!allowed.contains(choice))
            fail(QStringLiteral("--%1 wants %2, got \"%3\"").arg(name, allowed.join(QStringLiteral(", ")), choice));
    }
    return chosen;
}

// Nearest rank: every figure reported is one that was actually measured. With 20 samples p99
// is the maximum.
inline double percentile(QList<double> samples, double p)
{
    if (samples.isEmpty())
        return 0.0;
    std::sort(samples.begin(), samples.end());
    const auto rank = qsizetype(std::ceil(p / 100.0 * double(samples.size())));
    return samples.at(std::clamp<qsizetype>(rank, 1, samples.size()) - 1);
}

// min and max, plus the named percentiles, e.g. {{"median", 50}}.
inline QJsonObject summary(const QList<double> &samples, const QList<std::pair<QString, double>> &percentiles)
{
    QJsonObject figures;
    figures[QStringLiteral("min")] = rounded(percentile(samples, 0));
    for (const auto &[name, p] : percentiles)
        figures[name] = rounded(percentile(samples, p));
    figures[QStringLiteral("max")] = rounded(percentile(samples, 100));
    return figures;
}

// How many times theirs ours is, to two decimals: the side-by-side figure of a Go reference.
inline double ratio(double ours, double theirs)
{
    return std::round(ours / theirs * 100.0) / 100.0;
}

inline QJsonArray roundedList(const QList<double> &samples)
{
    QJsonArray list;
    for (double sample : samples)
        list.append(rounded(sample));
    return list;
}

// The number after a field of a /proc file of lines "Field: value [unit]", e.g. "syscr:" in
// /proc/1234/io.
inline qint64 procField(const char *field, const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        fail(QStringLiteral("cannot read %1").arg(path));
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field))).trimmed().split(' ').value(0).toLongLong();
    }
    fail(QStringLiteral("no %1 in %2").arg(QLatin1String(field), path));
}

// A field of a process's status file in KiB, e.g. statusFieldKiB("VmRSS:"); this process's
// unless another's is named ("/proc/1234/status").
inline qint64 statusFieldKiB(const char *field, const QString &statusPath = QStringLiteral("/proc/self/status"))
{
    return procField(field, statusPath);
}

// Starts VmHWM (the peak RSS) over from the current RSS, so a case's peak is its own.
inline void resetPeakRss()
{
    QFile file(QStringLiteral("/proc/self/clear_refs"));
    if (!file.open(QIODevice::WriteOnly) || file.write("5") != 1)
        fail(QStringLiteral("cannot reset the peak RSS through /proc/self/clear_refs"));
}

// Runs a program that prints one JSON object (a Go reference program from bench/go*, built by
// scripts/bench, or a benchmark run at one size) and returns it; its diagnostics pass through
// to stderr.
inline QJsonObject runJsonProgram(const QString &program, const QStringList &arguments,
                                  std::chrono::milliseconds timeout)
{
    QProcess run;
    run.start(program, arguments);
    const bool finished = run.waitForFinished(int(timeout.count()));
    const QByteArray diagnostics = run.readAllStandardError();
    std::fwrite(diagnostics.constData(), 1, size_t(diagnostics.size()), stderr);
    if (!finished || run.exitStatus() != QProcess::NormalExit || run.exitCode() != 0) {
        // Its own last word says why better than QProcess can.
        const QByteArray why = diagnostics.trimmed().split('\n').constLast();
        fail(QStringLiteral("%1 failed: %2").arg(program, why.isEmpty() ? run.errorString() : QString::fromUtf8(why)));
    }
    const QJsonObject result = QJsonDocument::fromJson(run.readAllStandardOutput()).object();
    if (result.isEmpty())
        fail(program + QStringLiteral(" printed no JSON"));
    return result;
}

// utime + stime of a process or thread (its stat(5) file), in seconds; the command name may hold
// spaces and parentheses, so the fields are counted from the last ')'.
inline double statCpuSeconds(const QString &statPath)
{
    QFile file(statPath);
    if (!file.open(QIODevice::ReadOnly))
        fail(QStringLiteral("cannot read ") + statPath);
    const QByteArray stat = file.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state is field 3 of stat(5), utime 14 and stime 15.
    const qint64 ticks = fields.value(11).toLongLong() + fields.value(12).toLongLong();
    return double(ticks) / double(sysconf(_SC_CLK_TCK));
}

// CPU time, user and system, that this process (every thread) has used so far.
inline double processCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval &tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Runs `rounds` rounds of one slice per contestant (0 .. contestants - 1), in an order that
// rotates from round to round: etcd's speed drifts on a shared machine, by half within seconds
// on a small VM, and taking turns makes the drift weigh on every contestant alike.
inline void takeTurns(int rounds, int contestants, const std::function<void(int round, int contestant)> &slice)
{
    for (int round = 0; round < rounds; ++round) {
        for (int step = 0; step < contestants; ++step)
            slice(round, (round + step) % contestants);
    }
}

// The two commits every etcd lock cycle pays at least, bare: create key if absent, delete it.
inline void txnThenDelete(QEtcd::Client &client, const QByteArray &key)
{
    QEtcd::Txn take;
    take.compares = {QEtcd::Compare::absent(key)};
    take.success = {QEtcd::TxnOp::put(key, "x")};
    if (!await(client.txn(take), QStringLiteral("bare txn")).succeeded)
        fail(QStringLiteral("the bare key %1 was not free").arg(QString::fromUtf8(key)));
    await(client.remove(key), QStringLiteral("bare delete"));
}

// Clients that each watch a prefix's deletions, as a lock's waiters follow its departures, until
// destroyed: what a lock's fan-out costs etcd and its clients, without the lock.
class Followers
{
public:
    // With a heldKey, each follower also watches one key of its own, as a lock's contender
    // watches its held entry (named after its lease): the first follower heldKey (the key the
    // loop writes), the others keys under prefix that nothing writes.
    Followers(const QStringList &endpoints, const QByteArray &prefix, int count, const QByteArray &heldKey = {})
    {
        QEtcd::WatchOptions deletions;
        deletions.range = QEtcd::KeyRange::prefix();
        deletions.noPut = true;
        for (int i = 0; i < count; ++i) {
            m_clients.push_back(std::make_unique<QEtcd::Client>(QEtcd::ClientOptions::fromEndpoints(endpoints)));
            follow(prefix, deletions);
            if (!heldKey.isEmpty())
                follow(i == 0 ? heldKey : prefix + "/idle-" + QByteArray::number(i), {});
        }
    }

private:
    void follow(const QByteArray &prefix, const QEtcd::WatchOptions &options)
    {
        m_watches.push_back(std::make_unique<QEtcd::Watcher>(m_clients.back().get(), prefix, options));
        const QEtcd::Status started = await(m_watches.back()->start(), QStringLiteral("follower's watch"));
        if (!started)
            fail(QStringLiteral("a follower's watch did not start: ") + started.toString());
    }

    std::vector<std::unique_ptr<QEtcd::Client>> m_clients;
    std::vector<std::unique_ptr<QEtcd::Watcher>> m_watches;  // after the clients: destroyed first
};

inline double mib(qint64 kib)
{
    return rounded(double(kib) / 1024.0);
}

inline double loadAverage()
{
    QFile file(QStringLiteral("/proc/loadavg"));
    return file.open(QIODevice::ReadOnly) ? file.readAll().split(' ').value(0).toDouble() : -1.0;
}

// Runs the benchmark and prints its result on stdout; diagnostics go to stderr. The host's load
// is recorded with the figures: other work on a small machine moves them.
inline int run(const std::function<QJsonObject()> &benchmark)
{
    try {
        const double loadBefore = loadAverage();
        QJsonObject result = benchmark();
        result[QStringLiteral("host")] = QJsonObject{{"cpus", QThread::idealThreadCount()},
                                                     {"loadavg_1m_before", loadBefore},
                                                     {"loadavg_1m_after", loadAverage()}};
        const QByteArray json = QJsonDocument(result).toJson(QJsonDocument::Indented);
        std::fwrite(json.constData(), 1, size_t(json.size()), stdout);
        std::fflush(stdout);
        return 0;
    } catch (const Failure &failure) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(QCoreApplication::applicationName()), failure.what());
        return 1;
    }
}

} // namespace Bench
