#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/stoptoken.h>

#include <chrono>
#include <memory>

namespace QEtcd {

struct QETCD_EXPORT LockOptions : RecipeOptions
{
    // On loss, set the hold's stop token; every blocking qetcd call on the holder's thread then
    // returns Cancelled, until that thread unlock()s the lost hold. Off by default: the holder
    // may be halfway through something only it knows how to stop safely.
    bool interruptOnLockLoss = false;
};

class DistributedMutexPrivate;

// A mutex on etcd's own lock layout: <path>/<lease id in hex>, held by the lowest create
// revision, so it excludes and is excluded by `etcdctl lock`, Go's concurrency.Mutex and the
// v3lock service on the same name. Each waiter watches only its predecessor, then re-checks
// its own key before it claims the lock. The value names the participant (clientId, host,
// pid, time of request) so a console can show who holds and who waits.
//
// The hold's lease never heals. When it is lost lockLost() fires (from the client's loss
// thread, which nothing else runs on: neither a busy holder nor a busy dispatcher holds it
// back; a slot connected directly must not block there), the connection state becomes Lost, and
// unlock() returns false. An unlock() that reads the clock past the deadline before the loss
// thread has told the loss does not hide it: lockLost() then fires from the client's
// dispatcher thread as that unlock() is carried out. isHeldByCurrentThread() compares the boot clock (which counts a
// system suspend) with the lease's loss deadline at the moment it is called, so a thread
// resumed after a long pause or a suspend learns the truth before it acts. A paused process
// or VM sees no time pass and cannot tell locally: for writes that must never land after a
// loss, use the fencing token or guardedTxn().
//
// Holds are per thread and reentrant. Every blocking call has a non-blocking twin.
class QETCD_EXPORT DistributedMutex : public Recipe
{
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    DistributedMutex(Client *client, const QByteArray &path, const LockOptions &options = LockOptions(),
                     QObject *parent = nullptr);
    ~DistributedMutex() override;

    QByteArray path() const;

    // Blocks until held (Ok) or why not: DeadlineExceeded, Cancelled (close(), interruption),
    // WouldDeadlock on the library's own threads, or the error that stopped it.
    Status lock(std::chrono::milliseconds timeout = WaitForever);
    bool tryLock(std::chrono::milliseconds timeout);
    // The non-blocking twin: the hold belongs to the thread that called it.
    QFuture<Status> lockAsync(std::chrono::milliseconds timeout = WaitForever);
    // False when this thread's hold was lost (or released by close()) or never existed.
    bool unlock();

    bool isHeldByCurrentThread() const;
    int holdCount() const;
    // Someone holds the lock right now (waiters do not count). Advisory.
    QFuture<bool> isLocked() const;

    // About the current thread's hold; empty when it holds nothing.
    qint64 fencingToken() const;  // the create revision of the hold's key
    QByteArray holdKey() const;
    qint64 leaseId() const;
    Compare ownershipCompare() const;
    StopToken stopToken() const;
    // Commit only while the hold is still ours: OwnershipLost otherwise, and nothing written.
    QFuture<TxnResult> guardedTxn(const Txn &txn);
    QFuture<Status> guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options = {});

Q_SIGNALS:
    void acquired(qint64 fencingToken, const QByteArray &key);
    void lockLost(const QEtcd::Status &cause);
    void released(qint64 fencingToken);

protected:
    void doClose() override;

private:
    friend class DistributedMutexPrivate;
    std::unique_ptr<DistributedMutexPrivate> d;
};

} // namespace QEtcd
