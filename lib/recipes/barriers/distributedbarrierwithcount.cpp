// SPDX-License-Identifier: Apache-2.0
#include "distributedbarrierwithcount.h"

#include "blockingwait_p.h"
#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "keymirror_p.h"
#include "selfhealingkeepalive_p.h"
#include "threading_p.h"
#include "waiting_p.h"
#include "watcher.h"

#include <QtCore/QPromise>
#include <QtCore/QTimer>

namespace QEtcd {

using namespace Internal;

namespace {
// One waitOnBarrier() in flight, driven on the dispatcher thread.
struct Arrival
{
    std::shared_ptr<QPromise<Status>> promise = std::make_shared<QPromise<Status>>();
    std::unique_ptr<QTimer> deadline;
    QByteArray token;
    QByteArray key;             // <path>/waiting/<token>
    qint64 roundRevision = 0;   // create revision of the <path>/ready this member joined
    std::unique_ptr<SelfHealingKeepAlive> keeper;
    std::unique_ptr<Watcher> watcher;
    int leaseSource = -1;
    int watchSource = -1;
    bool finished = false;
    bool takenAway = false;  // another client deleted or moved the key: it is not ours to delete
};
} // namespace

class DistributedBarrierWithCountPrivate : public QObject
{
public:
    DistributedBarrierWithCountPrivate(DistributedBarrierWithCount *q, Client *client, const QByteArray &path,
                                       qint64 memberCount, const RecipeOptions &options)
        : q(q), client(client), path(path), prefix(path + '/'), ready(path + "/ready"),
          waitingPrefix(path + "/waiting/"), memberCount(memberCount), options(options), context(q->context())
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
        if (memberCount <= 0)
            return Status(StatusCode::InvalidArgument,
                          context + QStringLiteral(": memberCount must be > 0 (got %1)").arg(memberCount));
        if (q->isClosed())
            return Status(StatusCode::Closed, context + QStringLiteral(": closed"));
        q->beginStart();
        return {};
    }

    QFuture<Status> startArrival(std::chrono::milliseconds timeout, std::shared_ptr<Arrival> *started)
    {
        if (Status refused = admit(); !refused)
            return QtFuture::makeReadyFuture(refused);
        auto arrival = std::make_shared<Arrival>();
        arrival->promise->start();
        *started = arrival;
        QMetaObject::invokeMethod(this, [this, arrival, timeout] { begin(arrival, timeout); }, Qt::QueuedConnection);
        return arrival->promise->future();
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void begin(std::shared_ptr<Arrival> arrival, std::chrono::milliseconds timeout)
    {
        if (closing)
            return finish(arrival, Status(StatusCode::Cancelled, context + QStringLiteral(": closed")));
        arrivals.append(arrival);
        if (timeout != DistributedBarrierWithCount::WaitForever) {
            arrival->deadline = makeDeadlineTimer();
            connect(arrival->deadline.get(), &QTimer::timeout, this, [this, weak = std::weak_ptr(arrival)] {
                if (const auto arrival = weak.lock())
                    finish(arrival, Status(StatusCode::DeadlineExceeded,
                                           context + QStringLiteral(": fewer than %1 members arrived in time")
                                                         .arg(memberCount)));
            });
            arrival->deadline->start(timeout);
        }
        arrival->token = uniqueToken(q->clientId());
        arrival->key = waitingPrefix + arrival->token;
        // The first to arrive opens the round.
        Txn open;
        open.compares = {Compare::absent(ready)};
        open.success = {TxnOp::put(ready, arrival->token)};
        open.failure = {TxnOp::range(ready)};
        thenOn(client->txn(open, options.resilience.rpc), this, [this, arrival](const TxnResult &opened) {
            if (arrival->finished)
                return;
            if (!opened.status)
                return finish(arrival, opened.status);
            arrival->roundRevision = opened.succeeded
                ? opened.header.revision
                : opened.responses.value(0).range.kvs.value(0).createRevision;
            enroll(arrival);
        });
    }

    void enroll(std::shared_ptr<Arrival> arrival)
    {
        // Heals while the member waits; once the wait is over there is nothing to restore.
        arrival->keeper = std::make_unique<SelfHealingKeepAlive>(
            client, options.ttlSeconds,
            [this, weak = std::weak_ptr(arrival)](qint64 lease, qint64 previous) {
                const auto arrival = weak.lock();
                if (!arrival || arrival->finished)
                    return QtFuture::makeReadyFuture(
                        Status(StatusCode::OwnershipLost, QStringLiteral("the wait is over")));
                return establishInRound(arrival, lease, previous);
            },
            options.resilience.lease);
        arrival->leaseSource = q->track(arrival->keeper.get(), QStringLiteral("waiter lease"));
        // Someone removed this member from the round: it no longer counts, and it is told so
        // rather than put back behind the remover's back.
        arrival->keeper->followKey(arrival->key);
        connect(arrival->keeper.get(), &SelfHealingKeepAlive::keyTakenAway, this,
                [this, weak = std::weak_ptr(arrival)](const QByteArray &, qint64, const Status &cause) {
                    if (const auto arrival = weak.lock()) {
                        arrival->takenAway = true;
                        finish(arrival, cause.withContext(context));
                    }
                });
        thenOn(arrival->keeper->start(), this, [this, arrival](const Status &enrolled) {
            if (arrival->finished)
                return;
            if (!enrolled)
                return finish(arrival, enrolled.withContext(context + QStringLiteral(": setting ")
                                                            + QString::fromUtf8(arrival->key)));
            Q_EMIT q->arrived(arrival->roundRevision);
            check(arrival);
        });
    }

    // The member's key goes in only while the round it joined is open: a heal after a long
    // cut-off may come when that round has tripped and the next one opened, and a key put back
    // then would be counted there and trip it a member short. Found over, the round released
    // this member, as a watch would have told it.
    QFuture<Status> establishInRound(const std::shared_ptr<Arrival> &arrival, qint64 lease, qint64 previous)
    {
        const Status roundOver(StatusCode::OwnershipLost,
                               context + QStringLiteral(": the round %1 joined is over").arg(QString::fromUtf8(arrival->key)));
        const QFuture<Status> established = casEstablishWhile(
            client, arrival->key, arrival->token, lease, previous,
            Compare::createRevision(ready, CompareResult::Equal, arrival->roundRevision), roundOver);
        return thenOn(established, this, [this, arrival, roundOver](const Status &outcome) {
            if (outcome == roundOver)
                finish(arrival, {});
            return outcome;
        }, [](const Status &outcome) { return outcome; });
    }

    // Has the round tripped, or are we enough to trip it?
    void check(std::shared_ptr<Arrival> arrival)
    {
        // Keys, not count_only: etcd 3.4 counts before applying min_create_revision, so a
        // count would include the keys an earlier round's members have not removed yet.
        RangeOptions members;
        members.range = KeyRange::prefix();
        members.keysOnly = true;
        members.minCreateRevision = arrival->roundRevision;
        Txn read;
        read.success = {TxnOp::range(ready), TxnOp::range(waitingPrefix, members)};
        thenOn(client->txn(read, options.resilience.rpc), this, [this, arrival](const TxnResult &counted) {
            if (arrival->finished)
                return;
            if (!counted.status)
                return finish(arrival, counted.status);
            const QList<KeyValue> round = counted.responses.value(0).range.kvs;
            if (round.isEmpty() || round.first().createRevision != arrival->roundRevision)
                return finish(arrival, {});
            if (counted.responses.value(1).range.kvs.size() >= memberCount)
                return trip(arrival);
            if (!arrival->watcher)
                watch(arrival, counted.header.revision);
        });
    }

    void trip(std::shared_ptr<Arrival> arrival)
    {
        Txn close;
        close.compares = {Compare::createRevision(ready, CompareResult::Equal, arrival->roundRevision)};
        close.success = {TxnOp::remove(ready)};
        thenOn(client->txn(close, options.resilience.rpc), this, [this, arrival](const TxnResult &closed) {
            // Not succeeded: another member tripped it first.
            finish(arrival, closed.status);
        });
    }

    void watch(std::shared_ptr<Arrival> arrival, qint64 observedRevision)
    {
        WatchOptions from;
        from.range = KeyRange::prefix();
        from.startRevision = observedRevision + 1;
        arrival->watcher = std::make_unique<Watcher>(client, prefix, from, options.resilience.watch);
        arrival->watchSource = q->addSource(QStringLiteral("barrier watch"));
        const std::weak_ptr weak(arrival);
        connect(arrival->watcher.get(), &Watcher::eventsReceived, this,
                [this, weak](const QList<WatchEvent> &events) {
                    const auto arrival = weak.lock();
                    if (!arrival)
                        return;
                    bool arrived = false;
                    for (const WatchEvent &event : events) {
                        if (event.kv.key == ready)
                            return finish(arrival, {});  // deleted, or a later round opened
                        arrived |= event.type == WatchEvent::Type::Put && event.kv.key.startsWith(waitingPrefix);
                    }
                    if (arrived)
                        check(arrival);
                });
        connect(arrival->watcher.get(), &Watcher::recovery, this, [this, weak](const WatchRecoveryEvent &event) {
            const auto arrival = weak.lock();
            if (!arrival)
                return;
            q->reportWatchRecovery(arrival->watchSource, QStringLiteral("rendezvous watch"), event);
            switch (event.kind) {
            case WatchRecoveryKind::Suspended:
                return;
            case WatchRecoveryKind::Resubscribed:
            case WatchRecoveryKind::Resynced:
                return check(arrival);  // what tripped it may have happened during the outage
            case WatchRecoveryKind::Failed:
                q->recordError(QStringLiteral("barrier watch"), event.cause);
                return finish(arrival, event.cause);
            }
        });
        thenOn(arrival->watcher->start(), this, [this, arrival](const Status &started) {
            if (!started)
                finish(arrival, started);
        });
    }

    void finish(const std::shared_ptr<Arrival> &arrival, const Status &status)
    {
        if (std::exchange(arrival->finished, true))
            return;
        arrivals.removeOne(arrival);
        // Deleted later: finish() may run inside their own signals.
        if (arrival->deadline) {
            arrival->deadline->stop();
            arrival->deadline.release()->deleteLater();
        }
        if (arrival->watcher) {
            arrival->watcher->close();
            arrival->watcher.release()->deleteLater();
            q->removeSource(arrival->watchSource);
        }
        const auto complete = [arrival, status] {
            arrival->promise->addResult(status);
            arrival->promise->finish();
        };
        if (!arrival->keeper)
            return complete();
        q->removeSource(arrival->leaseSource);
        disconnect(arrival->keeper.get(), nullptr, q, nullptr);
        // Revokes the lease, so the key goes whatever happens next.
        arrival->keeper->close();
        arrival->keeper.release()->deleteLater();
        if (arrival->takenAway)
            return complete();  // not ours any more
        // Reported once the key is gone, so that a member that gave up no longer counts, and one
        // closed on its way out (a CLI member's SIGTERM) leaves nothing behind when its client
        // goes, which cancels calls in flight. Answered on the completion queue's thread, so even
        // should the barrier be gone by then.
        client->remove(arrival->key, {}, options.resilience.rpc, [complete](const DeleteResult &) { complete(); });
    }

    void shutDown()
    {
        closing = true;
        for (const auto &arrival : QList(arrivals))
            finish(arrival, Status(StatusCode::Cancelled, context + QStringLiteral(": closed")));
    }

    DistributedBarrierWithCount *q;
    Client *client;
    const QByteArray path;
    const QByteArray prefix;
    const QByteArray ready;
    const QByteArray waitingPrefix;
    const qint64 memberCount;
    const RecipeOptions options;
    const QString context;

    // dispatcher thread only
    QList<std::shared_ptr<Arrival>> arrivals;
    bool closing = false;
};

DistributedBarrierWithCount::DistributedBarrierWithCount(Client *client, const QByteArray &path, qint64 memberCount,
                                                         const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("DistributedBarrierWithCount"), path, options, parent),
      d(std::make_unique<DistributedBarrierWithCountPrivate>(this, client, path, memberCount, this->options()))
{
}

DistributedBarrierWithCount::~DistributedBarrierWithCount()
{
    close();
    DistributedBarrierWithCountPrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QByteArray DistributedBarrierWithCount::path() const
{
    return d->path;
}

qint64 DistributedBarrierWithCount::memberCount() const
{
    return d->memberCount;
}

QFuture<Status> DistributedBarrierWithCount::waitOnBarrierAsync(std::chrono::milliseconds timeout)
{
    std::shared_ptr<Arrival> arrival;
    return d->startArrival(timeout, &arrival);
}

bool DistributedBarrierWithCount::waitOnBarrier(std::chrono::milliseconds timeout)
{
    std::shared_ptr<Arrival> arrival;
    const QFuture<Status> future = d->startArrival(timeout, &arrival);
    const Status waited = waitBlocking(client(), future, QDeadlineTimer::Forever, StopToken(),
                                       context() + QStringLiteral(": waitOnBarrier"));
    if (waited)
        return future.result().isOk();
    QMetaObject::invokeMethod(d.get(), [priv = d.get(), arrival, waited] { priv->finish(arrival, waited); },
                              Qt::QueuedConnection);
    return false;
}

QFuture<qint64> DistributedBarrierWithCount::waiterCount() const
{
    RangeOptions countOnly;
    countOnly.range = KeyRange::prefix();
    countOnly.countOnly = true;
    return after(client()->get(d->waitingPrefix, countOnly, d->options.resilience.rpc), [](const RangeResult &result) {
        return result.status ? result.count : qint64(-1);
    });
}

void DistributedBarrierWithCount::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
