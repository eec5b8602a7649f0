// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `Barrier` in QML: a DistributedBarrier. One participant sets it (owner turns true; its lease
/// heals), others wait() and are told how it was lifted, a spurious lift (the owner's lease
/// expired while it lives) included.
class QETCD_QUICK_EXPORT BarrierParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Barrier)
    /// A wait() that finds no barrier waits for one to be set and removed (default true);
    /// false: it passes at once (NotSet). Changing it drops what was held.
    Q_PROPERTY(bool waitOnMissingBarriers READ waitOnMissingBarriers WRITE setWaitOnMissingBarriers
                   NOTIFY waitOnMissingBarriersChanged)
    /// This participant set the barrier, and its lease keeps it (also while healing).
    Q_PROPERTY(bool owner READ isOwner NOTIFY ownerChanged)
    /// A wait() is under way.
    Q_PROPERTY(bool waiting READ isWaiting NOTIFY waitingChanged)
    /// Where a wait() is: a removal of the barrier ends it once it is past Reading.
    Q_PROPERTY(WaitPhase waitPhase READ waitPhase NOTIFY waitingChanged)
    /// The last wait() ended with the barrier down.
    Q_PROPERTY(bool lifted READ isLifted NOTIFY waitEnded)
    /// How the barrier came down in the last wait().
    Q_PROPERTY(LiftReason liftReason READ liftReason NOTIFY waitEnded)
    /// The last lift was spurious: the owner's lease expired, the owner did not remove it.
    Q_PROPERTY(bool spurious READ isSpurious NOTIFY waitEnded)

public:
    /// DistributedBarrier::LiftReason, plain so QML spells Barrier.Removed.
    enum LiftReason {
        NotSet,        ///< There was no barrier to wait for.
        Removed,       ///< Its owner removed it.
        LeaseExpired,  ///< It went with its owner's lease: spurious if the owner lives.
        Deleted,       ///< Someone deleted the key.
        Unknown        ///< Gone, but how is lost to compaction.
    };
    Q_ENUM(LiftReason)

    /// Where a wait() is.
    enum WaitPhase {
        NotWaiting,         ///< No wait() is under way.
        Reading,            ///< It reads the barrier; a removal before that read is not its news.
        UntilRemoved,       ///< The barrier was up: it waits for its removal.
        UntilSetAndRemoved  ///< There was no barrier: it waits for one to be set and removed.
    };
    Q_ENUM(WaitPhase)

    /// A Barrier without client or path yet.
    explicit BarrierParticipant(QObject *parent = nullptr);

    /// Whether a wait waits for a missing barrier.
    bool waitOnMissingBarriers() const;
    /// Sets whether a wait waits for a missing barrier.
    void setWaitOnMissingBarriers(bool wait);
    /// This participant set the barrier.
    bool isOwner() const;
    /// A wait() is under way.
    bool isWaiting() const;
    /// Where the wait() is.
    WaitPhase waitPhase() const;
    /// The last wait() ended with the barrier gone; liftReason and spurious say how.
    bool isLifted() const;
    /// How the barrier came down in the last wait().
    LiftReason liftReason() const;
    /// The last lift was spurious.
    bool isSpurious() const;

    /// Sets the barrier and returns at once; owner turns true once it is up (also when this
    /// participant had it set already). Fails when someone else set it.
    Q_INVOKABLE void set();
    /// Removes the barrier this participant set and returns at once; never one someone else set.
    Q_INVOKABLE void remove();
    /// Waits at the barrier and returns at once: waiting turns true, waitPhase says when the
    /// barrier was read, and waitEnded() tells how it ended. \a timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void wait(int timeoutMs = -1);

Q_SIGNALS:
    /// waitOnMissingBarriers changed.
    void waitOnMissingBarriersChanged();
    /// owner changed.
    void ownerChanged();
    /// waiting or waitPhase changed.
    void waitingChanged();
    /// A wait() ended: with the barrier down (\a lifted, and how), or not (lifted false; then
    /// errorOccurred() tells why, a timeout included).
    void waitEnded(bool lifted, QEtcd::BarrierParticipant::LiftReason reason, bool spurious);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;

private:
    void changeOwnership(QFuture<Status> change, bool owner);
    void setWaitPhase(WaitPhase phase);
    void setOwner(bool owner);

    bool m_waitOnMissing = true;
    bool m_owner = false;
    WaitPhase m_waitPhase = NotWaiting;
    bool m_lifted = false;
    static QString liftedBecause(LiftReason reason);

    LiftReason m_reason = LiftReason::Unknown;
};

} // namespace QEtcd
