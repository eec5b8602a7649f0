// SPDX-License-Identifier: Apache-2.0
// One contender in the semaphore checker (tst_semaphorechecker): acquires a permit again and
// again, half the time for a short hold and half the time for one long enough for a fault to
// outlast the 2 s lease, and asks heldPermits() every two milliseconds while it holds. Inside
// each hold it makes blind writes to one shared key, guarded only by the fence (guardedTxn with
// the permit; the value names its fencing token and entry). It prints one line when it gets a
// permit, one per write, one per hold and one per permitLost(), and stops cleanly on SIGTERM.

#include "participant.h"
#include "../fencingoracle.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedsemaphore.h>

#include <QtCore/QRandomGenerator>

using namespace QEtcd;
using namespace Checker;
using QEtcd::Testing::fencedWriteValue;
using namespace std::chrono_literals;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    CommandLine args;
    const QCommandLineOption path("semaphore", "semaphore path", "path");
    const QCommandLineOption permits("permits", "permit count", "n");
    const QCommandLineOption fencedKey("fenced", "the key every holder writes", "key");
    args.process(app, {path, permits, fencedKey});
    stopOnSigterm();

    ClientOptions clientOptions = ClientOptions::fromEndpoints({args.value(args.endpoint)});
    // Longer than any fault the checker makes: a write held up by one is answered, late,
    // instead of abandoned, so its fate is known.
    clientOptions.rpc = RpcResilience{RetryPolicy::bounded(2, 100ms), 15s};
    Client client(clientOptions);
    const QByteArray fenced = args.value(fencedKey).toUtf8();
    qint64 sequence = 0;
    SemaphoreOptions options;
    options.ttlSeconds = 2;
    options.clientId = args.value(args.name);
    DistributedSemaphore semaphore(&client, args.value(path).toUtf8(), args.value(permits).toInt(), options);
    reportLoss(semaphore, &DistributedSemaphore::permitLost, "permitLost", options.clientId);
    QRandomGenerator random(args.value(args.seed).toUInt());

    while (!stopRequested) {
        // Long enough to get through the queue behind every other participant's longest hold.
        if (const Status acquired = semaphore.acquire(15s); !acquired) {
            emitLine({{"event", "failed"}, {"name", options.clientId}, {"status", acquired.toString()}});
            continue;
        }
        const qint64 startNs = nowNs();
        const qint64 token = semaphore.fencingToken();
        const QByteArray key = semaphore.holdKey();
        emitLine({{"event", "acquired"}, {"name", options.clientId}, {"token", token}});
        Belief belief{[&semaphore] { return semaphore.heldPermits() > 0; }, args.ignoresLoss()};
        // A hold whose first check says no was never acted on.
        const bool believed = belief.sample();
        const int holdMs = random.bounded(2) == 0 ? random.bounded(100, 1000) : random.bounded(1000, 6000);
        const qint64 until = startNs + holdMs * qint64(1000000);
        while (!stopRequested && nowNs() < until && belief.sample()) {
            const qint64 seq = ++sequence;
            Txn blind;
            blind.success = {TxnOp::put(fenced, fencedWriteValue(options.clientId, seq, token, key))};
            const qint64 issuedNs = nowNs();
            auto written = args.unfenced() ? client.txn(blind) : semaphore.guardedTxn(blind);
            // Not abandoned when the belief ends: its answer, however late, says whether the
            // fence stopped it.
            belief.workUntil([&written] { return written.isFinished(); }, true);
            const TxnResult result = written.result();
            const char *outcome = result.status.isOk() ? "accepted"
                : result.status.code() == StatusCode::OwnershipLost ? "refused"
                                                                     : "unknown";
            emitLine({{"event", "write"}, {"name", options.clientId}, {"seq", seq}, {"token", token},
                      {"outcome", outcome}, {"status", result.status.toString()}, {"issued_ns", issuedNs},
                      {"answered_ns", nowNs()}});
            belief.workUntilNs(std::min(until, nowNs() + random.bounded(0, 10) * qint64(1000000)));
        }
        // The belief lasts until release() for a permit still believed when it is given back.
        const qint64 releaseNs = nowNs();
        const bool released = semaphore.release();  // false when the permit was lost
        emitLine({{"event", "hold"}, {"name", options.clientId}, {"token", token}, {"believed", believed},
                  {"start_ns", startNs}, {"end_ns", released && !belief.lost ? releaseNs : belief.lastYesNs},
                  {"lost", !released || belief.lost}, {"seen_lost", belief.lost}, {"released", released}});
    }
    semaphore.close();
    return 0;
}
