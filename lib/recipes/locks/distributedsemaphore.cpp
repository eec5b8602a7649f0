// SPDX-License-Identifier: Apache-2.0
#include "distributedsemaphore.h"

#include "client.h"
#include "continuation_p.h"
#include "fencing_p.h"
#include "holdqueue_p.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QDebug>
#include <QtCore/QMutex>
#include <QtCore/QtEndian>

#include <optional>

namespace QEtcd {

using namespace Internal;

class DistributedSemaphorePrivate : public HoldQueue
{
public:
    DistributedSemaphorePrivate(DistributedSemaphore *q, const QByteArray &path, int permits,
                                const SemaphoreOptions &options)
        : HoldQueue(q, path, options.interruptOnPermitLoss), q(q), permitsKey(path + "/permits"),
          holdersPrefix(path + "/holders/"), permits(permits)
    {
        holdsStandAlone = true;
    }

    // --- any thread -----------------------------------------------------------------------
    Status usable() const
    {
        if (Status status = q->validate(); !status)
            return status;
        if (path.isEmpty())
            return Status(StatusCode::InvalidArgument, context + QStringLiteral(": path is empty"));
        if (permits < 1)
            return Status(StatusCode::InvalidArgument,
                          context + QStringLiteral(": permits must be at least 1 (got %1)").arg(permits));
        return {};
    }

    QFuture<Status> acquireAsync(std::chrono::milliseconds timeout, std::shared_ptr<QueuedAttempt> *started)
    {
        if (Status status = usable(); !status)
            return QtFuture::makeReadyFuture(status);
        if (Status refused = beginAttempt(); !refused)
            return QtFuture::makeReadyFuture(refused);
        auto attempt = std::make_shared<QueuedAttempt>();
        attempt->requester = QThread::currentThread();
        *started = attempt;
        return submit(attempt, timeout);
    }

    // Whoever comes first stores the count; everyone else must agree with it. Asked once per
    // instance: only an answer from etcd is kept, an error is asked again next time.
    QFuture<Status> checkPermits()
    {
        {
            QMutexLocker locker(&mutex);
            if (verdict)
                return QtFuture::makeReadyFuture(*verdict);
        }
        QByteArray encoded(4, '\0');
        qToBigEndian<qint32>(permits, encoded.data());
        Txn txn;
        txn.compares = {Compare::absent(permitsKey)};
        txn.success = {TxnOp::put(permitsKey, encoded)};
        txn.failure = {TxnOp::range(permitsKey)};
        const auto gone = [closed = Status(StatusCode::Closed, context + QStringLiteral(": closed"))](
                              const TxnResult &) { return closed; };
        return thenOn(client->txn(txn), this, [this](const TxnResult &result) {
            if (!result.status)
                return result.status;
            Status answer;
            if (!result.succeeded) {
                const QByteArray stored = result.responses.value(0).range.kvs.value(0).value;
                if (stored.size() != 4) {
                    answer = Status(StatusCode::Mismatch,
                                    context + QStringLiteral(": %1 holds %2 bytes, not a 4-byte big-endian permit count")
                                        .arg(QString::fromUtf8(permitsKey))
                                        .arg(stored.size()));
                } else if (const qint32 canonical = qFromBigEndian<qint32>(stored.constData()); canonical != permits) {
                    answer = Status(StatusCode::Mismatch,
                                    context + QStringLiteral(": this instance asks for %1 permits, but %2 says %3")
                                        .arg(permits)
                                        .arg(QString::fromUtf8(permitsKey))
                                        .arg(canonical));
                }
            }
            QMutexLocker locker(&mutex);
            verdict = answer;
            return answer;
        }, gone);
    }

    // The permit release() gives back: the most recent one still held, else the most recent.
    qsizetype topIndex() const
    {
        for (qsizetype i = stack.size() - 1; i >= 0; --i) {
            if (stack[i]->isValid())
                return i;
        }
        return stack.size() - 1;
    }

    std::shared_ptr<QueuedHold> top() const
    {
        QMutexLocker locker(&mutex);
        const qsizetype index = topIndex();
        return index >= 0 ? stack[index] : nullptr;
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void prepare(std::shared_ptr<QueuedAttempt> attempt) override
    {
        thenOn(checkPermits(), this, [this, attempt](const Status &agreed) {
            if (stopped(attempt))
                return;
            if (!agreed)
                return finish(attempt, agreed);
            enqueue(attempt);
        });
    }

    QByteArray entryKey(const QueuedAttempt &) const override { return holdersPrefix + uniqueToken(options.clientId); }

    // In while fewer than `permits` entries were created before ours. Any of them may go
    // first, so the wait is on the whole prefix.
    QList<TxnOp> lookAhead(const QueuedAttempt &attempt) const override
    {
        return {TxnOp::range(holdersPrefix, ahead(attempt, permits))};
    }

    Turn turn(QueuedAttempt &, const QList<TxnOpResult> &ahead) override
    {
        return ahead.value(0).range.kvs.size() < permits ? Turn::admitted() : Turn::afterAnyUnder(holdersPrefix);
    }

    void publish(const std::shared_ptr<QueuedHold> &hold) override
    {
        {
            QMutexLocker locker(&mutex);
            stack.append(hold);
        }
        if (!q)
            return;
        q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("acquired a permit: %1 (fencing token %2)")
                                                                 .arg(QString::fromUtf8(hold->key))
                                                                 .arg(hold->revision));
        Q_EMIT q->acquired(hold->revision, hold->key);
    }

    void withdraw(const std::shared_ptr<QueuedHold> &hold) override
    {
        QMutexLocker locker(&mutex);
        stack.removeOne(hold);
    }

    void announceLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause) override
    {
        if (!q)
            return;
        q->recordError(QStringLiteral("permit ") + QString::fromUtf8(hold->key), cause);
        Q_EMIT q->permitLost(cause);
    }

    void announceRelease(const std::shared_ptr<QueuedHold> &hold) override
    {
        if (q)
            Q_EMIT q->released(hold->revision);
    }

    Recipe *recipe() const override { return q; }
    QByteArray entriesPrefix() const override { return holdersPrefix; }

    QList<std::shared_ptr<QueuedHold>> allHolds() const
    {
        QMutexLocker locker(&mutex);
        return stack;
    }

    DistributedSemaphore *q;
    const QByteArray permitsKey;
    const QByteArray holdersPrefix;
    const int permits;

    mutable QMutex mutex;
    QList<std::shared_ptr<QueuedHold>> stack;  // oldest first; guarded by mutex
    std::optional<Status> verdict;  // guarded by mutex
};

DistributedSemaphore::DistributedSemaphore(Client *client, const QByteArray &path, int permits,
                                           const SemaphoreOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("DistributedSemaphore"), path, options, parent),
      d(std::make_unique<DistributedSemaphorePrivate>(this, path, permits, options))
{
}

DistributedSemaphore::~DistributedSemaphore()
{
    close();
    DistributedSemaphorePrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QByteArray DistributedSemaphore::path() const
{
    return d->path;
}

int DistributedSemaphore::permits() const
{
    return d->permits;
}

QFuture<Status> DistributedSemaphore::acquireAsync(std::chrono::milliseconds timeout)
{
    std::shared_ptr<QueuedAttempt> attempt;
    return d->acquireAsync(timeout, &attempt);
}

Status DistributedSemaphore::acquire(std::chrono::milliseconds timeout)
{
    std::shared_ptr<QueuedAttempt> attempt;
    const QFuture<Status> future = d->acquireAsync(timeout, &attempt);
    return d->await(attempt, future, StopToken(), context() + QStringLiteral(": acquire"));
}

bool DistributedSemaphore::tryAcquire(std::chrono::milliseconds timeout)
{
    return acquire(timeout).isOk();
}

bool DistributedSemaphore::release()
{
    std::shared_ptr<QueuedHold> hold;
    {
        QMutexLocker locker(&d->mutex);
        if (const qsizetype index = d->topIndex(); index >= 0)
            hold = d->stack.takeAt(index);
    }
    if (!hold) {
        qWarning().noquote() << context() << "release() without a permit";
        return false;
    }
    return d->giveBack(hold);
}

int DistributedSemaphore::heldPermits() const
{
    QMutexLocker locker(&d->mutex);
    return int(std::count_if(d->stack.cbegin(), d->stack.cend(), [](const auto &hold) { return hold->isValid(); }));
}

QFuture<AvailablePermitsResult> DistributedSemaphore::availablePermits() const
{
    if (Status status = d->usable(); !status) {
        AvailablePermitsResult refused;
        refused.status = status;
        return QtFuture::makeReadyFuture(refused);
    }
    DistributedSemaphorePrivate *priv = d.get();
    const auto refuse = [](const Status &why) {
        AvailablePermitsResult refused;
        refused.status = why;
        return QtFuture::makeReadyFuture(refused);
    };
    const auto gone = [refuse, closed = Status(StatusCode::Closed, context() + QStringLiteral(": closed"))](
                          const Status &) { return refuse(closed); };
    return thenOn(d->checkPermits(), priv, [priv, refuse](const Status &agreed) {
            if (!agreed)
                return refuse(agreed);
            RangeOptions count;
            count.range = KeyRange::prefix();
            count.countOnly = true;
            return after(priv->client->get(priv->holdersPrefix, count), [permits = priv->permits](const RangeResult &taken) {
                AvailablePermitsResult result;
                result.status = taken.status;
                result.header = taken.header;
                result.permits = permits;
                result.available = taken.status ? int(std::max<qint64>(0, permits - taken.count)) : 0;
                return result;
            });
        }, gone);
}

qint64 DistributedSemaphore::fencingToken() const
{
    const auto hold = d->top();
    return hold ? hold->revision : 0;
}

QByteArray DistributedSemaphore::holdKey() const
{
    const auto hold = d->top();
    return hold ? hold->key : QByteArray();
}

qint64 DistributedSemaphore::leaseId() const
{
    const auto hold = d->top();
    return hold ? hold->lease->leaseId() : -1;
}

Compare DistributedSemaphore::ownershipCompare() const
{
    return ownershipGuards(d->top(), d->holdersPrefix).first();
}

StopToken DistributedSemaphore::stopToken() const
{
    const auto hold = d->top();
    return hold ? hold->stop.token() : StopToken();
}

QFuture<TxnResult> DistributedSemaphore::guardedTxn(const Txn &txn)
{
    return Internal::guardedTxn(client(), ownershipGuards(d->top(), d->holdersPrefix), txn, context());
}

QFuture<Status> DistributedSemaphore::guardedPut(const QByteArray &key, const QByteArray &value,
                                                 const PutOptions &options)
{
    return Internal::guardedPut(client(), ownershipGuards(d->top(), d->holdersPrefix), key, value, options, context());
}

void DistributedSemaphore::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(priv->allHolds()); });
}

} // namespace QEtcd
