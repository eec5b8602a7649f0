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

// A fair read/write lock on the reference's layout: one entry per acquisition,
// <path>/read-<clientId>:<token> or <path>/write-<clientId>:<token>, valued with the clientId
// and bound to its own lease. Entries are served in the order they were created: a writer
// waits until every entry before it is gone, a reader until every writer before it is gone,
// so readers that come later never starve a queued writer.
//
// Holds are per thread, per side, and reentrant. A thread that holds the write lock may take
// the read lock at once and then release the write lock (a downgrade); until no writer queued
// in between could slip in, its write entry stays in etcd. A thread that holds only the read
// lock is refused the write lock with Unsupported, since it would wait for itself.
//
// Loss is told as for DistributedMutex: lockLost(side, cause) from the client's loss thread,
// the connection state becomes Lost, unlock() returns false, and validity checks
// compare the monotonic clock with the lease's loss deadline. A read taken by downgrade is
// lost with the write entry it stands on.
class QETCD_EXPORT DistributedReadWriteLock : public Recipe
{
    Q_OBJECT

public:
    enum class Side { Read, Write };
    Q_ENUM(Side)

    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    DistributedReadWriteLock(Client *client, const QByteArray &path, const LockOptions &options = LockOptions(),
                             QObject *parent = nullptr);
    ~DistributedReadWriteLock() override;

    QByteArray path() const;
    ReadWriteLockView &readLock();
    ReadWriteLockView &writeLock();

Q_SIGNALS:
    void acquired(QEtcd::DistributedReadWriteLock::Side side, qint64 fencingToken, const QByteArray &key);
    void lockLost(QEtcd::DistributedReadWriteLock::Side side, const QEtcd::Status &cause);
    void released(QEtcd::DistributedReadWriteLock::Side side, qint64 fencingToken);

protected:
    void doClose() override;

private:
    friend class DistributedReadWriteLockPrivate;
    std::unique_ptr<DistributedReadWriteLockPrivate> d;
};

// One side of a DistributedReadWriteLock, with DistributedMutex's API. The lock owns both of
// its views; they live as long as it does.
class QETCD_EXPORT ReadWriteLockView
{
public:
    Q_DISABLE_COPY_MOVE(ReadWriteLockView)
    ~ReadWriteLockView();

    DistributedReadWriteLock::Side side() const;

    // Blocks until held (Ok) or why not: DeadlineExceeded, Cancelled (close(), interruption),
    // Unsupported (write while this thread holds only the read lock), WouldDeadlock on the
    // library's own threads, or the error that stopped it.
    Status lock(std::chrono::milliseconds timeout = DistributedReadWriteLock::WaitForever);
    bool tryLock(std::chrono::milliseconds timeout);
    // The non-blocking twin: the hold belongs to the thread that called it.
    QFuture<Status> lockAsync(std::chrono::milliseconds timeout = DistributedReadWriteLock::WaitForever);
    // False when this thread's hold was lost (or released by close()) or never existed.
    bool unlock();

    bool isHeldByCurrentThread() const;
    int holdCount() const;
    // Some participant holds this side right now, as etcd's entries tell (waiters do not
    // count; a read taken under the same thread's write hold shows as the write). Advisory.
    QFuture<bool> isLocked() const;

    // About the current thread's hold of this side; empty when it holds nothing.
    qint64 fencingToken() const;  // the create revision of the hold's entry
    QByteArray holdKey() const;
    qint64 leaseId() const;
    Compare ownershipCompare() const;
    StopToken stopToken() const;
    // Commit only while the hold is still ours: OwnershipLost otherwise, and nothing written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);
    QFuture<Status> guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options = {});

private:
    friend class DistributedReadWriteLockPrivate;
    // Called by the lock only: not exported with the rest of the class.
    Q_DECL_HIDDEN ReadWriteLockView(DistributedReadWriteLockPrivate *d, DistributedReadWriteLock::Side side);

    DistributedReadWriteLockPrivate *const d;
    const DistributedReadWriteLock::Side m_side;
};

} // namespace QEtcd
