// SPDX-License-Identifier: Apache-2.0
// One contender in the mutual-exclusion checker (tst_mutexchecker): takes the lock again and
// again and, inside each hold, makes blind writes to one shared key, guarded only by the fence
// (a put inside guardedTxn whose value names the writer's fencing token and hold key). While
// it holds it asks isHeldByCurrentThread() every two milliseconds, also while a write is in
// flight. It prints one line when it wins the lock, one per write and one per hold, and stops
// cleanly on SIGTERM.

#include "participant.h"
#include "../fencingoracle.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedmutex.h>

#include <QtCore/QRandomGenerator>

using namespace QEtcd;
using namespace Checker;
using QEtcd::Testing::fencedWriteValue;
using namespace std::chrono_literals;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    CommandLine args;
    const QCommandLineOption lockPath("lock", "lock path", "path");
    const QCommandLineOption fencedKey("fenced", "the key every holder writes", "key");
    args.process(app, {lockPath, fencedKey});
    stopOnSigterm();

    ClientOptions options = ClientOptions::fromEndpoints({args.value(args.endpoint)});
    // Longer than any partition or delay the checker makes: a write held up by one is then
    // answered, late, instead of abandoned, so its fate is known.
    options.rpc = RpcResilience{RetryPolicy::bounded(2, 100ms), 15s};
    Client client(options);
    LockOptions lockOptions;
    lockOptions.ttlSeconds = 2;
    lockOptions.clientId = args.value(args.name);
    DistributedMutex mutex(&client, args.value(lockPath).toUtf8(), lockOptions);
    reportLoss(mutex, &DistributedMutex::lockLost, "lockLost", lockOptions.clientId);
    const QByteArray fenced = args.value(fencedKey).toUtf8();
    QRandomGenerator random(args.value(args.seed).toUInt());
    qint64 sequence = 0;

    while (!stopRequested) {
        // Longer than four rivals' holds (up to 1.5 s each) and a fault (up to 4 s) ahead of us:
        // a wait that gave up sooner would queue again at the back, and a participant could go
        // a whole run without its turn.
        if (!mutex.lock(12s).isOk())
            continue;
        const qint64 startNs = nowNs();
        const qint64 token = mutex.fencingToken();
        const QByteArray key = mutex.holdKey();
        emitLine({{"event", "acquired"}, {"name", lockOptions.clientId}, {"token", token}});
        Belief belief{[&mutex] { return mutex.isHeldByCurrentThread(); }, args.ignoresLoss()};
        // A hold whose first check says no was never acted on.
        const bool believed = belief.sample();
        int writes = 0;
        const qint64 until = startNs + random.bounded(50, 1500) * qint64(1000000);
        while (!stopRequested && nowNs() < until && belief.sample()) {
            const qint64 seq = ++sequence;
            Txn blind;
            blind.success = {TxnOp::put(fenced, fencedWriteValue(lockOptions.clientId, seq, token, key))};
            const qint64 issuedNs = nowNs();
            auto written = args.unfenced() ? client.txn(blind) : mutex.guardedTxn(blind);
            ++writes;
            // The write is not abandoned when the belief ends: its answer, however late, says
            // whether the fence stopped it.
            belief.workUntil([&written] { return written.isFinished(); }, true);
            const TxnResult result = written.result();
            const char *outcome = result.status.isOk() ? "accepted"
                : result.status.code() == StatusCode::OwnershipLost ? "refused"
                                                                     : "unknown";
            emitLine({{"event", "write"}, {"name", lockOptions.clientId}, {"seq", seq}, {"token", token},
                      {"outcome", outcome}, {"status", result.status.toString()},
                      {"issued_ns", issuedNs}, {"answered_ns", nowNs()}});
            belief.workUntilNs(nowNs() + random.bounded(0, 10) * qint64(1000000));
        }
        // The belief lasts until unlock() for a hold still believed when it is given back.
        const qint64 unlockNs = nowNs();
        const bool released = mutex.unlock();  // false when the hold was lost
        const bool stillOurs = released && !belief.lost;
        emitLine({{"event", "hold"}, {"name", lockOptions.clientId}, {"token", token}, {"believed", believed},
                  {"start_ns", startNs}, {"end_ns", stillOurs ? unlockNs : belief.lastYesNs},
                  {"lost", !stillOurs}, {"released", released}, {"writes", writes}});
    }
    mutex.close();
    return 0;
}
