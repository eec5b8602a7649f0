// SPDX-License-Identifier: Apache-2.0
#include "distributedbarrier.h"

#include "barriermarks_p.h"
#include "blockingwait_p.h"
#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "keymirror_p.h"
#include "selfhealingkeepalive.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QPointer>
#include <QtCore/QPromise>
#include <QtCore/QTimer>

namespace QEtcd {

using namespace Internal;
using LiftReason = DistributedBarrier::LiftReason;
using WaitResult = DistributedBarrier::WaitResult;

namespace {
// The barrier key while this instance owns it. Lives on the dispatcher thread. lift() is its
// last act: once the key is set (or failed to be), it deletes the key if it is still ours, then
// the Arming deletes itself, so a removal started by close() completes even after the barrier
// object is gone.
class Arming : public QObject
{
public:
    Arming(quint64 generation, Client *client, const QByteArray &key, const QString &clientId,
           const BarrierOptions &options, const QString &context)
        : generation(generation), client(client), key(key), token(uniqueToken(clientId)), context(context)
    {
        keeper = std::make_unique<SelfHealingKeepAlive>(
            client, options.ttlSeconds,
            [this](qint64 lease, qint64 previous) {
                if (lifting)
                    return QtFuture::makeReadyFuture(
                        Status(StatusCode::OwnershipLost, QStringLiteral("the barrier is being removed")));
                return casEstablish(this->client, this->key, token, lease, previous);
            },
            options.resilience.lease);
        keeper->followKey(key);
    }

    void start()
    {
        thenOn(keeper->start(), this, [this](const Status &started) {
            outcome = started.code() == StatusCode::OwnershipLost
                ? Status(StatusCode::AlreadyExists, context + QStringLiteral(": already set by someone else"))
                : started;
            if (const auto tell = std::exchange(beforeTelling, nullptr))
                tell(*outcome);
            for (const auto &promise : std::exchange(waiting, {})) {
                promise->addResult(*outcome);
                promise->finish();
            }
        });
    }

    // The outcome of start(), for however many ask: a QFuture takes only one continuation.
    QFuture<Status> whenStarted()
    {
        if (outcome)
            return QtFuture::makeReadyFuture(*outcome);
        auto promise = std::make_shared<QPromise<Status>>();
        promise->start();
        waiting.append(promise);
        return promise->future();
    }

    QFuture<Status> lift()
    {
        lifting = true;
        keeper->stopFollowingKeys();  // the delete below is ours
        promise.start();
        thenOn(whenStarted(), this, [this](const Status &started) {
            if (!started)
                return finish(Status(StatusCode::FailedPrecondition, context + QStringLiteral(": not set")));
            const qint64 lease = keeper->currentLeaseId();
            PutOptions onLease;
            onLease.lease = lease;
            Txn mark;
            mark.compares = {Compare::lease(key, CompareResult::Equal, lease)};
            mark.success = {TxnOp::put(key, token + barrierRemovingSuffix, onLease)};
            mark.failure = {TxnOp::range(key)};
            thenOn(client->txn(mark), this, [this, lease](const TxnResult &marked) {
                if (!marked.status)
                    return finish(marked.status);
                if (!marked.succeeded) {
                    const QList<KeyValue> now = marked.responses.value(0).range.kvs;
                    // Absent: our lease expired and the heal had not re-armed it yet; it is down.
                    return finish(now.isEmpty() ? Status()
                                                : Status(StatusCode::OwnershipLost,
                                                         context + QStringLiteral(": set again by someone else "
                                                                                  "(lease %1); left alone")
                                                                       .arg(now.first().lease, 0, 16)));
                }
                Txn remove;
                remove.compares = {Compare::lease(key, CompareResult::Equal, lease)};
                remove.success = {TxnOp::remove(key)};
                thenOn(client->txn(remove), this, [this](const TxnResult &removed) { finish(removed.status); });
            });
        });
        return promise.future();
    }

    // For an arming that owns nothing: its start failed, or its heal lost to another owner.
    void discard()
    {
        keeper->close();
        deleteLater();
    }

    const quint64 generation;
    Client *const client;
    const QByteArray key;
    const QByteArray token;
    const QString context;
    std::unique_ptr<SelfHealingKeepAlive> keeper;
    int source = -1;
    bool failed = false;
    // Runs once start() has an outcome, before anyone waiting for it hears of it.
    std::function<void(const Status &)> beforeTelling;

private:
    void finish(const Status &status)
    {
        // Revokes the lease: should the delete not have landed, the key goes with it.
        keeper->close();
        promise.addResult(status);
        promise.finish();
        deleteLater();
    }

    std::optional<Status> outcome;
    QList<std::shared_ptr<QPromise<Status>>> waiting;
    bool lifting = false;
    QPromise<Status> promise;
};

// One waitOnBarrier() in flight, driven on the dispatcher thread.
struct Wait
{
    std::shared_ptr<QPromise<WaitResult>> promise = std::make_shared<QPromise<WaitResult>>();
    StopSource stop;  // ends the watch
    std::unique_ptr<QTimer> deadline;
    int source = -1;
    bool finished = false;
};
} // namespace

class DistributedBarrierPrivate : public QObject
{
public:
    DistributedBarrierPrivate(DistributedBarrier *q, Client *client, const QByteArray &path,
                              const BarrierOptions &options)
        : q(q), client(client), path(path), options(options), context(q->context())
    {
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    // --- any thread -----------------------------------------------------------------------
    Status admit()
    {
        if (Status status = q->validate(); !status)
            return status;
        if (path.isEmpty())
            return Status(StatusCode::InvalidArgument, context + QStringLiteral(": path is empty"));
        if (q->isClosed())
            return Status(StatusCode::Closed, context + QStringLiteral(": closed"));
        q->beginStart();
        return {};
    }

    // Runs work where this lives; a barrier gone meanwhile says so.
    QFuture<Status> onDispatcher(std::function<QFuture<Status>()> work)
    {
        return thenOn(
            QtFuture::makeReadyFuture(Status()), this, [work](const Status &) { return work(); },
            [closed = Status(StatusCode::Closed, context + QStringLiteral(": closed"))](const Status &) {
                return QtFuture::makeReadyFuture(closed);
            });
    }

    QFuture<WaitResult> startWait(std::chrono::milliseconds timeout, std::shared_ptr<Wait> *started)
    {
        if (Status refused = admit(); !refused)
            return QtFuture::makeReadyFuture(WaitResult{refused});
        auto wait = std::make_shared<Wait>();
        wait->promise->start();
        *started = wait;
        QMetaObject::invokeMethod(this, [this, wait, timeout] { beginWait(wait, timeout); }, Qt::QueuedConnection);
        return wait->promise->future();
    }

    // --- dispatcher thread: owning the barrier ---------------------------------------------
    bool isCurrent(quint64 generation) const { return arming && arming->generation == generation; }

    QFuture<Status> set()
    {
        if (closing)
            return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context + QStringLiteral(": closed")));
        if (arming && !arming->failed)
            return arming->whenStarted();
        if (arming)
            disown()->discard();
        arming = new Arming(++generations, client, path, q->clientId(), options, context);
        arming->source = q->track(arming->keeper.get(), QStringLiteral("barrier lease"));
        connect(arming->keeper.get(), &SelfHealingKeepAlive::leaseEvent, q, &DistributedBarrier::leaseEvent,
                Qt::DirectConnection);
        connect(arming->keeper.get(), &SelfHealingKeepAlive::leaseEvent, this, [this](const LeaseEvent &event) {
            if (event.kind == LeaseEventKind::Failed) {
                arming->failed = true;
                owner = false;
            }
        });
        // Another client lifted it, or put it on a lease of theirs: told, and not set again.
        connect(arming->keeper.get(), &SelfHealingKeepAlive::keyTakenAway, this,
                [this, generation = arming->generation](const QByteArray &, qint64 revision, const Status &cause) {
                    if (!isCurrent(generation))
                        return;
                    disown()->discard();
                    if (!q)
                        return;
                    q->recordHistory(RecipeHistoryEntry::Source::Recipe, cause.message());
                    Q_EMIT q->liftedByOther(revision, cause);
                });
        // Before the caller is told, so that isOwner() already says so when set() returns.
        arming->beforeTelling = [this, generation = arming->generation](const Status &started) {
            if (!isCurrent(generation))
                return;
            if (!started)
                return disown()->discard();
            owner = true;
            q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("barrier set"));
        };
        // Our own barrier on its way down would make the new one look taken.
        if (lifting)
            connect(lifting, &QObject::destroyed, arming, [armed = arming] { armed->start(); });
        else
            arming->start();
        return arming->whenStarted();
    }

    QFuture<Status> remove()
    {
        if (!arming)
            return QtFuture::makeReadyFuture(
                Status(StatusCode::FailedPrecondition, context + QStringLiteral(": not set by this instance")));
        lifting = disown();
        return lifting->lift();
    }

    // Stops reporting the arming's lease; lifting or discarding it is the caller's to do.
    Arming *disown()
    {
        Arming *armed = std::exchange(arming, nullptr);
        armed->beforeTelling = nullptr;  // refers to this, which may go before the arming does
        owner = false;
        if (q) {
            q->removeSource(armed->source);
            disconnect(armed->keeper.get(), nullptr, q, nullptr);
        }
        disconnect(armed->keeper.get(), nullptr, this, nullptr);
        return armed;
    }

    // --- dispatcher thread: waiting ---------------------------------------------------------
    void beginWait(std::shared_ptr<Wait> wait, std::chrono::milliseconds timeout)
    {
        if (closing)
            return finishWait(wait, {Status(StatusCode::Cancelled, context + QStringLiteral(": closed"))});
        waits.append(wait);
        if (timeout != DistributedBarrier::WaitForever) {
            wait->deadline = makeDeadlineTimer();
            connect(wait->deadline.get(), &QTimer::timeout, this, [this, weak = std::weak_ptr(wait)] {
                if (const auto wait = weak.lock())
                    finishWait(wait, {Status(StatusCode::DeadlineExceeded, context + QStringLiteral(": still set"))});
            });
            wait->deadline->start(timeout);
        }
        thenOn(client->get(path, {}, options.resilience.rpc), this, [this, wait](const RangeResult &read) {
            if (wait->finished)
                return;
            if (!read.status)
                return finishWait(wait, {read.status});
            const bool present = !read.kvs.isEmpty();
            Q_EMIT q->waitStarted(present);
            if (!present && !options.waitOnMissingBarriers)
                return finishWait(wait, {Status(), LiftReason::NotSet});
            wait->source = q->addSource(QStringLiteral("barrier watch"));
            DeletionWatch how;
            how.previousValue = true;
            how.absenceAfterResync = present;
            how.onRecovery = [this, source = wait->source](const WatchRecoveryEvent &event) {
                if (!q)
                    return;
                q->reportWatchRecovery(source, QStringLiteral("barrier watch"), event);
            };
            thenOn(watchDeletion(client, path, read.header.revision, options.resilience.watch, wait->stop.token(), how),
                   this, [this, wait](const Deletion &deletion) {
                    if (wait->finished)
                        return;
                    if (!deletion.status)
                        return finishWait(wait, {deletion.status});
                    thenOn(liftReason(deletion.previous), this, [this, wait](LiftReason reason) {
                        finishWait(wait, {Status(), reason});
                    });
                });
        });
    }

    QFuture<LiftReason> liftReason(const std::optional<KeyValue> &previous)
    {
        if (!previous)
            return QtFuture::makeReadyFuture(LiftReason::Unknown);
        if (previous->value.endsWith(barrierRemovingSuffix))
            return QtFuture::makeReadyFuture(LiftReason::Removed);
        if (previous->value.endsWith(barrierLiftedSuffix))
            return QtFuture::makeReadyFuture(LiftReason::Deleted);
        if (previous->lease == 0)
            return QtFuture::makeReadyFuture(LiftReason::Deleted);
        // Unmarked: it went with its lease, unless that lease is still alive.
        return after(client->leaseTimeToLive(previous->lease, false, options.resilience.rpc),
            [](const LeaseTimeToLiveResult &lease) {
                if (lease.status ? lease.ttl < 0 : lease.status.isLeaseNotFound())
                    return LiftReason::LeaseExpired;
                return lease.status ? LiftReason::Deleted : LiftReason::Unknown;
            });
    }

    void finishWait(const std::shared_ptr<Wait> &wait, const WaitResult &result)
    {
        if (std::exchange(wait->finished, true))
            return;
        waits.removeOne(wait);
        if (wait->deadline) {
            wait->deadline->stop();
            wait->deadline.release()->deleteLater();
        }  // this may be its own timeout signal
        wait->stop.requestStop();  // ends the watch, if it is still on
        if (q && wait->source >= 0)
            q->removeSource(wait->source);
        wait->promise->addResult(result);
        wait->promise->finish();
    }

    void shutDown()
    {
        closing = true;
        // Finished here, not when their watches wind down: the barrier may be on its way to
        // destruction, and a waiter must hear Cancelled, not a broken promise.
        for (const auto &wait : QList(waits))
            finishWait(wait, {Status(StatusCode::Cancelled, context + QStringLiteral(": closed"))});
        if (arming)
            disown()->lift();  // completes on its own; nothing may wait for it now
    }

    DistributedBarrier *q;
    Client *client;
    const QByteArray path;
    const BarrierOptions options;
    const QString context;
    std::atomic<bool> owner{false};

    // dispatcher thread only
    Arming *arming = nullptr;
    QPointer<Arming> lifting;  // the last removal, until it is done
    quint64 generations = 0;
    QList<std::shared_ptr<Wait>> waits;
    bool closing = false;
};

DistributedBarrier::DistributedBarrier(Client *client, const QByteArray &path, const BarrierOptions &options,
                                       QObject *parent)
    : Recipe(client, QStringLiteral("DistributedBarrier"), path, options, parent),
      d(std::make_unique<DistributedBarrierPrivate>(this, client, path, options))
{
    qRegisterMetaType<LeaseEvent>();
}

DistributedBarrier::~DistributedBarrier()
{
    close();
    DistributedBarrierPrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QByteArray DistributedBarrier::path() const
{
    return d->path;
}

bool DistributedBarrier::waitOnMissingBarriers() const
{
    return d->options.waitOnMissingBarriers;
}

QFuture<Status> DistributedBarrier::setBarrierAsync()
{
    if (Status refused = d->admit(); !refused)
        return QtFuture::makeReadyFuture(refused);
    return d->onDispatcher([priv = d.get()] { return priv->set(); });
}

bool DistributedBarrier::setBarrier()
{
    const QFuture<Status> future = setBarrierAsync();
    return waitBlocking(client(), future, QDeadlineTimer::Forever, StopToken(), context() + QStringLiteral(": setBarrier"))
        && future.result().isOk();
}

QFuture<Status> DistributedBarrier::removeBarrierAsync()
{
    if (Status refused = d->admit(); !refused)
        return QtFuture::makeReadyFuture(refused);
    return d->onDispatcher([priv = d.get()] { return priv->remove(); });
}

bool DistributedBarrier::removeBarrier()
{
    const QFuture<Status> future = removeBarrierAsync();
    return waitBlocking(client(), future, QDeadlineTimer::Forever, StopToken(),
                        context() + QStringLiteral(": removeBarrier"))
        && future.result().isOk();
}

QFuture<bool> DistributedBarrier::isBarrierSet() const
{
    RangeOptions countOnly;
    countOnly.countOnly = true;
    return after(client()->get(d->path, countOnly, d->options.resilience.rpc), [](const RangeResult &result) {
        return result.status && result.count > 0;
    });
}

bool DistributedBarrier::isOwner() const
{
    return d->owner.load();
}

QFuture<DistributedBarrier::WaitResult> DistributedBarrier::waitOnBarrierAsync(std::chrono::milliseconds timeout)
{
    std::shared_ptr<Wait> wait;
    return d->startWait(timeout, &wait);
}

DistributedBarrier::WaitResult DistributedBarrier::waitOnBarrier(std::chrono::milliseconds timeout)
{
    std::shared_ptr<Wait> wait;
    const QFuture<WaitResult> future = d->startWait(timeout, &wait);
    const Status waited = waitBlocking(client(), future, QDeadlineTimer::Forever, StopToken(),
                                       context() + QStringLiteral(": waitOnBarrier"));
    if (waited)
        return future.result();
    QMetaObject::invokeMethod(d.get(), [priv = d.get(), wait, waited] { priv->finishWait(wait, {waited}); },
                              Qt::QueuedConnection);
    return {waited};
}

void DistributedBarrier::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
