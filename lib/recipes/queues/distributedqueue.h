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

namespace Internal {
template <class Queue>
class QueueTaker;
}

/// One item taken from a queue, or why none was.
///
/// One item taken from a queue: Ok with its key and value, or why nothing was taken
/// (NotFound: empty on a look that does not wait; DeadlineExceeded; Cancelled by close() or an
/// interruption; Closed; or the error that stopped the take).
struct QETCD_EXPORT QueueItem
{
    Status status;     ///< Ok, or why nothing was taken.
    QByteArray key;    ///< The item's key, which names its place in the queue.
    QByteArray value;  ///< The item.
};

class DistributedQueuePrivate;

/// A FIFO queue (at most once) on etcd-recipes' key layout.
///
/// A FIFO queue at most once, on etcd-recipes' layout: `<path>/<epoch millis, 19 digits>-<3
/// random chars>`, taken in etcd's commit order (mod revision). A take reads the head and
/// deletes it in a transaction that holds only while the head is unchanged, so every item goes
/// to exactly one taker, and from that moment it is gone from etcd: a taker that dies with the
/// item loses it (use DistributedWorkQueue for at-least-once).
///
/// Every take has a timeout, a non-blocking twin, and is woken by close() with Cancelled.
class QETCD_EXPORT DistributedQueue : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// The queue at \a path, through \a client.
    DistributedQueue(Client *client, const QByteArray &path, const RecipeOptions &options = RecipeOptions(),
                     QObject *parent = nullptr);
    /// Closes the queue: takes still waiting return Cancelled.
    ~DistributedQueue() override;

    /// The queue's path.
    QByteArray path() const;

    /// Appends \a value. When the answer is lost on the way, the same item is sent again until
    /// etcd says whether it is there: it goes in once, unless it was taken before that was known.
    QFuture<Status> enqueue(const QByteArray &value);
    /// Appends \a values in one transaction: all or nothing, and the keys keep the argument
    /// order.
    QFuture<Status> enqueueAll(const QList<QByteArray> &values);

    /// Blocks until an item is taken or the timeout passes; a zero timeout looks once.
    QueueItem take(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of take().
    QFuture<QueueItem> takeAsync(std::chrono::milliseconds timeout = WaitForever);
    /// One look: the head item, or NotFound when the queue is empty.
    QFuture<QueueItem> tryTake();
    /// How many items wait; -1 when the read failed.
    QFuture<qint64> size() const;

protected:
    void doClose() override;

private:
    friend class Internal::QueueTaker<DistributedQueue>;
    std::unique_ptr<DistributedQueuePrivate> d;
};

} // namespace QEtcd
