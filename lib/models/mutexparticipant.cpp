// SPDX-License-Identifier: Apache-2.0
#include "mutexparticipant.h"

#include <QEtcd/distributedmutex.h>

namespace QEtcd {

MutexParticipant::MutexParticipant(QObject *parent) : HoldParticipant(parent) {}

std::unique_ptr<Recipe> MutexParticipant::createRecipe(Client *client, const QByteArray &path,
                                                       const RecipeOptions &options)
{
    LockOptions lockOptions;
    static_cast<RecipeOptions &>(lockOptions) = options;
    auto mutex = std::make_unique<DistributedMutex>(client, path, lockOptions);
    relayHold(mutex.get(), &DistributedMutex::lockLost);
    return mutex;
}

void MutexParticipant::lock(int timeoutMs)
{
    if (auto *mutex = recipe<DistributedMutex>())
        acquire(mutex->lockAsync(waitTime(timeoutMs)));
}

bool MutexParticipant::unlock()
{
    auto *mutex = static_cast<DistributedMutex *>(currentRecipe());
    if (!mutex)
        return false;
    const bool stillOurs = mutex->unlock();
    return finishRelease(stillOurs, mutex->holdCount());
}

} // namespace QEtcd
