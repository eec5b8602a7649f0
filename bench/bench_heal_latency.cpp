// SPDX-License-Identifier: Apache-2.0
// Heal latency of a SelfHealingKeepAlive: from the network coming back to the key being in place
// on a new lease (Restored). The partition outlasts the lease, etcd deletes the key, and then
// the partition is held longer, a different amount each run, so that heals come back early and
// late in the retry policy's backoff. Healing on reconnect is supposed to make the backoff
// irrelevant: the floor is a round trip plus two commits (grant and CAS).
//
// The holds reach 30 s by default, not a few seconds: a heal attempt's grant waits in the
// blackhole until its 10 s timeout and is answered the moment traffic passes, and gRPC's
// keep-alive drops the connection about 15 s into a partition; only longer holds reach heals
// asleep in their backoff and a connection that has to be made again.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/selfhealingkeepalive.h>

using namespace Bench;
using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;

namespace {

struct Parameters
{
    int runs = 0;
    int ttlSeconds = 0;
    milliseconds maxExtraHold{};
};

struct Sample
{
    double extraHoldMs = 0;   // partition kept after the key was seen gone
    double sinceExpiredMs = 0;  // Expired → partition lifted: how far into the backoff
    double healMs = 0;        // partition lifted → Restored
};

bool keyIsGone(Client &observer, const QByteArray &key)
{
    const RangeResult got = await(observer.get(key), QStringLiteral("observer's get"));
    if (!got.status)
        fail(QStringLiteral("observer's get: ") + got.status.toString());
    return got.kvs.isEmpty();
}

Sample measure(const EtcdCluster &cluster, Client &observer, int run, const Parameters &parameters)
{
    const QByteArray key = "/bench/heal/" + QByteArray::number(run);
    FaultProxy proxy(QStringLiteral("127.0.0.1"), cluster.clientPort(0));
    if (!proxy.start())
        fail(QStringLiteral("proxy: ") + proxy.errorString());
    Client participant(ClientOptions::fromEndpoints({proxy.url()}));
    SelfHealingKeepAlive keeper(&participant, parameters.ttlSeconds, [&participant, key](qint64 lease, qint64 previous) {
        return casEstablish(&participant, key, "present", lease, previous);
    });
    std::atomic<qint64> expiredMs{0}, restoredMs{0}, failedMs{0};
    QObject::connect(
        &keeper, &SelfHealingKeepAlive::leaseEvent, &keeper,
        [&](const LeaseEvent &event) {
            if (event.kind == LeaseEventKind::Expired)
                expiredMs = event.monotonicMs;
            else if (event.kind == LeaseEventKind::Restored)
                restoredMs = event.monotonicMs;
            else if (event.kind == LeaseEventKind::Failed)
                failedMs = event.monotonicMs;
        },
        Qt::DirectConnection);

    const Status started = await(keeper.start(), QStringLiteral("keep-alive start"));
    if (!started)
        fail(QStringLiteral("keep-alive start: ") + started.toString());

    proxy.setMode(FaultProxy::Mode::Blackhole);
    const milliseconds expiryWait = seconds(parameters.ttlSeconds + 10);
    if (!waitUntil([&expiredMs] { return expiredMs.load() != 0; }, expiryWait))
        fail(QStringLiteral("run %1: no Expired while partitioned").arg(run));
    if (!waitUntil([&] { return keyIsGone(observer, key); }, expiryWait, milliseconds(50)))
        fail(QStringLiteral("run %1: etcd kept the key of an expired lease").arg(run));

    const milliseconds extraHold = parameters.runs > 1 ? parameters.maxExtraHold * run / (parameters.runs - 1)
                                                       : milliseconds::zero();
    pause(extraHold);
    if (restoredMs.load() != 0)
        fail(QStringLiteral("run %1: Restored through the partition").arg(run));
    // Stamped before the call: the proxy flushes what it held before it returns, and that flush
    // already lets held heal requests reach etcd.
    const qint64 passedNs = nowNs();
    proxy.setMode(FaultProxy::Mode::Pass);

    if (!waitUntil([&] { return restoredMs.load() != 0 || failedMs.load() != 0; }, seconds(60)))
        fail(QStringLiteral("run %1: not Restored within 60 s of the partition ending").arg(run));
    if (failedMs.load() != 0)
        fail(QStringLiteral("run %1: healing Failed").arg(run));
    const RangeResult back = await(observer.get(key), QStringLiteral("observer's get"));
    if (back.kvs.isEmpty() || back.kvs.first().lease != keeper.currentLeaseId())
        fail(QStringLiteral("run %1: Restored, but the key is not on the new lease").arg(run));

    Sample sample;
    sample.extraHoldMs = double(extraHold.count());
    sample.sinceExpiredMs = nsToMs(passedNs) - double(expiredMs.load());
    sample.healMs = double(restoredMs.load()) - nsToMs(passedNs);
    return sample;
}

QJsonObject benchmark(const Parameters &parameters)
{
    EtcdCluster cluster;
    startCluster(cluster);
    Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));

    QList<double> heals;
    QJsonArray runs;
    for (int run = 0; run < parameters.runs; ++run) {
        const Sample sample = measure(cluster, observer, run, parameters);
        heals.append(sample.healMs);
        runs.append(QJsonObject{{"extra_hold_ms", rounded(sample.extraHoldMs)},
                                {"since_expired_ms", rounded(sample.sinceExpiredMs)},
                                {"heal_ms", rounded(sample.healMs)}});
    }

    return QJsonObject{
        {"benchmark", "heal_latency"},
        {"ttl_s", parameters.ttlSeconds},
        {"runs", parameters.runs},
        {"retry_policy", LeaseResilience().retryPolicy.description()},
        {"max_extra_hold_ms", qint64(parameters.maxExtraHold.count())},
        // Restored carries whole milliseconds, so each figure is good to about ±1 ms.
        {"heal_ms", summary(heals, {{QStringLiteral("p50"), 50}, {QStringLiteral("p99"), 99}})},
        {"per_run", runs},
    };
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(
        parser, app,
        QStringLiteral(
            "Time from a partition ending to a self-healing lease being Restored, after the partition outlasted "
            "the lease. Prints one JSON object."),
        {{"runs", QStringLiteral("Partitions to measure."), QStringLiteral("n"), QStringLiteral("20")},
         {"ttl", QStringLiteral("Lease TTL in seconds."), QStringLiteral("s"), QStringLiteral("2")},
         {"max-extra-hold",
          QStringLiteral("Longest time the partition is held after the key is gone, in ms; the runs spread "
                         "evenly from 0 to this."),
          QStringLiteral("ms"), QStringLiteral("30000")}});
    return Bench::run([&parser] {
        Parameters parameters;
        parameters.runs = positiveOption(parser, QStringLiteral("runs"));
        parameters.ttlSeconds = positiveOption(parser, QStringLiteral("ttl"));
        parameters.maxExtraHold = milliseconds(positiveOption(parser, QStringLiteral("max-extra-hold")));
        return benchmark(parameters);
    });
}
