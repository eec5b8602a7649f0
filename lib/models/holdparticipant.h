// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// What Mutex and Semaphore share: one hold of the GUI thread, acquired asynchronously, told
/// lost by the recipe's own clock before etcd can give it to anyone else.
class QETCD_QUICK_EXPORT HoldParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_ANONYMOUS
    /// The hold is ours: true with acquired(), false once released or lost.
    Q_PROPERTY(bool held READ isHeld NOTIFY heldChanged)
    /// The hold's fencing token: the create revision of its key; 0 without a hold.
    Q_PROPERTY(qint64 fencingToken READ fencingToken NOTIFY heldChanged)
    /// The hold's key in etcd; empty without a hold.
    Q_PROPERTY(QString holdKey READ holdKey NOTIFY heldChanged)

public:
    /// The hold is ours.
    bool isHeld() const;
    /// The create revision of the hold's key; 0 without a hold.
    qint64 fencingToken() const;
    /// The hold's key; empty without a hold.
    QString holdKey() const;

Q_SIGNALS:
    /// held, fencingToken or holdKey changed.
    void heldChanged();
    /// The hold was taken, with \a fencingToken and \a key.
    void acquired(qint64 fencingToken, const QString &key);
    /// The hold with \a fencingToken was given back.
    void released(qint64 fencingToken);

protected:
    using RecipeParticipant::RecipeParticipant;

    /// Wires the recipe's acquired, lost and released signals.
    template <class R, class... LostArgs>
    void relayHold(R *recipe, void (R::*lost)(LostArgs...))
    {
        relay(recipe, &R::acquired, [this](qint64 token, const QByteArray &key) { onAcquired(token, key); });
        relay(recipe, lost, [this](const Status &cause) { onLost(cause); });
        relay(recipe, &R::released, [this](qint64 token) { Q_EMIT released(token); });
    }
    /// The recipe's lost signal, under its own name (lockLost, permitLost).
    virtual void announceLoss(const Status &cause) = 0;

    /// Follows an acquisition: Pending now, then Active with acquired(), or the error and Idle.
    void acquire(QFuture<Status> attempt);
    /// After the recipe's unlock()/release(), with its answer and what the thread still holds.
    bool finishRelease(bool stillOurs, int remainingHolds);
    void recipeDropped() override;
    QString logKey() const override;

private:
    void onAcquired(qint64 token, const QByteArray &key);
    void onLost(const Status &cause);
    void setHold(qint64 fencingToken, const QString &key);

    qint64 m_fencingToken = 0;
    QString m_holdKey;
};

} // namespace QEtcd
