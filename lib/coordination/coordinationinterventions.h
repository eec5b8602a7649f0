// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QFuture>
#include <QtCore/QList>

namespace QEtcd {

class Client;

/// What an intervention wrote, or why it wrote nothing.
struct QETCD_EXPORT InterventionResult
{
    /// How the entry was taken away.
    enum class Method {
        None,          ///< Nothing was written; status says why.
        /// The entry's lease was revoked, and with it every key on it (removedKeys). A holder
        /// that renews that lease learns of it at its next renewal, whatever tool it is.
        LeaseRevoked,
        /// The keys in removedKeys were deleted, each guarded by the create revision that was
        /// shown; their leases live on.
        KeysDeleted,
    };

    Status status;                  ///< Ok, or why nothing was written.
    Method method = Method::None;   ///< What was done.
    qint64 lease = 0;               ///< LeaseRevoked: the lease revoked.
    QList<QByteArray> removedKeys;  ///< Every key that went.
    qint64 revision = 0;            ///< The store's revision after the change; 0 when nothing was written.

    /// "lease_revoked", "keys_deleted" or "none", as the CLI prints it.
    QString methodName() const;
};

/// An operator's interventions on the coordination objects the recogniser found: break a stuck
/// hold, remove a waiter, lift a barrier, force a re-election, release a counted barrier's round.
///
/// Each takes away exactly the entry that was shown, never a newer one: the write is guarded by
/// the entry's create revision, so an entry that was replaced since it was read (a new holder,
/// a new round) is refused with Mismatch, and one already gone with NotFound; nothing is
/// written then. A read-only client refuses each before anything is sent (ReadOnly). Every
/// call returns at once; its future finishes exactly once, on the futures thread, or with
/// Cancelled when \a client is destroyed first.
///
/// What the participant that is hit learns is the library's promise for that way of losing:
/// a qetcd holder whose key is deleted or whose lease is revoked is told (lockLost(),
/// leadershipLost(), permitLost(), connection state Lost), a qetcd barrier owner is told
/// liftedByOther(), a service registry registrationRemoved(). Tools that only watch their
/// session (etcdctl lock and elect, Go's concurrency package) notice a revoked lease, not a
/// deleted key: that is why breakHold() revokes where it can.
class QETCD_EXPORT CoordinationInterventions
{
public:
    /// Ends the hold of \a holder (a lock's, read/write lock's or semaphore's holder, an
    /// election's leader). When its lease carries this key alone, the lease is revoked, so that
    /// every kind of holder learns of the loss; otherwise (a lease shared with other keys, or no
    /// lease) only the key is deleted and the other keys are spared. The holder may still act
    /// until it learns of the loss: writes fenced by the old token are refused from now on.
    static QFuture<InterventionResult> breakHold(Client *client, const CoordinationEntry &holder);

    /// Deletes \a entry's key alone: a waiter leaves the queue, a candidate the election, a
    /// service instance is deregistered (qetcd's registry honours that and does not register it
    /// again).
    static QFuture<InterventionResult> removeEntry(Client *client, const CoordinationEntry &entry);

    /// Lifts the set barrier \a barrier: its key is deleted, and every waiter is released. The
    /// lease is never revoked: a presence lease would heal and set the barrier again. An owner
    /// whose lease is alive may set it again on purpose (a qetcd owner is told liftedByOther()
    /// and does not). InvalidArgument for an object that is not a set Barrier.
    static QFuture<InterventionResult> liftBarrier(Client *client, const CoordinationObject &barrier);

    /// Ends \a election's current term (breakHold() on its leader); the first candidate in
    /// line leads next. InvalidArgument when the object is not an Election or nobody leads.
    static QFuture<InterventionResult> forceReelection(Client *client, const CoordinationObject &election);

    /// Releases the open round of the counted barrier \a barrier: its `ready` key is deleted,
    /// which is what the last arrival does, so every member waiting in that round is let
    /// through with fewer than its count. InvalidArgument when the object is not a
    /// CountedBarrier with a round open. A double barrier's rounds are not released: its
    /// members would enter or leave out of step with one another.
    static QFuture<InterventionResult> releaseRound(Client *client, const CoordinationObject &barrier);

    /// Deletes \a item, a key waiting in \a queue (a Queue's or PriorityQueue's item, a
    /// WorkQueue's ready or delayed item, whose delivery count goes with it): nobody receives it.
    /// InvalidArgument for a key that is not one of the queue's waiting items; NotFound for one
    /// taken meanwhile.
    static QFuture<InterventionResult> removeQueueItem(Client *client, const CoordinationObject &queue,
                                                       const CoordinationEntry &item);
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::InterventionResult)
