// SPDX-License-Identifier: Apache-2.0
#include "countedbarrierparticipant.h"

#include <QEtcd/distributedbarrierwithcount.h>

namespace QEtcd {

CountedBarrierParticipant::CountedBarrierParticipant(QObject *parent) : GroupBarrierParticipant(parent) {}

bool CountedBarrierParticipant::isLifted() const
{
    return m_lifted;
}

std::unique_ptr<Recipe> CountedBarrierParticipant::createRecipe(Client *client, const QByteArray &path,
                                                                const RecipeOptions &options)
{
    return std::make_unique<DistributedBarrierWithCount>(client, path, memberCount(), options);
}

void CountedBarrierParticipant::recipeDropped()
{
    setLifted(false);
}

QFuture<qint64> CountedBarrierParticipant::countArrived()
{
    return static_cast<DistributedBarrierWithCount *>(currentRecipe())->waiterCount();
}

void CountedBarrierParticipant::wait(int timeoutMs)
{
    if (auto *barrier = recipe<DistributedBarrierWithCount>())
        passGate(barrier->waitOnBarrierAsync(waitTime(timeoutMs)), [this](bool passed) {
            setLifted(passed);
            if (passed)
                record(QStringLiteral("barrierLifted"), QStringLiteral("all %1 arrived").arg(memberCount()));
        });
}

void CountedBarrierParticipant::setLifted(bool lifted)
{
    if (std::exchange(m_lifted, lifted) != lifted)
        Q_EMIT liftedChanged();
}

} // namespace QEtcd
