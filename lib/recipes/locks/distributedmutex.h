// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/stoptoken.h>

#include <chrono>
#include <memory>

namespace QEtcd {

/// What a DistributedMutex or DistributedReadWriteLock is configured with.
struct QETCD_EXPORT LockOptions : RecipeOptions
{
    /// On loss, set the hold's stop token; every blocking qetcd call on the holder's thread then
    /// returns Cancelled, until that thread unlock()s the lost hold. Off by default: the holder
    /// may be halfway through something only it knows how to stop safely.
    bool interruptOnLockLoss = false;
};

class DistributedMutexPrivate;

/// A reentrant lock on etcd's native lock layout whose loss is always told.
///
/// A mutex on etcd's own lock layout: `<path>/<lease id in hex>`, held by the lowest create
/// revision, so it excludes and is excluded by `etcdctl lock`, Go's concurrency.Mutex and the
/// v3lock service on the same name. A waiter that found every key ahead of its own (up to 64)
/// is admitted once they have all been deleted while its own key stood, learnt from the one
/// watch per instance that follows the lock's deletions; with more ahead, or while that watch
/// is not live, it watches the nearest key ahead and then reads again. The value names the
/// participant (clientId, host, pid, time of request) so a console can show who holds and who
/// waits.
///
/// The hold's lease never heals. When it is lost lockLost() fires (from the client's loss
/// thread, which nothing else runs on: neither a busy holder nor a busy dispatcher holds it
/// back; a slot connected directly must not block there), the connection state becomes Lost, and
/// unlock() returns false. The hold's key deleted by someone else (`etcdctl del`, an operator
/// breaking a stuck lock) or put on another lease (or none) is a loss too, told the same way
/// as the change reaches the instance's watch on its keys: the next in line may already hold.
/// Its lease event is then Failed, with an OwnershipLost cause naming the key and revision.
/// A second acquisition from a thread whose first is still in flight is refused (Unsupported):
/// it would queue behind a hold only that thread can give back. An unlock() that reads the clock past the deadline before the loss
/// thread has told the loss does not hide it: lockLost() then fires from the client's
/// dispatcher thread as that unlock() is carried out. isHeldByCurrentThread() compares the boot
/// clock (which counts a system suspend) with the lease's loss deadline at the moment it is
/// called, so a thread resumed after a long pause or a suspend learns the truth before it
/// acts. A paused process or VM sees no time pass and cannot tell locally: for writes that must
/// never land after a loss, use the fencing token or guardedTxn().
///
/// Holds are per thread and reentrant. Every blocking call has a non-blocking twin.
class QETCD_EXPORT DistributedMutex : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// A mutex named \a path, through \a client.
    DistributedMutex(Client *client, const QByteArray &path, const LockOptions &options = LockOptions(),
                     QObject *parent = nullptr);
    /// Closes the mutex: every hold is given back and every waiter returns Cancelled.
    ~DistributedMutex() override;

    /// The lock's name.
    QByteArray path() const;

    /// Blocks until held (Ok) or why not: DeadlineExceeded, Cancelled (close(), interruption),
    /// WouldDeadlock on the library's own threads, or the error that stopped it.
    Status lock(std::chrono::milliseconds timeout = WaitForever);
    /// lock() that says only whether the lock is held.
    bool tryLock(std::chrono::milliseconds timeout);
    /// The non-blocking twin: the hold belongs to the thread that called it.
    QFuture<Status> lockAsync(std::chrono::milliseconds timeout = WaitForever);
    /// Gives back one level of this thread's hold; the key goes with the last. False when this
    /// thread's hold was lost (or released by close()) or never existed: what it protected may
    /// have been changed by another holder meanwhile. Never waits for etcd: the key's delete is
    /// sent from this thread, for the next in line to get in sooner, and not awaited.
    bool unlock();

    /// This thread holds the lock, and the hold's loss deadline is still ahead by the boot
    /// clock.
    bool isHeldByCurrentThread() const;
    /// How often this thread holds the lock (it is reentrant); 0 without a valid hold.
    int holdCount() const;
    /// Someone holds the lock right now (waiters do not count). Advisory.
    QFuture<bool> isLocked() const;

    /// The fencing token of this thread's hold: the create revision of its key, larger for every
    /// later holder; 0 without a hold.
    qint64 fencingToken() const;
    /// The key of this thread's hold; empty without one.
    QByteArray holdKey() const;
    /// The lease of this thread's hold.
    qint64 leaseId() const;
    /// A compare that holds only while this thread's hold is still its key in etcd, to add to
    /// transactions of your own; without a hold it never holds.
    Compare ownershipCompare() const;
    /// Set when this thread's hold is lost and LockOptions::interruptOnLockLoss is on.
    StopToken stopToken() const;
    /// Runs \a txn only while this thread's hold is still ours: OwnershipLost otherwise, and
    /// nothing written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);
    /// Puts \a value at \a key only while this thread's hold is still ours: OwnershipLost
    /// otherwise, and nothing written.
    QFuture<Status> guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options = {});

Q_SIGNALS:
    /// A thread took the lock, its hold's key being \a key. From the client's dispatcher thread.
    void acquired(qint64 fencingToken, const QByteArray &key);
    /// A hold's lease was lost; see the class description for the thread it comes from.
    void lockLost(const QEtcd::Status &cause);
    /// The hold with \a fencingToken was given back (unlock(), close(), or after its loss). From
    /// the client's dispatcher thread.
    void released(qint64 fencingToken);

protected:
    void doClose() override;

private:
    friend class DistributedMutexPrivate;
    std::unique_ptr<DistributedMutexPrivate> d;
};

} // namespace QEtcd
