// SPDX-License-Identifier: Apache-2.0
#include "distributedworkqueue.h"

#include "blockingwait_p.h"
#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "queuekeys_p.h"
#include "recipe_p.h"
#include "selfhealingkeepalive.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QHash>
#include <QtCore/QPromise>
#include <QtCore/QRandomGenerator>
#include <QtCore/QSet>
#include <QtCore/QTimer>
#include <QtCore/QtEndian>

namespace QEtcd {

using namespace Internal;

namespace {
// etcd's default limit of operations in one transaction (--max-txn-ops).
constexpr qsizetype MaxTxnOps = 128;

// Deletes keys, MaxTxnOps to a transaction, one transaction after the other.
QFuture<Status> removeKeys(Client *client, const QList<QByteArray> &keys)
{
    if (keys.isEmpty())
        return QtFuture::makeReadyFuture(Status());
    Txn batch;
    for (const QByteArray &key : keys.mid(0, MaxTxnOps))
        batch.success.append(TxnOp::remove(key));
    return after(client->txn(batch), [client, rest = keys.mid(MaxTxnOps)](const TxnResult &done) {
        return done.status ? removeKeys(client, rest) : QtFuture::makeReadyFuture(done.status);
    });
}

// One receive in flight, driven on the dispatcher thread.
struct Receive
{
    std::shared_ptr<QPromise<WorkItem>> promise = std::make_shared<QPromise<WorkItem>>();
    bool waits = true;  // false: one look
    StopSource stop;
    Status stopReason;
    std::unique_ptr<QTimer> deadline;
    // While the claim is in flight the receive cannot be abandoned: should it win, the item is
    // claimed in our name and must reach the caller.
    bool claimInFlight = false;
    bool done = false;
};

// etcd-recipes' delivery count: int32, big-endian.
QByteArray encodeAttempts(qint32 attempts)
{
    QByteArray bytes(4, Qt::Uninitialized);
    qToBigEndian<qint32>(attempts, bytes.data());
    return bytes;
}

int decodeAttempts(const QByteArray &bytes)
{
    return bytes.size() == 4 ? qFromBigEndian<qint32>(bytes.constData()) : 0;
}

template <class T>
void settle(const std::shared_ptr<QPromise<T>> &promise, const T &value)
{
    promise->addResult(value);
    promise->finish();
}

RangeOptions firstByKey()
{
    RangeOptions head;
    head.range = KeyRange::prefix();
    head.sortTarget = SortTarget::Key;
    head.sortOrder = SortOrder::Ascending;
    head.limit = 1;
    return head;
}

RangeOptions underPrefix()
{
    RangeOptions all;
    all.range = KeyRange::prefix();
    return all;
}

Status statusOf(const TxnResult &result, const QString &lost)
{
    if (!result.status)
        return result.status;
    return result.succeeded ? Status() : Status(StatusCode::OwnershipLost, lost);
}

// Ours, and still the claim this delivery was made under.
QList<Compare> claimStands(const QByteArray &claim, const QString &clientId, const WorkItem &item)
{
    return {Compare::value(claim, CompareResult::Equal, clientId.toUtf8()),
            Compare::createRevision(claim, CompareResult::Equal, item.claimRevision)};
}
} // namespace

class DistributedWorkQueuePrivate : public QObject
{
public:
    DistributedWorkQueuePrivate(DistributedWorkQueue *q, Client *client, const QByteArray &path,
                                const WorkQueueOptions &options)
        : q(q), client(client), path(path), items(path + "/items/"), delayed(path + "/delayed/"),
          claimed(path + "/claimed/"), claims(path + "/claims/"), attempts(path + "/attempts/"), dlq(path + "/dlq/"),
          consumerId(q->clientId().toUtf8()), options(options)
    {
        sweeper.setSingleShot(true);
        connect(&sweeper, &QTimer::timeout, this, [this] {
            thenOn(sweepNow(), this, [this](const Status &) {
                if (!closing)
                    sweeper.start(this->options.sweepInterval);
            });
        });
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    // --- any thread -----------------------------------------------------------------------
    // An item's id lives on under claimed/ while it is being worked on, and under dlq/ once it
    // was given up (with its attempts/ count beside it, which exists only with one of the
    // two): a new item must not take such an id, or it would overwrite the one in flight and
    // inherit its count. Immediate and delayed items must not share one either, since a
    // delayed item keeps its name when it matures.
    QList<QByteArray> alsoFreeUnder(const QByteArray &prefix) const
    {
        return {prefix == items ? delayed : items, claimed, dlq};
    }

    Status refusal() const
    {
        if (Status status = q->validate(); !status)
            return status;
        if (path.isEmpty())
            return Status(StatusCode::InvalidArgument, q->context() + QStringLiteral(": path is empty"));
        if (options.visibilityTimeoutSeconds < 1 || options.maxDeliveries < 1
            || options.sweepInterval <= std::chrono::milliseconds::zero())
            return Status(StatusCode::InvalidArgument,
                          q->context() + QStringLiteral(": visibility timeout, max deliveries and sweep interval must be positive"));
        if (q->isClosed())
            return Status(StatusCode::Closed, q->context() + QStringLiteral(": closed"));
        return {};
    }

    QFuture<WorkItem> start(std::chrono::milliseconds timeout, std::shared_ptr<Receive> *started)
    {
        if (Status refused = refusal(); !refused)
            return QtFuture::makeReadyFuture(WorkItem{refused, {}, {}, 0});
        q->beginStart();
        auto receive = std::make_shared<Receive>();
        receive->waits = timeout > std::chrono::milliseconds::zero();
        receive->promise->start();
        if (started)
            *started = receive;
        QMetaObject::invokeMethod(this, [this, receive, timeout] { begin(receive, timeout); }, Qt::QueuedConnection);
        return receive->promise->future();
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void begin(std::shared_ptr<Receive> receive, std::chrono::milliseconds timeout)
    {
        receives.append(receive);
        if (receive->waits && timeout != DistributedWorkQueue::WaitForever) {
            receive->deadline = makeDeadlineTimer();
            connect(receive->deadline.get(), &QTimer::timeout, this, [this, receive] {
                stopReceive(receive, Status(StatusCode::DeadlineExceeded,
                                            q->context() + QStringLiteral(": nothing received in time")));
            });
            receive->deadline->start(timeout);
        }
        if (!keeper)
            startLease();
        thenOn(leaseStarted, this, [this, receive](const Status &started) {
            if (receive->done)
                return;
            if (!started)
                return finish(receive, {started, {}, {}, 0});
            round(receive);
        });
    }

    // The consumer lease heals forward: a new lease owns no claims, the old ones are orphans
    // the sweepers hand back, so establishing is always Ok.
    void startLease()
    {
        keeper = std::make_unique<SelfHealingKeepAlive>(
            client, options.visibilityTimeoutSeconds,
            [](qint64, qint64) { return QtFuture::makeReadyFuture(Status()); }, options.resilience.lease);
        leaseSource = q->track(keeper.get(), QStringLiteral("consumer lease"));
        connect(keeper.get(), &SelfHealingKeepAlive::leaseEvent, this, [this](const LeaseEvent &event) {
            leaseGaveUp |= event.kind == LeaseEventKind::Failed;
        });
        leaseStarted = keeper->start();
        thenOn(leaseStarted, this, [this](const Status &started) {
            if (!q || closing)
                return;
            if (!started) {
                // The next receive tries again with a fresh lease.
                q->removeSource(leaseSource);
                keeper.reset();
                return;
            }
            startSweeper();
        });
    }

    void startSweeper()
    {
        const qint64 period = options.sweepInterval.count();
        // Spread out so that consumers started together do not sweep together.
        sweeper.start(std::chrono::milliseconds(period + QRandomGenerator::global()->bounded(period / 2 + 1)));
    }

    void stopReceive(const std::shared_ptr<Receive> &receive, const Status &why)
    {
        if (!receive || receive->done)
            return;
        if (receive->stopReason.isOk())
            receive->stopReason = why;
        receive->stop.requestStop();
        if (!receive->claimInFlight)
            finish(receive, {receive->stopReason, {}, {}, 0});
    }

    // For a claim answered after its queue was destroyed: close() revoked the lease, so the
    // claim is an orphan for the others to reclaim; the receive is still owed its answer.
    static auto abandoned(std::shared_ptr<Receive> receive)
    {
        return [receive](const auto &) {
            if (!std::exchange(receive->done, true))
                settle(receive->promise, WorkItem{Status(StatusCode::Cancelled, QStringLiteral("closed")), {}, {}, 0});
        };
    }

    // promoteMatured → claimHead → reclaimOrphans → claimHead → wait, as the reference does.
    void round(std::shared_ptr<Receive> receive)
    {
        thenOn(promoteMatured(), this, [this, receive](qint64 nextReadyAt) {
            if (receive->done)
                return;
            claimHead(receive, [this, receive, nextReadyAt](qint64) {
                thenOn(reclaimOrphans(), this, [this, receive, nextReadyAt](const Status &) {
                    if (receive->done)
                        return;
                    claimHead(receive, [this, receive, nextReadyAt](qint64 revision) {
                        idle(receive, nextReadyAt, revision);
                    });
                });
            });
        });
    }

    void claimHead(std::shared_ptr<Receive> receive, std::function<void(qint64 revision)> onEmpty)
    {
        thenOn(client->get(items, firstByKey()), this, [this, receive, onEmpty](const RangeResult &head) {
            if (receive->done)
                return;
            if (!head.status)
                return finish(receive, {head.status, {}, {}, 0});
            if (head.kvs.isEmpty())
                return onEmpty(head.header.revision);
            const KeyValue item = head.kvs.first();
            const QByteArray id = item.key.mid(items.size());
            thenOn(client->get(attempts + id), this, [this, receive, onEmpty, item, id](const RangeResult &counted) {
                if (receive->done)
                    return;
                if (!counted.status)
                    return finish(receive, {counted.status, {}, {}, 0});
                const int attempt = (counted.kvs.isEmpty() ? 0 : decodeAttempts(counted.kvs.first().value)) + 1;
                PutOptions onLease;
                onLease.lease = keeper->currentLeaseId();
                Txn txn;
                txn.compares = {Compare::modRevision(item.key, CompareResult::Equal, item.modRevision)};
                txn.success = {TxnOp::remove(item.key), TxnOp::put(claimed + id, item.value),
                               TxnOp::put(claims + id, consumerId, onLease),
                               TxnOp::put(attempts + id, encodeAttempts(attempt))};
                receive->claimInFlight = true;
                thenOn(client->txn(txn), this, [this, receive, onEmpty, item, id, attempt,
                                             lease = onLease.lease](const TxnResult &result) {
                    if (result.status.isTransient())
                        return settleClaim(receive, onEmpty, item, id, attempt, lease);
                    receive->claimInFlight = false;
                    if (result.status && result.succeeded)
                        return finish(receive, {{}, id, item.value, attempt, result.header.revision});
                    if (receive->stop.stopRequested())
                        return finish(receive, {receive->stopReason, {}, {}, 0});
                    if (result.status.code() == StatusCode::NotFound) {
                        if (leaseGaveUp)
                            return claimOnFreshLease(receive, onEmpty);
                        // The lease is being healed: give the healer a moment, then try again.
                        QTimer::singleShot(250, this, [this, receive, onEmpty] {
                            if (!receive->done)
                                claimHead(receive, onEmpty);
                        });
                        return;
                    }
                    if (!result.status)
                        return finish(receive, {result.status, {}, {}, 0});
                    claimHead(receive, onEmpty);  // another consumer won it: try the next head
                }, abandoned(receive));
            });
        });
    }

    // Healing the consumer lease gave up, so no claim can be made on it ever again (retrying
    // would spin for as long as the receive waits): a fresh lease, as the first receive makes,
    // and the claim goes on once it is there.
    void claimOnFreshLease(std::shared_ptr<Receive> receive, std::function<void(qint64)> onEmpty)
    {
        if (leaseGaveUp) {
            leaseGaveUp = false;
            q->removeSource(leaseSource);
            disconnect(keeper.get(), nullptr, this, nullptr);
            keeper->close();
            keeper.release()->deleteLater();  // perhaps inside its own signal
            startLease();
        }
        thenOn(leaseStarted, this, [this, receive, onEmpty](const Status &started) {
            if (receive->done)
                return;
            if (!started)
                return finish(receive, {started, {}, {}, 0});
            claimHead(receive, onEmpty);
        });
    }

    // The claim's answer was lost, so it may have committed: the item would then be claimed on
    // our healthy lease and nobody else would ever receive it. Read the claim back until that
    // is answered and deliver what turns out to be ours; should the receive be over before an
    // answer comes, give the item back instead.
    void settleClaim(std::shared_ptr<Receive> receive, std::function<void(qint64)> onEmpty, KeyValue item,
                     QByteArray id, int attempt, qint64 lease)
    {
        thenOn(client->get(claims + id), this, [=, this](const RangeResult &read) {
            if (!read.status) {
                if (!receive->stop.stopRequested()) {
                    QTimer::singleShot(250, this, [=, this] { settleClaim(receive, onEmpty, item, id, attempt, lease); });
                    return;
                }
                receive->claimInFlight = false;
                giveBack(item, id, lease, attempt);
                return finish(receive, {receive->stopReason, {}, {}, 0});
            }
            receive->claimInFlight = false;
            const KeyValue claim = read.kvs.value(0);
            if (claim.lease == lease && claim.value == consumerId && claim.createRevision > item.modRevision)
                return finish(receive, {{}, id, item.value, attempt, claim.createRevision});
            if (receive->stop.stopRequested())
                return finish(receive, {receive->stopReason, {}, {}, 0});
            claimHead(receive, onEmpty);  // it never committed
        }, abandoned(receive));
    }

    // Puts an item whose claim may have committed back at its place, should it have, and its
    // delivery count back to what it was: nobody received it, so it must not bring the item
    // nearer the dead letters. Retried until answered, since a claim left standing on a
    // healthy lease strands the item.
    void giveBack(KeyValue item, QByteArray id, qint64 lease, int attempt)
    {
        const QByteArray claim = claims + id;
        Txn txn;
        txn.compares = {Compare::value(claim, CompareResult::Equal, consumerId),
                        Compare::lease(claim, CompareResult::Equal, lease),
                        Compare::createRevision(claim, CompareResult::Greater, item.modRevision)};
        txn.success = {TxnOp::put(item.key, item.value), TxnOp::remove(claim), TxnOp::remove(claimed + id),
                       attempt > 1 ? TxnOp::put(attempts + id, encodeAttempts(attempt - 1))
                                   : TxnOp::remove(attempts + id)};
        thenOn(client->txn(txn), this, [=, this](const TxnResult &result) {
            if (result.status.isTransient() && !closing)
                QTimer::singleShot(250, this, [=, this] { giveBack(item, id, lease, attempt); });
        });
    }

    // Nothing ready: wait for a put under items/, at most until the next sweep is due or the
    // earliest delayed item matures, then go round again.
    void idle(std::shared_ptr<Receive> receive, qint64 nextReadyAt, qint64 observedRevision)
    {
        if (!receive->waits)
            return finish(receive, {Status(StatusCode::NotFound, q->context() + QStringLiteral(": nothing ready")), {}, {}, 0});
        std::chrono::milliseconds bound = options.sweepInterval;
        if (nextReadyAt > 0)
            bound = std::min(bound, std::chrono::milliseconds(std::max<qint64>(
                                        0, nextReadyAt - QDateTime::currentMSecsSinceEpoch())));
        auto pause = std::make_shared<StopSource>();
        auto link = std::make_shared<StopCallback>(receive->stop.token(), [pause] { pause->requestStop(); });
        QTimer::singleShot(bound, this, [pause] { pause->requestStop(); });
        const int source = q->addSource(QStringLiteral("receive watch ") + QString::fromUtf8(items));
        auto onRecovery = [this, source](const WatchRecoveryEvent &event) {
            if (q)
                q->reportSource(source, healthAfter(event.kind));
        };
        thenOn(waitForPut(client, items, observedRevision, options.resilience.watch, pause->token(), onRecovery),
               this, [this, receive, source, link](const Status &woken) {
                if (q)
                    q->removeSource(source);
                if (receive->done)
                    return;
                if (receive->stop.stopRequested())
                    return finish(receive, {receive->stopReason, {}, {}, 0});
                if (!woken && woken.code() != StatusCode::Cancelled) {
                    q->recordError(QStringLiteral("receive watch"), woken);
                    return finish(receive, {woken, {}, {}, 0});
                }
                round(receive);
            });
    }

    // Finishes with the ready time (epoch ms) of the earliest item still delayed, or 0.
    QFuture<qint64> promoteMatured()
    {
        auto promise = std::make_shared<QPromise<qint64>>();
        promise->start();
        promoteNext(promise);
        return promise->future();
    }

    void promoteNext(std::shared_ptr<QPromise<qint64>> promise)
    {
        thenOn(client->get(delayed, firstByKey()), this, [this, promise](const RangeResult &head) {
            if (!head.status || head.kvs.isEmpty())
                return settle(promise, qint64(0));
            const KeyValue item = head.kvs.first();
            const QByteArray name = item.key.mid(delayed.size());
            const qint64 readyAt = name.left(19).toLongLong();
            if (readyAt > QDateTime::currentMSecsSinceEpoch())
                return settle(promise, readyAt);
            promote(promise, item, readyAt, name, 1);
        }, [promise](const RangeResult &) { settle(promise, qint64(0)); });
    }

    // Moves a matured item under items/, by compare-and-set: a plain put would overwrite an
    // item that took the same id meanwhile. Enqueues keep ids apart, so an id found taken was
    // written by someone else; the item then goes under a fresh name, at the same place.
    void promote(std::shared_ptr<QPromise<qint64>> promise, KeyValue item, qint64 readyAt, QByteArray name, int attempt)
    {
        constexpr int MaxNameAttempts = 10;
        Txn txn;
        txn.compares = {Compare::modRevision(item.key, CompareResult::Equal, item.modRevision)};
        for (const QByteArray &prefix : {items, claimed, dlq})
            txn.compares.append(Compare::createRevision(prefix + name, CompareResult::Equal, 0));
        txn.success = {TxnOp::remove(item.key), TxnOp::put(items + name, item.value)};
        txn.failure = {TxnOp::range(item.key)};
        thenOn(client->txn(txn), this, [=, this](const TxnResult &moved) {
            if (!moved.status)
                return settle(promise, qint64(0));
            const bool stillDelayed = !moved.succeeded
                && moved.responses.value(0).range.kvs.value(0).modRevision == item.modRevision;
            if (!stillDelayed)
                return promoteNext(promise);  // moved, by us or by another consumer
            if (attempt >= MaxNameAttempts) {
                if (q)
                    q->recordError(QStringLiteral("promoting ") + QString::fromUtf8(item.key),
                                   Status(StatusCode::RetriesExhausted,
                                          QStringLiteral("every id drawn was taken (%1 attempts)").arg(attempt)));
                return settle(promise, qint64(0));
            }
            promote(promise, item, readyAt, itemName(readyAt), attempt + 1);
        }, [promise](const TxnResult &) { settle(promise, qint64(0)); });
    }

    // Claims whose claims/ key vanished with their consumer's lease go back under their own key
    // in items/ (keeping their place), or to dlq/ once delivered maxDeliveries times.
    QFuture<Status> reclaimOrphans()
    {
        auto promise = std::make_shared<QPromise<Status>>();
        promise->start();
        RangeOptions keysOnly = underPrefix();
        keysOnly.keysOnly = true;
        Txn snapshot;
        snapshot.success = {TxnOp::range(claimed, underPrefix()), TxnOp::range(claims, keysOnly),
                            TxnOp::range(attempts, underPrefix())};
        thenOn(client->txn(snapshot), this, [this, promise](const TxnResult &read) {
            if (!read.status)
                return settle(promise, read.status);
            QSet<QByteArray> live;
            for (const KeyValue &kv : read.responses.value(1).range.kvs)
                live.insert(kv.key.mid(claims.size()));
            QHash<QByteArray, int> delivered;
            for (const KeyValue &kv : read.responses.value(2).range.kvs)
                delivered.insert(kv.key.mid(attempts.size()), decodeAttempts(kv.value));
            QList<QFuture<TxnResult>> moves;
            for (const KeyValue &kv : read.responses.value(0).range.kvs) {
                const QByteArray id = kv.key.mid(claimed.size());
                if (live.contains(id))
                    continue;
                const QByteArray destination = (delivered.value(id) >= options.maxDeliveries ? dlq : items) + id;
                Txn txn;
                txn.compares = {Compare::absent(claims + id),
                                Compare::modRevision(kv.key, CompareResult::Equal, kv.modRevision)};
                txn.success = {TxnOp::remove(kv.key), TxnOp::put(destination, kv.value)};
                moves.append(client->txn(txn));
            }
            if (moves.isEmpty())
                return settle(promise, Status());
            auto left = std::make_shared<std::atomic<int>>(int(moves.size()));
            const auto counted = [promise, left](const TxnResult &) {
                if (--*left == 0)
                    settle(promise, Status());
            };
            for (auto &move : moves)
                thenOn(move, this, counted, counted);
        }, [promise](const TxnResult &) {
            settle(promise, Status(StatusCode::Closed, QStringLiteral("the queue is gone")));
        });
        return promise->future();
    }

    QFuture<Status> sweepNow()
    {
        return thenOn(promoteMatured(), this, [this](qint64) { return reclaimOrphans(); }, [](qint64) {
                   return QtFuture::makeReadyFuture(Status(StatusCode::Closed, QStringLiteral("the queue is gone")));
               });
    }

    void finish(const std::shared_ptr<Receive> &receive, const WorkItem &item)
    {
        if (std::exchange(receive->done, true))
            return;
        receives.removeOne(receive);
        receive->deadline.reset();
        receive->promise->addResult(item);
        receive->promise->finish();
    }

    void shutDown()
    {
        closing = true;
        sweeper.stop();
        for (const auto &receive : QList(receives))
            stopReceive(receive, Status(StatusCode::Cancelled, q->context() + QStringLiteral(": closed")));
        // Revoking the lease drops our claims at once, so other consumers can reclaim them.
        if (keeper)
            keeper->close();
    }

    DistributedWorkQueue *q;
    Client *client;
    const QByteArray path;
    const QByteArray items, delayed, claimed, claims, attempts, dlq;
    const QByteArray consumerId;  // what our claims hold
    const WorkQueueOptions options;

    // dispatcher thread only
    std::unique_ptr<SelfHealingKeepAlive> keeper;
    QFuture<Status> leaseStarted;
    int leaseSource = -1;
    bool leaseGaveUp = false;  // keeper's healing stopped with Failed
    QTimer sweeper{this};  // a child, so that it moves to the dispatcher thread with us
    QList<std::shared_ptr<Receive>> receives;
    bool closing = false;
};

DistributedWorkQueue::DistributedWorkQueue(Client *client, const QByteArray &path, const WorkQueueOptions &options,
                                           QObject *parent)
    : Recipe(client, QStringLiteral("DistributedWorkQueue"), path, options, parent),
      d(std::make_unique<DistributedWorkQueuePrivate>(this, client, path, options))
{
}

DistributedWorkQueue::~DistributedWorkQueue()
{
    close();
    DistributedWorkQueuePrivate *priv = d.release();
    runOn(priv, [priv] {
        priv->q = nullptr;
        priv->keeper.reset();
    });
    priv->deleteLater();
}

QByteArray DistributedWorkQueue::path() const
{
    return d->path;
}

QFuture<Status> DistributedWorkQueue::enqueue(const QByteArray &value, std::chrono::milliseconds delay)
{
    if (isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    if (delay > std::chrono::milliseconds::zero())
        return putAbsent(client(), context(), d->delayed, {value}, false, delay, d->alsoFreeUnder(d->delayed));
    return putAbsent(client(), context(), d->items, {value}, false, {}, d->alsoFreeUnder(d->items));
}

QFuture<Status> DistributedWorkQueue::enqueueAll(const QList<QByteArray> &values)
{
    if (isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    if (values.size() > MaxEnqueueAll)
        return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument,
                                                context() + QStringLiteral(": enqueueAll takes at most %1 values (got %2)")
                                                                .arg(MaxEnqueueAll)
                                                                .arg(values.size())));
    return putAbsent(client(), context(), d->items, values, true, {}, d->alsoFreeUnder(d->items));
}

WorkItem DistributedWorkQueue::receive(std::chrono::milliseconds timeout)
{
    const QString what = context() + QStringLiteral(": receive");
    // Refuse before starting: a receive left running would claim an item nobody works on.
    if (Status refused = waitBlocking(client(), QtFuture::makeReadyFuture(Status()), QDeadlineTimer::Forever,
                                      StopToken(), what);
        !refused)
        return {refused, {}, {}, 0};
    std::shared_ptr<Receive> started;
    QFuture<WorkItem> future = d->start(timeout, &started);
    const Status waited = waitBlocking(client(), future, QDeadlineTimer::Forever, StopToken(), what);
    if (!waited) {
        // Interrupted. At most one claim is in flight; should it win, the item is returned.
        QMetaObject::invokeMethod(d.get(), [priv = d.get(), started, waited] { priv->stopReceive(started, waited); },
                                  Qt::QueuedConnection);
        future.waitForFinished();
    }
    return future.result();
}

QFuture<WorkItem> DistributedWorkQueue::receiveAsync(std::chrono::milliseconds timeout)
{
    return d->start(timeout, nullptr);
}

QFuture<WorkItem> DistributedWorkQueue::tryReceive()
{
    return d->start(std::chrono::milliseconds::zero(), nullptr);
}

QFuture<Status> DistributedWorkQueue::ack(const WorkItem &item)
{
    Txn txn;
    txn.compares = claimStands(d->claims + item.id, clientId(), item);
    txn.success = {TxnOp::remove(d->claims + item.id), TxnOp::remove(d->claimed + item.id),
                   TxnOp::remove(d->attempts + item.id)};
    const QString lost = context() + QStringLiteral(": the claim on %1 was lost").arg(QString::fromUtf8(item.id));
    return after(client()->txn(txn), [lost](const TxnResult &result) { return statusOf(result, lost); });
}

QFuture<Status> DistributedWorkQueue::requeue(const WorkItem &item)
{
    Txn txn;
    txn.compares = claimStands(d->claims + item.id, clientId(), item);
    txn.success = {TxnOp::put(d->items + item.id, item.value), TxnOp::remove(d->claims + item.id),
                   TxnOp::remove(d->claimed + item.id)};
    const QString lost = context() + QStringLiteral(": the claim on %1 was lost").arg(QString::fromUtf8(item.id));
    return after(client()->txn(txn), [lost](const TxnResult &result) { return statusOf(result, lost); });
}

QFuture<DeadLetters> DistributedWorkQueue::deadLetters(int limit) const
{
    const auto letters = [dlq = d->dlq, attempts = d->attempts](const Status &status, const QList<KeyValue> &dead,
                                                                 const QList<KeyValue> &counts) {
        DeadLetters found{status, {}};
        QHash<QByteArray, int> delivered;
        for (const KeyValue &kv : counts)
            delivered.insert(kv.key.mid(attempts.size()), decodeAttempts(kv.value));
        for (const KeyValue &kv : dead) {
            const QByteArray id = kv.key.mid(dlq.size());
            found.letters.append({id, kv.value, delivered.value(id)});
        }
        return found;
    };
    RangeOptions first = underPrefix();
    first.limit = std::max(limit, 0);
    if (limit <= 0 || limit > MaxDeadLettersCountedOneByOne) {
        Txn read;
        read.success = {TxnOp::range(d->dlq, first), TxnOp::range(d->attempts, underPrefix())};
        return after(client()->txn(read), [letters](const TxnResult &result) {
            return letters(result.status, result.responses.value(0).range.kvs, result.responses.value(1).range.kvs);
        });
    }
    // A look at the first few letters reads their counts one by one, not the count of every
    // item in flight as well.
    Client *c = client();
    const auto gone = [](const RangeResult &) {
        return QtFuture::makeReadyFuture(DeadLetters{Status(StatusCode::Closed, QStringLiteral("the queue is gone")), {}});
    };
    return thenOn(c->get(d->dlq, first), d.get(), [c, letters, dlq = d->dlq, attempts = d->attempts](const RangeResult &read) {
            if (!read.status || read.kvs.isEmpty())
                return QtFuture::makeReadyFuture(letters(read.status, read.kvs, {}));
            Txn counts;
            for (const KeyValue &kv : read.kvs)
                counts.success.append(TxnOp::range(attempts + kv.key.mid(dlq.size())));
            return after(c->txn(counts), [letters, dead = read.kvs](const TxnResult &counted) {
                QList<KeyValue> found;
                for (const TxnOpResult &each : counted.responses)
                    found += each.range.kvs;
                return letters(counted.status, dead, found);
            });
        }, gone);
}

QFuture<Status> DistributedWorkQueue::requeueDeadLetter(const QByteArray &id)
{
    Client *c = client();
    const QByteArray letter = d->dlq + id;
    const QByteArray item = d->items + id;
    const QByteArray counter = d->attempts + id;
    const QString name = context() + QStringLiteral(": dead letter ") + QString::fromUtf8(id);
    const auto gone = [name](const RangeResult &) {
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, name + QStringLiteral(": the queue is gone")));
    };
    return thenOn(c->get(letter), d.get(), [c, letter, item, counter, name](const RangeResult &read) {
            if (!read.status)
                return QtFuture::makeReadyFuture(read.status);
            if (read.kvs.isEmpty())
                return QtFuture::makeReadyFuture(Status(StatusCode::NotFound, name + QStringLiteral(" does not exist")));
            Txn txn;
            txn.compares = {Compare::modRevision(letter, CompareResult::Equal, read.kvs.first().modRevision)};
            txn.success = {TxnOp::remove(letter), TxnOp::put(item, read.kvs.first().value), TxnOp::remove(counter)};
            return after(c->txn(txn), [name](const TxnResult &moved) {
                if (!moved.status)
                    return moved.status;
                return moved.succeeded ? Status() : Status(StatusCode::Aborted, name + QStringLiteral(" changed meanwhile"));
            });
        }, gone);
}

QFuture<Status> DistributedWorkQueue::purgeDeadLetter(const QByteArray &id)
{
    Txn txn;
    txn.success = {TxnOp::remove(d->dlq + id), TxnOp::remove(d->attempts + id)};
    return after(client()->txn(txn), [](const TxnResult &result) { return result.status; });
}

QFuture<DeadLetters> DistributedWorkQueue::purgeDeadLetters()
{
    Client *c = client();
    DeleteOptions everyLetter;
    everyLetter.range = KeyRange::prefix();
    everyLetter.prevKv = true;
    const QByteArray dlq = d->dlq;
    const QByteArray attempts = d->attempts;
    const auto gone = [](const DeleteResult &) {
        return QtFuture::makeReadyFuture(DeadLetters{Status(StatusCode::Closed, QStringLiteral("the queue is gone")), {}});
    };
    return thenOn(c->remove(dlq, everyLetter), d.get(), [c, dlq, attempts](const DeleteResult &removed) {
            DeadLetters purged{removed.status, {}};
            QList<QByteArray> counts;
            for (const KeyValue &kv : removed.prevKvs) {
                const QByteArray id = kv.key.mid(dlq.size());
                purged.letters.append({id, kv.value, 0});
                counts.append(attempts + id);
            }
            return after(removeKeys(c, counts), [purged](const Status &countsGone) mutable {
                if (purged.status && !countsGone)
                    purged.status = countsGone.withContext(QStringLiteral("the dead letters went, some delivery counts stayed"));
                return purged;
            });
        }, gone);
}

QFuture<Status> DistributedWorkQueue::sweep()
{
    if (isClosed())
        return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context() + QStringLiteral(": closed")));
    QFuture<Status> swept;
    runOn(d.get(), [priv = d.get(), &swept] { swept = priv->sweepNow(); });
    return swept;
}

qint64 DistributedWorkQueue::consumerLeaseId() const
{
    qint64 id = -1;
    runOn(d.get(), [priv = d.get(), &id] { id = priv->keeper ? priv->keeper->currentLeaseId() : -1; });
    return id;
}

void DistributedWorkQueue::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
