#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

// `Barrier` in QML: a DistributedBarrier. One participant sets it (owner turns true; its lease
// heals), others wait() and are told how it was lifted, a spurious lift (the owner's lease
// expired while it lives) included.
class QETCD_QUICK_EXPORT BarrierParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Barrier)
    Q_PROPERTY(bool waitOnMissingBarriers READ waitOnMissingBarriers WRITE setWaitOnMissingBarriers
                   NOTIFY waitOnMissingBarriersChanged)
    Q_PROPERTY(bool owner READ isOwner NOTIFY ownerChanged)
    Q_PROPERTY(bool waiting READ isWaiting NOTIFY waitingChanged)
    Q_PROPERTY(bool lifted READ isLifted NOTIFY waitEnded)
    Q_PROPERTY(LiftReason liftReason READ liftReason NOTIFY waitEnded)
    Q_PROPERTY(bool spurious READ isSpurious NOTIFY waitEnded)

public:
    enum LiftReason { NotSet, Removed, LeaseExpired, Deleted, Unknown };  // DistributedBarrier's (plain: unscoped in QML)
    Q_ENUM(LiftReason)

    explicit BarrierParticipant(QObject *parent = nullptr);

    bool waitOnMissingBarriers() const;
    void setWaitOnMissingBarriers(bool wait);
    bool isOwner() const;
    bool isWaiting() const;
    // The last wait() ended with the barrier gone; liftReason and spurious say how.
    bool isLifted() const;
    LiftReason liftReason() const;
    bool isSpurious() const;

    Q_INVOKABLE void set();
    Q_INVOKABLE void remove();
    // timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void wait(int timeoutMs = -1);

Q_SIGNALS:
    void waitOnMissingBarriersChanged();
    void ownerChanged();
    void waitingChanged();
    // Also when the wait failed (lifted false, errorOccurred tells why).
    void waitEnded(bool lifted, QEtcd::BarrierParticipant::LiftReason reason, bool spurious);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;

private:
    void changeOwnership(QFuture<Status> change, bool owner);
    void setWaiting(bool waiting);
    void setOwner(bool owner);

    bool m_waitOnMissing = true;
    bool m_owner = false;
    bool m_waiting = false;
    bool m_lifted = false;
    LiftReason m_reason = LiftReason::Unknown;
};

} // namespace QEtcd
