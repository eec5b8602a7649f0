// SPDX-License-Identifier: Apache-2.0
#include "threadholds_p.h"

#include <QtCore/QDebug>

namespace QEtcd::Internal {

std::shared_ptr<QueuedHold> ThreadHolds::of(int kind, QThread *thread) const
{
    QMutexLocker locker(&m_mutex);
    auto hold = m_holds.value({kind, thread});
    return hold && !hold->givenBack->load() ? hold : nullptr;
}

bool ThreadHolds::reenter(int kind)
{
    const auto hold = of(kind);
    if (!hold || !hold->isValid())
        return false;
    ++hold->count;
    return true;
}

bool ThreadHolds::unlock(int kind, const QString &what)
{
    const auto hold = of(kind);
    if (!hold) {
        qWarning().noquote() << m_queue->context << what << "by a thread that holds nothing";
        return false;
    }
    if (--hold->count > 0)
        return hold->isValid();
    remove(hold);
    return m_queue->giveBack(hold);
}

void ThreadHolds::insert(const std::shared_ptr<QueuedHold> &hold)
{
    QMutexLocker locker(&m_mutex);
    m_holds.insert({hold->kind, hold->owner.data()}, hold);
}

void ThreadHolds::remove(const std::shared_ptr<QueuedHold> &hold)
{
    QMutexLocker locker(&m_mutex);
    const std::pair<int, QThread *> owner{hold->kind, hold->owner.data()};
    if (m_holds.value(owner) == hold)
        m_holds.remove(owner);
}

QList<std::shared_ptr<QueuedHold>> ThreadHolds::all() const
{
    QMutexLocker locker(&m_mutex);
    return m_holds.values();
}

bool ThreadHolds::isHeld(int kind) const
{
    const auto hold = of(kind);
    return hold && hold->isValid();
}

int ThreadHolds::holdCount(int kind) const
{
    const auto hold = of(kind);
    return hold && hold->isValid() ? hold->count : 0;
}

qint64 ThreadHolds::fencingToken(int kind) const
{
    const auto hold = of(kind);
    return hold ? hold->revision : 0;
}

QByteArray ThreadHolds::holdKey(int kind) const
{
    const auto hold = of(kind);
    return hold ? hold->key : QByteArray();
}

qint64 ThreadHolds::leaseId(int kind) const
{
    const auto hold = of(kind);
    return hold ? hold->lease->leaseId() : -1;
}

StopToken ThreadHolds::stopToken(int kind) const
{
    const auto hold = of(kind);
    return hold ? hold->stop.token() : StopToken();
}

} // namespace QEtcd::Internal
