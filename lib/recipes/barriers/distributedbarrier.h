// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/leaseevent.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <chrono>
#include <memory>

namespace QEtcd {

/// What a DistributedBarrier is configured with.
struct QETCD_EXPORT BarrierOptions : RecipeOptions
{
    /// A waiter that arrives before anyone set the barrier waits for it to be set and then
    /// removed. Off: it passes at once (LiftReason::NotSet).
    bool waitOnMissingBarriers = true;
};

class DistributedBarrierPrivate;

/// A barrier that is up while its key exists; waiters learn whether it was removed or lifted by a
/// lease expiry.
///
/// A barrier that is up while its key exists: waiters block until the key is deleted. The key is
/// the barrier path itself, its value `<clientId>:<7-char token>` (etcd-recipes' layout, so
/// either library can wait on a barrier the other set). Waiters write nothing.
///
/// The key is held by a self-healing lease. If the owner is cut off for longer than the TTL,
/// etcd deletes the key and every waiter sees the barrier lift; nothing can take that back.
/// The healer then re-arms the barrier by compare-and-set so later waiters block again, the
/// expiry is recorded and the connection state goes Lost, then Reconnected. If someone else set
/// the barrier meanwhile, the heal fails (Lost, for good) and their barrier is left alone.
///
/// Another client deleting the barrier while its lease is alive (`etcdctl del`, an operator
/// lifting a stuck barrier), or putting it on a lease of theirs, is a decision this instance
/// honours: it is told (liftedByOther()), is no longer the owner, and does not set the barrier
/// again; waiters are released as by any lift. setBarrier() may set it again. Its own
/// removeBarrier() and close() never count as another client's.
///
/// Waiters learn how the barrier lifted, so they can wait again after a spurious lift:
/// removeBarrier() and close() first rewrite the value to `<token>;removing`, then delete it,
/// and a waiter reads the deleted key's last value from its watch. A key that went with its
/// lease lifted with LeaseExpired. An unmarked delete by someone else lifts with Deleted: the
/// waiter asks whether the key's lease still lives, and a qetcd owner that sees its key go
/// keeps the lease a third of its TTL before revoking it; a waiter that learns of the delete
/// later than that (cut off meanwhile) reads LeaseExpired. etcd-recipes writes no marker, so
/// its removals read as LeaseExpired (it revokes first) or Deleted. Choose a TTL longer than
/// any partition you expect to survive, and let released work re-check a condition that is
/// authoritative on its own.
///
/// close() takes down a barrier this instance set, as removeBarrier() does, and, unlike the
/// reference, wakes this instance's parked waiters with Cancelled. Every blocking call has a
/// non-blocking twin.
class QETCD_EXPORT DistributedBarrier : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// How a barrier a waiter waited on came down.
    enum class LiftReason {
        NotSet,        ///< There was no barrier to wait for (waitOnMissingBarriers off).
        Removed,       ///< Its owner lifted it: removeBarrier() or close().
        LeaseExpired,  ///< It went with its owner's lease: a spurious lift if the owner lives.
        Deleted,       ///< Someone deleted the key while its lease was alive (etcdctl del, ...).
        Unknown,       ///< Gone, but etcd no longer had its last value (compaction).
    };
    Q_ENUM(LiftReason)

    /// How a wait ended.
    struct WaitResult
    {
        /// Ok: the barrier is down. DeadlineExceeded, Cancelled (close(), interruption),
        /// WouldDeadlock on the library's own threads, or the watch's failure otherwise.
        Status status;
        /// How it came down, when it did.
        LiftReason reason = LiftReason::Unknown;

        /// The barrier is down.
        bool isLifted() const { return status.isOk(); }
        /// It is down because its owner's lease expired, not by the owner's decision: wait again
        /// if the condition behind it may still hold.
        bool isSpurious() const { return isLifted() && reason == LiftReason::LeaseExpired; }
    };

    /// A barrier at \a path, through \a client.
    DistributedBarrier(Client *client, const QByteArray &path, const BarrierOptions &options = BarrierOptions(),
                       QObject *parent = nullptr);
    /// Closes the barrier (see close() in the class description).
    ~DistributedBarrier() override;

    /// The barrier's key.
    QByteArray path() const;
    /// BarrierOptions::waitOnMissingBarriers, as given.
    bool waitOnMissingBarriers() const;

    /// True when this instance set the barrier (or already had it set; unlike the reference, also
    /// again after removeBarrier()); false when someone else had, or on failure. The twin says
    /// which: Ok, AlreadyExists or the failure.
    bool setBarrier();
    /// The non-blocking twin of setBarrier().
    QFuture<Status> setBarrierAsync();
    /// True when this instance's barrier was up (or healing) and is now down. False when this
    /// instance had not set it, or lost it to another client: unlike the reference, it never
    /// deletes a barrier someone else set. The twin: Ok, FailedPrecondition (not set here),
    /// OwnershipLost, or the failure.
    bool removeBarrier();
    /// The non-blocking twin of removeBarrier().
    QFuture<Status> removeBarrierAsync();
    /// Someone has the barrier set right now. Advisory; false when the read failed.
    QFuture<bool> isBarrierSet() const;
    /// Set by this instance and maintained by its lease (also while that lease heals).
    bool isOwner() const;

    /// Blocks until the barrier is down or \a timeout passes; the result says how it ended.
    /// Writes nothing to etcd.
    WaitResult waitOnBarrier(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of waitOnBarrier().
    QFuture<WaitResult> waitOnBarrierAsync(std::chrono::milliseconds timeout = WaitForever);

Q_SIGNALS:
    /// A wait has read the barrier, from the client's dispatcher thread: a removal from now on
    /// ends it. \a barrierSet: the barrier was up. When it was not, the wait waits for it to be
    /// set and removed, or ends at once (NotSet) without waitOnMissingBarriers.
    void waitStarted(bool barrierSet);
    /// The barrier lease's events while this instance owns it, from the client's dispatcher
    /// thread.
    void leaseEvent(const QEtcd::LeaseEvent &event);
    /// The barrier this instance set was deleted by another client at \a revision while its
    /// lease was alive, or moved to another lease (\a cause, OwnershipLost, says which and by
    /// what). isOwner() is false from now on, and the barrier is not set again. From the
    /// client's dispatcher thread.
    void liftedByOther(qint64 revision, const QEtcd::Status &cause);

protected:
    void doClose() override;

private:
    friend class DistributedBarrierPrivate;
    std::unique_ptr<DistributedBarrierPrivate> d;
};

} // namespace QEtcd
