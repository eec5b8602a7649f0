// SPDX-License-Identifier: Apache-2.0
#pragma once

// What LeaderSelector, LeaderLatch and LeaderObserver share: etcd's native election layout and
// the campaign that puts a participant into it.
//
// The layout is Go's concurrency.Election (and so `etcdctl elect`), which is etcd's lock layout:
// each candidate owns the key <path>/<its lease id in lowercase hex>, whose value is its
// proclamation; the leader is the key with the lowest create revision under <path>/.
// Campaigning is one transaction that creates the key if it is not there yet; waiting is
// watching the nearest key created before ours until none is left; resigning is removing the
// key.

#include "client.h"
#include "holdqueue_p.h"
#include "leaderobserver.h"
#include "recipe.h"

#include <QtCore/QFuture>
#include <QtCore/QMutex>
#include <QtCore/QPromise>

#include <chrono>
#include <functional>
#include <memory>

namespace QEtcd::Internal {

// The prefix every key of the election at path lives under.
inline QByteArray electionPrefix(const QByteArray &path)
{
    return path + '/';
}

// A participant as a console shows it; clientId comes from qetcd's identity JSON when the
// value is one (other tools proclaim anything).
Participant participantFrom(const KeyValue &kv, bool isLeader);

// Every candidate, leader first (lowest create revision), as one consistent read.
QFuture<ParticipantsResult> readParticipants(Client *client, const QByteArray &path);

// One participant's candidacy: an entry in the hold queue on etcd's election layout, its hold
// the leadership. Owner is the public recipe (LeaderSelector or LeaderLatch), which befriends
// this class so its history, errors and connection state are the recipe's own.
//
// Candidacy heals, leadership never does, with one lease per campaign:
// - While merely queued, losing the lease (a partition longer than the TTL, an out-of-band
//   revoke, our key deleted by someone) costs nothing but our place: nobody else believed
//   anything about us. The candidacy re-queues at once with a fresh lease and key at the tail,
//   and says so in the history; the recipe's state goes Lost, then Reconnected once re-queued.
// - Once leading, the same lease is the hold's ExclusivityLease: it is declared lost by our own
//   clock before etcd can expire it and hand leadership to the next key, and it is never
//   renewed into leadership again. The owner is told (lost()), ends the term, and calls
//   resign(), which only then lets go of the lost lease; a new campaign, if the owner wants
//   one, is a new entry at the tail of the queue.
// The lease is an ExclusivityLease from the start, not a self-healing one swapped at election:
// the key we win with is the key we queued with, and its name and lease are fixed when it is
// created. Healing a queued key in place would buy nothing either: its place in the queue is
// its create revision, which no re-created key keeps. Grants, transactions and watches that
// fail are retried with a fresh lease, paced by options.resilience.lease.retryPolicy.
template <class Owner>
class Candidacy : public HoldQueue
{
public:
    struct Events
    {
        std::function<void(qint64 fencingToken)> elected;
        std::function<void(const Status &cause)> lost;
    };

    Candidacy(Owner *q, const QByteArray &path, const QByteArray &proclamation, Events events);

    // --- dispatcher thread ---------------------------------------------------------------
    // Finishes Ok once our key is in the queue (at once when already queued or leading), or
    // with why campaigning stopped: the retry policy gave up, or resign() came first.
    QFuture<Status> campaign();
    // Leaves the election: our key goes and the candidacy is idle. A lost leadership's lease
    // is let go of only now, so that the next leader is elected after the term ended.
    void resign();
    // While leading on a lease whose loss deadline has passed but whose loss was not told yet
    // (the term noticed first, through isLeader()), tells it now, so it is told exactly once.
    void settleLoss();
    // Sets the value of our key, guarded by its create revision, and of every later campaign.
    QFuture<Status> proclaim(const QByteArray &value);
    bool isLeading() const;
    // Told lost() and not yet resigned.
    bool hasLostLeadership() const;
    // The owner is closing: the campaign in flight stops, and every lease goes rather than
    // wait for a next campaign, a running term's too once it has ended.
    void close() { shutDown({}); }
    // The owner is going away: no further calls into it.
    void detach() { q = nullptr; }

    // --- any thread ----------------------------------------------------------------------
    // Leading, and the lease's loss deadline is still ahead by the monotonic clock.
    bool isLeader() const;
    qint64 fencingToken() const;  // the create revision of our key while leading, else 0
    QByteArray key() const;       // our key while queued or leading
    Compare ownershipCompare() const;

private:
    QByteArray entryKey(const QueuedAttempt &attempt) const override;
    QByteArray entryValue(const QueuedAttempt &attempt) const override;
    QList<TxnOp> lookAhead(const QueuedAttempt &attempt) const override;
    Turn turn(QueuedAttempt &attempt, const QList<TxnOpResult> &ahead) override;
    void failed(std::shared_ptr<QueuedAttempt> attempt, const Status &why) override;
    void queued(const std::shared_ptr<QueuedAttempt> &attempt) override;
    QString leaseName(const QByteArray &key) const override;
    void publish(const std::shared_ptr<QueuedHold> &hold) override;
    void withdraw(const std::shared_ptr<QueuedHold> &) override {}
    void announceLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause) override;
    void announceRelease(const std::shared_ptr<QueuedHold> &) override {}
    Recipe *recipe() const override { return q; }

    void settleCampaign(const Status &status);
    QFuture<Status> writeProclamation(const QByteArray &key, qint64 revision, qint64 leaseId);

    Owner *q;
    const QByteArray prefix;
    const Events events;
    const int campaignSource;

    // dispatcher thread only
    std::shared_ptr<QueuedAttempt> campaigning;  // until it is elected, gives up or resigns
    QByteArray proclamation;
    mutable QByteArray written;  // the value our key was created with
    int failures = 0;
    std::chrono::steady_clock::time_point firstFailure;
    QList<std::shared_ptr<QPromise<Status>>> waiting;  // campaign() callers waiting for our key

    // written on the dispatcher thread, read from any
    mutable QMutex mutex;
    std::shared_ptr<QueuedHold> term;  // from election until resign
    QByteArray ownKey;
    qint64 ownRevision = 0;
};

} // namespace QEtcd::Internal
