// SPDX-License-Identifier: Apache-2.0
#include "queueparticipant.h"

#include <QEtcd/distributedqueue.h>

namespace QEtcd {

QueueParticipant::QueueParticipant(QObject *parent) : RecipeParticipant(parent) {}

int QueueParticipant::depth() const
{
    return m_depth;
}

std::unique_ptr<Recipe> QueueParticipant::createRecipe(Client *client, const QByteArray &path,
                                                       const RecipeOptions &options)
{
    return std::make_unique<DistributedQueue>(client, path, options);
}

void QueueParticipant::put(const QString &value)
{
    auto *queue = recipe<DistributedQueue>();
    if (!queue)
        return;
    whenDone(queue->enqueue(value.toUtf8()), [this, value](const Status &status) {
        if (!status)
            return reportError(status);
        record(QStringLiteral("enqueued"), value);
        Q_EMIT enqueued(value);
    });
}

void QueueParticipant::take(int timeoutMs)
{
    auto *queue = recipe<DistributedQueue>();
    if (!queue)
        return;
    setState(State::Pending);
    record(QStringLiteral("pending"), QStringLiteral("taking"));
    whenDone(timeoutMs == 0 ? queue->tryTake() : queue->takeAsync(waitTime(timeoutMs)), [this](const QueueItem &item) {
        setState(State::Idle);
        if (!item.status)
            return reportError(item.status);
        record(QStringLiteral("taken"), QString::fromUtf8(item.value), QString::fromUtf8(item.key));
        Q_EMIT taken(QString::fromUtf8(item.key), QString::fromUtf8(item.value));
    });
}

void QueueParticipant::refreshDepth()
{
    auto *queue = recipe<DistributedQueue>();
    if (!queue)
        return;
    whenDone(queue->size(), [this](qint64 size) {
        if (std::exchange(m_depth, int(size)) != int(size))
            Q_EMIT depthChanged();
    });
}

} // namespace QEtcd
