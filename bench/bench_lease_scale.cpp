// SPDX-License-Identifier: Apache-2.0
// Many self-healing leases on one Client: what they cost while they merely renew (CPU share of
// one core, resident memory per lease) and how long all of them take to be Restored after one
// partition that outlasted them. The client reaches etcd through an in-process FaultProxy, whose
// thread's CPU is measured apart so that it is not billed to the library. With --go-lease
// (scripts/bench builds it from bench/golease), etcd's own Go client first keeps as many leases
// of the same TTL alive on the same server, through a proxy of its own, measured over a window
// as long, and both are printed side by side.
//
// Given several sizes (--leases 1000,10000,100000), it runs itself once per size, each run with
// a fresh process and server so that one size's memory and leases do not weigh on the next, and
// prints every run with the curve: each figure per lease (or per thousand leases), so that a
// straight line reads as a constant column.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/selfhealingkeepalive.h>

#include <QtCore/QDir>
#include <QtCore/QFile>

#include <climits>
#include <cmath>
#include <malloc.h>

#include <memory>
#include <vector>

using namespace Bench;
using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;

namespace {

struct Parameters
{
    int leases = 0;
    int ttlSeconds = 0;
    seconds idle{};
    int startConcurrency = 0;
    int maxConcurrentHeals = 0;  // the client's option of that name
    milliseconds holdAfterExpiry{};
    QString goLease;  // the golease program, or empty
};

// Written on the dispatcher thread by direct connections, read on the main thread.
struct Tally
{
    explicit Tally(int leases) : restoredMs(std::make_unique<std::atomic<qint64>[]>(size_t(leases))) {}
    std::atomic<int> suspended{0};
    std::atomic<int> expired{0};
    std::atomic<int> restored{0};  // leases, each counted at its first Restored
    std::atomic<int> restoredEvents{0};
    std::atomic<int> failed{0};
    std::unique_ptr<std::atomic<qint64>[]> restoredMs;
};

// From the scheduler's count in nanoseconds, not clock ticks: at a thousand leases the proxy
// spends a few ticks a window, and the client's share is what is left of the process's.
double proxyThreadCpuSeconds()
{
    double total = 0;
    bool found = false;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == "FaultProxy") {
            QFile schedstat(tasks.filePath(tid + QStringLiteral("/schedstat")));
            if (!schedstat.open(QIODevice::ReadOnly))
                fail(QStringLiteral("cannot read ") + schedstat.fileName());
            total += schedstat.readAll().split(' ').value(0).toDouble() / 1e9;
            found = true;
        }
    }
    if (!found)
        fail(QStringLiteral("no thread named FaultProxy: its CPU cannot be told apart"));
    return total;
}

qint64 keysUnder(Client &observer, const QByteArray &prefix)
{
    RangeOptions countOnly;
    countOnly.range = KeyRange::prefix();
    countOnly.countOnly = true;
    const RangeResult got = await(observer.get(prefix, countOnly), QStringLiteral("key count"));
    if (!got.status)
        fail(QStringLiteral("key count: ") + got.status.toString());
    return got.count;
}

double percentOfOneCore(double cpuSeconds, double wallSeconds)
{
    return rounded(100.0 * cpuSeconds / wallSeconds);
}

// Keeps at most `concurrency` start() calls in flight, so etcd sees a steady stream, not a flood.
void startAll(const std::vector<std::unique_ptr<SelfHealingKeepAlive>> &keepers, int concurrency)
{
    int launched = 0;
    int finished = 0;
    Status firstFailure;
    QObject context;  // declared after the counters: its continuations die before them
    std::function<void()> launchMore = [&] {
        while (launched < int(keepers.size()) && launched - finished < concurrency) {
            whenFinishedOn(keepers[size_t(launched++)]->start(), &context, [&](const Status &started) {
                ++finished;
                if (!started && firstFailure.isOk())
                    firstFailure = started;
                launchMore();
            });
        }
    };
    launchMore();
    const auto timeout = milliseconds(60000 + 50 * qint64(keepers.size()));
    if (!waitUntil([&] { return finished == int(keepers.size()) || !firstFailure.isOk(); }, timeout))
        fail(QStringLiteral("only %1 of %2 leases started within %3 s")
                 .arg(finished)
                 .arg(keepers.size())
                 .arg(timeout.count() / 1000));
    if (!firstFailure.isOk())
        fail(QStringLiteral("a keep-alive did not start: ") + firstFailure.toString());
}

QJsonObject goLease(const QStringList &endpoints, const Parameters &parameters)
{
    return runJsonProgram(parameters.goLease,
                          {QStringLiteral("--endpoints"), endpoints.join(','), QStringLiteral("--leases"),
                           QString::number(parameters.leases), QStringLiteral("--ttl"),
                           QString::number(parameters.ttlSeconds), QStringLiteral("--idle"),
                           QString::number(parameters.idle.count()), QStringLiteral("--concurrency"),
                           QString::number(parameters.startConcurrency)},
                          duration_cast<milliseconds>(parameters.idle + seconds(120))
                              + milliseconds(50 * qint64(parameters.leases)));
}

// etcd's count of the unary requests a heal may send, by method: what a healed lease cost the
// server, beside the CPU it took. One reading of etcd's metrics page, which costs etcd about
// 3 ms of CPU: the tidying below is polled with it, inside the window whose CPU it measures.
QHash<QString, double> unaryRequests(EtcdCluster &cluster)
{
    QStringList series;
    for (const char *method : {"LeaseGrant", "Txn", "Range", "Put", "LeaseRevoke", "LeaseTimeToLive"})
        series.append(QStringLiteral("grpc_server_started_total{grpc_method=\"%1\"").arg(QLatin1String(method)));
    const QHash<QString, double> read = cluster.metrics(0, series);
    QHash<QString, double> started;
    for (auto it = read.cbegin(); it != read.cend(); ++it)
        started.insert(it.key().section(QLatin1Char('"'), 1, 1), it.value());
    return started;
}

// What the allocator has handed out and not had back, in bytes: RSS less the allocator's own
// free space and fragmentation.
qint64 heapInUse()
{
    const struct mallinfo2 info = mallinfo2();
    return qint64(info.uordblks + info.hblkhd);
}

// What RSS is made of, to say where growth that is not per lease comes from.
struct MemoryKinds
{
    qint64 fileBackedKiB = 0;     // code and data of the binaries, paged in on first use
    qint64 anonymousKiB = 0;      // the allocator's arenas and the threads' stacks
    qint64 allocatorFreeKiB = 0;  // free chunks the allocator keeps in its arenas, resident or not
    QStringList threads;          // each new thread brings a stack and, once it allocates, an arena
};

QStringList threadNames()
{
    QStringList names;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(task + QStringLiteral("/comm")));
        if (comm.open(QIODevice::ReadOnly))
            names.append(QString::fromUtf8(comm.readAll().trimmed()));
    }
    names.sort();
    return names;
}

MemoryKinds memoryKinds()
{
    const QString rollup = QStringLiteral("/proc/self/smaps_rollup");
    const qint64 anonymous = statusFieldKiB("Anonymous:", rollup);
    return {statusFieldKiB("Rss:", rollup) - anonymous, anonymous, qint64(mallinfo2().fordblks / 1024), threadNames()};
}

QJsonObject growthByKind(const MemoryKinds &before, const MemoryKinds &after, qint64 heapGrowthBytes)
{
    const qint64 anonymousKiB = after.anonymousKiB - before.anonymousKiB;
    QStringList added = after.threads;
    for (const QString &name : before.threads)
        added.removeOne(name);
    return {
        {"file_backed_kib", after.fileBackedKiB - before.fileBackedKiB},
        {"anonymous_kib", anonymousKiB},
        {"anonymous_kib_beyond_heap_in_use", anonymousKiB - heapGrowthBytes / 1024},
        {"allocator_free_kib", after.allocatorFreeKiB - before.allocatorFreeKiB},
        {"threads_added", QJsonArray::fromStringList(added)},
    };
}

QJsonObject benchmark(const Parameters &parameters)
{
    EtcdCluster cluster;
    startCluster(cluster);
    // Before ours, on a server with no other leases; it revokes its own when it is done. It
    // reaches etcd through a proxy of its own, as ours does, so both pay the same extra hop.
    QJsonObject go;
    if (!parameters.goLease.isEmpty()) {
        FaultProxy goLink(QStringLiteral("127.0.0.1"), cluster.clientPort(0));
        if (!goLink.start())
            fail(QStringLiteral("proxy: ") + goLink.errorString());
        // Go's failing at a size is a figure too: ours still runs, and the JSON says why.
        try {
            go = goLease({goLink.url()}, parameters);
        } catch (const Failure &failure) {
            go = {{"failed", QString::fromStdString(failure.what())}};
        }
    }
    FaultProxy proxy(QStringLiteral("127.0.0.1"), cluster.clientPort(0));
    if (!proxy.start())
        fail(QStringLiteral("proxy: ") + proxy.errorString());
    ClientOptions options = ClientOptions::fromEndpoints({proxy.url()});
    options.maxConcurrentHeals = parameters.maxConcurrentHeals;
    Client client(options);
    // The baseline is a client that has kept one lease and let it go: it holds the channel, the
    // threads a first lease starts and the code it pages in, which no later lease adds again.
    const QByteArray prefix = "/bench/scale/";
    {
        const QByteArray key = prefix + "warm-up";
        Client *c = &client;
        std::vector<std::unique_ptr<SelfHealingKeepAlive>> first;
        first.push_back(std::make_unique<SelfHealingKeepAlive>(
            c, parameters.ttlSeconds,
            [c, key](qint64 lease, qint64 previous) { return casEstablish(c, key, "present", lease, previous); }));
        startAll(first, 1);
    }
    if (!waitUntil([&] { return keysUnder(client, prefix) == 0; }, seconds(30), milliseconds(20)))
        fail(QStringLiteral("the warm-up lease's key outlived its keep-alive by 30 s"));
    const qint64 rssBeforeKiB = statusFieldKiB("VmRSS:");
    const qint64 heapBefore = heapInUse();
    const MemoryKinds kindsBefore = memoryKinds();

    const int n = parameters.leases;
    auto tally = std::make_shared<Tally>(n);
    std::vector<std::unique_ptr<SelfHealingKeepAlive>> keepers;
    keepers.reserve(size_t(n));
    for (int i = 0; i < n; ++i) {
        const QByteArray key = prefix + QByteArray::number(i);
        Client *c = &client;
        auto keeper = std::make_unique<SelfHealingKeepAlive>(
            c, parameters.ttlSeconds,
            [c, key](qint64 lease, qint64 previous) { return casEstablish(c, key, "present", lease, previous); });
        QObject::connect(
            keeper.get(), &SelfHealingKeepAlive::leaseEvent, keeper.get(),
            [tally, i](const LeaseEvent &event) {
                switch (event.kind) {
                case LeaseEventKind::Suspended:
                    ++tally->suspended;
                    break;
                case LeaseEventKind::Expired:
                    ++tally->expired;
                    break;
                case LeaseEventKind::Restored: {
                    ++tally->restoredEvents;
                    // A lease that expires again while the others heal is timed by its first heal.
                    qint64 unset = 0;
                    if (tally->restoredMs[size_t(i)].compare_exchange_strong(unset, event.monotonicMs))
                        ++tally->restored;
                    break;
                }
                case LeaseEventKind::Failed:
                    ++tally->failed;
                    break;
                }
            },
            Qt::DirectConnection);
        keepers.push_back(std::move(keeper));
    }

    const qint64 startBeganNs = nowNs();
    startAll(keepers, parameters.startConcurrency);
    const double startSeconds = nsToMs(nowNs() - startBeganNs) / 1000.0;
    const qint64 rssAfterStartKiB = statusFieldKiB("VmRSS:");

    // Every lease renews at least once per TTL/3, so a window that long sees the steady state.
    const int suspendedBeforeIdle = tally->suspended;
    const int expiredBeforeIdle = tally->expired;
    const quint64 bytesBeforeIdle = proxy.bytesForwarded();
    const double processBefore = processCpuSeconds();
    const double proxyBefore = proxyThreadCpuSeconds();
    const QString etcdStat = QStringLiteral("/proc/%1/stat").arg(cluster.pid(0));
    const double etcdBefore = statCpuSeconds(etcdStat);
    const qint64 idleBeganNs = nowNs();
    pause(parameters.idle);
    const double idleWall = nsToMs(nowNs() - idleBeganNs) / 1000.0;
    const double processCpu = processCpuSeconds() - processBefore;
    const double proxyCpu = proxyThreadCpuSeconds() - proxyBefore;
    const double etcdCpu = statCpuSeconds(etcdStat) - etcdBefore;
    const quint64 idleBytes = proxy.bytesForwarded() - bytesBeforeIdle;
    const int suspendedWhileIdle = tally->suspended - suspendedBeforeIdle;
    // Leases etcd let expire although renewed on time: beyond what the server keeps up with.
    const int expiredWhileIdle = tally->expired - expiredBeforeIdle;
    const qint64 rssAfterIdleKiB = statusFieldKiB("VmRSS:");
    const qint64 heapAfterIdle = heapInUse();
    const MemoryKinds kindsAfterIdle = memoryKinds();
    const qint64 peakBeforePartitionKiB = statusFieldKiB("VmHWM:");
    Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));
    const qint64 keysBefore = keysUnder(observer, prefix);
    // A lease lost while idle takes its key until it heals; otherwise every key must be there.
    if (keysBefore != n && expiredWhileIdle == 0)
        fail(QStringLiteral("%1 of %2 keys present after the idle window").arg(keysBefore).arg(n));

    proxy.setMode(FaultProxy::Mode::Blackhole);
    const qint64 partitionedNs = nowNs();
    // Cut off, a lease cannot heal, so none expires twice from here on.
    const int expiredBeforePartition = tally->expired;
    const auto expiredInPartition = [&] { return tally->expired - expiredBeforePartition; };
    if (!waitUntil([&] { return expiredInPartition() == n; }, seconds(parameters.ttlSeconds + 30), milliseconds(50)))
        fail(QStringLiteral("only %1 of %2 leases reported Expired").arg(expiredInPartition()).arg(n));
    // Heals of leases lost while idle are not this partition's: every lease is expired and cut
    // off now, so nothing restores until the link passes.
    tally->restored = 0;
    tally->restoredEvents = 0;
    for (int i = 0; i < n; ++i)
        tally->restoredMs[size_t(i)] = 0;
    const double allExpiredSeconds = nsToMs(nowNs() - partitionedNs) / 1000.0;
    pause(parameters.holdAfterExpiry);
    const qint64 peakBeforeHealKiB = statusFieldKiB("VmHWM:");
    const double processBeforeHeal = processCpuSeconds();
    const double proxyBeforeHeal = proxyThreadCpuSeconds();
    const double etcdBeforeHeal = statCpuSeconds(etcdStat);
    const QHash<QString, double> requestsBeforeHeal = unaryRequests(cluster);
    proxy.setMode(FaultProxy::Mode::Pass);
    const qint64 passedNs = nowNs();
    const double partitionSeconds = nsToMs(passedNs - partitionedNs) / 1000.0;
    if (!waitUntil([&] { return tally->restored + tally->failed == n; }, seconds(600), milliseconds(20)))
        fail(QStringLiteral("only %1 of %2 leases Restored within 600 s (%3 Failed)")
                 .arg(tally->restored)
                 .arg(n)
                 .arg(tally->failed));
    // CPU time spent healing, which a busy machine stretches less than the wall time.
    const double healCpu = processCpuSeconds() - processBeforeHeal - (proxyThreadCpuSeconds() - proxyBeforeHeal);
    const double etcdHealCpu = statCpuSeconds(etcdStat) - etcdBeforeHeal;
    QJsonObject requestsPerHeal;
    const QHash<QString, double> requestsAfterHeal = unaryRequests(cluster);
    for (auto it = requestsAfterHeal.cbegin(); it != requestsAfterHeal.cend(); ++it)
        requestsPerHeal.insert(it.key(), rounded((it.value() - requestsBeforeHeal.value(it.key())) / n));
    if (tally->failed != 0)
        fail(QStringLiteral("%1 leases Failed to heal").arg(tally->failed));
    // After the heals each client tidies up, one request per healed lease about the lease it
    // replaced: what that costs etcd once the keys are back, and how long it takes.
    const qint64 tidyingBeganNs = nowNs();
    const double etcdBeforeTidying = statCpuSeconds(etcdStat);
    const auto tidied = [&] {
        const QHash<QString, double> now = unaryRequests(cluster);
        const auto since = [&](const char *method) {
            return now.value(QLatin1String(method)) - requestsBeforeHeal.value(QLatin1String(method));
        };
        return std::max(since("LeaseTimeToLive"), since("LeaseRevoke")) >= n;
    };
    if (!waitUntil(tidied, seconds(300), milliseconds(250)))
        fail(QStringLiteral("the heals' tidying did not end within 300 s"));
    const double tidyingMs = nsToMs(nowNs() - tidyingBeganNs);
    const double etcdTidyingCpu = statCpuSeconds(etcdStat) - etcdBeforeTidying;
    QList<double> restoreMs;
    restoreMs.reserve(n);
    for (int i = 0; i < n; ++i)
        restoreMs.append(double(tally->restoredMs[size_t(i)]) - nsToMs(passedNs));
    QJsonArray restoredBySecond;
    for (double ms : restoreMs) {
        const auto second = qsizetype(std::max(0.0, ms) / 1000.0);
        while (restoredBySecond.size() <= second)
            restoredBySecond.append(0);
        restoredBySecond[second] = restoredBySecond[second].toInt() + 1;
    }
    const qint64 rssAfterHealKiB = statusFieldKiB("VmRSS:");
    // Tells memory the allocator merely keeps from memory still in use.
    malloc_trim(0);
    const qint64 rssTrimmedKiB = statusFieldKiB("VmRSS:");
    // etcd refuses proposals while its apply loop lags far behind its commits; refused heal
    // attempts sleep out their backoff, so this count explains a slow tail.
    const qsizetype etcdRefusals = cluster.logTail(0, INT_MAX).count(QStringLiteral("too many requests"));
    const qint64 keysAfter = keysUnder(observer, prefix);
    if (keysAfter != n)
        fail(QStringLiteral("%1 of %2 keys present after healing").arg(keysAfter).arg(n));

    const qint64 peakKiB = statusFieldKiB("VmHWM:");

    // Every keep-alive destroyed at once, as an application shutting down destroys them: their
    // revokes take the keys with them at etcd's pace, and the process should not grow meanwhile.
    const qint64 rssBeforeTeardownKiB = statusFieldKiB("VmRSS:");
    resetPeakRss();
    const qint64 teardownBeganNs = nowNs();
    keepers.clear();
    if (!waitUntil([&] { return keysUnder(observer, prefix) == 0; }, seconds(300), milliseconds(100)))
        fail(QStringLiteral("%1 keys left 300 s after their keep-alives were destroyed").arg(keysUnder(observer, prefix)));
    const double keysGoneMs = nsToMs(nowNs() - teardownBeganNs);
    const qint64 teardownPeakKiB = statusFieldKiB("VmHWM:");

    const qint64 bytesPerLease = (rssAfterIdleKiB - rssBeforeKiB) * 1024 / n;
    QJsonObject result{
        {"benchmark", "lease_scale"},
        {"leases", n},
        {"ttl_s", parameters.ttlSeconds},
        {"retry_policy", LeaseResilience().retryPolicy.description()},
        {"start_concurrency", parameters.startConcurrency},
        {"max_concurrent_heals", options.maxConcurrentHeals},
        {"hold_after_expiry_ms", qint64(parameters.holdAfterExpiry.count())},
        {"start_all_s", rounded(startSeconds)},
        {"memory",
         QJsonObject{
             {"baseline", "connected, one lease kept and revoked"},
             {"rss_before_mib", mib(rssBeforeKiB)},
             {"rss_after_start_mib", mib(rssAfterStartKiB)},
             {"rss_after_idle_mib", mib(rssAfterIdleKiB)},
             {"bytes_per_lease", bytesPerLease},
             {"heap_bytes_in_use_per_lease", (heapAfterIdle - heapBefore) / n},
             {"growth_while_starting_and_idle", growthByKind(kindsBefore, kindsAfterIdle, heapAfterIdle - heapBefore)},
             {"rss_after_heal_mib", mib(rssAfterHealKiB)},
             {"rss_after_heal_and_malloc_trim_mib", mib(rssTrimmedKiB)},
             // Which phase drove the high-water mark: renewing, the partition, or the heal.
             {"peak_rss_mib_before_partition", mib(peakBeforePartitionKiB)},
             {"peak_rss_mib_before_heal", mib(peakBeforeHealKiB)},
             {"peak_rss_mib", mib(peakKiB)},
         }},
        {"teardown",
         QJsonObject{
             {"rss_before_mib", mib(rssBeforeTeardownKiB)},
             {"peak_rss_mib", mib(teardownPeakKiB)},
             {"all_keys_gone_ms", rounded(keysGoneMs)},
         }},
        {"idle",
         QJsonObject{
             {"window_s", rounded(idleWall)},
             {"process_cpu_percent_of_one_core", percentOfOneCore(processCpu, idleWall)},
             {"proxy_thread_cpu_percent_of_one_core", percentOfOneCore(proxyCpu, idleWall)},
             {"client_cpu_percent_of_one_core", percentOfOneCore(processCpu - proxyCpu, idleWall)},
             {"client_cpu_ms", rounded((processCpu - proxyCpu) * 1000.0)},
             {"etcd_cpu_percent_of_one_core", percentOfOneCore(etcdCpu, idleWall)},
             {"proxy_bytes_per_s", qint64(double(idleBytes) / idleWall)},
             {"suspended_events", suspendedWhileIdle},
             {"expired_events", expiredWhileIdle},
             {"keys_present_after", keysBefore},
         }},
        {"partition",
         QJsonObject{
             {"all_expired_after_s", rounded(allExpiredSeconds)},
             {"blackhole_s", rounded(partitionSeconds)},
             {"restore_ms", summary(restoreMs, {{QStringLiteral("p50"), 50}, {QStringLiteral("p99"), 99}})},
             {"all_restored_ms", rounded(percentile(restoreMs, 100))},
             {"client_cpu_ms_while_healing", rounded(healCpu * 1000.0)},
             {"etcd_cpu_ms_while_healing", rounded(etcdHealCpu * 1000.0)},
             {"etcd_requests_per_lease_while_healing", requestsPerHeal},
             {"tidied_ms_after_restored", rounded(tidyingMs)},
             {"etcd_cpu_ms_tidying_after_restored", rounded(etcdTidyingCpu * 1000.0)},
             {"restored_in_each_second", restoredBySecond},
             {"etcd_too_many_requests_logged", qint64(etcdRefusals)},
             {"failed", tally->failed.load()},
             // Above the lease count when healed leases expired again before the last one healed.
             {"expired_events", expiredInPartition()},
             {"restored_events", tally->restoredEvents.load()},
         }},
    };
    if (!go.isEmpty())
        result.insert(QStringLiteral("go_clientv3"), go);
    if (!go.isEmpty() && !go.contains(QStringLiteral("failed"))) {
        // Both unrounded, each over its own window: a few tenths of a percent at a thousand leases.
        const double goCpuPerSecond = go.value(QStringLiteral("cpu_ms")).toDouble()
            / go.value(QStringLiteral("window_s")).toDouble();
        const double goBytesPerLease = go.value(QStringLiteral("memory"))[QStringLiteral("bytes_per_lease")].toDouble();
        result.insert(QStringLiteral("ratio_to_go"),
                      QJsonObject{{"client_cpu", ratio(1000.0 * (processCpu - proxyCpu) / idleWall, goCpuPerSecond)},
                                  {"bytes_per_lease", ratio(double(bytesPerLease), goBytesPerLease)}});
    }
    return result;
}

// One size of the curve: the figures that should stay flat if the cost grows linearly.
QJsonObject curvePoint(const QJsonObject &run)
{
    const double leases = run.value(QStringLiteral("leases")).toDouble();
    const QJsonObject idle = run.value(QStringLiteral("idle")).toObject();
    const QJsonObject partition = run.value(QStringLiteral("partition")).toObject();
    const QJsonObject memory = run.value(QStringLiteral("memory")).toObject();
    const QJsonObject teardown = run.value(QStringLiteral("teardown")).toObject();
    const double clientCpu = idle.value(QStringLiteral("client_cpu_percent_of_one_core")).toDouble();
    const double restoredMs = partition.value(QStringLiteral("all_restored_ms")).toDouble();
    const double healCpuMs = partition.value(QStringLiteral("client_cpu_ms_while_healing")).toDouble();
    const double etcdHealCpuMs = partition.value(QStringLiteral("etcd_cpu_ms_while_healing")).toDouble();
    const double thousands = leases / 1000.0;
    const double cpus = run.value(QStringLiteral("host"))[QStringLiteral("cpus")].toDouble();
    QJsonObject point{
        {"leases", qint64(leases)},
        {"client_cpu_percent_of_one_core", clientCpu},
        {"client_cpu_percent_per_1000_leases", rounded(clientCpu / thousands)},
        {"etcd_cpu_percent_of_one_core", idle.value(QStringLiteral("etcd_cpu_percent_of_one_core"))},
        {"bytes_per_lease", memory.value(QStringLiteral("bytes_per_lease"))},
        {"heap_bytes_in_use_per_lease", memory.value(QStringLiteral("heap_bytes_in_use_per_lease"))},
        {"start_all_s", run.value(QStringLiteral("start_all_s"))},
        {"all_restored_ms", restoredMs},
        {"restore_ms_per_1000_leases", rounded(restoredMs / thousands)},
        {"client_heal_cpu_ms_per_1000_leases", rounded(healCpuMs / thousands)},
        {"etcd_heal_cpu_ms_per_1000_leases", rounded(etcdHealCpuMs / thousands)},
        // The shortest heal this host allows for the CPU the heal took on both sides, every core
        // busy with nothing else: how close the heal comes to being bound by the machine.
        {"heal_cpu_floor_ms", rounded((healCpuMs + etcdHealCpuMs) / cpus)},
        {"etcd_requests_per_lease_while_healing", partition.value(QStringLiteral("etcd_requests_per_lease_while_healing"))},
        {"etcd_too_many_requests_logged", partition.value(QStringLiteral("etcd_too_many_requests_logged"))},
        {"teardown_peak_rss_growth_mib",
         rounded(teardown.value(QStringLiteral("peak_rss_mib")).toDouble()
                 - teardown.value(QStringLiteral("rss_before_mib")).toDouble())},
        {"teardown_all_keys_gone_ms", teardown.value(QStringLiteral("all_keys_gone_ms"))},
    };
    const QJsonObject go = run.value(QStringLiteral("go_clientv3")).toObject();
    if (go.contains(QStringLiteral("failed")))
        point.insert(QStringLiteral("go_failed"), go.value(QStringLiteral("failed")));
    else if (!go.isEmpty()) {
        point.insert(QStringLiteral("go_cpu_percent_of_one_core"), go.value(QStringLiteral("cpu_percent_of_one_core")));
        point.insert(QStringLiteral("go_bytes_per_lease"),
                     go.value(QStringLiteral("memory"))[QStringLiteral("bytes_per_lease")]);
        // Taken from the run's unrounded figures, not from the rounded percentages above.
        point.insert(QStringLiteral("client_cpu_ratio_to_go"),
                     run.value(QStringLiteral("ratio_to_go"))[QStringLiteral("client_cpu")]);
    }
    return point;
}

// Growth = fixed + marginal × leases, fitted by least squares over the curve's sizes. Apart
// from the fixed part (code paged in by the first lease, what the allocator keeps for its
// threads), which dominates a small size's bytes per lease, marginal is what one more lease
// costs. Empty with fewer than two sizes measured.
QJsonObject linearFit(const QJsonArray &points, const QString &bytesPerLease)
{
    double sumX = 0, sumY = 0, sumXX = 0, sumXY = 0;
    int count = 0;
    for (const QJsonValue &value : points) {
        const QJsonObject point = value.toObject();
        if (!point.contains(bytesPerLease))
            continue;
        const double leases = point.value(QStringLiteral("leases")).toDouble();
        const double growth = leases * point.value(bytesPerLease).toDouble();
        sumX += leases;
        sumY += growth;
        sumXX += leases * leases;
        sumXY += leases * growth;
        ++count;
    }
    if (count < 2)
        return {};
    const double marginal = (count * sumXY - sumX * sumY) / (count * sumXX - sumX * sumX);
    const double fixed = (sumY - marginal * sumX) / count;
    return {{"fixed_mib", rounded(fixed / (1024.0 * 1024.0))}, {"marginal_bytes_per_lease", qint64(std::lround(marginal))}};
}

QJsonObject curve(const QList<int> &sizes, const QCommandLineParser &parser)
{
    QJsonArray runs;
    QJsonArray points;
    for (const int leases : sizes) {
        QStringList arguments{QStringLiteral("--leases"), QString::number(leases)};
        for (const char *option : {"ttl", "idle", "concurrency", "heals", "hold", "go-lease"}) {
            const QString name = QLatin1String(option);
            if (!parser.value(name).isEmpty())
                arguments << QStringLiteral("--") + name << parser.value(name);
        }
        std::fprintf(stderr, "bench_lease_scale: %d leases\n", leases);
        // A size's own bound: its start, idle window, partition and heal, and Go's run before it.
        const auto bound = minutes(10) + milliseconds(20 * qint64(leases));
        const QJsonObject run = runJsonProgram(QCoreApplication::applicationFilePath(), arguments, bound);
        runs.append(run);
        points.append(curvePoint(run));
    }
    // The curve as a table on stderr too, for a reader at the terminal.
    std::fprintf(stderr, "%9s %10s %8s %6s %9s %9s %12s %14s %16s %14s\n", "leases", "client %", "Go %", "ratio",
                 "B/lease", "Go B/l", "restored ms", "ms/1000 leases", "etcd heal ms/1k", "CPU floor ms");
    for (const QJsonValue &value : points) {
        const QJsonObject p = value.toObject();
        std::fprintf(stderr, "%9lld %10.2f %8.2f %6.2f %9lld %9lld %12.1f %14.1f %16.1f %14.1f\n",
                     p.value(QStringLiteral("leases")).toInteger(),
                     p.value(QStringLiteral("client_cpu_percent_of_one_core")).toDouble(),
                     p.value(QStringLiteral("go_cpu_percent_of_one_core")).toDouble(),
                     p.value(QStringLiteral("client_cpu_ratio_to_go")).toDouble(),
                     p.value(QStringLiteral("bytes_per_lease")).toInteger(),
                     p.value(QStringLiteral("go_bytes_per_lease")).toInteger(),
                     p.value(QStringLiteral("all_restored_ms")).toDouble(),
                     p.value(QStringLiteral("restore_ms_per_1000_leases")).toDouble(),
                     p.value(QStringLiteral("etcd_heal_cpu_ms_per_1000_leases")).toDouble(),
                     p.value(QStringLiteral("heal_cpu_floor_ms")).toDouble());
    }
    const QJsonObject growth{{"rss", linearFit(points, QStringLiteral("bytes_per_lease"))},
                             {"heap_in_use", linearFit(points, QStringLiteral("heap_bytes_in_use_per_lease"))},
                             {"go_rss", linearFit(points, QStringLiteral("go_bytes_per_lease"))}};
    for (const char *part : {"rss", "heap_in_use", "go_rss"}) {
        const QJsonObject fit = growth.value(QLatin1String(part)).toObject();
        if (!fit.isEmpty())
            std::fprintf(stderr, "%s growth: %.1f MiB + %lld B per lease\n", part,
                         fit.value(QStringLiteral("fixed_mib")).toDouble(),
                         fit.value(QStringLiteral("marginal_bytes_per_lease")).toInteger());
    }
    return {{"benchmark", "lease_scale_curve"}, {"curve", points}, {"memory_growth_fit", growth}, {"runs", runs}};
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(
        parser, app,
        QStringLiteral(
            "Cost of many self-healing leases on one client while they renew, and the time for all of them to "
            "be Restored after one partition. Prints one JSON object."),
        {{"leases",
          QStringLiteral("Self-healing leases, one key each; several comma-separated sizes run one after another "
                         "and print the curve."),
          QStringLiteral("n[,n...]"), QStringLiteral("10000")},
         {"ttl", QStringLiteral("Lease TTL in seconds."), QStringLiteral("s"), QStringLiteral("30")},
         {"idle", QStringLiteral("Idle window over which CPU is measured, in seconds."), QStringLiteral("s"),
          QStringLiteral("30")},
         {"concurrency", QStringLiteral("start() calls in flight at once."), QStringLiteral("n"),
          QStringLiteral("100")},
         {"heals", QStringLiteral("The client's maxConcurrentHeals: leases that start or heal at once."),
          QStringLiteral("n"), QString::number(ClientOptions().maxConcurrentHeals)},
         {"hold", QStringLiteral("How long the partition is held after every lease reported Expired, in ms."),
          QStringLiteral("ms"), QStringLiteral("2000")},
         {"go-lease", QStringLiteral("The golease program (bench/golease): measure etcd's Go client beside ours."),
          QStringLiteral("path")}});
    return Bench::run([&parser] {
        const QList<int> sizes = positiveList(parser, QStringLiteral("leases"));
        if (sizes.size() > 1)
            return curve(sizes, parser);
        Parameters parameters;
        parameters.leases = sizes.constFirst();
        parameters.ttlSeconds = positiveOption(parser, QStringLiteral("ttl"));
        parameters.idle = seconds(positiveOption(parser, QStringLiteral("idle")));
        parameters.startConcurrency = positiveOption(parser, QStringLiteral("concurrency"));
        parameters.maxConcurrentHeals = positiveOption(parser, QStringLiteral("heals"));
        parameters.holdAfterExpiry = milliseconds(positiveOption(parser, QStringLiteral("hold")));
        parameters.goLease = parser.value(QStringLiteral("go-lease"));
        return benchmark(parameters);
    });
}
