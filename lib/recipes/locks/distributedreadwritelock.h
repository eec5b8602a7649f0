// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/distributedmutex.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/stoptoken.h>

#include <chrono>
#include <memory>

namespace QEtcd {

class DistributedReadWriteLockPrivate;
class ReadWriteLockView;

/// A fair read/write lock whose queued writers are never starved and whose loss is told.
///
/// A fair read/write lock on the reference's layout: one entry per acquisition,
/// `<path>/read-<clientId>:<token>` or `<path>/write-<clientId>:<token>`, valued with the clientId
/// and bound to its own lease. Entries are served in the order they were created: a writer
/// waits until every entry before it is gone, a reader until every writer before it is gone,
/// so readers that come later never starve a queued writer.
///
/// Holds are per thread, per side, and reentrant. A thread that holds the write lock may take
/// the read lock at once and then release the write lock (a downgrade); until no writer queued
/// in between could slip in, its write entry stays in etcd. A thread that holds only the read
/// lock is refused the write lock with Unsupported, since it would wait for itself.
///
/// Loss is told as for DistributedMutex: lockLost(side, cause) from the client's loss thread,
/// the connection state becomes Lost, unlock() returns false, and validity checks
/// compare the monotonic clock with the lease's loss deadline. A read taken by downgrade is
/// lost with the write entry it stands on.
class QETCD_EXPORT DistributedReadWriteLock : public Recipe
{
    Q_OBJECT

public:
    /// The two sides of the lock.
    enum class Side {
        Read,   ///< Shared: any number of readers hold it together.
        Write   ///< Exclusive: one writer, and no readers.
    };
    Q_ENUM(Side)

    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// A read/write lock named \a path, through \a client.
    DistributedReadWriteLock(Client *client, const QByteArray &path, const LockOptions &options = LockOptions(),
                             QObject *parent = nullptr);
    /// Closes the lock: every hold is given back and every waiter returns Cancelled.
    ~DistributedReadWriteLock() override;

    /// The lock's name.
    QByteArray path() const;
    /// The read side, to lock and unlock as a mutex.
    ReadWriteLockView &readLock();
    /// The write side, to lock and unlock as a mutex.
    ReadWriteLockView &writeLock();

Q_SIGNALS:
    /// A thread took \a side, its entry being \a key. From the client's dispatcher thread.
    void acquired(QEtcd::DistributedReadWriteLock::Side side, qint64 fencingToken, const QByteArray &key);
    /// A hold of \a side lost its lease; from the client's loss thread, as for DistributedMutex.
    void lockLost(QEtcd::DistributedReadWriteLock::Side side, const QEtcd::Status &cause);
    /// The hold of \a side with \a fencingToken was given back. From the client's dispatcher
    /// thread.
    void released(QEtcd::DistributedReadWriteLock::Side side, qint64 fencingToken);

protected:
    void doClose() override;

private:
    friend class DistributedReadWriteLockPrivate;
    std::unique_ptr<DistributedReadWriteLockPrivate> d;
};

/// One side of a DistributedReadWriteLock, with DistributedMutex's API. The lock owns both of
/// its views; they live as long as it does.
class QETCD_EXPORT ReadWriteLockView
{
public:
    Q_DISABLE_COPY_MOVE(ReadWriteLockView)
    /// Destroyed with its lock.
    ~ReadWriteLockView();

    /// Which side this is.
    DistributedReadWriteLock::Side side() const;

    /// Blocks until held (Ok) or why not: DeadlineExceeded, Cancelled (close(), interruption),
    /// Unsupported (write while this thread holds only the read lock), WouldDeadlock on the
    /// library's own threads, or the error that stopped it.
    Status lock(std::chrono::milliseconds timeout = DistributedReadWriteLock::WaitForever);
    /// lock() that says only whether this side is held.
    bool tryLock(std::chrono::milliseconds timeout);
    /// The non-blocking twin: the hold belongs to the thread that called it.
    QFuture<Status> lockAsync(std::chrono::milliseconds timeout = DistributedReadWriteLock::WaitForever);
    /// Gives back one level of this thread's hold of this side; the entry goes with the last.
    /// False when the hold was lost (or released by close()) or never existed.
    bool unlock();

    /// This thread holds this side, and the hold's loss deadline is still ahead.
    bool isHeldByCurrentThread() const;
    /// How often this thread holds this side (it is reentrant); 0 without a valid hold.
    int holdCount() const;
    /// Some participant holds this side right now, as etcd's entries tell (waiters do not
    /// count; a read taken under the same thread's write hold shows as the write). Advisory.
    QFuture<bool> isLocked() const;

    /// The fencing token of this thread's hold of this side: the create revision of its entry;
    /// 0 without a hold.
    qint64 fencingToken() const;
    /// The entry of this thread's hold; empty without one.
    QByteArray holdKey() const;
    /// The lease of this thread's hold.
    qint64 leaseId() const;
    /// A compare that holds only while this thread's hold is still its entry in etcd; without a
    /// hold it never holds.
    Compare ownershipCompare() const;
    /// Set when this thread's hold is lost and LockOptions::interruptOnLockLoss is on.
    StopToken stopToken() const;
    /// Runs \a txn only while this thread's hold is still ours: OwnershipLost otherwise, and
    /// nothing written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);
    /// Puts \a value at \a key only while this thread's hold is still ours: OwnershipLost
    /// otherwise, and nothing written.
    QFuture<Status> guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options = {});

private:
    friend class DistributedReadWriteLockPrivate;
    // Called by the lock only: not exported with the rest of the class.
    Q_DECL_HIDDEN ReadWriteLockView(DistributedReadWriteLockPrivate *d, DistributedReadWriteLock::Side side);

    DistributedReadWriteLockPrivate *const d;
    const DistributedReadWriteLock::Side m_side;
};

} // namespace QEtcd
