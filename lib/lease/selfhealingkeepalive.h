// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/leaseevent.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/resilience.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <functional>
#include <memory>

namespace QEtcd {

class Client;
class SelfHealingKeepAlivePrivate;
class Recipe;
namespace Internal {
struct LeaseReport;
}

/// A lease that is granted again, and its keys re-established by compare-and-set, after it
/// expires.
///
/// A presence lease that heals: when it expires (a partition longer than its TTL, an
/// out-of-band revoke) a new lease is granted and establish re-creates the owned keys on it.
///
/// establish(newLeaseId, previousLeaseId) runs once at start() (previousLeaseId = 0) and again
/// on every heal. Its future says what happened: Ok when the keys are in place; OwnershipLost
/// when they belong to someone else now (healing stops with Failed, and nothing is
/// overwritten); any other status is a failed attempt that the retry policy repeats. Such an
/// attempt may still have committed (its answer lost), so its lease is kept and renewed, and
/// the next attempt first asks etcd whether that lease holds keys: if it does, it is adopted
/// as established. So establish should put all its keys in one transaction.
/// casEstablish() is the establish every qetcd recipe uses.
///
/// A healing lease puts its keys back after an expiry, which it cannot tell from a partition.
/// A key deleted while the lease is alive, or put on another lease, is another client's doing
/// (an operator removing a registration, `etcdctl del`): for every key given to followKey(),
/// that is told (keyTakenAway()) and honoured: nothing is put back, the keep-alive stops for
/// good, and the lease is revoked a third of its TTL later (when it would have been renewed), so
/// that others asking whether it lived when the key went, as barrier waiters do, hear that it
/// did. The owner's own puts on its lease, and its own deletes after stopFollowingKeys(), never
/// count.
///
/// Signals are emitted from the client's dispatcher thread; connect with the default
/// AutoConnection. Getters are safe from any thread.
class QETCD_EXPORT SelfHealingKeepAlive : public QObject
{
    Q_OBJECT
    /// The lease the keys are bound to now; -1 before the first grant.
    Q_PROPERTY(qint64 currentLeaseId READ currentLeaseId NOTIFY currentLeaseIdChanged)
    /// Renewing normally: false while healing, after Failed and after close().
    Q_PROPERTY(bool healthy READ isHealthy NOTIFY healthyChanged)

public:
    /// Puts the owned keys on newLeaseId; previousLeaseId is 0 at start(), else the lease that
    /// expired. The class description says what its Status means.
    using Establish = std::function<QFuture<Status>(qint64 newLeaseId, qint64 previousLeaseId)>;

    /// A lease of \a ttlSeconds through \a client whose keys \a establish puts, healed as
    /// \a resilience says; nothing happens until start().
    SelfHealingKeepAlive(Client *client, qint64 ttlSeconds, Establish establish,
                         const LeaseResilience &resilience = {}, QObject *parent = nullptr);
    /// Closes the lease.
    ~SelfHealingKeepAlive() override;
    Q_DISABLE_COPY_MOVE(SelfHealingKeepAlive)

    /// Grants the first lease and runs establish; finishes once. On failure the lease is
    /// revoked. A lease that runs out before establish has written (the process was frozen
    /// or cut off in between, and establish fails with "lease not found") is granted again
    /// under the resilience's retry policy, as a heal would. AlreadyStarted on a second call.
    QFuture<Status> start();
    /// Cancels a pending heal and revokes the lease so the owned keys go at once. Idempotent.
    /// A client sends at most 128 such revokes at a time, the rest as answers come back: many
    /// keep-alives closed together go at etcd's pace, without a gRPC call each held in memory.
    /// Those still waiting when the client is destroyed are left to their TTL.
    void close();
    /// Follows \a key, one that establish puts, from each establishment on: another client
    /// deleting it, or putting it on another lease, is keyTakenAway(). Before start(); ignored
    /// (with a warning) afterwards.
    void followKey(const QByteArray &key);
    /// The owner is about to delete its keys itself, on a lease that is still alive: from now
    /// on nothing is taken for another client's doing. Any thread; for good.
    void stopFollowingKeys();

    /// The lease the keys are bound to now; -1 before the first grant.
    qint64 currentLeaseId() const;
    /// Renewing normally: false while healing, after Failed and after close().
    bool isHealthy() const;
    /// The TTL every lease is granted with, in seconds.
    qint64 ttlSeconds() const;

Q_SIGNALS:
    /// Renewals stalled (Suspended), the lease expired (Expired), was healed (Restored), or
    /// healing stopped (Failed).
    void leaseEvent(const QEtcd::LeaseEvent &event);
    /// Renewals flow again after a Suspended, on the same lease.
    void keepAliveResumed(qint64 leaseId);
    /// The keys are bound to \a leaseId now.
    void currentLeaseIdChanged(qint64 leaseId);
    /// isHealthy() changed.
    void healthyChanged(bool healthy);
    /// Another client deleted \a key at \a revision while its lease was alive, or moved it to
    /// another lease (\a cause says which, OwnershipLost). Nothing is put back, the lease is
    /// revoked a third of its TTL later, and no other signal follows.
    void keyTakenAway(const QByteArray &key, qint64 revision, const QEtcd::Status &cause);

private:
    friend class Recipe;  // reports the lease's deadline
    std::shared_ptr<const Internal::LeaseReport> m_report;
    std::unique_ptr<SelfHealingKeepAlivePrivate> d;
};

/// The compare-and-set that (re-)establishes one key on a lease.
///
/// Puts \a value at \a key on \a newLeaseId when the key is absent, or still bound to
/// \a previousLeaseId (a heal must not lose to its own not-yet-expired key); any other owner
/// yields OwnershipLost and the key stays theirs.
///
/// When many run at once (every lease of a client healing after a partition), those that find
/// earlier ones still on their way wait for them and then go to etcd together, as transactions
/// nested in one request, each judged on its own compares.
QETCD_EXPORT QFuture<Status> casEstablish(Client *client, const QByteArray &key, const QByteArray &value,
                                          qint64 newLeaseId, qint64 previousLeaseId);

} // namespace QEtcd
