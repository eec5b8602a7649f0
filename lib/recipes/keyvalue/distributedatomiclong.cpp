// SPDX-License-Identifier: Apache-2.0
#include "distributedatomiclong.h"

#include "blockingwait_p.h"
#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "threading_p.h"

#include <QtCore/QPromise>
#include <QtCore/QTimer>
#include <QtCore/QtEndian>

#include <limits>

namespace QEtcd {

using namespace Internal;

namespace {
QByteArray encode(qint64 value)
{
    QByteArray bytes(sizeof(qint64), Qt::Uninitialized);
    qToBigEndian(value, bytes.data());
    return bytes;
}

std::optional<qint64> decode(const QByteArray &bytes)
{
    if (bytes.size() != sizeof(qint64))
        return std::nullopt;
    return qFromBigEndian<qint64>(bytes.constData());
}

// One call in flight, driven on the dispatcher thread.
struct Change
{
    enum class Kind { Get, Add, CompareAndSet };
    Kind kind = Kind::Get;
    qint64 operand = 0;  // Add: the delta; CompareAndSet: the new value
    qint64 expected = 0;
    std::shared_ptr<QPromise<AtomicLongResult>> promise = std::make_shared<QPromise<AtomicLongResult>>();
    int conflicts = 0;
    std::chrono::steady_clock::time_point firstConflict;
    bool finished = false;
};
} // namespace

class DistributedAtomicLongPrivate : public QObject
{
public:
    DistributedAtomicLongPrivate(DistributedAtomicLong *q, Client *client, const QByteArray &path,
                                 const AtomicLongOptions &options)
        : q(q), client(client), path(path), options(options), context(q->context())
    {
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    // --- any thread -----------------------------------------------------------------------
    Status admit()
    {
        if (Status status = q->validate(); !status)
            return status;
        if (!options.casRetry.isValid())
            return options.casRetry.validation().withContext(context);
        if (path.isEmpty())
            return Status(StatusCode::InvalidArgument, context + QStringLiteral(": path is empty"));
        if (q->isClosed())
            return Status(StatusCode::Closed, context + QStringLiteral(": closed"));
        q->beginStart();
        return {};
    }

    QFuture<AtomicLongResult> start(std::shared_ptr<Change> change)
    {
        if (Status refused = admit(); !refused)
            return QtFuture::makeReadyFuture(failure(refused));
        change->promise->start();
        QMetaObject::invokeMethod(this, [this, change] { begin(change); }, Qt::QueuedConnection);
        return change->promise->future();
    }

    static AtomicLongResult failure(const Status &status)
    {
        AtomicLongResult result;
        result.status = status;
        return result;
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void begin(std::shared_ptr<Change> change)
    {
        if (closing)
            return finish(change, failure(Status(StatusCode::Cancelled, context + QStringLiteral(": closed"))));
        changes.append(change);
        if (created)
            return read(change);
        // The reference's lazy start(): whoever touches the counter first creates it.
        Txn create;
        create.compares = {Compare::absent(path)};
        create.success = {TxnOp::put(path, encode(options.defaultValue)), TxnOp::range(path)};
        create.failure = {TxnOp::range(path)};
        thenOn(client->txn(create, options.resilience.rpc), this, [this, change](const TxnResult &result) {
            if (change->finished)
                return;
            if (!result.status)
                return finish(change, failure(result.status));
            created = true;
            apply(change, result.responses.last().range.kvs.value(0), result.header);
        });
    }

    void read(std::shared_ptr<Change> change)
    {
        thenOn(client->get(path, {}, options.resilience.rpc), this, [this, change](const RangeResult &result) {
            if (change->finished)
                return;
            if (!result.status)
                return finish(change, failure(result.status));
            apply(change, result.kvs.value(0), result.header);
        });
    }

    void apply(std::shared_ptr<Change> change, const KeyValue &kv, const ResponseHeader &header)
    {
        if (kv.key.isEmpty())
            return finish(change, failure(Status(StatusCode::NotFound,
                                                 context + QStringLiteral(": the counter was deleted"))));
        const std::optional<qint64> value = decode(kv.value);
        if (!value)
            return finish(change, failure(Status(StatusCode::FailedPrecondition,
                                                 context + QStringLiteral(": holds %1 bytes, not an 8-byte "
                                                                          "big-endian integer")
                                                               .arg(kv.value.size()))));
        AtomicLongResult now;
        now.header = header;
        now.value = *value;
        switch (change->kind) {
        case Change::Kind::Get:
            return finish(change, now);
        case Change::Kind::Add:
            // The reference's Java long wraps around: a sequence number would turn negative, or
            // repeat, without anyone being told.
            if (change->operand > 0 ? *value > std::numeric_limits<qint64>::max() - change->operand
                                    : *value < std::numeric_limits<qint64>::min() - change->operand) {
                now.status = Status(StatusCode::OutOfRange,
                                    context + QStringLiteral(": adding %1 to %2 would go past a 64-bit integer; "
                                                             "nothing written")
                                                  .arg(change->operand)
                                                  .arg(*value));
                return finish(change, now);
            }
            return commit(change, kv, *value + change->operand);
        case Change::Kind::CompareAndSet:
            if (*value != change->expected) {
                now.status = Status(StatusCode::Mismatch,
                                    context + QStringLiteral(": holds %1, not %2").arg(*value).arg(change->expected));
                return finish(change, now);
            }
            return commit(change, kv, change->operand);
        }
    }

    void commit(std::shared_ptr<Change> change, const KeyValue &seen, qint64 next)
    {
        Txn txn;
        txn.compares = {Compare::modRevision(path, CompareResult::Equal, seen.modRevision)};
        txn.success = {TxnOp::put(path, encode(next))};
        txn.failure = {TxnOp::range(path)};
        thenOn(client->txn(txn, options.resilience.rpc), this, [this, change, next](const TxnResult &result) {
            if (change->finished)
                return;
            if (!result.status)
                return finish(change, failure(result.status));
            if (result.succeeded) {
                AtomicLongResult committed;
                committed.header = result.header;
                committed.value = next;
                return finish(change, committed);
            }
            retry(change, result.responses.value(0).range.kvs.value(0), result.header);
        });
    }

    // A concurrent change got in first. The failed compare read what it wrote, so the first
    // retry goes at once; later ones wait out casRetry's delay and then read afresh, since what
    // was read before the wait is as stale as the wait is long under contention.
    void retry(std::shared_ptr<Change> change, const KeyValue &kv, const ResponseHeader &header)
    {
        const auto now = std::chrono::steady_clock::now();
        if (change->conflicts++ == 0)
            change->firstConflict = now;
        const auto delay = options.casRetry.nextDelay(
            change->conflicts, std::chrono::duration_cast<std::chrono::milliseconds>(now - change->firstConflict));
        if (!delay)
            return finish(change, failure(Status(StatusCode::RetriesExhausted,
                                                 context + QStringLiteral(": lost the compare-and-set %1 times to "
                                                                          "concurrent changes")
                                                               .arg(change->conflicts))));
        if (change->conflicts == 1)
            return apply(change, kv, header);
        QTimer::singleShot(*delay, this, [this, change] {
            if (!change->finished)
                read(change);
        });
    }

    void finish(const std::shared_ptr<Change> &change, const AtomicLongResult &result)
    {
        if (std::exchange(change->finished, true))
            return;
        changes.removeOne(change);
        change->promise->addResult(result);
        change->promise->finish();
    }

    void shutDown()
    {
        closing = true;
        for (const auto &change : QList(changes))
            finish(change, failure(Status(StatusCode::Cancelled, context + QStringLiteral(": closed"))));
    }

    DistributedAtomicLong *q;
    Client *client;
    const QByteArray path;
    const AtomicLongOptions options;
    const QString context;

    // dispatcher thread only
    QList<std::shared_ptr<Change>> changes;
    bool created = false;
    bool closing = false;
};

namespace {
std::shared_ptr<Change> makeChange(Change::Kind kind, qint64 operand = 0, qint64 expected = 0)
{
    auto change = std::make_shared<Change>();
    change->kind = kind;
    change->operand = operand;
    change->expected = expected;
    return change;
}
} // namespace

DistributedAtomicLong::DistributedAtomicLong(Client *client, const QByteArray &path, const AtomicLongOptions &options,
                                             QObject *parent)
    : Recipe(client, QStringLiteral("DistributedAtomicLong"), path, options, parent),
      d(std::make_unique<DistributedAtomicLongPrivate>(this, client, path, options))
{
}

DistributedAtomicLong::~DistributedAtomicLong()
{
    close();
    DistributedAtomicLongPrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QByteArray DistributedAtomicLong::path() const
{
    return d->path;
}

QFuture<AtomicLongResult> DistributedAtomicLong::getAsync()
{
    return d->start(makeChange(Change::Kind::Get));
}

QFuture<AtomicLongResult> DistributedAtomicLong::addAsync(qint64 delta)
{
    return d->start(makeChange(Change::Kind::Add, delta));
}

QFuture<AtomicLongResult> DistributedAtomicLong::incrementAsync()
{
    return addAsync(1);
}

QFuture<AtomicLongResult> DistributedAtomicLong::decrementAsync()
{
    return addAsync(-1);
}

QFuture<AtomicLongResult> DistributedAtomicLong::compareAndSetAsync(qint64 expected, qint64 newValue)
{
    return d->start(makeChange(Change::Kind::CompareAndSet, newValue, expected));
}

namespace {
// Interrupted, the change is abandoned before its next attempt; one already sent may land.
AtomicLongResult await(DistributedAtomicLongPrivate *priv, const std::shared_ptr<Change> &change,
                       const QString &what)
{
    const QFuture<AtomicLongResult> future = priv->start(change);
    const Status waited = waitBlocking(priv->client, future, QDeadlineTimer::Forever, StopToken(), what);
    if (waited)
        return future.result();
    QMetaObject::invokeMethod(priv, [priv, change, waited] { priv->finish(change, priv->failure(waited)); },
                              Qt::QueuedConnection);
    return DistributedAtomicLongPrivate::failure(waited);
}
} // namespace

AtomicLongResult DistributedAtomicLong::get()
{
    return await(d.get(), makeChange(Change::Kind::Get), context() + QStringLiteral(": get"));
}

AtomicLongResult DistributedAtomicLong::add(qint64 delta)
{
    return await(d.get(), makeChange(Change::Kind::Add, delta), context() + QStringLiteral(": add"));
}

AtomicLongResult DistributedAtomicLong::increment()
{
    return add(1);
}

AtomicLongResult DistributedAtomicLong::decrement()
{
    return add(-1);
}

AtomicLongResult DistributedAtomicLong::compareAndSet(qint64 expected, qint64 newValue)
{
    return await(d.get(), makeChange(Change::Kind::CompareAndSet, newValue, expected),
                 context() + QStringLiteral(": compareAndSet"));
}

void DistributedAtomicLong::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
