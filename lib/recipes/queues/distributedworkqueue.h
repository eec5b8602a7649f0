// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <QtCore/QByteArray>
#include <QtCore/QFuture>
#include <QtCore/QList>

#include <chrono>
#include <memory>

namespace QEtcd {

/// What a DistributedWorkQueue is configured with.
struct QETCD_EXPORT WorkQueueOptions : RecipeOptions
{
    /// The consumer lease's TTL: how long a dead consumer's claims stay invisible. It bounds crash
    /// detection, not processing time: a live consumer keeps its lease renewed. (ttlSeconds is
    /// not used by this recipe.)
    int visibilityTimeoutSeconds = 30;
    /// Deliveries after which an orphaned item goes to the dead-letter prefix instead.
    int maxDeliveries = 5;
    /// How often a consumer promotes matured delayed items and reclaims orphaned claims.
    std::chrono::milliseconds sweepInterval = std::chrono::seconds(30);
};

/// One delivery of a work item, or why nothing was received.
///
/// One delivery: Ok with the item's id (its key's basename under items/), payload and delivery
/// count, or why nothing was received (NotFound, DeadlineExceeded, Cancelled, Closed, or the
/// error that stopped it). claimRevision names the claim itself (its claims/ key's create
/// revision): ack() and requeue() hold only while that very claim stands, so an earlier
/// delivery of the same item to the same consumer settles nothing.
struct QETCD_EXPORT WorkItem
{
    Status status;             ///< Ok, or why nothing was received.
    QByteArray id;             ///< The item's key's basename under items/.
    QByteArray value;          ///< The payload.
    int attempt = 0;           ///< Which delivery this is, counting from 1.
    qint64 claimRevision = 0;  ///< The create revision of this delivery's claims/ key.
};

/// An item that was delivered too often, parked under dlq/.
struct QETCD_EXPORT DeadLetter
{
    QByteArray id;      ///< The item's id.
    QByteArray value;   ///< The payload.
    int attempts = 0;   ///< How often it was delivered.
};

/// The dead letters of a work queue, or why they could not be read.
struct QETCD_EXPORT DeadLetters
{
    Status status;              ///< Ok, or why the read failed.
    QList<DeadLetter> letters;  ///< Every dead letter.
};

class DistributedWorkQueuePrivate;

/// A work queue (at least once) with visibility timeouts, delays and dead letters.
///
/// A work queue at least once, on etcd-recipes' layout under `<path>/`: items/, delayed/,
/// claimed/ (the in-flight copy, not leased), claims/ (the claimer's clientId on its consumer
/// lease), attempts/ (int32 big-endian delivery count) and dlq/. A receive moves the head item
/// to claimed/ and claims/ in one transaction; ack() deletes the claim, requeue() puts the
/// item back. When a consumer dies its lease expires, its claims/ keys vanish, and any
/// consumer's sweeper puts the orphaned items back under their original key (so they keep
/// their place), or into dlq/ once they were delivered maxDeliveries times.
///
/// The consumer lease is created by the first receive and heals forward: a healed lease
/// restores nothing, since claims made under the old one are already orphans that the
/// sweepers reclaim. Producers that only enqueue never create a lease.
///
/// Every receive has a timeout, a non-blocking twin, and is woken by close() with Cancelled.
class QETCD_EXPORT DistributedWorkQueue : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();
    /// The most values one enqueueAll() takes: each item's id is checked free in four places,
    /// and etcd allows 128 compares in a transaction unless configured otherwise.
    static constexpr int MaxEnqueueAll = 32;
    /// The most dead letters deadLetters() reads the counts of key by key: one transaction
    /// each, within etcd's default limit of 128 operations.
    static constexpr int MaxDeadLettersCountedOneByOne = 64;

    /// The work queue at \a path, through \a client.
    DistributedWorkQueue(Client *client, const QByteArray &path, const WorkQueueOptions &options = WorkQueueOptions(),
                         QObject *parent = nullptr);
    /// Closes the queue: receives still waiting return Cancelled, and the consumer lease is
    /// revoked, so this consumer's unacknowledged claims become orphans for the sweepers.
    ~DistributedWorkQueue() override;

    /// The queue's path.
    QByteArray path() const;

    /// Adds \a value. A positive \a delay parks it under delayed/ until then (judged by client
    /// clocks). When the answer is lost on the way, the same item is sent again until etcd says
    /// whether it is there: it goes in once, unless it was received and acknowledged before that
    /// was known (at least once).
    QFuture<Status> enqueue(const QByteArray &value, std::chrono::milliseconds delay = std::chrono::milliseconds::zero());
    /// Adds \a values (at most MaxEnqueueAll, else InvalidArgument) in one transaction: all or
    /// nothing, and the ids keep the argument order.
    QFuture<Status> enqueueAll(const QList<QByteArray> &values);

    /// Blocks until an item is claimed or the timeout passes; a zero timeout looks once.
    WorkItem receive(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of receive().
    QFuture<WorkItem> receiveAsync(std::chrono::milliseconds timeout = WaitForever);
    /// One look: the head item, claimed, or NotFound when nothing is ready.
    QFuture<WorkItem> tryReceive();

    /// Settles \a item: done, gone from the queue. OwnershipLost when the claim was lost
    /// meanwhile: the item may be (or have been) worked on twice.
    QFuture<Status> ack(const WorkItem &item);
    /// Gives \a item back: under items/ again with its delivery count kept; OwnershipLost as for
    /// ack().
    QFuture<Status> requeue(const WorkItem &item);

    /// The dead letters in id order: every one, or with a positive \a limit the first \a limit.
    /// Every letter (or more than MaxDeadLettersCountedOneByOne) is one read; a few first ones
    /// are two, so that their delivery counts are read without every item in flight's.
    QFuture<DeadLetters> deadLetters(int limit = 0) const;
    /// Puts dead letter \a id back under items/ with a fresh delivery count.
    QFuture<Status> requeueDeadLetter(const QByteArray &id);
    /// Deletes dead letter \a id for good.
    QFuture<Status> purgeDeadLetter(const QByteArray &id);
    /// Deletes every dead letter for good, with its delivery count: the letters under dlq/ go in
    /// one deletion, so one requeued meanwhile is not touched, and the answer lists the letters
    /// that went (their attempts as of the purge not known: 0). Their counts go after them; a
    /// failure there is the answer's status, with the letters already gone listed.
    QFuture<DeadLetters> purgeDeadLetters();

    /// Promotes matured delayed items and reclaims orphaned claims now, as the sweeper does.
    QFuture<Status> sweep();

    /// The consumer lease; -1 until the first receive created it.
    qint64 consumerLeaseId() const;

protected:
    void doClose() override;

private:
    friend class DistributedWorkQueuePrivate;
    std::unique_ptr<DistributedWorkQueuePrivate> d;
};

} // namespace QEtcd
