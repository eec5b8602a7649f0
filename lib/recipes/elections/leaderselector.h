// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/leaderobserver.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/stoptoken.h>

#include <QtCore/QFuture>

#include <functional>
#include <memory>

namespace QEtcd {

/// What a LeaderSelector is configured with.
struct QETCD_EXPORT ElectionOptions : RecipeOptions
{
    /// On loss of leadership, set the term's stop token and call QThread::requestInterruption()
    /// on the term's thread; every blocking qetcd call there then returns Cancelled. On by
    /// default: takeLeadership is usually parked, and only this reaches code parked in a wait.
    bool interruptOnLeaseLoss = true;
    /// After a term, campaign again with a fresh lease. Off: the selector idles until requeue().
    bool autoRequeue = true;
};

namespace Internal {
template <class Owner>
class Candidacy;
}

class LeaderSelectorPrivate;

/// A candidate in an election on etcd's native layout that runs a callback while it leads.
///
/// An election on etcd's own layout (Go's concurrency.Election, `etcdctl elect`): each
/// candidate owns `<path>/<lease id in hex>` with its proclamation as the value, and the key with
/// the lowest create revision leads. qetcd's candidates, etcdctl's and Go's queue in one line.
///
/// When this candidate leads, takeLeadership(stopToken) runs on the selector's own thread (never
/// the client's dispatcher, never a watch callback) for the whole term; the term ends when it
/// returns, and relinquishLeadership then always runs on that thread, also after a loss. Only
/// after that is our key removed, so the next leader is elected after our callbacks finished.
///
/// Candidacy heals, leadership never does. Each campaign has one lease. While we merely queue,
/// losing it costs only our place: we re-queue at the tail with a fresh lease, and the history
/// says so. While we lead it is an exclusivity lease, declared lost by our own clock before etcd
/// can expire it and elect someone else: leadershipLost() fires, isLeader() turns false, the
/// connection state goes Lost, and (interruptOnLeaseLoss) the term's stop token is set and its
/// thread interrupted. The lease is never renewed back into leadership; with autoRequeue the
/// selector campaigns again, as a new candidate at the tail.
///
/// isLeader() compares the monotonic clock with the lease's loss deadline when it is called, so
/// a term thread resumed after a long pause learns the truth before it acts. For writes that
/// must never land after a loss, use the fencing token, ownershipCompare() or guardedTxn().
///
/// Signals are emitted from the client's dispatcher thread, leadershipLost() from its loss
/// thread, so that a busy dispatcher cannot hold it back. Getters are safe from any thread.
class QETCD_EXPORT LeaderSelector : public Recipe
{
    Q_OBJECT

public:
    /// The term: runs on the selector's own thread while this candidate leads; the term ends
    /// when it returns. Watch \a stop (and QThread::isInterruptionRequested()) to learn of a loss.
    using TakeLeadership = std::function<void(const StopToken &stop)>;
    /// Runs on the same thread right after the term, also after a loss, before our key goes.
    using Relinquish = std::function<void()>;

    /// A candidate in the election at \a path, through \a client, that runs \a take while it
    /// leads and \a relinquish after. An empty \a proclamation proclaims qetcd's identity JSON
    /// (clientId, host, pid, time), so a console can name the candidate.
    LeaderSelector(Client *client, const QByteArray &path, const QByteArray &proclamation, TakeLeadership take,
                   Relinquish relinquish = {}, const ElectionOptions &options = ElectionOptions(),
                   QObject *parent = nullptr);
    /// Waits for a running term to end (see close()); never destroy it from takeLeadership.
    ~LeaderSelector() override;

    /// The election's path.
    QByteArray path() const;

    /// Finishes once: Ok when our key is in the queue, else why not. While etcd cannot be
    /// reached it keeps trying under options.resilience.lease.retryPolicy.
    QFuture<Status> start();
    /// Campaigns again after a term when autoRequeue is off; Ok at once while already a candidate.
    QFuture<Status> requeue();

    /// We lead, and the lease's loss deadline is still ahead by the monotonic clock.
    bool isLeader() const;
    /// The current term's fencing token: the create revision of our key; 0 when not leading.
    qint64 fencingToken() const;
    /// Our key, also while queued; empty when not a candidate.
    QByteArray key() const;
    /// A compare that holds only while our key is still ours in etcd, to add to transactions of
    /// your own.
    Compare ownershipCompare() const;
    /// The current term's stop token.
    StopToken stopToken() const;
    /// Runs \a txn only while leadership is ours: OwnershipLost otherwise, and nothing written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);

    /// Updates our key's value (and that of later campaigns). OwnershipLost when our key is gone.
    QFuture<Status> proclaim(const QByteArray &value);
    /// Every candidate, leader first. Advisory.
    QFuture<ParticipantsResult> participants() const;

Q_SIGNALS:
    /// We lead, with \a fencingToken; the term starts on its thread. From the client's
    /// dispatcher thread.
    void elected(qint64 fencingToken);
    /// Leadership was lost before the term returned; from the client's loss thread.
    void leadershipLost(const QEtcd::Status &cause);
    /// takeLeadership and relinquishLeadership have returned; our key is removed next. From the
    /// client's dispatcher thread.
    void termEnded();

protected:
    /// Sets the term's stop token and interrupts its thread, then waits until takeLeadership and
    /// relinquishLeadership have returned (unless called on the term's own thread or the
    /// client's dispatcher thread), removes our key and stops campaigning.
    void doClose() override;

private:
    friend class LeaderSelectorPrivate;
    template <class Owner>
    friend class Internal::Candidacy;
    std::unique_ptr<LeaderSelectorPrivate> d;
};

} // namespace QEtcd
