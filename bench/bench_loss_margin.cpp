// SPDX-License-Identifier: Apache-2.0
// Loss-detection margin of an ExclusivityLease: how long before etcd lets a waiter take the
// holder's key the holder is told that its lease is lost. The holder is cut off by a blackhole;
// a rival that talks to etcd directly keeps trying to take the key, as a lock waiter would.
// A negative margin would mean two parties believed they held the key at once.
//
// --busy-dispatcher keeps the holder's dispatcher thread busy from the partition on (a presence
// lease's Suspended slot, connected directly, blocks until the loss is told), as a storm of
// heals or a user's slow direct slot would: the loss, told from a thread of its own, must keep
// its margin.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/exclusivitylease.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/selfhealingkeepalive.h>

#include <QtCore/QPromise>
#include <QtCore/QRandomGenerator>
#include <QtCore/QSemaphore>

using namespace Bench;
using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;

namespace {

struct Parameters
{
    int runs = 0;
    int ttlSeconds = 0;
    milliseconds pace{};
    bool busyDispatcher = false;
};

struct Sample
{
    double marginMs = 0;          // rival's winning request sent − holder told
    double marginToAnswerMs = 0;  // rival's winning answer received − holder told
    double detectionMs = 0;       // holder told − partition began
    double attemptIntervalMs = 0; // mean time between the rival's sends: the margin's resolution
};

struct Answer
{
    TxnResult result;
    qint64 receivedNs = 0;
};

Sample measure(const EtcdCluster &cluster, Client &rival, int run, const Parameters &parameters)
{
    const QByteArray key = "/bench/loss/" + QByteArray::number(run);
    FaultProxy proxy(QStringLiteral("127.0.0.1"), cluster.clientPort(0));
    if (!proxy.start())
        fail(QStringLiteral("proxy: ") + proxy.errorString());
    Client holderClient(ClientOptions::fromEndpoints({proxy.url()}));
    ExclusivityLease lease(&holderClient, parameters.ttlSeconds);
    std::atomic<qint64> lostNs{0};
    QSemaphore lossTold;
    // Stamped on the loss thread as the signal is emitted, before any queue could delay it.
    QObject::connect(&lease, &ExclusivityLease::lost, &lease, [&] {
        lostNs = nowNs();
        lossTold.release();
    }, Qt::DirectConnection);
    std::unique_ptr<SelfHealingKeepAlive> presence;
    if (parameters.busyDispatcher) {
        presence = std::make_unique<SelfHealingKeepAlive>(&holderClient, 1, [](qint64, qint64) {
            return QtFuture::makeReadyFuture(Status());
        });
        QObject::connect(presence.get(), &SelfHealingKeepAlive::leaseEvent, presence.get(),
                         [&lossTold, ttl = parameters.ttlSeconds](const LeaseEvent &event) {
                             if (event.kind == LeaseEventKind::Suspended)
                                 lossTold.tryAcquire(1, int(ttl + 10) * 1000);
                         },
                         Qt::DirectConnection);
        if (const Status started = await(presence->start(), QStringLiteral("presence lease")); !started)
            fail(QStringLiteral("presence lease: ") + started.toString());
    }

    // etcd looks for expired leases every 500 ms. Runs that follow one another at the pace of
    // that very check would meet it at the same point each time; a seeded random start samples
    // the whole cycle, and the same way every time the benchmark runs.
    pause(milliseconds(QRandomGenerator(quint32(run)).bounded(500)));
    const Status granted = await(lease.grant(), QStringLiteral("lease grant"));
    if (!granted)
        fail(QStringLiteral("lease grant: ") + granted.toString());
    Txn hold;
    PutOptions onLease;
    onLease.lease = lease.leaseId();
    hold.compares = {Compare::absent(key)};
    hold.success = {TxnOp::put(key, "holder", onLease)};
    const TxnResult held = await(holderClient.txn(hold), QStringLiteral("holder's put"));
    if (!held.status || !held.succeeded)
        fail(QStringLiteral("the holder could not take %1: %2").arg(QString::fromLatin1(key), held.status.toString()));

    // Spread the partitions over one renewal period: the margin must hold wherever the cut falls.
    pause(milliseconds(parameters.ttlSeconds * 1000 / 3 * run / parameters.runs));
    proxy.setMode(FaultProxy::Mode::Blackhole);
    const qint64 partitionedNs = nowNs();

    Txn take;
    take.compares = {Compare::absent(key)};
    take.success = {TxnOp::put(key, "rival")};
    const qint64 giveUpNs = partitionedNs + duration_cast<nanoseconds>(seconds(parameters.ttlSeconds + 15)).count();
    qint64 sentNs = 0;
    Answer answer;
    int attempts = 0;
    for (;;) {
        sentNs = nowNs();
        // Stamped on the thread that completes the call, not when the main loop gets round to it.
        auto stamped = std::make_shared<QPromise<Answer>>();
        stamped->start();
        rival.txn(take, {}, [stamped](const TxnResult &result) {
            stamped->addResult(Answer{result, nowNs()});
            stamped->finish();
        });
        answer = await(stamped->future(), QStringLiteral("rival's CAS"));
        ++attempts;
        if (!answer.result.status)
            fail(QStringLiteral("rival's CAS: ") + answer.result.status.toString());
        if (answer.result.succeeded)
            break;
        if (answer.receivedNs > giveUpNs)
            fail(QStringLiteral("run %1: the rival never got the key").arg(run));
        pause(parameters.pace);
    }
    // A loss told after the rival won is a negative margin; wait for it to learn how negative.
    if (!waitUntil([&lostNs] { return lostNs.load() != 0; }, seconds(parameters.ttlSeconds + 10)))
        fail(QStringLiteral("run %1: lost() never came, though the rival took the key").arg(run));
    if (lease.isValid())
        fail(QStringLiteral("run %1: isValid() after lost()").arg(run));

    const DeleteResult removed = await(rival.remove(key), QStringLiteral("rival's delete"));
    if (!removed.status)
        fail(QStringLiteral("rival's delete: ") + removed.status.toString());

    Sample sample;
    sample.marginMs = nsToMs(sentNs - lostNs);
    sample.marginToAnswerMs = nsToMs(answer.receivedNs - lostNs);
    sample.detectionMs = nsToMs(lostNs - partitionedNs);
    sample.attemptIntervalMs = attempts > 1 ? nsToMs(sentNs - partitionedNs) / (attempts - 1) : 0;
    return sample;
}

QJsonObject benchmark(const Parameters &parameters)
{
    EtcdCluster cluster;
    startCluster(cluster);
    Client rival(ClientOptions::fromEndpoints(cluster.clientUrls()));

    QList<double> margins, marginsToAnswer, detections, intervals;
    int negative = 0;
    QJsonArray runs;
    for (int run = 0; run < parameters.runs; ++run) {
        const Sample sample = measure(cluster, rival, run, parameters);
        margins.append(sample.marginMs);
        marginsToAnswer.append(sample.marginToAnswerMs);
        detections.append(sample.detectionMs);
        intervals.append(sample.attemptIntervalMs);
        if (sample.marginMs < 0)
            ++negative;
        runs.append(QJsonObject{{"margin_ms", rounded(sample.marginMs)},
                                {"margin_to_answer_ms", rounded(sample.marginToAnswerMs)},
                                {"loss_after_partition_ms", rounded(sample.detectionMs)}});
    }

    const QList<std::pair<QString, double>> median{{QStringLiteral("median"), 50}};
    return QJsonObject{
        {"benchmark", "loss_margin"},
        {"ttl_s", parameters.ttlSeconds},
        {"runs", parameters.runs},
        {"rival_pace_ms", qint64(parameters.pace.count())},
        {"busy_dispatcher", parameters.busyDispatcher},
        {"margin_ms", summary(margins, median)},
        {"margin_to_answer_ms", summary(marginsToAnswer, median)},
        {"negative", negative},
        {"loss_after_partition_ms", summary(detections, median)},
        {"rival_attempt_interval_ms", summary(intervals, median)},
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
            "Time between an exclusivity lease's holder being told of its loss and etcd letting a waiter take "
            "its key, over repeated partitions. Prints one JSON object."),
        {{"runs", QStringLiteral("Partitions to measure."), QStringLiteral("n"), QStringLiteral("20")},
         {"ttl", QStringLiteral("Lease TTL in seconds."), QStringLiteral("s"), QStringLiteral("5")},
         {"pace", QStringLiteral("Pause between the rival's attempts, in ms."), QStringLiteral("ms"),
          QStringLiteral("5")},
         {"busy-dispatcher",
          QStringLiteral("Keep the holder's dispatcher thread busy from the partition until the loss "
                         "is told.")}});
    return Bench::run([&parser] {
        Parameters parameters;
        parameters.runs = positiveOption(parser, QStringLiteral("runs"));
        parameters.ttlSeconds = positiveOption(parser, QStringLiteral("ttl"));
        parameters.pace = milliseconds(positiveOption(parser, QStringLiteral("pace")));
        parameters.busyDispatcher = parser.isSet(QStringLiteral("busy-dispatcher"));
        return benchmark(parameters);
    });
}
