// SPDX-License-Identifier: Apache-2.0
#include "keyimport.h"

#include "client.h"
#include "client_p.h"
#include "grpcconvert_p.h"
#include "keyfile_p.h"
#include "keyjob_p.h"
#include "logging_p.h"

#include <QtCore/QPointer>
#include <QtCore/QSet>

#include <optional>

namespace QEtcd {

using namespace Internal;

namespace {
enum class ImportAction : quint8 { Create, Overwrite, Unchanged };

// The file's keys in batches (KeyImport::maxTransactionKeys, maxTransactionBytes), the same
// in both passes.
struct ImportBatches
{
    KeyFileReader file;
    std::optional<KeyValue> carried;  // read, but too large for the batch before its own
};

// What the dry run learnt of one batch, kept for the writes: a few bytes per key.
struct ImportBatch
{
    size_t fingerprint = 0;  // of the batch's keys, values and leases, to notice a file changed
    qsizetype first = 0;     // its first key's index in actions and seen
};

size_t importFingerprint(const QList<KeyValue> &batch)
{
    size_t seed = 0;
    for (const KeyValue &kv : batch)
        seed = qHashMulti(seed, kv.key, kv.value, kv.lease);
    return seed;
}

} // namespace

class KeyImportPrivate
{
public:
    KeyImportPrivate(KeyImport *q, Client *client) : q(q), client(client), job(q) {}

    // On the job's thread.
    KeyImportResult run(const QString &fileName, const KeyImportOptions &options);

    // The file's next batch, keys rewritten; false at its end or on a fault (in *status).
    bool readBatch(ImportBatches &batches, const KeyImportOptions &options, QList<KeyValue> *batch, Status *status) const;
    Status check(const QList<KeyValue> &batch, const KeyImportOptions &options, KeyImportPlan *plan);
    Status write(const QList<KeyValue> &batch, qsizetype first, const KeyImportOptions &options, KeyImportResult *result);

    void progressed(qint64 done, qint64 total) const
    {
        job.report([q = q, done, total] { Q_EMIT q->progressed(done, total); });
    }

    KeyImport *q;
    QPointer<Client> client;
    QList<ImportAction> actions;
    QList<qint64> seen;  // each key's mod_revision as the dry run saw it; 0: absent
    bool started = false;
    bool running = false;
    // Last, so destroyed first: it waits for the job's thread, which uses the members above.
    KeyJobThread job;
};

bool KeyImportPrivate::readBatch(ImportBatches &batches, const KeyImportOptions &options, QList<KeyValue> *batch,
                                 Status *status) const
{
    batch->clear();
    qint64 bytes = 0;
    KeyValue kv;
    while (batch->size() < KeyImport::maxTransactionKeys) {
        if (batches.carried) {
            kv = std::move(*batches.carried);
            batches.carried.reset();
        } else if (batches.file.next(&kv)) {
            if (!options.rewriteFrom.isEmpty() || !options.rewriteTo.isEmpty()) {
                if (!kv.key.startsWith(options.rewriteFrom) || kv.key.size() == options.rewriteFrom.size()) {
                    *status = Status(StatusCode::InvalidArgument,
                                     QStringLiteral("entry %1: key %2 does not start with %3, the prefix to rewrite, or is nothing but it")
                                         .arg(batches.file.entries())
                                         .arg(describeKey(kv.key), describeKey(options.rewriteFrom)));
                    return false;
                }
                kv.key = options.rewriteTo + kv.key.mid(options.rewriteFrom.size());
            }
            if (!options.keepLeases)
                kv.lease = 0;
        } else {
            break;
        }
        const qint64 size = kv.key.size() + kv.value.size();
        if (!batch->isEmpty() && bytes + size > KeyImport::maxTransactionBytes) {
            batches.carried = std::move(kv);
            break;
        }
        bytes += size;
        batch->append(std::move(kv));
    }
    if (!batches.file.status()) {
        *status = batches.file.status();
        return false;
    }
    return !batch->isEmpty();
}

Status KeyImportPrivate::check(const QList<KeyValue> &batch, const KeyImportOptions &options, KeyImportPlan *plan)
{
    // One read-only transaction: every key of the batch at one revision.
    Txn read;
    QSet<QByteArray> keys;
    for (const KeyValue &kv : batch) {
        if (keys.contains(kv.key))
            return Status(StatusCode::InvalidArgument, QStringLiteral("key %1 comes twice").arg(describeKey(kv.key)));
        keys.insert(kv.key);
        read.success.append(TxnOp::range(kv.key));
    }
    const TxnResult now = KeyJobThread::await(client->txn(read));
    if (!now.status)
        return now.status;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        const KeyValue &wanted = batch[i];
        const QList<KeyValue> found = now.responses.value(i).range.kvs;
        ImportAction action = ImportAction::Create;
        QList<QByteArray> *sample = &plan->createSample;
        if (found.isEmpty()) {
            ++plan->creates;
        } else if (found.first().value == wanted.value && (!options.keepLeases || found.first().lease == wanted.lease)
                   && (options.keepLeases || found.first().lease == 0)) {
            action = ImportAction::Unchanged;
            sample = &plan->unchangedSample;
            ++plan->unchanged;
        } else {
            action = ImportAction::Overwrite;
            sample = &plan->overwriteSample;
            ++plan->overwrites;
        }
        if (sample->size() < KeyImportPlan::sampleSize)
            sample->append(wanted.key);
        actions.append(action);
        seen.append(found.isEmpty() ? 0 : found.first().modRevision);
    }
    return {};
}

Status KeyImportPrivate::write(const QList<KeyValue> &batch, qsizetype first, const KeyImportOptions &options,
                               KeyImportResult *result)
{
    Txn txn;
    RangeOptions keysOnly;
    keysOnly.keysOnly = true;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        if (actions[first + i] == ImportAction::Unchanged)
            continue;
        const KeyValue &kv = batch[i];
        // mod_revision 0 is etcd's for a key that does not exist: the same compare guards a create.
        txn.compares.append(Compare::modRevision(kv.key, CompareResult::Equal, seen[first + i]));
        PutOptions put;
        put.lease = options.keepLeases ? kv.lease : 0;
        txn.success.append(TxnOp::put(kv.key, kv.value, put));
        txn.failure.append(TxnOp::range(kv.key, keysOnly));
    }
    if (txn.success.isEmpty())
        return {};
    const TxnResult done = KeyJobThread::await(client->txn(txn));
    if (!done.status)
        return done.status;
    if (!done.succeeded) {
        for (qsizetype i = 0, op = 0; i < batch.size(); ++i) {
            if (actions[first + i] == ImportAction::Unchanged)
                continue;
            const QList<KeyValue> now = done.responses.value(op++).range.kvs;
            const qint64 modRevision = now.isEmpty() ? 0 : now.first().modRevision;
            const qint64 expected = seen[first + i];
            if (modRevision == expected)
                continue;
            const QString how = expected == 0 ? QStringLiteral("it appeared (mod_revision %1)").arg(modRevision)
                : modRevision == 0            ? QStringLiteral("it was deleted")
                                              : QStringLiteral("mod_revision %1, the dry run saw %2").arg(modRevision).arg(expected);
            return Status(StatusCode::FailedPrecondition,
                          QStringLiteral("key %1 changed since the dry run (%2): nothing of its transaction of %3 keys was written")
                              .arg(describeKey(batch[i].key), how)
                              .arg(txn.success.size()));
        }
        return Status(StatusCode::FailedPrecondition, QStringLiteral("a key changed since the dry run: nothing of a transaction of %1 keys was written")
                                                          .arg(txn.success.size()));
    }
    result->written += txn.success.size();
    ++result->transactions;
    result->revision = done.header.revision;
    return {};
}

KeyImportResult KeyImportPrivate::run(const QString &fileName, const KeyImportOptions &options)
{
    KeyImportResult result;
    result.fileName = fileName;
    result.dryRun = options.dryRun;
    const auto fail = [&](const Status &status) {
        result.status = status.withContext(QStringLiteral("import of %1").arg(fileName));
        if (!options.dryRun && result.written > 0) {
            result.status = Status(result.status.code(), result.status.message()
                                                             + QStringLiteral(" (%1 keys were written before, in %2 transactions)")
                                                                   .arg(result.written)
                                                                   .arg(result.transactions));
        }
        return result;
    };
    const auto cancelled = [] { return Status(StatusCode::Cancelled, QStringLiteral("cancelled")); };

    QList<ImportBatch> batches;
    {
        ImportBatches reader;
        if (const Status opened = reader.file.open(fileName); !opened)
            return fail(opened);
        QList<KeyValue> batch;
        Status status;
        while (readBatch(reader, options, &batch, &status)) {
            if (job.isCancelled())
                return fail(cancelled());
            batches.append({importFingerprint(batch), actions.size()});
            if (const Status checked = check(batch, options, &result.plan); !checked)
                return fail(checked);
            progressed(reader.file.entries(), 0);
        }
        if (!status)
            return fail(status);
    }
    job.report([q = q, plan = result.plan] { Q_EMIT q->planned(plan); });
    if (options.dryRun || result.plan.toWrite() == 0)
        return result;

    ImportBatches reader;
    if (const Status opened = reader.file.open(fileName); !opened)
        return fail(opened);
    QList<KeyValue> batch;
    Status status;
    // The writes read the file again, batch by batch: it must be the one the dry run read.
    const auto fileChanged = [&] {
        return fail(status ? Status(StatusCode::Aborted, QStringLiteral("the file changed since the dry run")) : status);
    };
    for (const ImportBatch &planned : std::as_const(batches)) {
        if (job.isCancelled())
            return fail(cancelled());
        if (!readBatch(reader, options, &batch, &status) || importFingerprint(batch) != planned.fingerprint)
            return fileChanged();
        if (const Status written = write(batch, planned.first, options, &result); !written)
            return fail(written);
        progressed(result.written, result.plan.toWrite());
    }
    if (readBatch(reader, options, &batch, &status) || !status)
        return fileChanged();
    qCInfo(lcTransport).noquote() << "imported" << result.written << "keys from" << fileName << "in" << result.transactions
                                  << "transactions";
    return result;
}

KeyImport::KeyImport(Client *client, QObject *parent)
    : QObject(parent), d(std::make_unique<KeyImportPrivate>(this, client))
{
}

KeyImport::~KeyImport() = default;

bool KeyImport::start(const QString &fileName, const KeyImportOptions &options)
{
    if (d->started) {
        qCWarning(lcTransport) << "KeyImport::start: an import runs once; make another for the next";
        return false;
    }
    d->started = true;
    d->running = true;
    Q_EMIT runningChanged(true);
    KeyImportPrivate *dp = d.get();
    const auto finish = [this, dp](const KeyImportResult &result) {
        dp->job.report([this, dp, result] {
            dp->running = false;
            Q_EMIT runningChanged(false);
            Q_EMIT finished(result);
        });
    };
    KeyImportResult refused;
    refused.fileName = fileName;
    refused.dryRun = options.dryRun;
    if (!d->client) {
        refused.status = Status(StatusCode::Closed, QStringLiteral("import: the client is gone"));
    } else if (!options.dryRun) {
        // The client's own refusal of a write, before the dry run sends anything.
        CallSpec spec;
        spec.describe = [fileName] { return QStringLiteral("import of %1").arg(fileName); };
        spec.writes = true;
        refused.status = ClientPrivate::get(d->client)->admission(spec, {});
    }
    if (!refused.status) {
        finish(refused);
        return true;
    }
    d->job.start(QStringLiteral("qetcd-import"), [dp, finish, fileName, options] { finish(dp->run(fileName, options)); });
    return true;
}

void KeyImport::cancel()
{
    if (d->running)
        d->job.cancel();
}

bool KeyImport::isRunning() const
{
    return d->running;
}

} // namespace QEtcd
