// SPDX-License-Identifier: Apache-2.0
// The counted-barrier checker's saboteur (tst_barrierchecker): one arrival at a counted barrier
// per run, like one `qetcd barrier count`, printing the CLI's lines ("waiting" before the
// arrival is asked for, "arrived" with its round once its key is written, "released", each with
// "mono_ms" on CLOCK_MONOTONIC), but broken on purpose; the real member is the CLI itself.
// It keeps the recipe's layout (<path>/ready opens a round, <path>/waiting/<token> per member):
//   no-wait      it is released as soon as its key is written;
//   stale-count  it counts every key under waiting/, also those a previous round's members have
//                not removed yet, and trips the round when they make up the count.

#include "participant.h"

#include <QEtcd/client.h>

using namespace QEtcd;
using namespace Checker;

namespace {
void emitEvent(const char *event, QJsonObject fields = {})
{
    fields.insert("event", event);
    fields.insert("mono_ms", nowNs() / 1000000);
    emitLine(fields);
}

int failed(const char *what, const Status &status)
{
    std::fprintf(stderr, "barrier saboteur: %s: %s\n", what, qPrintable(status.toString()));
    return 1;
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    CommandLine args;
    const QCommandLineOption barrierPath("barrier", "counted barrier path", "path");
    const QCommandLineOption members("members", "how many members meet", "n");
    args.process(app, {barrierPath, members}, {QStringLiteral("no-wait"), QStringLiteral("stale-count")});
    if (args.value(args.sabotage).isEmpty()) {
        std::fprintf(stderr, "barrier saboteur: --sabotage no-wait|stale-count (the real member is qetcd)\n");
        return 128;
    }
    const bool waits = args.value(args.sabotage) == QLatin1String("stale-count");
    const QByteArray path = args.value(barrierPath).toUtf8();
    const QByteArray ready = path + "/ready";
    const QByteArray waitingPrefix = path + "/waiting/";
    const qint64 memberCount = args.value(members).toLongLong();
    const QByteArray token = args.value(args.name).toUtf8() + ':' + QByteArray::number(QCoreApplication::applicationPid());
    Client client(ClientOptions::fromEndpoints({args.value(args.endpoint)}));

    emitEvent("waiting");
    Txn open;
    open.compares = {Compare::absent(ready)};
    open.success = {TxnOp::put(ready, token)};
    open.failure = {TxnOp::range(ready)};
    const TxnResult opened = client.txn(open).result();
    if (!opened.status)
        return failed("opening the round", opened.status);
    const qint64 round =
        opened.succeeded ? opened.header.revision : opened.responses.value(0).range.kvs.value(0).createRevision;
    // Longer than any wait of a self-check, and revoked on the way out: no keep-alive needed.
    const LeaseGrantResult lease = client.leaseGrant(60).result();
    if (!lease.status)
        return failed("granting the lease", lease.status);
    PutOptions onLease;
    onLease.lease = lease.id;
    if (const PutResult put = client.put(waitingPrefix + token, token, onLease).result(); !put.status)
        return failed("writing the key", put.status);
    emitEvent("arrived", {{"round", round}});

    while (waits) {
        RangeOptions everyKey;  // no minCreateRevision: the sabotage
        everyKey.range = KeyRange::prefix();
        everyKey.keysOnly = true;
        Txn read;
        read.success = {TxnOp::range(ready), TxnOp::range(waitingPrefix, everyKey)};
        const TxnResult counted = client.txn(read).result();
        if (!counted.status)
            return failed("counting", counted.status);
        const QList<KeyValue> roundNow = counted.responses.value(0).range.kvs;
        if (roundNow.isEmpty() || roundNow.first().createRevision != round)
            break;  // tripped by someone else
        if (counted.responses.value(1).range.kvs.size() >= memberCount) {
            Txn trip;
            trip.compares = {Compare::createRevision(ready, CompareResult::Equal, round)};
            trip.success = {TxnOp::remove(ready)};
            if (const TxnResult tripped = client.txn(trip).result(); !tripped.status)
                return failed("tripping", tripped.status);
            break;
        }
        QThread::msleep(10);
    }
    if (const Result revoked = client.leaseRevoke(lease.id).result(); !revoked.status)
        return failed("revoking the lease", revoked.status);
    emitEvent("released");
    return 0;
}
