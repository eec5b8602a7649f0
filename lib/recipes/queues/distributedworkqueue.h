#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <QtCore/QByteArray>
#include <QtCore/QFuture>
#include <QtCore/QList>

#include <chrono>
#include <memory>

namespace QEtcd {

struct QETCD_EXPORT WorkQueueOptions : RecipeOptions
{
    // The consumer lease's TTL: how long a dead consumer's claims stay invisible. It bounds crash
    // detection, not processing time: a live consumer keeps its lease renewed. (ttlSeconds is
    // not used by this recipe.)
    int visibilityTimeoutSeconds = 30;
    // Deliveries after which an orphaned item goes to the dead-letter prefix instead.
    int maxDeliveries = 5;
    // How often a consumer promotes matured delayed items and reclaims orphaned claims.
    std::chrono::milliseconds sweepInterval = std::chrono::seconds(30);
};

// One delivery: Ok with the item's id (its key's basename under items/), payload and delivery
// count, or why nothing was received (NotFound, DeadlineExceeded, Cancelled, Closed, or the
// error that stopped it). claimRevision names the claim itself (its claims/ key's create
// revision): ack() and requeue() hold only while that very claim stands, so an earlier
// delivery of the same item to the same consumer settles nothing.
struct QETCD_EXPORT WorkItem
{
    Status status;
    QByteArray id;
    QByteArray value;
    int attempt = 0;
    qint64 claimRevision = 0;
};

struct QETCD_EXPORT DeadLetter
{
    QByteArray id;
    QByteArray value;
    int attempts = 0;
};

struct QETCD_EXPORT DeadLetters
{
    Status status;
    QList<DeadLetter> letters;
};

class DistributedWorkQueuePrivate;

// A work queue at least once, on etcd-recipes' layout under <path>/: items/, delayed/,
// claimed/ (the in-flight copy, not leased), claims/ (the claimer's clientId on its consumer
// lease), attempts/ (int32 big-endian delivery count) and dlq/. A receive moves the head item
// to claimed/ and claims/ in one transaction; ack() deletes the claim, requeue() puts the
// item back. When a consumer dies its lease expires, its claims/ keys vanish, and any
// consumer's sweeper puts the orphaned items back under their original key (so they keep
// their place), or into dlq/ once they were delivered maxDeliveries times.
//
// The consumer lease is created by the first receive and heals forward: a healed lease
// restores nothing, since claims made under the old one are already orphans that the
// sweepers reclaim. Producers that only enqueue never create a lease.
//
// Every receive has a timeout, a non-blocking twin, and is woken by close() with Cancelled.
class QETCD_EXPORT DistributedWorkQueue : public Recipe
{
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    DistributedWorkQueue(Client *client, const QByteArray &path, const WorkQueueOptions &options = WorkQueueOptions(),
                         QObject *parent = nullptr);
    ~DistributedWorkQueue() override;

    QByteArray path() const;

    // A positive delay parks the item under delayed/ until then (judged by client clocks).
    QFuture<Status> enqueue(const QByteArray &value, std::chrono::milliseconds delay = std::chrono::milliseconds::zero());
    // One transaction: all or nothing, and the ids keep the argument order.
    QFuture<Status> enqueueAll(const QList<QByteArray> &values);

    // Blocks until an item is claimed or the timeout passes; a zero timeout looks once.
    WorkItem receive(std::chrono::milliseconds timeout = WaitForever);
    QFuture<WorkItem> receiveAsync(std::chrono::milliseconds timeout = WaitForever);
    // One look: NotFound when nothing is ready.
    QFuture<WorkItem> tryReceive();

    // OwnershipLost when the claim was lost meanwhile: the item may be (or have been) worked on
    // twice.
    QFuture<Status> ack(const WorkItem &item);
    // Back under items/ with its delivery count kept; OwnershipLost as for ack().
    QFuture<Status> requeue(const WorkItem &item);

    QFuture<DeadLetters> deadLetters() const;
    // Back under items/ with a fresh delivery count.
    QFuture<Status> requeueDeadLetter(const QByteArray &id);
    QFuture<Status> purgeDeadLetter(const QByteArray &id);

    // Promote matured delayed items and reclaim orphaned claims now, as the sweeper does.
    QFuture<Status> sweep();

    // -1 until the first receive created the consumer lease.
    qint64 consumerLeaseId() const;

protected:
    void doClose() override;

private:
    friend class DistributedWorkQueuePrivate;
    std::unique_ptr<DistributedWorkQueuePrivate> d;
};

} // namespace QEtcd
