// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

#include <QEtcd/distributedworkqueue.h>

namespace QEtcd {

/// `WorkQueue` in QML: a consumer (or producer) of a DistributedWorkQueue. ttl is the consumer
/// lease's TTL, the queue's visibility timeout. receive() claims the head item and keeps it as
/// the participant's delivery until ack() or requeue() settles it.
class QETCD_QUICK_EXPORT WorkQueueParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(WorkQueue)
    /// Deliveries after which an orphaned item goes to the dead letters (default 5). Changing it
    /// drops what was held.
    Q_PROPERTY(int maxDeliveries READ maxDeliveries WRITE setMaxDeliveries NOTIFY maxDeliveriesChanged)
    /// How often this consumer reclaims orphaned claims, in milliseconds (default 30,000).
    /// Changing it drops what was held.
    Q_PROPERTY(int sweepIntervalMs READ sweepIntervalMs WRITE setSweepIntervalMs NOTIFY sweepIntervalMsChanged)
    /// The item's id of the delivery held; empty without one.
    Q_PROPERTY(QString itemId READ itemId NOTIFY deliveryChanged)
    /// Which delivery of its item the held one is, counting from 1; 0 without one.
    Q_PROPERTY(int attempt READ attempt NOTIFY deliveryChanged)

public:
    /// A WorkQueue without client or path yet.
    explicit WorkQueueParticipant(QObject *parent = nullptr);

    /// The dead-letter threshold.
    int maxDeliveries() const;
    /// Sets the dead-letter threshold.
    void setMaxDeliveries(int deliveries);
    /// The sweep interval, in milliseconds.
    int sweepIntervalMs() const;
    /// Sets the sweep interval.
    void setSweepIntervalMs(int milliseconds);
    /// The held delivery's item id.
    QString itemId() const;
    /// The held delivery's count.
    int attempt() const;

    /// Adds \a value and returns at once; enqueued() when it is in. A positive \a delayMs parks it
    /// until then.
    Q_INVOKABLE void enqueue(const QString &value, int delayMs = 0);
    /// Claims the head item and returns at once: Pending, then Active with received(), or Idle
    /// with errorOccurred(). \a timeoutMs < 0: wait as long as it takes; 0: only what is there now.
    Q_INVOKABLE void receive(int timeoutMs = -1);
    /// Settles the held delivery as done: acknowledged(), or ackRefused() when its claim was lost
    /// meanwhile (the item went to someone else). Idle either way.
    Q_INVOKABLE void ack();
    /// Gives the held delivery back to the queue, its delivery count kept; ackRefused() as for
    /// ack() when its claim was lost.
    Q_INVOKABLE void requeue();
    /// Reclaims orphaned claims and promotes matured delayed items now, as the sweeper does.
    Q_INVOKABLE void sweep();

Q_SIGNALS:
    /// maxDeliveries changed.
    void maxDeliveriesChanged();
    /// sweepIntervalMs changed.
    void sweepIntervalMsChanged();
    /// itemId or attempt changed.
    void deliveryChanged();
    /// \a value is in the queue.
    void enqueued(const QString &value);
    /// This participant claimed item \a id, delivery \a attempt.
    void received(const QString &id, const QString &value, int attempt);
    /// The held delivery of item \a id is settled: gone from the queue.
    void acknowledged(const QString &id);
    /// The held delivery of item \a id could not be settled: its claim was lost, so the item
    /// may be (or have been) worked on twice.
    void ackRefused(const QString &id, const QEtcd::Status &cause);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;
    QString logKey() const override;

private:
    void setDelivery(const WorkItem &item);
    template <class Settled>
    void settle(QFuture<Status> (DistributedWorkQueue::*operation)(const WorkItem &), Settled settled);

    int m_maxDeliveries = 5;
    int m_sweepIntervalMs = 30000;
    WorkItem m_delivery;
};

} // namespace QEtcd
