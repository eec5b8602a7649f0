// SPDX-License-Identifier: Apache-2.0
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
    record(QStringLiteral("pending"));
    // Success arrives through acquired(); a reentrant hold has no news at all.
    whenDone(std::move(attempt), [this](const Status &status) {
        if (!status)
            reportError(status);
        setState(isHeld() ? State::Active : State::Idle);
    });
}

bool HoldParticipant::finishRelease(bool stillOurs, int remainingHolds)
{
    if (!stillOurs)
        record(QStringLiteral("releaseFailed"), state() == State::Lost ? QStringLiteral("told false: the hold had been lost")
                                                                       : QStringLiteral("told false: nothing was held"));
    else if (remainingHolds == 0)
        record(QStringLiteral("released"), QStringLiteral("fencing token %1").arg(m_fencingToken));
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
    record(QStringLiteral("acquired"), QStringLiteral("fencing token %1").arg(token));
    Q_EMIT acquired(token, m_holdKey);
}

void HoldParticipant::onLost(const Status &cause)
{
    record(QStringLiteral("lost"), cause.message());
    setHold(0, {});
    setState(State::Lost);
    announceLoss(cause);
}

QString HoldParticipant::logKey() const
{
    return m_holdKey.isEmpty() ? RecipeParticipant::logKey() : m_holdKey;
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
