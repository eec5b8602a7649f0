// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/stoptoken.h>

#include <chrono>
#include <memory>

namespace QEtcd {

/// What a DistributedSemaphore is configured with.
struct QETCD_EXPORT SemaphoreOptions : RecipeOptions
{
    /// On loss, set the permit's stop token; every blocking qetcd call on the thread that
    /// acquired it then returns Cancelled, until that thread releases the lost permit. Off by
    /// default: the holder may be halfway through something only it knows how to stop safely.
    bool interruptOnPermitLoss = false;
};

/// The answer to DistributedSemaphore::availablePermits().
struct QETCD_EXPORT AvailablePermitsResult : Result
{
    int permits = 0;    ///< As stored at `<path>/permits`.
    int available = 0;  ///< permits minus the entries under `<path>/holders/`, waiters included.
};

class DistributedSemaphorePrivate;

/// A counting semaphore whose permits are owned by the instance and whose loss is told.
///
/// A counting semaphore on the reference's layout. `<path>/permits` holds the permit count
/// (int32 big-endian), created by compare-and-set by whoever comes first and never leased;
/// an instance that asks for another count is refused with Mismatch. Each acquisition is an
/// entry `<path>/holders/<clientId>:<token>`, valued with the clientId and bound to its own
/// lease; the first `permits` entries by create revision hold, the rest wait in that order.
///
/// Permits belong to the instance, not to a thread: they are not reentrant (a second acquire
/// queues like anyone else's) and any thread may release(), which gives back the most recently
/// acquired permit still held.
///
/// A permit's lease never heals. When it is lost permitLost() fires (from the client's loss
/// thread, even while the holder and the dispatcher are busy), the connection state becomes
/// Lost, and the release() that meets it returns false. A release() that reads the clock past
/// the deadline before the loss thread has told the loss does not hide it: permitLost() then
/// fires from the client's dispatcher thread as that release() is carried out. heldPermits()
/// compares the monotonic clock with each lease's loss deadline when it is called. For writes
/// that must never land after a loss, use the fencing token or guardedTxn().
class QETCD_EXPORT DistributedSemaphore : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// A semaphore of \a permits named \a path, through \a client.
    DistributedSemaphore(Client *client, const QByteArray &path, int permits,
                         const SemaphoreOptions &options = SemaphoreOptions(), QObject *parent = nullptr);
    /// Closes the semaphore: every permit is given back and every waiter returns Cancelled.
    ~DistributedSemaphore() override;

    /// The semaphore's name.
    QByteArray path() const;
    /// The permit count this instance was made with.
    int permits() const;

    /// Blocks until a permit is held (Ok) or why not: DeadlineExceeded, Cancelled (close(),
    /// interruption), Mismatch (another permit count is stored), WouldDeadlock on the library's
    /// own threads, or the error that stopped it.
    Status acquire(std::chrono::milliseconds timeout = WaitForever);
    /// acquire() that says only whether a permit is held.
    bool tryAcquire(std::chrono::milliseconds timeout);
    /// The non-blocking twin of acquire().
    QFuture<Status> acquireAsync(std::chrono::milliseconds timeout = WaitForever);
    /// Gives back the most recently acquired permit still held (true); when none is, one that
    /// was lost or released by close() (false). False with a warning when nothing was acquired.
    /// Never waits for etcd: the delete of the permit's key is sent from this thread and not
    /// awaited.
    bool release();

    /// Permits this instance holds and still believes valid right now.
    int heldPermits() const;
    /// Advisory: one read. Also checks the stored permit count, as acquire() does.
    QFuture<AvailablePermitsResult> availablePermits() const;

    /// The fencing token of the permit release() would give back: the create revision of its
    /// entry; 0 when none was acquired.
    qint64 fencingToken() const;
    /// The entry of that permit; empty when none was acquired.
    QByteArray holdKey() const;
    /// The lease of that permit.
    qint64 leaseId() const;
    /// A compare that holds only while that permit is still its entry in etcd; without a permit
    /// it never holds.
    Compare ownershipCompare() const;
    /// Set when that permit is lost and SemaphoreOptions::interruptOnPermitLoss is on.
    StopToken stopToken() const;
    /// Runs \a txn only while that permit is still ours: OwnershipLost otherwise, and nothing
    /// written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);
    /// Puts \a value at \a key only while that permit is still ours: OwnershipLost otherwise,
    /// and nothing written.
    QFuture<Status> guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options = {});

Q_SIGNALS:
    /// A permit was acquired, its entry being \a key. From the client's dispatcher thread.
    void acquired(qint64 fencingToken, const QByteArray &key);
    /// A permit's lease was lost; see the class description for the thread it comes from.
    void permitLost(const QEtcd::Status &cause);
    /// The permit with \a fencingToken was given back. From the client's dispatcher thread.
    void released(qint64 fencingToken);

protected:
    void doClose() override;

private:
    friend class DistributedSemaphorePrivate;
    std::unique_ptr<DistributedSemaphorePrivate> d;
};

} // namespace QEtcd
