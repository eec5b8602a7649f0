#include "distributedmutex.h"

#include "blockingwait_p.h"
#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "exclusivitylease.h"
#include "fencing_p.h"
#include "grpcconvert_p.h"
#include "lossinterruption_p.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QPromise>
#include <QtCore/QTimer>

namespace QEtcd {

using namespace Internal;

namespace {
// One thread's hold. The lease's own atomics make validity readable from any thread.
struct Hold
{
    QThread *owner = nullptr;
    std::unique_ptr<ExclusivityLease> lease;
    QByteArray key;
    qint64 revision = 0;
    int count = 1;
    int source = -1;
    std::atomic<bool> lost{false};
    bool released = false;  // dispatcher thread
    StopSource stop;
    LossInterruption interruption;  // armed with interruptOnLockLoss until the owner lets go
    // Set by the lock() that won it and gave up waiting first: it is on its way back.
    std::shared_ptr<std::atomic<bool>> givenBack = std::make_shared<std::atomic<bool>>(false);

    // Any thread: not lost, and the lease's deadline still ahead. The deadline is known here
    // before the loss has made its way through the dispatcher thread.
    bool isValid() const { return !lost && lease->isValid(); }
};

// One acquisition in flight, driven on the dispatcher thread.
struct Attempt
{
    QThread *requester = nullptr;
    std::shared_ptr<QPromise<Status>> promise = std::make_shared<QPromise<Status>>();
    StopSource stop;
    Status stopReason;  // why stop was requested
    std::unique_ptr<ExclusivityLease> lease;
    QByteArray key;
    qint64 revision = 0;
    std::unique_ptr<QTimer> deadline;
    bool done = false;  // the promise has finished
    // The requester stopped waiting: a hold won anyway is given back, and never its own.
    std::shared_ptr<std::atomic<bool>> givenBack = std::make_shared<std::atomic<bool>>(false);
    std::weak_ptr<Hold> won;
};
} // namespace

class DistributedMutexPrivate : public QObject
{
public:
    DistributedMutexPrivate(DistributedMutex *q, Client *client, const QByteArray &path, const LockOptions &options)
        : q(q), client(client), path(path), prefix(path + '/'), options(options)
    {
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    // --- any thread -----------------------------------------------------------------------
    std::shared_ptr<Hold> holdOf(QThread *thread) const
    {
        QMutexLocker locker(&mutex);
        auto hold = holds.value(thread);
        return hold && !hold->givenBack->load() ? hold : nullptr;
    }

    QFuture<Status> startAttempt(std::chrono::milliseconds timeout, std::shared_ptr<Attempt> *started)
    {
        if (Status status = q->validate(); !status)
            return QtFuture::makeReadyFuture(status);
        if (path.isEmpty())
            return QtFuture::makeReadyFuture(
                Status(StatusCode::InvalidArgument, q->context() + QStringLiteral(": path is empty")));
        if (q->isClosed())
            return QtFuture::makeReadyFuture(Status(StatusCode::Closed, q->context() + QStringLiteral(": closed")));
        q->beginStart();
        if (auto hold = holdOf(QThread::currentThread()); hold && hold->isValid()) {
            ++hold->count;
            return QtFuture::makeReadyFuture(Status());
        }
        auto attempt = std::make_shared<Attempt>();
        attempt->requester = QThread::currentThread();
        attempt->promise->start();
        *started = attempt;
        QMetaObject::invokeMethod(this, [this, attempt, timeout] { begin(attempt, timeout); }, Qt::QueuedConnection);
        return attempt->promise->future();
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void giveBack(const std::shared_ptr<Attempt> &attempt)
    {
        const auto hold = attempt->won.lock();
        if (!hold)
            return;
        {
            QMutexLocker locker(&mutex);
            if (holds.value(hold->owner) == hold)
                holds.remove(hold->owner);
        }
        release(hold);
    }

    void begin(std::shared_ptr<Attempt> attempt, std::chrono::milliseconds timeout)
    {
        attempts.append(attempt);
        if (timeout != DistributedMutex::WaitForever) {
            attempt->deadline = makeDeadlineTimer();
            connect(attempt->deadline.get(), &QTimer::timeout, this, [this, attempt] {
                stopAttempt(attempt, Status(StatusCode::DeadlineExceeded,
                                            q->context() + QStringLiteral(": not acquired in time")));
            });
            attempt->deadline->start(timeout);
        }
        enqueue(attempt);
    }

    // A deadline, close() or an interruption ends the attempt at once, even with an RPC in
    // flight; a lost lease only ends the current round, and the attempt queues again.
    void stopAttempt(const std::shared_ptr<Attempt> &attempt, const Status &why)
    {
        if (!attempt || attempt->done)
            return;
        if (why.code() != StatusCode::LeaseLost)
            finish(attempt, why);
        else if (attempt->stopReason.isOk())
            attempt->stopReason = why;
        attempt->stop.requestStop();
    }

    // Every continuation asks this first: the attempt may have ended, or its round been cut,
    // while the answer was on its way.
    bool stopped(const std::shared_ptr<Attempt> &attempt)
    {
        if (attempt->done) {
            if (attempt->lease)
                attempt->lease->release();  // granted after the attempt ended
            return true;
        }
        if (!attempt->stop.stopRequested())
            return false;
        requeue(attempt, attempt->stopReason.message());
        return true;
    }

    void enqueue(std::shared_ptr<Attempt> attempt)
    {
        if (stopped(attempt))
            return;
        if (!releasing.isEmpty() && !spareLease) {
            // Our last hold's delete is on its way: its lease is the cheapest way back into the
            // queue, and waiting for it costs no more than granting a new one.
            awaitingSpare.append(attempt);
            return;
        }
        if (takeSpareLease(attempt))
            return joinQueue(attempt);
        attempt->lease = std::make_unique<ExclusivityLease>(client, options.ttlSeconds);
        watchLease(attempt);
        thenOn(attempt->lease->grant(), this, [this, attempt](const Status &granted) {
            if (stopped(attempt))
                return;
            if (!granted)
                return finish(attempt, granted);
            joinQueue(attempt);
        });
    }

    void watchLease(const std::shared_ptr<Attempt> &attempt)
    {
        // Losing the lease while queued means our key is gone: stop waiting and queue again.
        connect(attempt->lease.get(), &ExclusivityLease::lost, this, [this, weak = std::weak_ptr(attempt)] {
            if (auto attempt = weak.lock())
                stopAttempt(attempt, Status(StatusCode::LeaseLost, QStringLiteral("lease lost while queued")));
        });
    }

    // One transaction queues us and names our predecessor: sorted newest first, the range after
    // our put sees our own key, then the one created just before it.
    void joinQueue(std::shared_ptr<Attempt> attempt)
    {
        attempt->key = prefix + QByteArray::number(attempt->lease->leaseId(), 16);
        PutOptions onLease;
        onLease.lease = attempt->lease->leaseId();
        Txn txn;
        txn.compares = {Compare::createRevision(attempt->key, CompareResult::Equal, 0)};
        txn.success = {TxnOp::put(attempt->key, identityValue(q->clientId(), QStringLiteral("lock")), onLease),
                       TxnOp::range(prefix, newestEntries(2))};
        txn.failure = {TxnOp::range(attempt->key)};
        thenOn(client->txn(txn), this, [this, attempt](const TxnResult &result) {
            if (stopped(attempt))
                return;
            if (!result.status)
                return finish(attempt, result.status);
            if (!result.succeeded) {
                // Our key is there already: an earlier try of this transaction landed.
                attempt->revision = result.responses.value(0).range.kvs.value(0).createRevision;
                return waitTurn(attempt);
            }
            attempt->revision = result.header.revision;
            const QList<KeyValue> newest = result.responses.value(1).range.kvs;
            if (newest.value(0).createRevision != attempt->revision)
                return waitTurn(attempt);
            if (newest.size() < 2)
                return claim(attempt);
            awaitPredecessor(attempt, newest.at(1), result.header.revision);
        });
    }

    // Until no key created before ours is left; each round watches only the nearest one.
    void waitTurn(std::shared_ptr<Attempt> attempt)
    {
        RangeOptions predecessor = newestEntries(1, attempt->revision);
        // A serializable read spares the leader round trip on every hand-off, and cannot
        // hand us the lock early: the compare on our own key makes the member's snapshot at
        // least as new as our key, so every older key still alive is in it, and once none
        // is left none can appear (new keys are always created after ours).
        predecessor.serializable = true;
        Txn txn;
        txn.compares = {Compare::createRevision(attempt->key, CompareResult::Equal, attempt->revision)};
        txn.success = {TxnOp::range(prefix, predecessor)};
        thenOn(client->txn(txn), this, [this, attempt](const TxnResult &result) {
            if (stopped(attempt))
                return;
            if (!result.status)
                return finish(attempt, result.status);
            if (!result.succeeded)
                return requeue(attempt, QStringLiteral("our key vanished while queued"));
            const QList<KeyValue> before = result.responses.value(0).range.kvs;
            if (before.isEmpty())
                return claim(attempt);
            awaitPredecessor(attempt, before.first(), result.header.revision);
        });
    }

    void awaitPredecessor(std::shared_ptr<Attempt> attempt, const KeyValue &predecessor, qint64 observedRevision)
    {
        thenOn(waitForDeletion(client, predecessor, observedRevision, options.resilience.watch, attempt->stop.token()),
               this, [this, attempt](const Status &deleted) {
                if (stopped(attempt))
                    return;
                if (!deleted)
                    return finish(attempt, deleted);
                waitTurn(attempt);
            });
    }

    void requeue(std::shared_ptr<Attempt> attempt, const QString &why)
    {
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         QStringLiteral("waiter requeues with a fresh lease: ") + why);
        attempt->lease.reset();
        attempt->stop = StopSource();
        attempt->stopReason = {};
        enqueue(attempt);
    }

    void claim(std::shared_ptr<Attempt> attempt)
    {
        if (!attempt->lease->isValid())
            return requeue(attempt, QStringLiteral("lease lost just before the lock was claimed"));
        auto hold = std::make_shared<Hold>();
        hold->owner = attempt->requester;
        hold->key = attempt->key;
        hold->revision = attempt->revision;
        hold->lease = std::move(attempt->lease);
        hold->givenBack = attempt->givenBack;
        if (options.interruptOnLockLoss)
            hold->interruption.arm(hold->owner, hold->stop.token());
        attempt->won = hold;
        disconnect(hold->lease.get(), &ExclusivityLease::lost, this, nullptr);
        hold->source = q->track(hold->lease.get(), QStringLiteral("hold ") + QString::fromUtf8(hold->key),
                                [this, weak = std::weak_ptr(hold)](const Status &cause) {
                                    if (auto hold = weak.lock())
                                        onHoldLost(hold, cause);
                                });
        {
            QMutexLocker locker(&mutex);
            holds.insert(hold->owner, hold);
        }
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         QStringLiteral("acquired %1 (fencing token %2)").arg(QString::fromUtf8(hold->key)).arg(hold->revision));
        Q_EMIT q->acquired(hold->revision, hold->key);
        finish(attempt, {});
    }

    // The loss thread, inside the recipe's loss gate (so q is still there); or the dispatcher,
    // from release(), for a loss the holder's unlock() met before the loss thread told it.
    void onHoldLost(const std::shared_ptr<Hold> &hold, const Status &cause)
    {
        if (hold->lost.exchange(true))
            return;
        q->recordError(QStringLiteral("hold ") + QString::fromUtf8(hold->key), cause);
        Q_EMIT q->lockLost(cause);
        if (options.interruptOnLockLoss)
            hold->stop.requestStop();
        // Told: now free the key for the next in line rather than leave it to etcd's expiry.
        // On the dispatcher thread, which alone moves a hold's lease on (to be reused).
        QMetaObject::invokeMethod(this, [hold] {
            if (hold->lease)
                hold->lease->release();
        }, Qt::QueuedConnection);
    }

    void finish(const std::shared_ptr<Attempt> &attempt, const Status &status)
    {
        if (std::exchange(attempt->done, true))
            return;
        attempts.removeOne(attempt);
        attempt->deadline.reset();
        if (!status && attempt->lease)
            attempt->lease->release();  // revoking deletes our queue key at once
        attempt->promise->addResult(status);
        attempt->promise->finish();
    }

    bool takeSpareLease(const std::shared_ptr<Attempt> &attempt)
    {
        auto lease = std::move(spareLease);
        if (!lease || !lease->isValid())
            return false;
        attempt->lease = std::move(lease);
        watchLease(attempt);
        return true;
    }

    void release(std::shared_ptr<Hold> hold)
    {
        if (hold->released)
            return;
        // Given back after its loss deadline passed but before the keep-alive hub noticed (the
        // holder reads the clock, the hub ticks): the loss is still told, never hidden by unlock().
        if (!hold->lost && !hold->lease->isValid())
            onHoldLost(hold, hold->lease->whyInvalid());
        hold->released = true;
        hold->interruption.disarm();
        q->removeSource(hold->source);
        disconnect(hold->lease.get(), nullptr, this, nullptr);
        disconnect(hold->lease.get(), nullptr, q, nullptr);
        Q_EMIT q->released(hold->revision);
        if (hold->lost || closing) {
            hold->lease->release();
            return;
        }
        // Keep the lease for the next acquisition: the hand-off then costs one delete here
        // and one transaction there, like a bare etcd lock. The lease becomes reusable only
        // once the delete has landed: a new queue key under the same name must never be
        // created before the old one is gone, or the old delete would remove the new key.
        Txn txn;
        txn.compares = {Compare::createRevision(hold->key, CompareResult::Equal, hold->revision)};
        txn.success = {TxnOp::remove(hold->key)};
        // The hold waits in `releasing`, not in the continuation: if this object dies first,
        // its lease is then destroyed here on the dispatcher thread rather than on whichever
        // thread drops the continuation.
        releasing.append(hold);
        thenOn(client->txn(txn), this, [this, raw = hold.get()](const TxnResult &deleted) {
            const auto it = std::find_if(releasing.begin(), releasing.end(),
                                         [raw](const std::shared_ptr<Hold> &each) { return each.get() == raw; });
            std::shared_ptr<Hold> hold = *it;
            releasing.erase(it);
            if (deleted.status && !closing && !spareLease)
                spareLease = std::move(hold->lease);
            else
                hold->lease->release();
            for (const auto &attempt : std::exchange(awaitingSpare, {}))
                enqueue(attempt);
        });
    }

    void shutDown()
    {
        closing = true;
        for (const auto &attempt : QList(attempts))
            stopAttempt(attempt, Status(StatusCode::Cancelled, q->context() + QStringLiteral(": closed")));
        QList<std::shared_ptr<Hold>> all;
        {
            QMutexLocker locker(&mutex);
            all = holds.values();
        }
        // The holds stay listed so that unlock() can report there was nothing left to release.
        for (const auto &hold : all) {
            hold->lost = true;
            release(hold);
        }
        if (spareLease)
            spareLease->release();
    }

    DistributedMutex *q;
    Client *client;
    const QByteArray path;
    const QByteArray prefix;
    const LockOptions options;

    mutable QMutex mutex;
    QHash<QThread *, std::shared_ptr<Hold>> holds;  // guarded by mutex

    // dispatcher thread only
    QList<std::shared_ptr<Attempt>> attempts;
    std::unique_ptr<ExclusivityLease> spareLease;
    QList<std::shared_ptr<Hold>> releasing;
    QList<std::shared_ptr<Attempt>> awaitingSpare;  // attempts that wait for `releasing` to end
    bool closing = false;
};

DistributedMutex::DistributedMutex(Client *client, const QByteArray &path, const LockOptions &options,
                                   QObject *parent)
    : Recipe(client, QStringLiteral("DistributedMutex"), path, options, parent),
      d(std::make_unique<DistributedMutexPrivate>(this, client, path, options))
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
    std::shared_ptr<Attempt> attempt;
    return d->startAttempt(timeout, &attempt);
}

Status DistributedMutex::lock(std::chrono::milliseconds timeout)
{
    std::shared_ptr<Attempt> attempt;
    const QFuture<Status> future = d->startAttempt(timeout, &attempt);
    const Status waited = waitBlocking(client(), future, QDeadlineTimer::Forever, stopToken(),
                                       context() + QStringLiteral(": lock"));
    if (waited)
        return future.result();
    if (!attempt)
        return waited;
    // Interrupted. Stop the attempt; should it have won just now, give that hold back. Until
    // the dispatcher gets to it this thread must not count itself into it (a second lock()).
    attempt->givenBack->store(true);
    QMetaObject::invokeMethod(d.get(), [priv = d.get(), attempt, waited] { priv->stopAttempt(attempt, waited); },
                              Qt::QueuedConnection);
    thenOn(QFuture<Status>(future), d.get(), [priv = d.get(), attempt](const Status &won) {
        if (won)
            priv->giveBack(attempt);
    });
    return waited;
}

bool DistributedMutex::tryLock(std::chrono::milliseconds timeout)
{
    return lock(timeout).isOk();
}

bool DistributedMutex::unlock()
{
    std::shared_ptr<Hold> hold = d->holdOf(QThread::currentThread());
    if (!hold) {
        qWarning().noquote() << context() << "unlock() by a thread that holds nothing";
        return false;
    }
    if (--hold->count > 0)
        return hold->isValid();
    {
        QMutexLocker locker(&d->mutex);
        d->holds.remove(hold->owner);
    }
    hold->interruption.disarm();  // here: this thread's next wait must not see the loss
    const bool stillOurs = hold->isValid();
    QMetaObject::invokeMethod(d.get(), [priv = d.get(), hold] { priv->release(hold); }, Qt::QueuedConnection);
    return stillOurs;
}

bool DistributedMutex::isHeldByCurrentThread() const
{
    const auto hold = d->holdOf(QThread::currentThread());
    return hold && hold->isValid();
}

int DistributedMutex::holdCount() const
{
    const auto hold = d->holdOf(QThread::currentThread());
    return hold && hold->isValid() ? hold->count : 0;
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
    const auto hold = d->holdOf(QThread::currentThread());
    return hold ? hold->revision : 0;
}

QByteArray DistributedMutex::holdKey() const
{
    const auto hold = d->holdOf(QThread::currentThread());
    return hold ? hold->key : QByteArray();
}

qint64 DistributedMutex::leaseId() const
{
    const auto hold = d->holdOf(QThread::currentThread());
    return hold ? hold->lease->leaseId() : -1;
}

Compare DistributedMutex::ownershipCompare() const
{
    const auto hold = d->holdOf(QThread::currentThread());
    // Without a hold the compare can never succeed: no key has create revision -1.
    return hold ? Compare::createRevision(hold->key, CompareResult::Equal, hold->revision)
                : Compare::createRevision(d->prefix, CompareResult::Equal, -1);
}

StopToken DistributedMutex::stopToken() const
{
    const auto hold = d->holdOf(QThread::currentThread());
    return hold ? hold->stop.token() : StopToken();
}

QFuture<TxnResult> DistributedMutex::guardedTxn(const Txn &txn)
{
    return Internal::guardedTxn(client(), {ownershipCompare()}, txn, context());
}

QFuture<Status> DistributedMutex::guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options)
{
    return Internal::guardedPut(client(), {ownershipCompare()}, key, value, options, context());
}

void DistributedMutex::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
