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

struct QETCD_EXPORT ElectionOptions : RecipeOptions
{
    // On loss of leadership, set the term's stop token and call QThread::requestInterruption()
    // on the term's thread; every blocking qetcd call there then returns Cancelled. On by
    // default: takeLeadership is usually parked, and only this reaches code parked in a wait.
    bool interruptOnLeaseLoss = true;
    // After a term, campaign again with a fresh lease. Off: the selector idles until requeue().
    bool autoRequeue = true;
};

namespace Internal {
template <class Owner>
class Candidacy;
}

class LeaderSelectorPrivate;

// An election on etcd's own layout (Go's concurrency.Election, `etcdctl elect`): each
// candidate owns <path>/<lease id in hex> with its proclamation as the value, and the key with
// the lowest create revision leads. qetcd's candidates, etcdctl's and Go's queue in one line.
//
// When this candidate leads, takeLeadership(stopToken) runs on the selector's own thread (never
// the client's dispatcher, never a watch callback) for the whole term; the term ends when it
// returns, and relinquishLeadership then always runs on that thread, also after a loss. Only
// after that is our key removed, so the next leader is elected after our callbacks finished.
//
// Candidacy heals, leadership never does. Each campaign has one lease. While we merely queue,
// losing it costs only our place: we re-queue at the tail with a fresh lease, and the history
// says so. While we lead it is an exclusivity lease, declared lost by our own clock before etcd
// can expire it and elect someone else: leadershipLost() fires, isLeader() turns false, the
// connection state goes Lost, and (interruptOnLeaseLoss) the term's stop token is set and its
// thread interrupted. The lease is never renewed back into leadership; with autoRequeue the
// selector campaigns again, as a new candidate at the tail.
//
// isLeader() compares the monotonic clock with the lease's loss deadline when it is called, so
// a term thread resumed after a long pause learns the truth before it acts. For writes that
// must never land after a loss, use the fencing token, ownershipCompare() or guardedTxn().
//
// Signals are emitted from the client's dispatcher thread, leadershipLost() from its loss
// thread, so that a busy dispatcher cannot hold it back. Getters are safe from any thread.
class QETCD_EXPORT LeaderSelector : public Recipe
{
    Q_OBJECT

public:
    using TakeLeadership = std::function<void(const StopToken &stop)>;
    using Relinquish = std::function<void()>;

    // An empty proclamation proclaims qetcd's identity JSON (clientId, host, pid, time), so a
    // console can name the candidate.
    LeaderSelector(Client *client, const QByteArray &path, const QByteArray &proclamation, TakeLeadership take,
                   Relinquish relinquish = {}, const ElectionOptions &options = ElectionOptions(),
                   QObject *parent = nullptr);
    // Waits for a running term to end (see close()); never destroy it from takeLeadership.
    ~LeaderSelector() override;

    QByteArray path() const;

    // Finishes once: Ok when our key is in the queue, else why not. While etcd cannot be
    // reached it keeps trying under options.resilience.lease.retryPolicy.
    QFuture<Status> start();
    // Campaigns again after a term when autoRequeue is off; Ok at once while already a candidate.
    QFuture<Status> requeue();

    bool isLeader() const;
    // About the current term; empty when not leading.
    qint64 fencingToken() const;  // the create revision of our key
    QByteArray key() const;       // our key, also while queued
    Compare ownershipCompare() const;
    StopToken stopToken() const;
    // Commit only while leadership is ours: OwnershipLost otherwise, and nothing written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);

    // Updates our key's value (and that of later campaigns). OwnershipLost when our key is gone.
    QFuture<Status> proclaim(const QByteArray &value);
    // Every candidate, leader first. Advisory.
    QFuture<ParticipantsResult> participants() const;

Q_SIGNALS:
    void elected(qint64 fencingToken);
    void leadershipLost(const QEtcd::Status &cause);
    // takeLeadership and relinquishLeadership have returned; our key is removed next.
    void termEnded();

protected:
    // Sets the term's stop token and interrupts its thread, then waits until takeLeadership and
    // relinquishLeadership have returned (unless called on the term's own thread or the
    // client's dispatcher thread), removes our key and stops campaigning.
    void doClose() override;

private:
    friend class LeaderSelectorPrivate;
    template <class Owner>
    friend class Internal::Candidacy;
    std::unique_ptr<LeaderSelectorPrivate> d;
};

} // namespace QEtcd
