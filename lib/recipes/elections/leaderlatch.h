// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/leaderobserver.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <QtCore/QFuture>

#include <chrono>
#include <memory>

namespace QEtcd {

namespace Internal {
template <class Owner>
class Candidacy;
}

class LeaderLatchPrivate;

/// Leadership on etcd's native election layout, held until close().
///
/// Leadership held until close(), on the same layout as LeaderSelector (so latches, selectors
/// and `etcdctl elect` share one queue), without a callback thread: hasLeadership() says whether
/// we lead, isLeader()/notLeader() tell the changes.
///
/// A latch always stays in the running. Losing the lease while queued re-queues it with a fresh
/// lease; losing it while leading emits notLeader() (declared by our own clock before etcd can
/// elect anyone else), and the latch campaigns again at the tail.
///
/// Signals are emitted from the client's library threads, in order: notLeader() from its loss
/// thread, so that a busy dispatcher cannot hold it back. Getters are safe from any thread.
class QETCD_EXPORT LeaderLatch : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// A latch in the election at \a path, through \a client. An empty \a proclamation
    /// proclaims qetcd's identity JSON.
    LeaderLatch(Client *client, const QByteArray &path, const QByteArray &proclamation = {},
                const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    /// Closes the latch (see doClose()).
    ~LeaderLatch() override;

    /// The election's path.
    QByteArray path() const;

    /// Finishes once: Ok when our key is in the queue, else why not. While etcd cannot be
    /// reached it keeps trying under options.resilience.lease.retryPolicy.
    QFuture<Status> start();

    /// Leading, and the lease's loss deadline is still ahead by the monotonic clock.
    bool hasLeadership() const;
    /// Blocks until we lead (Ok) or why not: DeadlineExceeded, Cancelled (close(), interruption),
    /// NotStarted, WouldDeadlock on the library's own threads.
    Status await(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of await().
    QFuture<Status> awaitAsync(std::chrono::milliseconds timeout = WaitForever);

    /// The fencing token (our key's create revision) while leading, else 0.
    qint64 fencingToken() const;
    /// Our key, while queued or leading.
    QByteArray key() const;
    /// A compare that holds only while our key is still ours in etcd.
    Compare ownershipCompare() const;
    /// Runs \a txn only while leadership is ours: OwnershipLost otherwise, and nothing written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);
    /// Every candidate, leader first. Advisory.
    QFuture<ParticipantsResult> participants() const;

Q_SIGNALS:
    /// We lead now. From the client's dispatcher thread.
    void isLeader();
    /// We no longer lead: the lease was lost (from the client's loss thread), or close().
    void notLeader();

protected:
    /// Removes our key and wakes every await(), which returns Cancelled.
    void doClose() override;

private:
    friend class LeaderLatchPrivate;
    template <class Owner>
    friend class Internal::Candidacy;
    std::unique_ptr<LeaderLatchPrivate> d;
};

} // namespace QEtcd
