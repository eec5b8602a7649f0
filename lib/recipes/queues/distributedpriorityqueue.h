#pragma once

#include <QEtcd/distributedqueue.h>
#include <QEtcd/qetcdexport.h>

namespace QEtcd {

class DistributedPriorityQueuePrivate;

// A priority queue at most once, on etcd-recipes' layout: <path>/<priority, 5 digits>/<sequence,
// 16 digits>, taken in key order, so the lower priority number wins and items of one priority
// leave in the order they came. The sequence is claimed by compare-and-set on the sentinel
// __<path>/<priority, 5 digits>, which lives outside the queue. With several takers each item
// still goes to exactly one of them.
class QETCD_EXPORT DistributedPriorityQueue : public Recipe
{
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds WaitForever = DistributedQueue::WaitForever;
    static constexpr int MaxPriority = 65535;
    // How often enqueue() retries a sequence number another producer took first.
    static constexpr int MaxEnqueueAttempts = 50;

    DistributedPriorityQueue(Client *client, const QByteArray &path, const RecipeOptions &options = RecipeOptions(),
                             QObject *parent = nullptr);
    ~DistributedPriorityQueue() override;

    QByteArray path() const;

    // priority in 0..MaxPriority, otherwise InvalidArgument.
    QFuture<Status> enqueue(const QByteArray &value, int priority);

    QueueItem take(std::chrono::milliseconds timeout = WaitForever);
    QFuture<QueueItem> takeAsync(std::chrono::milliseconds timeout = WaitForever);
    QFuture<QueueItem> tryTake();
    QFuture<qint64> size() const;

protected:
    void doClose() override;

private:
    friend class Internal::QueueTaker<DistributedPriorityQueue>;
    std::unique_ptr<DistributedPriorityQueuePrivate> d;
};

} // namespace QEtcd
