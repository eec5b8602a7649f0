// SPDX-License-Identifier: Apache-2.0
#include "distributedmutex.h"

#include "client.h"
#include "continuation_p.h"
#include "fencing_p.h"
#include "holdqueue_p.h"
#include "threadholds_p.h"
#include "threading_p.h"
#include "waiting_p.h"

namespace QEtcd {

using namespace Internal;

namespace {
constexpr int Exclusive = 0;  // the mutex's only kind of hold
} // namespace

// etcd's lock: the entry is named after its lease and the oldest entry holds. A waiter waits
// for every entry ahead of its own to be deleted, learnt from the queue's departures.
class DistributedMutexPrivate : public HoldQueue
{
public:
    DistributedMutexPrivate(DistributedMutex *q, const QByteArray &path, const LockOptions &options)
        : HoldQueue(q, path, options.interruptOnLockLoss), q(q), prefix(path + '/')
    {
        holdsStandAlone = true;
    }

    // --- any thread -----------------------------------------------------------------------
    QFuture<Status> lockAsync(std::chrono::milliseconds timeout, std::shared_ptr<QueuedAttempt> *started)
    {
        if (Status refused = beginAttempt(); !refused)
            return QtFuture::makeReadyFuture(refused);
        if (holds.reenter(Exclusive))
            return QtFuture::makeReadyFuture(Status());
        auto attempt = std::make_shared<QueuedAttempt>();
        attempt->requester = QThread::currentThread();
        if (Status refused = beginThreadAttempt(*attempt); !refused)
            return QtFuture::makeReadyFuture(refused);
        *started = attempt;
        return submit(attempt, timeout);
    }

    // --- dispatcher thread ----------------------------------------------------------------
    QByteArray entryKey(const QueuedAttempt &attempt) const override
    {
        return prefix + QByteArray::number(attempt.lease->leaseId(), 16);
    }

    QByteArray entryValue(const QueuedAttempt &) const override
    {
        return identityValue(options.clientId, QStringLiteral("lock"));
    }

    QList<TxnOp> lookAhead(const QueuedAttempt &attempt) const override
    {
        return {TxnOp::range(prefix, ahead(attempt, entriesAheadFollowed))};
    }

    Turn turn(QueuedAttempt &, const QList<TxnOpResult> &ahead) override { return Turn::afterNearest(ahead); }

    void publish(const std::shared_ptr<QueuedHold> &hold) override
    {
        holds.insert(hold);
        if (!q)
            return;
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         QStringLiteral("acquired %1 (fencing token %2)").arg(QString::fromUtf8(hold->key)).arg(hold->revision));
        Q_EMIT q->acquired(hold->revision, hold->key);
    }

    void withdraw(const std::shared_ptr<QueuedHold> &hold) override { holds.remove(hold); }

    void announceLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause) override
    {
        if (!q)
            return;
        q->recordError(QStringLiteral("hold ") + QString::fromUtf8(hold->key), cause);
        Q_EMIT q->lockLost(cause);
    }

    void announceRelease(const std::shared_ptr<QueuedHold> &hold) override
    {
        if (q)
            Q_EMIT q->released(hold->revision);
    }

    Recipe *recipe() const override { return q; }

    QByteArray departuresPrefix() const override { return prefix; }

    DistributedMutex *q;
    const QByteArray prefix;
    ThreadHolds holds{this};
};

DistributedMutex::DistributedMutex(Client *client, const QByteArray &path, const LockOptions &options,
                                   QObject *parent)
    : Recipe(client, QStringLiteral("DistributedMutex"), path, options, parent),
      d(std::make_unique<DistributedMutexPrivate>(this, path, options))
{
}

DistributedMutex::~DistributedMutex()
{
    close();
    DistributedMutexPrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QByteArray DistributedMutex::path() const
{
    return d->path;
}

QFuture<Status> DistributedMutex::lockAsync(std::chrono::milliseconds timeout)
{
    std::shared_ptr<QueuedAttempt> attempt;
    return d->lockAsync(timeout, &attempt);
}

Status DistributedMutex::lock(std::chrono::milliseconds timeout)
{
    std::shared_ptr<QueuedAttempt> attempt;
    const QFuture<Status> future = d->lockAsync(timeout, &attempt);
    return d->await(attempt, future, stopToken(), context() + QStringLiteral(": lock"));
}

bool DistributedMutex::tryLock(std::chrono::milliseconds timeout)
{
    return lock(timeout).isOk();
}

bool DistributedMutex::unlock()
{
    return d->holds.unlock(Exclusive, QStringLiteral("unlock()"));
}

bool DistributedMutex::isHeldByCurrentThread() const
{
    return d->holds.isHeld(Exclusive);
}

int DistributedMutex::holdCount() const
{
    return d->holds.holdCount(Exclusive);
}

QFuture<bool> DistributedMutex::isLocked() const
{
    RangeOptions countOnly;
    countOnly.range = KeyRange::prefix();
    countOnly.countOnly = true;
    return after(client()->get(d->prefix, countOnly), [](const RangeResult &result) { return result.count > 0; });
}

qint64 DistributedMutex::fencingToken() const
{
    return d->holds.fencingToken(Exclusive);
}

QByteArray DistributedMutex::holdKey() const
{
    return d->holds.holdKey(Exclusive);
}

qint64 DistributedMutex::leaseId() const
{
    return d->holds.leaseId(Exclusive);
}

Compare DistributedMutex::ownershipCompare() const
{
    return ownershipGuards(d->holds.of(Exclusive), d->prefix).first();
}

StopToken DistributedMutex::stopToken() const
{
    return d->holds.stopToken(Exclusive);
}

QFuture<TxnResult> DistributedMutex::guardedTxn(const Txn &txn)
{
    return Internal::guardedTxn(client(), ownershipGuards(d->holds.of(Exclusive), d->prefix), txn, context());
}

QFuture<Status> DistributedMutex::guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options)
{
    return Internal::guardedPut(client(), ownershipGuards(d->holds.of(Exclusive), d->prefix), key, value, options,
                                context());
}

void DistributedMutex::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(priv->holds.all()); });
}

} // namespace QEtcd
