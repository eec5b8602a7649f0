// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/distributedqueue.h>
#include <QEtcd/qetcdexport.h>

namespace QEtcd {

class DistributedPriorityQueuePrivate;

/// A priority queue (at most once, lower number first) on etcd-recipes' key layout.
///
/// A priority queue at most once, on etcd-recipes' layout: `<path>/<priority, 5 digits>/<sequence,
/// 16 digits>`, taken in key order, so the lower priority number wins and items of one priority
/// leave in the order they came. The sequence is claimed by compare-and-set on the sentinel
/// `__<path>/<priority, 5 digits>`, which lives outside the queue. With several takers each item
/// still goes to exactly one of them.
class QETCD_EXPORT DistributedPriorityQueue : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = DistributedQueue::WaitForever;
    /// The largest priority number (the last to be taken).
    static constexpr int MaxPriority = 65535;
    /// How often enqueue() tries sequence numbers that other producers took first before it gives
    /// up with RetriesExhausted.
    static constexpr int MaxEnqueueAttempts = 50;

    /// The priority queue at \a path, through \a client.
    DistributedPriorityQueue(Client *client, const QByteArray &path, const RecipeOptions &options = RecipeOptions(),
                             QObject *parent = nullptr);
    /// Closes the queue: takes still waiting return Cancelled.
    ~DistributedPriorityQueue() override;

    /// The queue's path.
    QByteArray path() const;

    /// Adds \a value at \a priority, in 0..MaxPriority (otherwise InvalidArgument); lower
    /// numbers are taken first.
    QFuture<Status> enqueue(const QByteArray &value, int priority);

    /// Blocks until an item is taken or the timeout passes, as DistributedQueue::take().
    QueueItem take(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of take().
    QFuture<QueueItem> takeAsync(std::chrono::milliseconds timeout = WaitForever);
    /// One look: the first item, or NotFound when the queue is empty.
    QFuture<QueueItem> tryTake();
    /// How many items wait, every priority counted; -1 when the read failed.
    QFuture<qint64> size() const;

protected:
    void doClose() override;

private:
    friend class Internal::QueueTaker<DistributedPriorityQueue>;
    std::unique_ptr<DistributedPriorityQueuePrivate> d;
};

} // namespace QEtcd
