#include "holdparticipant.h"

namespace QEtcd {

bool HoldParticipant::isHeld() const
{
    return m_fencingToken > 0;
}

qint64 HoldParticipant::fencingToken() const
{
    return m_fencingToken;
}

QString HoldParticipant::holdKey() const
{
    return m_holdKey;
}

void HoldParticipant::acquire(QFuture<Status> attempt)
{
    setState(State::Pending);
    // Success arrives through acquired(); a reentrant hold has no news at all.
    whenDone(std::move(attempt), [this](const Status &status) {
        if (!status)
            reportError(status);
        setState(isHeld() ? State::Active : State::Idle);
    });
}

bool HoldParticipant::finishRelease(bool stillOurs, int remainingHolds)
{
    if (remainingHolds == 0) {
        setHold(0, {});
        setState(State::Idle);
    }
    return stillOurs;
}

void HoldParticipant::recipeDropped()
{
    setHold(0, {});
}

void HoldParticipant::onAcquired(qint64 token, const QByteArray &key)
{
    setHold(token, QString::fromUtf8(key));
    setState(State::Active);
    Q_EMIT acquired(token, m_holdKey);
}

void HoldParticipant::onLost(const Status &cause)
{
    setHold(0, {});
    setState(State::Lost);
    announceLoss(cause);
}

void HoldParticipant::setHold(qint64 fencingToken, const QString &key)
{
    if (m_fencingToken == fencingToken && m_holdKey == key)
        return;
    m_fencingToken = fencingToken;
    m_holdKey = key;
    Q_EMIT heldChanged();
}

} // namespace QEtcd
