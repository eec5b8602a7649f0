// SPDX-License-Identifier: Apache-2.0
#include "distributedqueue.h"
#include "distributedpriorityqueue.h"

#include "blockingwait_p.h"
#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "queuekeys_p.h"
#include "recipe_p.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QPromise>
#include <QtCore/QTimer>

namespace QEtcd {

using namespace Internal;

namespace Internal {

namespace {
// One take in flight, driven on the dispatcher thread.
struct Take
{
    std::shared_ptr<QPromise<QueueItem>> promise = std::make_shared<QPromise<QueueItem>>();
    bool waits = true;  // false: one look
    StopSource stop;
    Status stopReason;
    std::unique_ptr<QTimer> deadline;
    // While the delete is in flight the take cannot be abandoned: should it win, the item is
    // already gone from etcd and must reach the caller.
    bool casInFlight = false;
    bool done = false;
};

Status closedStatus(const Recipe *recipe)
{
    return Status(StatusCode::Closed, recipe->context() + QStringLiteral(": closed"));
}
} // namespace

// The take side both queues share: read the head by the queue's order, delete it while it is
// unchanged, and when the queue is empty wait for a put under the prefix, then read again (the
// first put seen is not necessarily the head).
template <class Queue>
class QueueTaker : public QObject
{
public:
    QueueTaker(Queue *q, Client *client, const QByteArray &prefix, SortTarget order)
        : q(q), client(client), prefix(prefix), order(order)
    {
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    // --- any thread -----------------------------------------------------------------------
    QFuture<QueueItem> start(std::chrono::milliseconds timeout, std::shared_ptr<Take> *started)
    {
        if (Status status = q->validate(); !status)
            return QtFuture::makeReadyFuture(QueueItem{status, {}, {}});
        if (prefix.size() <= 1)
            return QtFuture::makeReadyFuture(
                QueueItem{Status(StatusCode::InvalidArgument, q->context() + QStringLiteral(": path is empty")), {}, {}});
        if (q->isClosed())
            return QtFuture::makeReadyFuture(QueueItem{closedStatus(q), {}, {}});
        q->beginStart();
        auto take = std::make_shared<Take>();
        take->waits = timeout > std::chrono::milliseconds::zero();
        take->promise->start();
        if (started)
            *started = take;
        QMetaObject::invokeMethod(this, [this, take, timeout] { begin(take, timeout); }, Qt::QueuedConnection);
        return take->promise->future();
    }

    QueueItem takeBlocking(std::chrono::milliseconds timeout)
    {
        const QString what = q->context() + QStringLiteral(": take");
        // Refuse before starting: a take left running could remove an item nobody receives.
        if (Status refused = waitBlocking(client, QtFuture::makeReadyFuture(Status()), QDeadlineTimer::Forever,
                                          StopToken(), what);
            !refused)
            return {refused, {}, {}};
        std::shared_ptr<Take> take;
        QFuture<QueueItem> future = start(timeout, &take);
        const Status waited = waitBlocking(client, future, QDeadlineTimer::Forever, StopToken(), what);
        if (!waited) {
            // Interrupted. At most one delete is in flight; should it win, the item is returned.
            QMetaObject::invokeMethod(this, [this, take, waited] { stopTake(take, waited); }, Qt::QueuedConnection);
            future.waitForFinished();
        }
        return future.result();
    }

    QFuture<qint64> size() const
    {
        RangeOptions countOnly;
        countOnly.range = KeyRange::prefix();
        countOnly.countOnly = true;
        return after(client->get(prefix, countOnly), [](const RangeResult &result) {
            return result.status ? result.count : qint64(-1);
        });
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void shutDown()
    {
        for (const auto &take : QList(takes))
            stopTake(take, Status(StatusCode::Cancelled, q->context() + QStringLiteral(": closed")));
    }

    Queue *q;

private:
    void begin(std::shared_ptr<Take> take, std::chrono::milliseconds timeout)
    {
        takes.append(take);
        if (take->waits && timeout != Queue::WaitForever) {
            take->deadline = makeDeadlineTimer();
            connect(take->deadline.get(), &QTimer::timeout, this, [this, take] {
                stopTake(take, Status(StatusCode::DeadlineExceeded, q->context() + QStringLiteral(": nothing to take in time")));
            });
            take->deadline->start(timeout);
        }
        poll(take);
    }

    void stopTake(const std::shared_ptr<Take> &take, const Status &why)
    {
        if (!take || take->done)
            return;
        if (take->stopReason.isOk())
            take->stopReason = why;
        take->stop.requestStop();
        if (take->deadline) {  // perhaps in its own timeout signal
            take->deadline->stop();
            take->deadline.release()->deleteLater();
        }
        if (!take->casInFlight)
            finish(take, {take->stopReason, {}, {}});
    }

    // Commit order has ties: a batch lands in one revision, and etcd sorts ties in no
    // particular order. Reading two heads shows a tie; the batch's first is then its lowest
    // key (the batch index is part of the name).
    void poll(std::shared_ptr<Take> take)
    {
        RangeOptions head;
        head.range = KeyRange::prefix();
        head.sortTarget = order;
        head.sortOrder = SortOrder::Ascending;
        head.limit = order == SortTarget::ModRevision ? 2 : 1;
        thenOn(client->get(prefix, head), this, [this, take](const RangeResult &result) {
            if (take->done)
                return;
            if (!result.status)
                return finish(take, {result.status, {}, {}});
            if (result.kvs.size() == 2 && result.kvs[0].modRevision == result.kvs[1].modRevision)
                return pollBatch(take, result.kvs[0].modRevision);
            if (!result.kvs.isEmpty())
                return claim(take, result.kvs.first());
            if (!take->waits)
                return finish(take, {Status(StatusCode::NotFound, q->context() + QStringLiteral(": empty")), {}, {}});
            wait(take, result.header.revision);
        });
    }

    void pollBatch(std::shared_ptr<Take> take, qint64 revision)
    {
        RangeOptions first;
        first.range = KeyRange::prefix();
        first.minModRevision = revision;
        first.maxModRevision = revision;
        first.limit = 1;
        thenOn(client->get(prefix, first), this, [this, take](const RangeResult &result) {
            if (take->done)
                return;
            if (!result.status)
                return finish(take, {result.status, {}, {}});
            if (result.kvs.isEmpty())
                return poll(take);  // the whole batch was taken meanwhile
            claim(take, result.kvs.first());
        });
    }

    void wait(std::shared_ptr<Take> take, qint64 observedRevision)
    {
        const int source = q->addSource(QStringLiteral("take watch ") + QString::fromUtf8(prefix));
        auto onRecovery = [this, source](const WatchRecoveryEvent &event) {
            if (q)
                q->reportSource(source, healthAfter(event.kind));
        };
        const QFuture<Status> put =
            waitForPut(client, prefix, observedRevision, q->options().resilience.watch, take->stop.token(), onRecovery);
        thenOn(put, this, [this, take, source](const Status &woken) {
                if (q)
                    q->removeSource(source);
                if (take->done)
                    return;
                if (!woken) {
                    q->recordError(QStringLiteral("take watch"), woken);
                    return finish(take, {woken, {}, {}});
                }
                poll(take);
            });
    }

    void claim(std::shared_ptr<Take> take, const KeyValue &head)
    {
        Txn txn;
        txn.compares = {Compare::modRevision(head.key, CompareResult::Equal, head.modRevision)};
        txn.success = {TxnOp::remove(head.key)};
        take->casInFlight = true;
        // The queue may be destroyed while the delete is in flight (its close() waits for it,
        // see stopTake()): the take must still end, with the item should the delete have won,
        // since etcd no longer has it.
        const auto orphaned = [take, head](const TxnResult &result) {
            if (result.status && result.succeeded)
                return settle(take, {{}, head.key, head.value});
            settle(take, {take->stopReason.isOk() ? Status(StatusCode::Cancelled, QStringLiteral("the queue is gone"))
                                                  : take->stopReason,
                          {}, {}});
        };
        thenOn(client->txn(txn), this, [this, take, head](const TxnResult &result) {
            take->casInFlight = false;
            if (result.status && result.succeeded)
                return finish(take, {{}, head.key, head.value});
            if (take->stop.stopRequested())
                return finish(take, {take->stopReason, {}, {}});
            if (!result.status)
                return finish(take, {result.status, {}, {}});
            poll(take);  // another taker won the head: the next one is ours to try at once
        }, orphaned);
    }

    void finish(const std::shared_ptr<Take> &take, const QueueItem &item)
    {
        if (take->done)
            return;
        takes.removeOne(take);
        take->deadline.reset();
        settle(take, item);
    }

    // Also once the taker is gone, from whichever thread finds out.
    static void settle(const std::shared_ptr<Take> &take, const QueueItem &item)
    {
        if (std::exchange(take->done, true))
            return;
        take->promise->addResult(item);
        take->promise->finish();
    }

    Client *client;
    const QByteArray prefix;
    const SortTarget order;
    QList<std::shared_ptr<Take>> takes;  // dispatcher thread only
};

} // namespace Internal

// The taker outlives its recipe until the dispatcher has run every continuation it queued.
template <class Queue>
static void retire(std::unique_ptr<QueueTaker<Queue>> &taker)
{
    QueueTaker<Queue> *raw = taker.release();
    runOn(raw, [raw] { raw->q = nullptr; });
    raw->deleteLater();
}

// --- DistributedQueue ---------------------------------------------------------------------

class DistributedQueuePrivate
{
public:
    QByteArray path;
    QByteArray prefix;
    std::unique_ptr<QueueTaker<DistributedQueue>> taker;
};

DistributedQueue::DistributedQueue(Client *client, const QByteArray &path, const RecipeOptions &options,
                                   QObject *parent)
    : Recipe(client, QStringLiteral("DistributedQueue"), path, options, parent),
      d(new DistributedQueuePrivate{path, path + '/', nullptr})
{
    // Commit order, not key order: two producers' clocks need not agree.
    d->taker = std::make_unique<QueueTaker<DistributedQueue>>(this, client, d->prefix, SortTarget::ModRevision);
}

DistributedQueue::~DistributedQueue()
{
    close();
    retire(d->taker);
}

QByteArray DistributedQueue::path() const
{
    return d->path;
}

QFuture<Status> DistributedQueue::enqueue(const QByteArray &value)
{
    if (isClosed())
        return QtFuture::makeReadyFuture(closedStatus(this));
    return putAbsent(client(), context(), d->prefix, {value}, false);
}

QFuture<Status> DistributedQueue::enqueueAll(const QList<QByteArray> &values)
{
    if (isClosed())
        return QtFuture::makeReadyFuture(closedStatus(this));
    return putAbsent(client(), context(), d->prefix, values, true);
}

QueueItem DistributedQueue::take(std::chrono::milliseconds timeout)
{
    return d->taker->takeBlocking(timeout);
}

QFuture<QueueItem> DistributedQueue::takeAsync(std::chrono::milliseconds timeout)
{
    return d->taker->start(timeout, nullptr);
}

QFuture<QueueItem> DistributedQueue::tryTake()
{
    return d->taker->start(std::chrono::milliseconds::zero(), nullptr);
}

QFuture<qint64> DistributedQueue::size() const
{
    return d->taker->size();
}

void DistributedQueue::doClose()
{
    runOn(d->taker.get(), [taker = d->taker.get()] { taker->shutDown(); });
}

// --- DistributedPriorityQueue -------------------------------------------------------------

class DistributedPriorityQueuePrivate : public QObject
{
public:
    DistributedPriorityQueuePrivate(Client *client, const QByteArray &path) : client(client), path(path)
    {
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    // Sequence = last of this priority + 1, claimed by a compare on the sentinel's mod
    // revision: a producer that read before another's enqueue landed loses and reads again.
    void enqueueAt(std::shared_ptr<QPromise<Status>> promise, QByteArray value, int priority, int attempt)
    {
        const QByteArray level = QByteArray::number(priority).rightJustified(5, '0');
        const QByteArray levelPrefix = path + '/' + level + '/';
        const QByteArray sentinel = "__" + path + '/' + level;
        RangeOptions last;
        last.range = KeyRange::prefix();
        last.sortTarget = SortTarget::Key;
        last.sortOrder = SortOrder::Descending;
        last.limit = 1;
        last.keysOnly = true;
        thenOn(client->get(levelPrefix, last), this, [=, this](const RangeResult &result) {
            if (!result.status)
                return settle(promise, result.status);
            const qint64 sequence =
                result.kvs.isEmpty() ? 0 : result.kvs.first().key.mid(levelPrefix.size()).toLongLong() + 1;
            Txn txn;
            txn.compares = {Compare::modRevision(sentinel, CompareResult::Less, result.header.revision + 1)};
            txn.success = {TxnOp::put(sentinel, QByteArray()),
                           TxnOp::put(levelPrefix + QByteArray::number(sequence).rightJustified(16, '0'), value)};
            thenOn(client->txn(txn), this, [=, this](const TxnResult &written) {
                if (!written.status || written.succeeded)
                    return settle(promise, written.status);
                if (attempt + 1 >= DistributedPriorityQueue::MaxEnqueueAttempts)
                    return settle(promise, Status(StatusCode::RetriesExhausted,
                                                  QStringLiteral("DistributedPriorityQueue[%1]: no free sequence after %2 attempts")
                                                      .arg(QString::fromUtf8(path))
                                                      .arg(DistributedPriorityQueue::MaxEnqueueAttempts)));
                enqueueAt(promise, value, priority, attempt + 1);
            });
        });
    }

    static void settle(const std::shared_ptr<QPromise<Status>> &promise, const Status &status)
    {
        promise->addResult(status);
        promise->finish();
    }

    Client *client;
    const QByteArray path;
    std::unique_ptr<QueueTaker<DistributedPriorityQueue>> taker;
};

DistributedPriorityQueue::DistributedPriorityQueue(Client *client, const QByteArray &path,
                                                   const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("DistributedPriorityQueue"), path, options, parent),
      d(std::make_unique<DistributedPriorityQueuePrivate>(client, path))
{
    d->taker = std::make_unique<QueueTaker<DistributedPriorityQueue>>(this, client, path + '/', SortTarget::Key);
}

DistributedPriorityQueue::~DistributedPriorityQueue()
{
    close();
    retire(d->taker);
    DistributedPriorityQueuePrivate *priv = d.release();
    priv->deleteLater();
}

QByteArray DistributedPriorityQueue::path() const
{
    return d->path;
}

QFuture<Status> DistributedPriorityQueue::enqueue(const QByteArray &value, int priority)
{
    if (priority < 0 || priority > MaxPriority)
        return QtFuture::makeReadyFuture(Status(
            StatusCode::InvalidArgument, context() + QStringLiteral(": priority %1 is outside 0..65535").arg(priority)));
    if (isClosed())
        return QtFuture::makeReadyFuture(closedStatus(this));
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    QMetaObject::invokeMethod(d.get(), [priv = d.get(), promise, value, priority] {
        priv->enqueueAt(promise, value, priority, 0);
    }, Qt::QueuedConnection);
    return promise->future();
}

QueueItem DistributedPriorityQueue::take(std::chrono::milliseconds timeout)
{
    return d->taker->takeBlocking(timeout);
}

QFuture<QueueItem> DistributedPriorityQueue::takeAsync(std::chrono::milliseconds timeout)
{
    return d->taker->start(timeout, nullptr);
}

QFuture<QueueItem> DistributedPriorityQueue::tryTake()
{
    return d->taker->start(std::chrono::milliseconds::zero(), nullptr);
}

QFuture<qint64> DistributedPriorityQueue::size() const
{
    return d->taker->size();
}

void DistributedPriorityQueue::doClose()
{
    runOn(d->taker.get(), [taker = d->taker.get()] { taker->shutDown(); });
}

} // namespace QEtcd
