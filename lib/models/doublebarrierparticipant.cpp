// SPDX-License-Identifier: Apache-2.0
#include "doublebarrierparticipant.h"

#include <QEtcd/distributeddoublebarrier.h>

namespace QEtcd {

DoubleBarrierParticipant::DoubleBarrierParticipant(QObject *parent) : GroupBarrierParticipant(parent) {}

bool DoubleBarrierParticipant::hasEntered() const
{
    return m_entered;
}

bool DoubleBarrierParticipant::hasLeft() const
{
    return m_left;
}

std::unique_ptr<Recipe> DoubleBarrierParticipant::createRecipe(Client *client, const QByteArray &path,
                                                               const RecipeOptions &options)
{
    return std::make_unique<DistributedDoubleBarrier>(client, path, memberCount(), options);
}

void DoubleBarrierParticipant::recipeDropped()
{
    setPhase(false, false);
}

QFuture<qint64> DoubleBarrierParticipant::countArrived()
{
    return static_cast<DistributedDoubleBarrier *>(currentRecipe())->enterWaiterCount();
}

void DoubleBarrierParticipant::enter(int timeoutMs)
{
    auto *barrier = recipe<DistributedDoubleBarrier>();
    if (!barrier)
        return;
    passGate(barrier->enterAsync(waitTime(timeoutMs)), [this](bool passed) {
        if (!passed)
            return;
        setPhase(true, false);
        record(QStringLiteral("entered"));
        Q_EMIT enteredBarrier();
    });
}

void DoubleBarrierParticipant::leave(int timeoutMs)
{
    auto *barrier = recipe<DistributedDoubleBarrier>();
    if (!barrier)
        return;
    passGate(barrier->leaveAsync(waitTime(timeoutMs)), [this](bool passed) {
        if (!passed)
            return;
        setPhase(true, true);
        record(QStringLiteral("left"));
        Q_EMIT leftBarrier();
    });
}

void DoubleBarrierParticipant::setPhase(bool entered, bool left)
{
    if (m_entered == entered && m_left == left)
        return;
    m_entered = entered;
    m_left = left;
    Q_EMIT phaseChanged();
}

} // namespace QEtcd
