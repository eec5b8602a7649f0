// SPDX-License-Identifier: Apache-2.0
#include "barrierparticipant.h"

#include <QEtcd/distributedbarrier.h>

namespace QEtcd {

BarrierParticipant::BarrierParticipant(QObject *parent) : RecipeParticipant(parent) {}

bool BarrierParticipant::waitOnMissingBarriers() const { return m_waitOnMissing; }
bool BarrierParticipant::isOwner() const { return m_owner; }
bool BarrierParticipant::isWaiting() const { return m_waitPhase != NotWaiting; }
BarrierParticipant::WaitPhase BarrierParticipant::waitPhase() const { return m_waitPhase; }
bool BarrierParticipant::isLifted() const { return m_lifted; }
BarrierParticipant::LiftReason BarrierParticipant::liftReason() const { return m_reason; }
bool BarrierParticipant::isSpurious() const { return m_lifted && m_reason == LiftReason::LeaseExpired; }

void BarrierParticipant::setWaitOnMissingBarriers(bool wait)
{
    if (changeSetting(m_waitOnMissing, wait))
        Q_EMIT waitOnMissingBarriersChanged();
}

std::unique_ptr<Recipe> BarrierParticipant::createRecipe(Client *client, const QByteArray &path,
                                                         const RecipeOptions &options)
{
    BarrierOptions barrierOptions;
    static_cast<RecipeOptions &>(barrierOptions) = options;
    barrierOptions.waitOnMissingBarriers = m_waitOnMissing;
    auto barrier = std::make_unique<DistributedBarrier>(client, path, barrierOptions);
    relay(barrier.get(), &DistributedBarrier::waitStarted, [this](bool barrierSet) {
        if (isWaiting())
            setWaitPhase(barrierSet ? UntilRemoved : UntilSetAndRemoved);
    });
    relay(barrier.get(), &DistributedBarrier::liftedByOther, [this](qint64, const Status &cause) {
        record(QStringLiteral("removedByOther"), cause.message());
        setOwner(false);
        if (!isWaiting())
            setState(State::Idle);
    });
    return barrier;
}

void BarrierParticipant::recipeDropped()
{
    setOwner(false);
    setWaitPhase(NotWaiting);  // the wait ended with the recipe, and its end is not delivered
}

void BarrierParticipant::set()
{
    if (auto *barrier = recipe<DistributedBarrier>())
        changeOwnership(barrier->setBarrierAsync(), true);
}

void BarrierParticipant::remove()
{
    if (auto *barrier = recipe<DistributedBarrier>())
        changeOwnership(barrier->removeBarrierAsync(), false);
}

void BarrierParticipant::changeOwnership(QFuture<Status> change, bool owner)
{
    setState(State::Pending);
    whenDone(std::move(change), [this, owner](const Status &status) {
        if (!status) {
            reportError(status);
        } else {
            setOwner(owner);
            record(owner ? QStringLiteral("barrierSet") : QStringLiteral("barrierRemoved"));
        }
        setState(m_owner ? State::Active : State::Idle);
    });
}

void BarrierParticipant::wait(int timeoutMs)
{
    auto *barrier = recipe<DistributedBarrier>();
    if (!barrier)
        return;
    m_lifted = false;
    setWaitPhase(Reading);
    setState(State::Pending);
    record(QStringLiteral("pending"), QStringLiteral("waiting at the barrier"));
    whenDone(barrier->waitOnBarrierAsync(waitTime(timeoutMs)), [this](const DistributedBarrier::WaitResult &result) {
        if (!result.status)
            reportError(result.status);
        m_lifted = result.isLifted();
        m_reason = LiftReason(int(result.reason));
        setWaitPhase(NotWaiting);
        setState(m_lifted ? State::Active : State::Idle);
        if (m_lifted)
            record(QStringLiteral("barrierLifted"), liftedBecause(m_reason), QString(), isSpurious());
        Q_EMIT waitEnded(m_lifted, m_reason, isSpurious());
    });
}

QString BarrierParticipant::liftedBecause(LiftReason reason)
{
    switch (reason) {
    case Removed:
        return QStringLiteral("removed by its owner");
    case LeaseExpired:
        return QStringLiteral("its owner's lease expired: the barrier was not removed");
    case Deleted:
        // An operator's lift, or `etcdctl del`: not the owner's doing, and not an expiry.
        return QStringLiteral("deleted by someone else while its owner's lease was alive");
    case NotSet:
        return QStringLiteral("it was not set");
    case Unknown:
        break;
    }
    return QStringLiteral("lifted; how could not be told");
}

void BarrierParticipant::setWaitPhase(WaitPhase phase)
{
    if (std::exchange(m_waitPhase, phase) != phase)
        Q_EMIT waitingChanged();
}

void BarrierParticipant::setOwner(bool owner)
{
    if (std::exchange(m_owner, owner) != owner)
        Q_EMIT ownerChanged();
}

} // namespace QEtcd
