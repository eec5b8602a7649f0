// SPDX-License-Identifier: Apache-2.0
#include "semaphoreparticipant.h"

#include <QEtcd/distributedsemaphore.h>

namespace QEtcd {

SemaphoreParticipant::SemaphoreParticipant(QObject *parent) : HoldParticipant(parent) {}

int SemaphoreParticipant::permits() const
{
    return m_permits;
}

void SemaphoreParticipant::setPermits(int permits)
{
    if (changeSetting(m_permits, permits))
        Q_EMIT permitsChanged();
}

int SemaphoreParticipant::available() const
{
    return m_available;
}

std::unique_ptr<Recipe> SemaphoreParticipant::createRecipe(Client *client, const QByteArray &path,
                                                           const RecipeOptions &options)
{
    SemaphoreOptions semaphoreOptions;
    static_cast<RecipeOptions &>(semaphoreOptions) = options;
    auto semaphore = std::make_unique<DistributedSemaphore>(client, path, m_permits, semaphoreOptions);
    relayHold(semaphore.get(), &DistributedSemaphore::permitLost);
    return semaphore;
}

void SemaphoreParticipant::acquire(int timeoutMs)
{
    if (auto *semaphore = recipe<DistributedSemaphore>())
        HoldParticipant::acquire(semaphore->acquireAsync(waitTime(timeoutMs)));
}

bool SemaphoreParticipant::release()
{
    auto *semaphore = static_cast<DistributedSemaphore *>(currentRecipe());
    if (!semaphore)
        return false;
    const bool stillOurs = semaphore->release();
    return finishRelease(stillOurs, semaphore->heldPermits());
}

void SemaphoreParticipant::refreshAvailable()
{
    auto *semaphore = recipe<DistributedSemaphore>();
    if (!semaphore)
        return;
    whenDone(semaphore->availablePermits(), [this](const AvailablePermitsResult &result) {
        if (!result.status)
            return reportError(result.status);
        if (m_available != result.available) {
            m_available = result.available;
            Q_EMIT availableChanged();
        }
    });
}

} // namespace QEtcd
