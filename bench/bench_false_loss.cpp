// SPDX-License-Identifier: Apache-2.0
// False losses on a slow but working network: exclusivity leases held through a FaultProxy
// that delays every chunk each way (and, in the second run, draws a random extra delay for each
// chunk) for a long window. Nothing is cut off, so every loss told would be false: the holder
// would give up a lock etcd still let it hold. The benchmark counts the losses (there must be
// none), how close any lease came to its loss deadline, and how often renewals were slow
// enough to count as Suspended; at the end it asks etcd, directly, that every lease is alive.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/exclusivitylease.h>
#include <QEtcd/faultproxy.h>

#include <QtCore/QMutex>
#include <QtCore/QTimer>

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
    seconds window{};
    milliseconds oneWayDelay{};
    milliseconds jitter{};
    QStringList modes;
};

// Written on the client's loss thread by direct connections, read on the main thread.
struct Tally
{
    std::atomic<int> losses{0};
    std::atomic<int> suspended{0};
    std::atomic<int> resumed{0};
    QMutex causeMutex;
    QString firstCause;
};

QJsonObject hold(const EtcdCluster &cluster, Client &observer, const QString &mode, const Parameters &parameters)
{
    const milliseconds jitter = mode == QLatin1String("jitter") ? parameters.jitter : milliseconds::zero();
    FaultProxy proxy(QStringLiteral("127.0.0.1"), cluster.clientPort(0));
    if (!proxy.start())
        fail(QStringLiteral("proxy: ") + proxy.errorString());
    proxy.setDelay(parameters.oneWayDelay);
    proxy.setJitter(jitter);
    proxy.setMode(FaultProxy::Mode::Delay);
    Client holder(ClientOptions::fromEndpoints({proxy.url()}));

    auto tally = std::make_shared<Tally>();
    std::vector<std::unique_ptr<ExclusivityLease>> leases;
    QList<QFuture<Status>> grants;
    for (int i = 0; i < parameters.leases; ++i) {
        auto lease = std::make_unique<ExclusivityLease>(&holder, parameters.ttlSeconds);
        QObject::connect(lease.get(), &ExclusivityLease::lost, lease.get(), [tally](const Status &cause) {
            if (tally->losses++ == 0) {
                QMutexLocker locker(&tally->causeMutex);
                tally->firstCause = cause.toString();
            }
        }, Qt::DirectConnection);
        QObject::connect(lease.get(), &ExclusivityLease::leaseEvent, lease.get(), [tally](const LeaseEvent &event) {
            if (event.kind == LeaseEventKind::Suspended)
                ++tally->suspended;
        }, Qt::DirectConnection);
        QObject::connect(lease.get(), &ExclusivityLease::keepAliveResumed, lease.get(), [tally] { ++tally->resumed; },
                         Qt::DirectConnection);
        grants.append(lease->grant());
        leases.push_back(std::move(lease));
    }
    for (const QFuture<Status> &grant : std::as_const(grants)) {
        if (const Status granted = await(grant, QStringLiteral("lease grant")); !granted)
            fail(QStringLiteral("lease grant: ") + granted.toString());
    }

    // The closest any lease came to being declared lost: its deadline minus the time, sampled
    // far more often than renewals go out.
    milliseconds closest = milliseconds::max();
    QTimer sampler;
    sampler.setTimerType(Qt::PreciseTimer);
    QObject::connect(&sampler, &QTimer::timeout, &sampler, [&] {
        const steady_clock::time_point now = steady_clock::now();
        for (const auto &lease : leases) {
            if (lease->isValid())
                closest = std::min(closest, duration_cast<milliseconds>(lease->lossDeadline() - now));
        }
    });
    sampler.start(20);
    const quint64 bytesBefore = proxy.bytesForwarded();
    const qint64 beganNs = nowNs();
    pause(parameters.window);
    sampler.stop();
    const double heldSeconds = nsToMs(nowNs() - beganNs) / 1000.0;
    const quint64 bytes = proxy.bytesForwarded() - bytesBefore;

    int valid = 0;
    int aliveOnEtcd = 0;
    for (const auto &lease : leases) {
        if (lease->isValid())
            ++valid;
        const LeaseTimeToLiveResult alive = await(observer.leaseTimeToLive(lease->leaseId()),
                                                  QStringLiteral("lease time-to-live"));
        if (alive.status && alive.ttl > 0)
            ++aliveOnEtcd;
    }
    QString firstCause;
    {
        QMutexLocker locker(&tally->causeMutex);
        firstCause = tally->firstCause;
    }
    return QJsonObject{
        {"mode", mode},
        {"one_way_delay_ms", qint64(parameters.oneWayDelay.count())},
        {"one_way_jitter_ms", qint64(jitter.count())},
        {"held_s", rounded(heldSeconds)},
        {"losses", tally->losses.load()},
        {"first_loss_cause", firstCause},
        {"valid_at_end", valid},
        {"alive_on_etcd_at_end", aliveOnEtcd},
        {"closest_to_loss_deadline_ms", closest == milliseconds::max() ? -1 : qint64(closest.count())},
        {"suspended_events", tally->suspended.load()},
        {"resumed_events", tally->resumed.load()},
        {"proxy_bytes_per_s", qint64(double(bytes) / heldSeconds)},
    };
}

QJsonObject benchmark(const Parameters &parameters)
{
    EtcdCluster cluster;
    startCluster(cluster);
    Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));
    QJsonArray runs;
    int losses = 0;
    for (const QString &mode : parameters.modes) {
        const QJsonObject run = hold(cluster, observer, mode, parameters);
        losses += run.value(QStringLiteral("losses")).toInt();
        runs.append(run);
    }
    const QJsonObject result{{"benchmark", "false_loss"},
                             {"leases", parameters.leases},
                             {"ttl_s", parameters.ttlSeconds},
                             {"window_s", qint64(parameters.window.count())},
                             {"runs", runs}};
    if (losses != 0)
        fail(QStringLiteral("%1 false losses: %2")
                 .arg(losses)
                 .arg(QString::fromUtf8(QJsonDocument(result).toJson(QJsonDocument::Compact))));
    return result;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(
        parser, app,
        QStringLiteral(
            "Exclusivity leases held through a proxy that delays every chunk each way (and, in the jitter run, adds a "
            "random extra per chunk): losses told (there must be none) and how close any lease came to its loss "
            "deadline. Prints one JSON object; exits 1 on any loss."),
        {{"leases", QStringLiteral("Exclusivity leases held at once."), QStringLiteral("n"), QStringLiteral("100")},
         {"ttl", QStringLiteral("Lease TTL in seconds."), QStringLiteral("s"), QStringLiteral("5")},
         {"seconds", QStringLiteral("How long each run holds the leases."), QStringLiteral("s"), QStringLiteral("600")},
         {"delay-ms", QStringLiteral("Delay added to every chunk, each way."), QStringLiteral("ms"),
          QStringLiteral("200")},
         {"jitter-ms",
          QStringLiteral("Jitter run: a random extra of 0 to this much on top of the delay, drawn per "
                         "chunk, each way."),
          QStringLiteral("ms"), QStringLiteral("400")},
         {"modes", QStringLiteral("Comma-separated runs, in order: fixed (the delay alone), jitter."),
          QStringLiteral("list"), QStringLiteral("fixed,jitter")}});
    return Bench::run([&parser] {
        Parameters parameters;
        parameters.leases = positiveOption(parser, QStringLiteral("leases"));
        parameters.ttlSeconds = positiveOption(parser, QStringLiteral("ttl"));
        parameters.window = seconds(positiveOption(parser, QStringLiteral("seconds")));
        parameters.oneWayDelay = milliseconds(positiveOption(parser, QStringLiteral("delay-ms")));
        parameters.jitter = milliseconds(positiveOption(parser, QStringLiteral("jitter-ms")));
        parameters.modes = choiceList(parser, QStringLiteral("modes"), {"fixed", "jitter"});
        return benchmark(parameters);
    });
}
