// One contender in the mutual-exclusion checker (tst_mutexchecker): takes the lock again and
// again and, inside each hold, increments a shared counter with guardedTxn. It prints one JSON
// line per hold and per write on stdout, stamped with CLOCK_MONOTONIC (steady_clock) so the
// checker can line processes up. It stops cleanly on SIGTERM.

#include <QEtcd/client.h>
#include <QEtcd/distributedmutex.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRandomGenerator>

#include <csignal>
#include <cstdio>

using namespace QEtcd;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
std::atomic<bool> stopRequested{false};

qint64 nowNs()
{
    return steady_clock::now().time_since_epoch().count();
}

void emitLine(const QJsonObject &object)
{
    std::fputs(QJsonDocument(object).toJson(QJsonDocument::Compact).append('\n').constData(), stdout);
    std::fflush(stdout);
}

// The moment *before* asking: if the answer is yes, the hold was valid at that moment even
// if the process is frozen right after.
bool stillHeld(DistributedMutex &mutex, qint64 *lastTrueNs)
{
    const qint64 asked = nowNs();
    if (!mutex.isHeldByCurrentThread())
        return false;
    *lastTrueNs = asked;
    return true;
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption endpoint("endpoint", "etcd URL (the participant's fault proxy)", "url");
    const QCommandLineOption name("name", "participant name", "name");
    const QCommandLineOption lockPath("lock", "lock path", "path");
    const QCommandLineOption counterKey("counter", "counter key", "key");
    const QCommandLineOption seed("seed", "random seed", "n", "1");
    parser.addOptions({endpoint, name, lockPath, counterKey, seed});
    parser.process(app);
    std::signal(SIGTERM, [](int) { stopRequested = true; });

    ClientOptions options = ClientOptions::fromEndpoints({parser.value(endpoint)});
    options.rpc = RpcResilience{RetryPolicy::bounded(2, 100ms), 2s};
    Client client(options);
    LockOptions lockOptions;
    lockOptions.ttlSeconds = 2;
    lockOptions.clientId = parser.value(name);
    DistributedMutex mutex(&client, parser.value(lockPath).toUtf8(), lockOptions);
    const QByteArray counter = parser.value(counterKey).toUtf8();
    QRandomGenerator random(parser.value(seed).toUInt());

    while (!stopRequested) {
        if (!mutex.lock(3s).isOk())
            continue;
        // The belief starts at a moment the hold is known valid: this process may have been
        // frozen between winning the lock and reading the clock.
        qint64 startNs = 0;
        if (!stillHeld(mutex, &startNs)) {
            mutex.unlock();
            continue;
        }
        qint64 lastTrueNs = startNs;
        const int writes = random.bounded(1, 6);
        for (int i = 0; i < writes && !stopRequested; ++i) {
            if (!stillHeld(mutex, &lastTrueNs))
                break;
            auto read = client.get(counter);
            read.waitForFinished();
            const RangeResult seen = read.result();
            if (!seen.status || !stillHeld(mutex, &lastTrueNs))
                break;
            const KeyValue kv = seen.kvs.value(0);
            const qint64 next = kv.value.toLongLong() + 1;
            Txn increment;
            increment.compares = {Compare::modRevision(counter, CompareResult::Equal, kv.modRevision)};
            increment.success = {TxnOp::put(counter, QByteArray::number(next))};
            auto written = mutex.guardedTxn(increment);
            written.waitForFinished();
            const TxnResult result = written.result();
            emitLine({{"event", "write"}, {"name", lockOptions.clientId}, {"value", next},
                      {"accepted", result.status.isOk() && result.succeeded},
                      {"status", result.status.toString()}, {"ns", nowNs()}});
        }
        emitLine({{"event", "hold"}, {"name", lockOptions.clientId}, {"start_ns", startNs}, {"end_ns", lastTrueNs},
                  {"token", mutex.fencingToken()}});
        mutex.unlock();
    }
    mutex.close();
    return 0;
}
