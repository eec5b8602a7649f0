#include "holdqueue_p.h"

#include "blockingwait_p.h"
#include "client_p.h"
#include "continuation_p.h"
#include "resilience.h"
#include "threading_p.h"

namespace QEtcd::Internal {

bool QueuedHold::isValid() const
{
    if (lost || *givenBack || !lease->isValid())
        return false;
    // anchored is read again after the anchor's lease: settling clears it before that lease
    // is revoked, so a revoked anchor seen here with anchored now false was settled, not lost.
    return !anchored || anchor->lease->isValid() || !anchored;
}

HoldQueue::HoldQueue(Client *client, const QString &context, const RecipeOptions &options, bool interruptOnLoss)
    : client(client), context(context), options(options), interruptOnLoss(interruptOnLoss)
{
    if (client)  // without one, every call is refused before anything runs
        moveToThread(ClientPrivate::get(client)->dispatcher());
}

QFuture<Status> HoldQueue::submit(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout)
{
    attempt->promise->start();
    QFuture<Status> future = attempt->promise->future();
    QMetaObject::invokeMethod(this, [this, attempt, timeout] { begin(attempt, timeout); }, Qt::QueuedConnection);
    return future;
}

Status HoldQueue::await(const std::shared_ptr<QueuedAttempt> &attempt, const QFuture<Status> &future,
                        const StopToken &stop, const QString &what)
{
    if (future.isFinished())
        return future.result();
    const Status waited = waitBlocking(client, future, QDeadlineTimer::Forever, stop, what);
    if (waited)
        return future.result();
    // Until the dispatcher has given back what the attempt may just have won, this thread must
    // not count itself into it (a second lock()).
    attempt->givenBack->store(true);
    QMetaObject::invokeMethod(this, [this, attempt, waited] { stopAttempt(attempt, waited); }, Qt::QueuedConnection);
    thenOn(QFuture<Status>(future), this, [this, attempt](const Status &won) {
        const auto hold = attempt->won.lock();
        if (won && hold) {
            withdraw(hold);
            release(hold);
        }
    });
    return waited;
}

void HoldQueue::postRelease(std::shared_ptr<QueuedHold> hold)
{
    hold->interruption.disarm();
    QMetaObject::invokeMethod(this, [this, hold] { release(hold); }, Qt::QueuedConnection);
}

void HoldQueue::begin(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout)
{
    m_attempts.append(attempt);
    if (closing)  // submitted while close() was running
        return finish(attempt, Status(StatusCode::Cancelled, context + QStringLiteral(": closed")));
    if (timeout != NoTimeout) {
        attempt->deadline = makeDeadlineTimer();
        connect(attempt->deadline.get(), &QTimer::timeout, this, [this, attempt] {
            stopAttempt(attempt, Status(StatusCode::DeadlineExceeded, context + QStringLiteral(": not acquired in time")));
        });
        attempt->deadline->start(timeout);
    }
    prepare(attempt);
}

void HoldQueue::prepare(std::shared_ptr<QueuedAttempt> attempt)
{
    enqueue(attempt);
}

void HoldQueue::stopAttempt(const std::shared_ptr<QueuedAttempt> &attempt, const Status &why)
{
    if (attempt->stopReason.isOk())
        attempt->stopReason = why;
    attempt->stop.requestStop();
    // Now, not at etcd's next answer, which a partition can hold back for as long as the RPC
    // timeouts allow. Whatever is still in flight finds the attempt over.
    finish(attempt, attempt->stopReason);
}

bool HoldQueue::stopped(const std::shared_ptr<QueuedAttempt> &attempt)
{
    return attempt->stop.stopRequested();
}

bool HoldQueue::interrupted(const std::shared_ptr<QueuedAttempt> &attempt)
{
    if (stopped(attempt))
        return true;
    if (attempt->lease->isValid())
        return false;
    requeue(attempt, QStringLiteral("its lease was lost while it waited"));
    return true;
}

void HoldQueue::enqueue(std::shared_ptr<QueuedAttempt> attempt)
{
    if (stopped(attempt))
        return;
    attempt->round = StopSource();
    attempt->roundLink = std::make_unique<StopCallback>(attempt->stop.token(),
                                                        [round = attempt->round]() mutable { round.requestStop(); });
    attempt->lease = std::make_unique<ExclusivityLease>(client, options.ttlSeconds);
    connect(attempt->lease.get(), &ExclusivityLease::lost, this, [round = attempt->round]() mutable { round.requestStop(); });
    thenOn(attempt->lease->grant(), this, [this, attempt](const Status &granted) {
        if (stopped(attempt))
            return;
        if (!granted)
            return finish(attempt, granted);
        attempt->key = entryKey(*attempt);
        PutOptions onLease;
        onLease.lease = attempt->lease->leaseId();
        Txn txn;
        txn.compares = {Compare::absent(attempt->key)};
        txn.success = {TxnOp::put(attempt->key, options.clientId.toUtf8(), onLease)};
        thenOn(client->txn(txn), this, [this, attempt](const TxnResult &created) {
            if (interrupted(attempt))
                return;
            if (!created.status)
                return finish(attempt, created.status);
            if (!created.succeeded)
                return requeue(attempt, QStringLiteral("its entry's name was taken"));
            attempt->revision = created.header.revision;
            admit(attempt);
        });
    });
}

void HoldQueue::requeue(std::shared_ptr<QueuedAttempt> attempt, const QString &why)
{
    note(QStringLiteral("a waiter re-queues with a fresh lease: ") + why);
    attempt->roundLink.reset();
    attempt->lease.reset();  // revoked unless it was lost; the old entry goes with it
    enqueue(attempt);
}

void HoldQueue::claim(std::shared_ptr<QueuedAttempt> attempt)
{
    if (!attempt->lease->isValid())
        return requeue(attempt, QStringLiteral("its lease was lost just before it was admitted"));
    auto hold = std::make_shared<QueuedHold>();
    hold->owner = attempt->requester;
    hold->kind = attempt->kind;
    hold->key = attempt->key;
    hold->revision = attempt->revision;
    hold->lease = std::move(attempt->lease);
    hold->givenBack = attempt->givenBack;
    if (interruptOnLoss)
        hold->interruption.arm(hold->owner.data(), hold->stop.token());
    if (attempt->anchor) {
        hold->anchor = attempt->anchor;
        hold->anchored = true;
        attempt->anchor->dependent = hold;
    }
    disconnect(hold->lease.get(), nullptr, this, nullptr);
    hold->source = track(hold->lease.get(), QStringLiteral("hold ") + QString::fromUtf8(hold->key),
                         [this, weak = std::weak_ptr(hold)](const Status &cause) {
                             if (auto hold = weak.lock())
                                 holdLost(hold, cause);
                         });
    attempt->won = hold;
    publish(hold);
    finish(attempt, {});
}

void HoldQueue::finish(const std::shared_ptr<QueuedAttempt> &attempt, const Status &status)
{
    if (!m_attempts.removeOne(attempt))
        return;
    if (attempt->deadline)  // later: this may run inside the timer's own signal
        attempt->deadline.release()->deleteLater();
    attempt->roundLink.reset();
    // Revoking removes our entry at once. The lease object stays with the attempt: a grant
    // may still be in flight, and it finishes into that object.
    if (attempt->lease)
        attempt->lease->release();
    attempt->promise->addResult(status);
    attempt->promise->finish();
}

void HoldQueue::holdLost(const std::shared_ptr<QueuedHold> &hold, const Status &cause)
{
    if (hold->lost.exchange(true))
        return;
    if (!hold->released) {
        announceLoss(hold, cause);
        if (interruptOnLoss)
            hold->stop.requestStop();
    }
    QMetaObject::invokeMethod(this, [this, hold, cause] { releaseLostHold(hold, cause); }, Qt::QueuedConnection);
}

void HoldQueue::releaseLostHold(const std::shared_ptr<QueuedHold> &hold, const Status &cause)
{
    // Told: now free the entry for the next in line rather than leave it to etcd's expiry.
    hold->lease->release();
    // A hold that stood on this one's entry is no safer than it was, and its own entry would
    // only keep others waiting.
    if (const auto dependent = hold->dependent.lock(); dependent && dependent->anchored) {
        holdLost(dependent, cause);
        dropEntry(dependent);
    }
    unanchor(hold);
    if (hold->released)
        dropEntry(hold);  // an anchor that outlived its release
}

void HoldQueue::release(std::shared_ptr<QueuedHold> hold)
{
    if (hold->released)
        return;
    // Given back after its loss deadline passed but before the keep-alive hub noticed (the
    // holder reads the clock, the hub ticks): the loss is still told, never hidden by release().
    if (!hold->lost && !hold->lease->isValid())
        holdLost(hold, hold->lease->whyInvalid());
    if (hold->released.exchange(true))
        return;
    hold->interruption.disarm();
    announceRelease(hold);
    const auto dependent = hold->dependent.lock();
    if (dependent && dependent->anchored && !hold->lost && !closing)
        return settle(hold, dependent);
    dropEntry(hold);
}

void HoldQueue::settle(std::shared_ptr<QueuedHold> anchor, std::shared_ptr<QueuedHold>)
{
    dropEntry(anchor);
}

void HoldQueue::dropEntry(const std::shared_ptr<QueuedHold> &hold)
{
    if (std::exchange(hold->dropped, true))
        return;
    untrack(hold->source, hold->lease.get());
    disconnect(hold->lease.get(), nullptr, this, nullptr);
    hold->retired.requestStop();
    hold->lease->release();  // revoking removes the entry; a lost lease is not revoked
    unanchor(hold);
}

void HoldQueue::unanchor(const std::shared_ptr<QueuedHold> &hold)
{
    if (hold->anchor && hold->anchored.exchange(false) && hold->anchor->released)
        dropEntry(hold->anchor);
}

void HoldQueue::shutDown(const QList<std::shared_ptr<QueuedHold>> &holds)
{
    closing = true;
    for (const auto &attempt : QList(m_attempts))
        stopAttempt(attempt, Status(StatusCode::Cancelled, context + QStringLiteral(": closed")));
    for (const auto &hold : holds) {
        hold->lost = true;
        release(hold);
    }
}

void HoldQueue::note(const QString &text)
{
    if (Recipe *owner = recipe())
        owner->recordHistory(RecipeHistoryEntry::Source::Recipe, text);
}

int HoldQueue::track(ExclusivityLease *lease, const QString &name, std::function<void(const Status &)> onLost)
{
    Recipe *owner = recipe();
    return owner ? owner->track(lease, name, std::move(onLost)) : -1;
}

void HoldQueue::untrack(int source, ExclusivityLease *lease)
{
    Recipe *owner = recipe();
    if (!owner)
        return;
    owner->removeSource(source);
    disconnect(lease, nullptr, owner, nullptr);
}

} // namespace QEtcd::Internal
