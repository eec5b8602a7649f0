#pragma once

// What LeaderSelector, LeaderLatch and LeaderObserver share: etcd's native election layout and
// the campaign that puts a participant into it.
//
// The layout is Go's concurrency.Election (and so `etcdctl elect`): each candidate owns the key
// <path>/<its lease id in lowercase hex>, whose value is its proclamation; the leader is the
// key with the lowest create revision under <path>/. Campaigning is one transaction that
// creates the key if it is not there yet; waiting is watching the nearest key created before
// ours until none is left; resigning is removing the key.

#include "client.h"
#include "exclusivitylease.h"
#include "leaderobserver.h"
#include "recipe.h"
#include "stoptoken.h"

#include <QtCore/QFuture>
#include <QtCore/QMutex>
#include <QtCore/QPromise>
#include <QtCore/QTimer>

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

// Finishes Ok once no key under prefix was created before revision, the create revision of
// key, which must still be ours: each round re-reads our key and the nearest older one in one
// transaction and watches only that one's deletion, anchored just after the read. OwnershipLost
// when our key vanished (its lease died, or someone removed it), Cancelled when stop is
// requested, else the failure of a read or a watch that could not be recovered.
QFuture<Status> waitForTurn(Client *client, const QByteArray &prefix, const QByteArray &key, qint64 revision,
                            const WatchResilience &resilience, const StopToken &stop);

// One participant's candidacy, on the client's dispatcher thread: it grants a lease, queues a
// key on it, waits for its turn, and tells its owner when it leads and when that leadership is
// lost. Owner is the public recipe (LeaderSelector or LeaderLatch), which befriends this class
// so its history, errors and connection state are the recipe's own.
//
// Candidacy heals, leadership never does, with one lease per campaign:
// - While merely queued, losing the lease (a partition longer than the TTL, an out-of-band
//   revoke, our key deleted by someone) costs nothing but our place: nobody else believed
//   anything about us. The candidacy re-queues at once with a fresh lease and key at the tail,
//   and says so in the history; the recipe's state goes Lost, then Reconnected once re-queued.
// - Once leading, the same lease is an ExclusivityLease: it is declared lost by our own clock
//   before etcd can expire it and hand leadership to the next key, and it is never renewed
//   into leadership again. The owner is told (lost()), ends the term, and calls resign(); a
//   new campaign, if the owner wants one, is a new lease at the tail of the queue.
// The lease is an ExclusivityLease from the start, not a self-healing one swapped at election:
// the key we win with is the key we queued with, and its name and lease are fixed when it is
// created. Healing a queued key in place would buy nothing either: its place in the queue is
// its create revision, which no re-created key keeps. Grants, transactions and watches that
// fail are retried with a fresh lease, paced by options.resilience.lease.retryPolicy.
template <class Owner>
class Candidacy : public QObject
{
public:
    struct Events
    {
        std::function<void(qint64 fencingToken)> elected;
        std::function<void(const Status &cause)> lost;
    };

    Candidacy(Owner *q, const QByteArray &path, const QByteArray &proclamation, Events events);
    ~Candidacy() override;

    // --- dispatcher thread ---------------------------------------------------------------
    // Finishes Ok once our key is in the queue (at once when already queued or leading), or
    // with why campaigning stopped: the retry policy gave up, or resign() came first.
    QFuture<Status> campaign();
    // Leaves the election: our key goes (its lease is revoked) and the candidacy is idle.
    void resign();
    // While leading on a lease whose loss deadline has passed but whose loss was not told yet
    // (the term noticed first, through isLeader()), tells it now, so it is told exactly once.
    void settleLoss();
    // Sets the value of our key, guarded by its create revision, and of every later campaign.
    QFuture<Status> proclaim(const QByteArray &value);
    bool isLeading() const { return phase == Phase::Leading; }
    // Told lost() and not yet resigned.
    bool hasLostLeadership() const { return phase == Phase::LostLeadership; }
    // The owner is going away: no further calls into it.
    void detach() { q = nullptr; }

    // --- any thread ----------------------------------------------------------------------
    // Leading, and the lease's loss deadline is still ahead by the monotonic clock.
    bool isLeader() const;
    qint64 fencingToken() const;  // the create revision of our key while leading, else 0
    QByteArray key() const;       // our key while queued or leading
    Compare ownershipCompare() const;

private:
    enum class Phase { Idle, Campaigning, Leading, LostLeadership };

    void enqueue();
    void joinQueue(quint64 generation);
    void awaitTurn(quint64 generation);
    void becomeLeader();
    void onLeaseLost(quint64 generation, const Status &cause);
    void loseLeadership(const Status &cause);
    // The loss thread, inside the recipe's loss gate: a leader hears of its loss at once.
    void tellLoss(const ExclusivityLease *lost, const Status &cause);
    // Any thread: tells the owner once per term.
    void tellLostLeadership(const Status &cause);
    void requeue(const QString &why);
    void retryLater(const Status &why);
    void dropLease();
    void settleCampaign(const Status &status);
    QFuture<Status> writeProclamation();

    Owner *q;
    Client *const client;
    const QByteArray prefix;
    const qint64 ttlSeconds;
    const ResilienceConfig resilience;
    const Events events;
    const int campaignSource;

    // dispatcher thread only
    Phase phase = Phase::Idle;
    quint64 generation = 0;  // bumped whenever a campaign's in-flight steps become stale
    StopSource attemptStop;
    QByteArray proclamation;
    QByteArray written;      // the value our key was created with
    int leaseSource = -1;
    int failures = 0;
    std::chrono::steady_clock::time_point firstFailure;
    QList<std::shared_ptr<QPromise<Status>>> queued;  // campaign() callers waiting for our key

    // written on the dispatcher thread, read from any
    mutable QMutex mutex;
    std::unique_ptr<ExclusivityLease> lease;
    QByteArray ownKey;
    qint64 revision = 0;
    qint64 token = 0;  // our key's create revision from election until we leave
    bool leading = false;
    bool termAnnounced = false;  // the owner was told of the election
};

} // namespace QEtcd::Internal
