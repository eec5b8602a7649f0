// SPDX-License-Identifier: Apache-2.0
#include "groupbarrierparticipant.h"

namespace QEtcd {

int GroupBarrierParticipant::memberCount() const
{
    return m_memberCount;
}

void GroupBarrierParticipant::setMemberCount(int count)
{
    if (changeSetting(m_memberCount, count))
        Q_EMIT memberCountChanged();
}

int GroupBarrierParticipant::arrived() const
{
    return m_arrived;
}

void GroupBarrierParticipant::refreshArrived()
{
    if (!recipe<Recipe>())
        return;
    whenDone(countArrived(), [this](qint64 count) {
        if (std::exchange(m_arrived, int(count)) != int(count))
            Q_EMIT arrivedChanged();
    });
}

} // namespace QEtcd
