// SPDX-License-Identifier: Apache-2.0
#include "workqueueparticipant.h"

namespace QEtcd {

WorkQueueParticipant::WorkQueueParticipant(QObject *parent) : RecipeParticipant(parent) {}

int WorkQueueParticipant::maxDeliveries() const
{
    return m_maxDeliveries;
}

void WorkQueueParticipant::setMaxDeliveries(int deliveries)
{
    if (changeSetting(m_maxDeliveries, deliveries))
        Q_EMIT maxDeliveriesChanged();
}

int WorkQueueParticipant::sweepIntervalMs() const
{
    return m_sweepIntervalMs;
}

void WorkQueueParticipant::setSweepIntervalMs(int milliseconds)
{
    if (changeSetting(m_sweepIntervalMs, milliseconds))
        Q_EMIT sweepIntervalMsChanged();
}

QString WorkQueueParticipant::itemId() const
{
    return QString::fromUtf8(m_delivery.id);
}

int WorkQueueParticipant::attempt() const
{
    return m_delivery.attempt;
}

std::unique_ptr<Recipe> WorkQueueParticipant::createRecipe(Client *client, const QByteArray &path,
                                                           const RecipeOptions &options)
{
    WorkQueueOptions queueOptions;
    static_cast<RecipeOptions &>(queueOptions) = options;
    queueOptions.visibilityTimeoutSeconds = options.ttlSeconds;
    queueOptions.maxDeliveries = m_maxDeliveries;
    queueOptions.sweepInterval = std::chrono::milliseconds(m_sweepIntervalMs);
    return std::make_unique<DistributedWorkQueue>(client, path, queueOptions);
}

void WorkQueueParticipant::recipeDropped()
{
    setDelivery({});
}

// The held delivery's claim: what etcd deletes when this consumer's lease expires.
QString WorkQueueParticipant::logKey() const
{
    return m_delivery.id.isEmpty() ? RecipeParticipant::logKey() : path() + QStringLiteral("/claims/") + itemId();
}

void WorkQueueParticipant::setDelivery(const WorkItem &item)
{
    const bool changed = item.id != m_delivery.id || item.attempt != m_delivery.attempt;
    m_delivery = item;
    if (changed)
        Q_EMIT deliveryChanged();
}

void WorkQueueParticipant::enqueue(const QString &value, int delayMs)
{
    auto *queue = recipe<DistributedWorkQueue>();
    if (!queue)
        return;
    whenDone(queue->enqueue(value.toUtf8(), std::chrono::milliseconds(qMax(delayMs, 0))), [this, value](const Status &status) {
        if (!status)
            return reportError(status);
        record(QStringLiteral("enqueued"), value);
        Q_EMIT enqueued(value);
    });
}

void WorkQueueParticipant::receive(int timeoutMs)
{
    auto *queue = recipe<DistributedWorkQueue>();
    if (!queue)
        return;
    setState(State::Pending);
    record(QStringLiteral("pending"), QStringLiteral("receiving"));
    whenDone(timeoutMs == 0 ? queue->tryReceive() : queue->receiveAsync(waitTime(timeoutMs)), [this](const WorkItem &item) {
        if (!item.status) {
            setState(State::Idle);
            return reportError(item.status);
        }
        setDelivery(item);
        setState(State::Active);
        const QString value = QString::fromUtf8(item.value);
        record(QStringLiteral("received"), tr("attempt %1: %2").arg(item.attempt).arg(value));
        Q_EMIT received(itemId(), value, item.attempt);
    });
}

// Acknowledging and requeueing hold only while the delivery's own claim stands: OwnershipLost
// is the queue's answer that someone else has the item now, the one refusal worth its own event.
template <class Settled>
void WorkQueueParticipant::settle(QFuture<Status> (DistributedWorkQueue::*operation)(const WorkItem &), Settled settled)
{
    auto *queue = static_cast<DistributedWorkQueue *>(currentRecipe());
    if (!queue || m_delivery.id.isEmpty())
        return reportError(Status(StatusCode::InvalidArgument, tr("%1: no delivery held").arg(participantName())));
    const WorkItem delivery = m_delivery;
    whenDone((queue->*operation)(delivery), [this, delivery, settled](const Status &status) {
        const QString key = logKey();
        setDelivery({});
        setState(State::Idle);
        if (status.code() == StatusCode::OwnershipLost) {
            record(QStringLiteral("ackRefused"), status.message(), key);
            Q_EMIT ackRefused(QString::fromUtf8(delivery.id), status);
        } else if (!status) {
            reportError(status);
        } else {
            settled(QString::fromUtf8(delivery.id), key);
        }
    });
}

void WorkQueueParticipant::ack()
{
    settle(&DistributedWorkQueue::ack, [this](const QString &id, const QString &key) {
        record(QStringLiteral("acknowledged"), id, key);
        Q_EMIT acknowledged(id);
    });
}

void WorkQueueParticipant::requeue()
{
    settle(&DistributedWorkQueue::requeue,
           [this](const QString &id, const QString &key) { record(QStringLiteral("requeued"), id, key); });
}

void WorkQueueParticipant::sweep()
{
    auto *queue = recipe<DistributedWorkQueue>();
    if (!queue)
        return;
    whenDone(queue->sweep(), [this](const Status &status) {
        if (!status)
            return reportError(status);
        record(QStringLiteral("swept"));
    });
}

} // namespace QEtcd
