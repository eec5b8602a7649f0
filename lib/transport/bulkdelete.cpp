// SPDX-License-Identifier: Apache-2.0
#include "bulkdelete.h"

#include "client.h"
#include "client_p.h"
#include "grpcconvert_p.h"
#include "keyjob_p.h"
#include "logging_p.h"

#include <QtCore/QPointer>

namespace QEtcd {

using namespace Internal;

class BulkDeletePrivate
{
public:
    BulkDeletePrivate(BulkDelete *q, Client *client) : q(q), client(client), job(q) {}

    bool start(const QString &what, bool dryRun, const Status &refusal, std::function<void(BulkDeleteResult *)> work);
    void runPrefix(const QByteArray &prefix, BulkDeleteResult *result);
    void runKeys(const QList<QByteArray> &keys, BulkDeleteResult *result);
    // Deletes keys in one transaction.
    Status remove(const QList<QByteArray> &keys, BulkDeleteResult *result);
    void reportCounted(const BulkDeleteResult &result)
    {
        job.report([q = q, count = result.counted, sample = result.sample] { Q_EMIT q->counted(count, sample); });
    }

    BulkDelete *q;
    QPointer<Client> client;
    bool started = false;
    bool running = false;
    // Last, so destroyed first: it waits for the job's thread, which uses the members above.
    KeyJobThread job;
};

Status BulkDeletePrivate::remove(const QList<QByteArray> &keys, BulkDeleteResult *result)
{
    Txn txn;
    for (const QByteArray &key : keys)
        txn.success.append(TxnOp::remove(key));
    const TxnResult done = KeyJobThread::await(client->txn(txn));
    if (!done.status)
        return done.status;
    for (const TxnOpResult &each : done.responses)
        result->deleted += each.remove.deleted;
    ++result->transactions;
    result->revision = done.header.revision;
    job.report([q = q, deleted = result->deleted, counted = result->counted] { Q_EMIT q->progressed(deleted, counted); });
    return {};
}

void BulkDeletePrivate::runPrefix(const QByteArray &prefix, BulkDeleteResult *result)
{
    RangeOptions sample;
    sample.range = KeyRange::prefix();
    sample.keysOnly = true;
    sample.limit = BulkDelete::sampleSize;
    const RangeResult first = KeyJobThread::await(client->get(prefix, sample));
    if (!first.status) {
        result->status = first.status;
        return;
    }
    result->counted = first.count;
    for (const KeyValue &kv : first.kvs)
        result->sample.append(kv.key);
    reportCounted(*result);
    if (result->dryRun)
        return;
    RangeOptions page = sample;
    page.limit = BulkDelete::maxTransactionKeys;
    page.range = KeyRange::upTo(prefixRangeEnd(prefix));
    QByteArray from = prefix;
    for (;;) {
        if (job.isCancelled()) {
            result->status = Status(StatusCode::Cancelled, QStringLiteral("cancelled"));
            return;
        }
        const RangeResult read = KeyJobThread::await(client->get(from, page));
        if (!read.status || read.kvs.isEmpty()) {
            result->status = read.status;
            return;
        }
        QList<QByteArray> keys;
        for (const KeyValue &kv : read.kvs)
            keys.append(kv.key);
        if (const Status removed = remove(keys, result); !removed) {
            result->status = removed;
            return;
        }
        from = keys.last() + '\0';
    }
}

void BulkDeletePrivate::runKeys(const QList<QByteArray> &keys, BulkDeleteResult *result)
{
    // Counted a transaction of reads at a time, at one revision each.
    for (qsizetype at = 0; at < keys.size(); at += BulkDelete::maxTransactionKeys) {
        Txn count;
        RangeOptions countOnly;
        countOnly.countOnly = true;
        for (const QByteArray &key : keys.mid(at, BulkDelete::maxTransactionKeys))
            count.success.append(TxnOp::range(key, countOnly));
        const TxnResult counted = KeyJobThread::await(client->txn(count));
        if (!counted.status) {
            result->status = counted.status;
            return;
        }
        for (qsizetype i = 0; i < counted.responses.size(); ++i) {
            if (counted.responses[i].range.count == 0)
                continue;
            ++result->counted;
            if (result->sample.size() < BulkDelete::sampleSize)
                result->sample.append(keys[at + i]);
        }
    }
    reportCounted(*result);
    if (result->dryRun)
        return;
    for (qsizetype at = 0; at < keys.size(); at += BulkDelete::maxTransactionKeys) {
        if (job.isCancelled()) {
            result->status = Status(StatusCode::Cancelled, QStringLiteral("cancelled"));
            return;
        }
        if (const Status removed = remove(keys.mid(at, BulkDelete::maxTransactionKeys), result); !removed) {
            result->status = removed;
            return;
        }
    }
}

bool BulkDeletePrivate::start(const QString &what, bool dryRun, const Status &refusal,
                              std::function<void(BulkDeleteResult *)> work)
{
    if (started) {
        qCWarning(lcTransport) << "BulkDelete: a delete runs once; make another for the next";
        return false;
    }
    started = true;
    running = true;
    Q_EMIT q->runningChanged(true);
    const auto finish = [this](const BulkDeleteResult &result) {
        job.report([this, result] {
            running = false;
            Q_EMIT q->runningChanged(false);
            Q_EMIT q->finished(result);
        });
    };
    BulkDeleteResult refused;
    refused.dryRun = dryRun;
    refused.status = refusal;
    if (refused.status && !client) {
        refused.status = Status(StatusCode::Closed, QStringLiteral("the client is gone"));
    } else if (refused.status && !dryRun) {
        // The client's own refusal of a write, before the count sends anything.
        CallSpec spec;
        spec.describe = [what] { return what; };
        spec.writes = true;
        refused.status = ClientPrivate::get(client)->admission(spec, {});
    }
    if (!refused.status) {
        refused.status = refused.status.withContext(what);
        finish(refused);
        return true;
    }
    job.start(QStringLiteral("qetcd-delete"), [finish, work = std::move(work), what, dryRun] {
        BulkDeleteResult result;
        result.dryRun = dryRun;
        work(&result);
        result.status = result.status.withContext(what);
        finish(result);
    });
    return true;
}

BulkDelete::BulkDelete(Client *client, QObject *parent)
    : QObject(parent), d(std::make_unique<BulkDeletePrivate>(this, client))
{
}

BulkDelete::~BulkDelete() = default;

bool BulkDelete::startPrefix(const QByteArray &prefix, bool dryRun)
{
    const Status refusal = prefix.isEmpty()
        ? Status(StatusCode::InvalidArgument, QStringLiteral("the prefix is empty: that is every key"))
        : Status();
    return d->start(QStringLiteral("delete of the keys under %1").arg(describeKey(prefix)), dryRun, refusal,
                    [dp = d.get(), prefix](BulkDeleteResult *result) { dp->runPrefix(prefix, result); });
}

bool BulkDelete::startKeys(const QList<QByteArray> &keys, bool dryRun)
{
    Status refusal;
    if (const qsizetype empty = keys.indexOf(QByteArray()); empty >= 0)
        refusal = Status(StatusCode::InvalidArgument, QStringLiteral("key %1 of the list is empty").arg(empty + 1));
    return d->start(QStringLiteral("delete of %1 keys").arg(keys.size()), dryRun, refusal,
                    [dp = d.get(), keys](BulkDeleteResult *result) { dp->runKeys(keys, result); });
}

void BulkDelete::cancel()
{
    if (d->running)
        d->job.cancel();
}

bool BulkDelete::isRunning() const
{
    return d->running;
}

} // namespace QEtcd
