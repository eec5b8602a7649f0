// SPDX-License-Identifier: Apache-2.0
#include "lossinterruption_p.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>

namespace QEtcd::Internal {

namespace {
struct Armed
{
    QThread *owner = nullptr;
    StopToken hold;
};

struct Registry
{
    QMutex mutex;
    quint64 nextId = 0;
    QHash<quint64, Armed> armed;
};

Registry &registry()
{
    static auto *instance = new Registry;  // never destroyed: holds may outlive static teardown
    return *instance;
}
} // namespace

void LossInterruption::arm(QThread *owner, const StopToken &hold)
{
    Registry &all = registry();
    QMutexLocker locker(&all.mutex);
    const quint64 id = ++all.nextId;
    all.armed.insert(id, {owner, hold});
    m_id = id;
}

void LossInterruption::disarm()
{
    const quint64 id = m_id.exchange(0);
    if (id == 0)
        return;
    Registry &all = registry();
    QMutexLocker locker(&all.mutex);
    all.armed.remove(id);
}

bool LossInterruption::pendingFor(QThread *thread)
{
    Registry &all = registry();
    QMutexLocker locker(&all.mutex);
    for (const Armed &each : std::as_const(all.armed)) {
        if (each.owner == thread && each.hold.stopRequested())
            return true;
    }
    return false;
}

} // namespace QEtcd::Internal
