// SPDX-License-Identifier: Apache-2.0
#include "loadcheck.h"

#include "commands.h"
#include "duration.h"
#include "interventions.h"
#include "pemfiles.h"
#include "shutdownsignals.h"

#include <QEtcd/clustermaintenance.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QJsonArray>
#include <QtCore/QLocale>
#include <QtCore/QRandomGenerator>
#include <QtCore/QTimer>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslConfiguration>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace QEtcd::Cli {

namespace {
// etcdctl's workloads. perf: puts a second at most (amount), requests at a time; datascale:
// keys (amount), requests at a time.
struct Workload
{
    const char *name;
    const char *alias;
    qint64 amount;
    int clients;
};
constexpr Workload perfLoads[] = {{"s", "small", 150, 50}, {"m", "medium", 1000, 200}, {"l", "large", 8000, 500},
                                  {"xl", "xLarge", 15000, 1000}};
constexpr Workload datascaleLoads[] = {{"s", "small", 10000, 50}, {"m", "medium", 100000, 200},
                                       {"l", "large", 1000000, 500}, {"xl", "xLarge", 3000000, 1000}};

// What one check writes: keys of keyBytes after the prefix (starting with a random number), values of
// valueBytes zeros, as etcdctl's do.
struct Shape
{
    QByteArray prefix;
    int keyBytes;
    int valueBytes;
    const Workload *load;
};

// etcdctl's perf verdict: throughput above 90 % of the rate, no request slower than 0.5 s, a
// standard deviation of at most 0.1 s.
constexpr double ThroughputShare = 0.9;
constexpr double SlowestSeconds = 0.5;
constexpr double StddevSeconds = 0.1;

struct Outcome
{
    std::vector<double> latencies;  // seconds, of the puts that succeeded, sorted once run
    std::map<QString, qint64> errors;
    double totalSeconds = 0;
    QString interruptedBy;  // SIGINT or SIGTERM

    double mean() const
    {
        double sum = 0;
        for (const double latency : latencies)
            sum += latency;
        return latencies.empty() ? 0 : sum / double(latencies.size());
    }
    double stddev() const
    {
        const double average = mean();
        double sum = 0;
        for (const double latency : latencies)
            sum += (latency - average) * (latency - average);
        return latencies.empty() ? 0 : std::sqrt(sum / double(latencies.size()));
    }
    double percentile(double share) const
    {
        if (latencies.empty())
            return 0;
        return latencies[std::min(latencies.size() - 1, size_t(std::ceil(share * double(latencies.size()))) - 1)];
    }
    QJsonObject errorsJson() const
    {
        QJsonObject object;
        for (const auto &[message, count] : errors)
            object.insert(message, count);
        return object;
    }
};

// The load, on the main thread's event loop: puts while fewer than `clients` are in flight,
// until `count` were sent or `duration` passed, at most `rate` a second when one is given.
// Answers are taken on the completion-queue thread and counted here. Puts owed to the rate while
// every request is busy wait, at most `clients` of them (etcdctl's queue); beyond that the
// schedule slips, as etcdctl's rate limiter does behind a full queue.
class PutLoad : public QObject
{
public:
    struct Limits
    {
        qint64 rate = 0;  // puts a second; 0: as fast as answers come
        qint64 count = std::numeric_limits<qint64>::max();
        qint64 durationNs = std::numeric_limits<qint64>::max();
    };

    PutLoad(Client &client, const Shape &shape, const Limits &limits, const RpcResilience &rpc)
        : m_client(client), m_shape(shape), m_limits(limits), m_rpc(rpc), m_value(shape.valueBytes, '\0')
    {
        m_pace.setTimerType(Qt::PreciseTimer);
        m_pace.setInterval(1);
        connect(&m_pace, &QTimer::timeout, this, &PutLoad::pump);
    }

    Outcome run(ShutdownSignals &shutdown)
    {
        QEventLoop loop;
        m_done = [&loop] { loop.quit(); };
        connect(&shutdown, &ShutdownSignals::shutdownRequested, this, [this](const QString &reason) {
            m_outcome.interruptedBy = reason;
            m_stopped = true;
            pump();
        });
        m_clock.start();
        if (m_limits.rate > 0)
            m_pace.start();
        pump();
        loop.exec();
        std::sort(m_outcome.latencies.begin(), m_outcome.latencies.end());
        return std::move(m_outcome);
    }

private:
    void pump()
    {
        const qint64 elapsed = m_clock.nsecsElapsed();
        m_stopped = m_stopped || elapsed >= m_limits.durationNs || m_scheduled >= m_limits.count;
        if (m_stopped) {
            m_pace.stop();
            if (m_inFlight == 0 && m_done) {
                m_outcome.totalSeconds = double(m_clock.nsecsElapsed()) / 1e9;
                std::exchange(m_done, {})();
            }
            return;
        }
        qint64 due = m_limits.count;
        if (m_limits.rate > 0) {
            due = std::min(due, elapsed / 1000 * m_limits.rate / 1000000 + 1);
            m_scheduled = std::max(m_scheduled, due - m_shape.load->clients);
        }
        while (m_scheduled < due && m_inFlight < m_shape.load->clients) {
            ++m_scheduled;
            send();
        }
    }

    void send()
    {
        // etcdctl's key: a random 63-bit number as Go's PutVarint writes it (zigzag, then 7 bits
        // a byte, low first), at the start of keyBytes.
        QByteArray key(m_shape.keyBytes, '\0');
        quint64 encoded = (QRandomGenerator::global()->generate64() >> 1) << 1;
        int at = 0;
        for (; encoded >= 0x80; ++at, encoded >>= 7)
            key[at] = char(encoded | 0x80);
        key[at] = char(encoded);
        ++m_inFlight;
        const qint64 sentAt = m_clock.nsecsElapsed();
        m_client.put(m_shape.prefix + key, m_value, {}, m_rpc, [this, sentAt](const PutResult &put) {
            // Timed here, on the completion-queue thread, where the answer arrives.
            const qint64 answeredAt = m_clock.nsecsElapsed();
            QMetaObject::invokeMethod(this, [this, sentAt, answeredAt, status = put.status] {
                --m_inFlight;
                if (status)
                    m_outcome.latencies.push_back(double(answeredAt - sentAt) / 1e9);
                else
                    ++m_outcome.errors[status.message()];
                pump();
            }, Qt::QueuedConnection);
        });
    }

    Client &m_client;
    const Shape m_shape;
    const Limits m_limits;
    const RpcResilience m_rpc;
    const QByteArray m_value;
    QElapsedTimer m_clock;
    QTimer m_pace;
    qint64 m_scheduled = 0;
    int m_inFlight = 0;
    bool m_stopped = false;
    std::function<void()> m_done;
    Outcome m_outcome;
};

QString sizeOf(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

// etcd's metrics page of one member, the unlabelled samples by name. etcd serves it on its
// client URLs without authentication.
class MetricsPage
{
public:
    static std::optional<MetricsPage> read(const Invocation &invocation, const QString &endpoint, QString *error)
    {
        const TlsOptions &tls = invocation.options().client.tls;
        QNetworkRequest request(QUrl(endpoint + QStringLiteral("/metrics")));
        request.setTransferTimeout(int(invocation.options().commandTimeout.count()));
        if (endpoint.startsWith(QLatin1String("https://"))) {
            QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
            if (!tls.caFile.isEmpty())
                configuration.setCaCertificates(QSslCertificate::fromPath(tls.caFile));
            if (!tls.certFile.isEmpty()) {
                QList<QSslCertificate> chain;
                QSslKey key;
                if (!readCertificateAndKey({tls.certFile, QStringLiteral("--cert")}, {tls.keyFile, QStringLiteral("--key")},
                                           &chain, &key, error))
                    return std::nullopt;
                configuration.setLocalCertificateChain(chain);
                configuration.setPrivateKey(key);
            }
            if (tls.skipServerVerification)
                configuration.setPeerVerifyMode(QSslSocket::VerifyNone);
            request.setSslConfiguration(configuration);
        }
        QNetworkAccessManager network;
        QNetworkReply *reply = network.get(request);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        reply->deleteLater();
        if (reply->error() != QNetworkReply::NoError) {
            *error = QStringLiteral("reading %1: %2").arg(request.url().toString(), reply->errorString());
            return std::nullopt;
        }
        MetricsPage page;
        for (const QByteArray &line : reply->readAll().split('\n')) {
            if (line.startsWith('#'))
                continue;
            const qsizetype space = line.indexOf(' ');
            if (space > 0 && !line.left(space).contains('{'))
                page.m_samples.insert(QString::fromLatin1(line.left(space)), line.mid(space + 1).trimmed().toDouble());
        }
        return page;
    }

    std::optional<double> value(const QString &name) const
    {
        const auto found = m_samples.constFind(name);
        return found == m_samples.cend() ? std::nullopt : std::optional(*found);
    }

private:
    QHash<QString, double> m_samples;
};

constexpr QLatin1String ResidentMemory("process_resident_memory_bytes");

// What a check's writes add to etcd's database, per byte written, as measured on etcd 3.4 (the
// B+tree's half-filled pages and each key's revision, until compacted and defragmented):
// datascale's keys and their deletion 2.0 times, perf's 1.6 to 1.7 times.
constexpr double DatascaleGrowthPerByte = 2.0;
constexpr double PerfGrowthPerByte = 1.7;

qint64 databaseGrowth(qint64 written, double perByte)
{
    return qint64(std::ceil(double(written) * perByte));
}

// Where etcd's quota stands: a check's growth of the database must fit, or etcd raises NOSPACE
// and refuses every write, everyone's, until an operator frees space and disarms it. Empty when
// it fits, or when the metrics page says nothing of the quota; smaller says how to write less.
QString quotaProblem(const MetricsPage &metrics, qint64 written, double perByte, const QString &smaller)
{
    const std::optional<double> quota = metrics.value(QStringLiteral("etcd_server_quota_backend_bytes"));
    const std::optional<double> used = metrics.value(QStringLiteral("etcd_mvcc_db_total_size_in_bytes"));
    if (!quota || !used || *quota <= 0)
        return {};
    const qint64 growth = databaseGrowth(written, perByte);
    if (*used + double(growth) <= *quota)
        return {};
    return QStringLiteral("its %1 would grow etcd's database by about %2, past its quota: the database holds %3 of %4, and "
                          "etcd would raise NOSPACE and refuse every write, everyone's, until space is freed and the alarm "
                          "disarmed. %5, or free space first (compaction, then defrag)")
        .arg(sizeOf(written), sizeOf(growth), sizeOf(qint64(*used)), sizeOf(qint64(*quota)), smaller);
}

// What every load check reads and refuses before it writes: --load, --prefix (the check deletes
// every key under it, so it must start empty), --read-only. nullopt with the exit code.
std::optional<Shape> shapeOf(Invocation &invocation, const Workload (&loads)[4], const QByteArray &defaultPrefix,
                             int keyBytes, int valueBytes, const QString &action, int *exitCode)
{
    const QString name = invocation.isSet(QStringLiteral("load")) ? invocation.value(QStringLiteral("load")) : QStringLiteral("s");
    const auto load = std::find_if(std::begin(loads), std::end(loads), [&name](const Workload &known) {
        return name == QLatin1String(known.name) || name == QLatin1String(known.alias);
    });
    if (load == std::end(loads)) {
        *exitCode = invocation.usageError(QStringLiteral("--load: unknown workload \"%1\"; workloads: s (small), m (medium), "
                                                         "l (large), xl (xLarge)").arg(name));
        return std::nullopt;
    }
    const QByteArray prefix = invocation.isSet(QStringLiteral("prefix")) ? invocation.value(QStringLiteral("prefix")).toUtf8()
                                                                         : defaultPrefix;
    if (prefix.isEmpty()) {
        *exitCode = invocation.usageError(QStringLiteral("--prefix: the check deletes every key under it; give one"));
        return std::nullopt;
    }
    if (invocation.readOnly()) {
        *exitCode = invocation.failed(Status(StatusCode::ReadOnly, QStringLiteral("check %1 writes: refused under --read-only").arg(action)));
        return std::nullopt;
    }
    RangeOptions any;
    any.range = KeyRange::prefix();
    any.limit = 1;
    any.keysOnly = true;
    const RangeResult held = invocation.await(invocation.client().get(prefix, any), QStringLiteral("check ") + action);
    if (!held.status) {
        *exitCode = invocation.failed(held.status);
        return std::nullopt;
    }
    if (!held.kvs.isEmpty()) {
        *exitCode = invocation.failed(Status(StatusCode::InvalidArgument,
                                             QStringLiteral("prefix \"%1\" has keys, which the check would delete with its own; "
                                                            "delete them with `qetcd del --prefix %1` first, or give another --prefix")
                                                 .arg(QString::fromUtf8(prefix))));
        return std::nullopt;
    }
    return Shape{prefix, keyBytes, valueBytes, load};
}

// The plan's ending: what goes afterwards, and what --auto-compact and --auto-defrag do.
QString afterwards(const Invocation &invocation, const QByteArray &prefix, const QString &quotaNote)
{
    QString text = QStringLiteral(" Then delete every key under \"%1\"; the puts stay in etcd's history, and its database, "
                                  "until compacted.").arg(QString::fromUtf8(prefix));
    if (invocation.isSet(QStringLiteral("auto-compact")))
        text += QStringLiteral(" Then compact the whole history before the delete, every key's, not only the check's: "
                               "no read or watch can reach back past it.");
    if (invocation.isSet(QStringLiteral("auto-defrag")))
        text += QStringLiteral(" Then defragment every member, one at a time, the leader last; each serves nothing "
                               "while it defragments.");
    return text + quotaNote;
}

// The checks' writes are their own: each put once, bounded by --command-timeout. A retry would
// hide the latency perf measures, and datascale counts errors.
Outcome runLoad(Invocation &invocation, const Shape &shape, const PutLoad::Limits &limits)
{
    RpcResilience once = invocation.client().options().rpc;
    once.retryPolicy = RetryPolicy::never();
    ShutdownSignals shutdown;
    PutLoad load(invocation.client(), shape, limits, once);
    return load.run(shutdown);
}

// What follows every load, an interrupted one's included: the keys go, then --auto-compact and
// --auto-defrag. nullopt when all went well, else the exit code.
std::optional<int> tidyUp(Invocation &invocation, const Shape &shape, const Outcome &outcome)
{
    DeleteOptions all;
    all.range = KeyRange::prefix();
    const QString prefix = QString::fromUtf8(shape.prefix);
    const DeleteResult removed = invocation.await(invocation.client().remove(shape.prefix, all), QStringLiteral("check: delete"),
                                                  QDeadlineTimer(std::chrono::seconds(30)));
    if (!removed.status)
        return invocation.failed(removed.status.withContext(QStringLiteral("deleting the keys under \"%1\"").arg(prefix)));
    if (!outcome.interruptedBy.isEmpty()) {
        return invocation.failed(Status(StatusCode::Cancelled, QStringLiteral("interrupted by %1 after %2 puts; the keys under "
                                                                              "\"%3\" were deleted")
                                                                   .arg(outcome.interruptedBy)
                                                                   .arg(outcome.latencies.size())
                                                                   .arg(prefix)));
    }
    if (invocation.isSet(QStringLiteral("auto-compact"))) {
        // Physical: a defragmentation right after an unfinished compaction would free nothing.
        const Result compacted = invocation.await(invocation.client().compact(removed.header.revision, true),
                                                  QStringLiteral("compact"), QDeadlineTimer(QDeadlineTimer::Forever));
        if (!compacted.status)
            return invocation.failed(compacted.status);
        if (invocation.json())
            invocation.print(QJsonObject{{QLatin1String("compacted_revision"), removed.header.revision}});
        else
            invocation.print(QStringLiteral("compacted revision %1").arg(removed.header.revision).toUtf8());
    }
    if (invocation.isSet(QStringLiteral("auto-defrag"))) {
        const MemberStatuses members =
            invocation.await(ClusterMaintenance::statuses(&invocation.client()), QStringLiteral("endpoint status"));
        if (!members.status)
            return invocation.failed(members.status);
        if (const int defragmented = defragmentMembers(invocation, members.members); defragmented != Success)
            return defragmented;
    }
    return std::nullopt;
}

struct Verdict
{
    QList<QByteArray> lines;
    QJsonArray failures;
    bool passed = true;
};

Verdict judgePerf(const Outcome &outcome, qint64 rateLimit, double rate)
{
    Verdict verdict;
    const auto failed = [&verdict](const QString &line, const QString &check) {
        verdict.lines.append(line.toUtf8());
        verdict.failures.append(check);
        verdict.passed = false;
    };
    if (!outcome.errors.empty()) {
        failed(QStringLiteral("FAIL: too many errors"), QStringLiteral("errors"));
        for (const auto &[message, count] : outcome.errors)
            verdict.lines.append(QStringLiteral("FAIL: ERROR(%1) -> %2").arg(message).arg(count).toUtf8());
    }
    const double slowest = outcome.latencies.empty() ? 0 : outcome.latencies.back();
    const double stddev = outcome.stddev();
    // Go's int(rate)+1, as etcdctl prints it.
    const qint64 shown = qint64(rate) + 1;
    if (rate / double(rateLimit) <= ThroughputShare)
        failed(QStringLiteral("FAIL: Throughput too low: %1 writes/s").arg(shown), QStringLiteral("throughput"));
    else
        verdict.lines.append(QStringLiteral("PASS: Throughput is %1 writes/s").arg(shown).toUtf8());
    if (slowest > SlowestSeconds)
        failed(QStringLiteral("FAIL: Slowest request took too long: %1s").arg(slowest, 0, 'f', 6), QStringLiteral("slowest"));
    else
        verdict.lines.append(QStringLiteral("PASS: Slowest request took %1s").arg(slowest, 0, 'f', 6).toUtf8());
    if (stddev > StddevSeconds)
        failed(QStringLiteral("FAIL: Stddev too high: %1s").arg(stddev, 0, 'f', 6), QStringLiteral("stddev"));
    else
        verdict.lines.append(QStringLiteral("PASS: Stddev is %1s").arg(stddev, 0, 'f', 6).toUtf8());
    verdict.lines.append(verdict.passed ? "PASS" : "FAIL");
    return verdict;
}
} // namespace

int runCheckPerf(Invocation &invocation)
{
    QString why;
    const auto duration = parseDuration(invocation.isSet(QStringLiteral("duration")) ? invocation.value(QStringLiteral("duration"))
                                                                                     : QStringLiteral("60s"), &why);
    if (!duration || *duration <= std::chrono::milliseconds::zero())
        return invocation.usageError(QStringLiteral("--duration: %1").arg(duration ? QStringLiteral("must be longer than 0") : why));
    int exitCode = Success;
    const std::optional<Shape> shape = shapeOf(invocation, perfLoads, "/etcdctl-check-perf/", 256, 1024, QStringLiteral("perf"), &exitCode);
    if (!shape)
        return exitCode;
    const Workload &load = *shape->load;
    const qint64 puts = qint64(std::ceil(double(load.amount) * double(duration->count()) / 1000.0));
    const qint64 planned = puts * (shape->prefix.size() + shape->keyBytes + shape->valueBytes);
    // The quota as the first endpoint's metrics tell it; without them the check goes on, saying so.
    QString quotaNote;
    QString unread;
    if (const std::optional<MetricsPage> metrics = MetricsPage::read(invocation, invocation.client().endpoints().constFirst(), &unread)) {
        if (const QString problem = quotaProblem(*metrics, planned, PerfGrowthPerByte,
                                                 QStringLiteral("A shorter --duration or a smaller --load writes less"));
            !problem.isEmpty())
            return invocation.failed(Status(StatusCode::FailedPrecondition, QStringLiteral("check perf: ") + problem));
    } else {
        quotaNote = QStringLiteral(" Whether it fits in etcd's quota is unknown (%1).").arg(unread);
    }
    const QString plan = QStringLiteral("Write to %1 for %2: at most %3 puts a second, %4 at a time, each a %5-byte key "
                                        "under \"%6\" and a 1 KiB value (up to %7 puts, %8, about %9 in etcd's database); "
                                        "others' requests are answered slower meanwhile.")
                             .arg(invocation.client().endpoints().join(QLatin1String(", ")), formatDuration(*duration))
                             .arg(load.amount)
                             .arg(load.clients)
                             .arg(shape->keyBytes)
                             .arg(QString::fromUtf8(shape->prefix))
                             .arg(puts)
                             .arg(sizeOf(planned), sizeOf(databaseGrowth(planned, PerfGrowthPerByte)))
        + afterwards(invocation, shape->prefix, quotaNote);
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;

    const Outcome outcome = runLoad(invocation, *shape, {load.amount, std::numeric_limits<qint64>::max(),
                                                         qint64(duration->count()) * 1000000});
    if (const std::optional<int> failed = tidyUp(invocation, *shape, outcome))
        return *failed;
    const double rate = double(outcome.latencies.size()) / outcome.totalSeconds;
    const Verdict verdict = judgePerf(outcome, load.amount, rate);
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("load"), QLatin1String(load.name)},
                                     {QLatin1String("limit_writes_per_s"), load.amount},
                                     {QLatin1String("concurrent_requests"), load.clients},
                                     {QLatin1String("duration_s"), outcome.totalSeconds},
                                     {QLatin1String("puts"), qint64(outcome.latencies.size())},
                                     {QLatin1String("errors"), outcome.errorsJson()},
                                     {QLatin1String("writes_per_s"), std::round(rate * 10) / 10},
                                     {QLatin1String("mean_s"), outcome.mean()},
                                     {QLatin1String("p50_s"), outcome.percentile(0.5)},
                                     {QLatin1String("p99_s"), outcome.percentile(0.99)},
                                     {QLatin1String("slowest_s"), outcome.latencies.empty() ? 0 : outcome.latencies.back()},
                                     {QLatin1String("stddev_s"), outcome.stddev()},
                                     {QLatin1String("failed_checks"), verdict.failures},
                                     {QLatin1String("pass"), verdict.passed}});
    } else {
        for (const QByteArray &line : verdict.lines)
            invocation.print(line);
    }
    if (!verdict.passed)
        return invocation.failed(Status(StatusCode::FailedPrecondition,
                                        QStringLiteral("the cluster failed the %1 workload's checks").arg(QLatin1String(load.name))));
    return Success;
}

int runCheckDatascale(Invocation &invocation)
{
    int exitCode = Success;
    const std::optional<Shape> shape =
        shapeOf(invocation, datascaleLoads, "/etcdctl-check-datascale/", 512, 512, QStringLiteral("datascale"), &exitCode);
    if (!shape)
        return exitCode;
    const Workload &load = *shape->load;
    // etcdctl's: the first endpoint's memory, read before and after.
    const QString measured = invocation.client().endpoints().constFirst();
    QString unread;
    const std::optional<MetricsPage> before = MetricsPage::read(invocation, measured, &unread);
    const std::optional<double> residentBefore = before ? before->value(ResidentMemory) : std::nullopt;
    if (!residentBefore) {
        return invocation.failed(Status(StatusCode::Unavailable, QStringLiteral("could not read %1 before the puts: %2")
                                                                     .arg(ResidentMemory,
                                                                          before ? QStringLiteral("not on the page") : unread)));
    }
    const qint64 planned = load.amount * (shape->prefix.size() + shape->keyBytes + shape->valueBytes);
    if (const QString problem = quotaProblem(*before, planned, DatascaleGrowthPerByte,
                                             QStringLiteral("A smaller --load writes less"));
        !problem.isEmpty())
        return invocation.failed(Status(StatusCode::FailedPrecondition, QStringLiteral("check datascale: ") + problem));
    const QString plan = QStringLiteral("Write %1 keys to %2, %3 at a time, as fast as etcd takes them: each a %4-byte key "
                                        "under \"%5\" and a %6-byte value (%7, about %8 in etcd's database); others' "
                                        "requests are answered slower meanwhile, and %9's memory grows by what it takes "
                                        "to hold them.")
                             .arg(load.amount)
                             .arg(invocation.client().endpoints().join(QLatin1String(", ")))
                             .arg(load.clients)
                             .arg(shape->keyBytes)
                             .arg(QString::fromUtf8(shape->prefix))
                             .arg(shape->valueBytes)
                             .arg(sizeOf(planned), sizeOf(databaseGrowth(planned, DatascaleGrowthPerByte)), measured)
        + afterwards(invocation, shape->prefix, {});
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    if (!invocation.json()) {
        invocation.print(QStringLiteral("Start data scale check for work load [%1 key-value pairs, %2 bytes per key-value, "
                                        "%3 concurrent clients].")
                             .arg(load.amount)
                             .arg(shape->keyBytes + shape->valueBytes)
                             .arg(load.clients)
                             .toUtf8());
        invocation.flush();
    }

    const Outcome outcome = runLoad(invocation, *shape, {0, load.amount, std::numeric_limits<qint64>::max()});
    const std::optional<MetricsPage> after =
        outcome.interruptedBy.isEmpty() ? MetricsPage::read(invocation, measured, &unread) : std::nullopt;
    if (const std::optional<int> failed = tidyUp(invocation, *shape, outcome))
        return *failed;
    const std::optional<double> residentAfter = after ? after->value(ResidentMemory) : std::nullopt;
    if (!residentAfter) {
        return invocation.failed(Status(StatusCode::Unavailable, QStringLiteral("could not read %1 after the puts: %2")
                                                                     .arg(ResidentMemory,
                                                                          after ? QStringLiteral("not on the page") : unread)));
    }
    const double usedMiB = (*residentAfter - *residentBefore) / (1024.0 * 1024.0);
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("load"), QLatin1String(load.name)},
                                     {QLatin1String("keys"), load.amount},
                                     {QLatin1String("bytes_per_key_value"), shape->keyBytes + shape->valueBytes},
                                     {QLatin1String("concurrent_requests"), load.clients},
                                     {QLatin1String("endpoint"), measured},
                                     {QLatin1String("resident_bytes_before"), *residentBefore},
                                     {QLatin1String("resident_bytes_after"), *residentAfter},
                                     {QLatin1String("memory_used_mib"), std::round(usedMiB * 100) / 100},
                                     {QLatin1String("puts"), qint64(outcome.latencies.size())},
                                     {QLatin1String("errors"), outcome.errorsJson()},
                                     {QLatin1String("duration_s"), outcome.totalSeconds},
                                     {QLatin1String("pass"), outcome.errors.empty()}});
    } else if (outcome.errors.empty()) {
        invocation.print(QStringLiteral("PASS: Approximate system memory used : %1 MB.").arg(usedMiB, 0, 'f', 2).toUtf8());
    } else {
        invocation.print("FAIL: too many errors");
        for (const auto &[message, count] : outcome.errors)
            invocation.print(QStringLiteral("FAIL: ERROR(%1) -> %2").arg(message).arg(count).toUtf8());
    }
    if (!outcome.errors.empty())
        return invocation.failed(Status(StatusCode::FailedPrecondition, QStringLiteral("%1 of %2 puts failed")
                                                                            .arg(load.amount - qint64(outcome.latencies.size()))
                                                                            .arg(load.amount)));
    return Success;
}

QList<QCommandLineOption> loadCheckOptions()
{
    return {QCommandLineOption(QStringLiteral("load"), QStringLiteral("perf, datascale: the workload, s (small), m (medium), l (large) or xl (xLarge) [default: s]"),
                               QStringLiteral("LOAD")),
            QCommandLineOption(QStringLiteral("prefix"), QStringLiteral("perf, datascale: where its keys go [default: /etcdctl-check-perf/, /etcdctl-check-datascale/]"),
                               QStringLiteral("PREFIX")),
            QCommandLineOption(QStringLiteral("duration"), QStringLiteral("perf: how long the load runs [default: 60s, as etcdctl's]"),
                               QStringLiteral("DURATION")),
            QCommandLineOption(QStringLiteral("auto-compact"), QStringLiteral("perf, datascale: compact the whole history afterwards")),
            QCommandLineOption(QStringLiteral("auto-defrag"), QStringLiteral("perf, datascale: defragment every member afterwards")),
            yesOption()};
}

QStringList loadCheckOptionNames()
{
    QStringList names;
    for (const QCommandLineOption &option : loadCheckOptions())
        names += option.names();
    return names;
}

QString loadCheckHelp()
{
    return QStringLiteral(
        "  perf         etcdctl's write load: puts of a 256-byte key and a 1 KiB value\n"
        "               under --prefix, at most RATE a second from REQUESTS at a time,\n"
        "               for --duration (60 s); --load s: 150 and 50, m: 1000 and 200, l:\n"
        "               8000 and 500, xl: 15000 and 1000 (one connection, where etcdctl\n"
        "               opens one per request). Output: etcdctl's lines, \"PASS:\n"
        "               Throughput is N writes/s\", \"PASS: Slowest request took Ss\",\n"
        "               \"PASS: Stddev is Ss\" (FAIL: and why for a check that failed:\n"
        "               throughput at most 90 % of RATE, a request slower than 0.5 s, a\n"
        "               deviation above 0.1 s, any error), then PASS or FAIL (exit 1);\n"
        "               with --json one {\"load\", \"limit_writes_per_s\",\n"
        "               \"concurrent_requests\", \"duration_s\", \"puts\", \"errors\",\n"
        "               \"writes_per_s\", \"mean_s\", \"p50_s\", \"p99_s\", \"slowest_s\",\n"
        "               \"stddev_s\", \"failed_checks\", \"pass\"}.\n"
        "  datascale    etcdctl's: KEYS keys of a 512-byte name and a 512-byte value\n"
        "               under --prefix, REQUESTS at a time, as fast as etcd takes them;\n"
        "               --load s: 10,000 and 50, m: 100,000 and 200, l: 1,000,000 and\n"
        "               500, xl: 3,000,000 and 1000. Reads the first endpoint's resident\n"
        "               memory from its metrics page before and after. Output: etcdctl's\n"
        "               \"Start data scale check ...\" and \"PASS: Approximate system memory\n"
        "               used : N MB.\" (MiB, as etcdctl counts), or \"FAIL: too many\n"
        "               errors\" and each error (exit 1); with --json one {\"load\", \"keys\",\n"
        "               \"bytes_per_key_value\", \"concurrent_requests\", \"endpoint\",\n"
        "               \"resident_bytes_before\", \"resident_bytes_after\",\n"
        "               \"memory_used_mib\", \"puts\", \"errors\", \"duration_s\", \"pass\"}.\n"
        "               Both: every key under --prefix is deleted afterwards (an\n"
        "               interrupted check's too: exit 5), --auto-compact then compacts\n"
        "               the whole history and --auto-defrag defragments every member,\n"
        "               each printing its lines as compaction and defrag do, before the\n"
        "               result.\n"
        "               Each says first what it will write and asks on a terminal\n"
        "               (elsewhere --yes is required); each is refused under --read-only,\n"
        "               when --prefix holds keys (exit 3), and when the database would\n"
        "               grow past etcd's quota (as the first endpoint's metrics tell it;\n"
        "               1.7 and 2 times what is written, as measured: exit 1, etcd would\n"
        "               raise NOSPACE).\n");
}

} // namespace QEtcd::Cli
