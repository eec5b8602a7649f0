#pragma once

// What DistributedReadWriteLock and DistributedSemaphore share: a FIFO of entries in etcd, one
// per acquisition, each on its own ExclusivityLease, driven on the client's dispatcher thread.
//
// An attempt grants a lease, creates its entry and asks the recipe whether it may go in
// (admit()); the recipe either claims the hold or waits and asks again. A waiter whose lease
// dies re-queues with a fresh one and says so in the history. A waiter stopped by its
// deadline, close() or interruption revokes its lease, which removes its entry. Holds never
// heal: a loss is told once, from the client's loss thread, even while the holder and the
// dispatcher are busy (or from the dispatcher, when the holder's release met the passed
// deadline first), and then the lease is revoked so that the next in line need not wait for
// etcd's expiry.

#include "client.h"
#include "exclusivitylease.h"
#include "lossinterruption_p.h"
#include "recipe.h"
#include "stoptoken.h"

#include <QtCore/QFuture>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QPromise>
#include <QtCore/QThread>
#include <QtCore/QTimer>

#include <atomic>
#include <chrono>
#include <memory>

namespace QEtcd::Internal {

struct QueuedHold
{
    QPointer<QThread> owner;  // the thread that asked
    int kind = 0;             // the recipe's own distinction, e.g. the side of a read/write lock
    std::unique_ptr<ExclusivityLease> lease;
    QByteArray key;
    qint64 revision = 0;      // of the entry's creation: the fencing token
    int count = 1;            // reentrant holds; only the owner thread touches it
    std::atomic<bool> lost{false};
    // Set by the blocking call that won it and gave up waiting first: it is on its way back.
    std::shared_ptr<std::atomic<bool>> givenBack = std::make_shared<std::atomic<bool>>(false);
    StopSource stop;          // requested on loss with interruption
    LossInterruption interruption;  // armed with interruption until the owner lets go
    // A hold admitted on the strength of another one (a read taken under the same thread's
    // write hold) is safe only while that one's entry stays in etcd, until the recipe has
    // settled that nobody could slip in between.
    std::shared_ptr<QueuedHold> anchor;
    std::atomic<bool> anchored{false};
    std::atomic<bool> released{false};  // by its holder, by close() or by an abandoned wait

    // dispatcher thread
    int source = -1;
    bool dropped = false;    // its lease is revoked (or lost), so its entry is gone
    StopSource retired;      // requested when dropped: ends any wait about this entry
    std::weak_ptr<QueuedHold> dependent;

    // Any thread: not lost nor given back, its lease's loss deadline ahead, and its anchor's
    // while anchored.
    bool isValid() const;
};

// One acquisition in flight, driven on the dispatcher thread.
struct QueuedAttempt
{
    QPointer<QThread> requester;
    int kind = 0;
    std::shared_ptr<QueuedHold> anchor;
    std::shared_ptr<QPromise<Status>> promise = std::make_shared<QPromise<Status>>();
    StopSource stop;  // deadline, close(), interruption: the attempt ends
    Status stopReason;
    // One entry's wait: stopped with the attempt, and when the entry's lease is lost, which
    // ends the wait without ending the attempt.
    StopSource round;
    std::unique_ptr<StopCallback> roundLink;
    std::unique_ptr<ExclusivityLease> lease;
    QByteArray key;
    qint64 revision = 0;
    std::unique_ptr<QTimer> deadline;
    std::weak_ptr<QueuedHold> won;
    // The requester stopped waiting: a hold won anyway is given back, and never its own.
    std::shared_ptr<std::atomic<bool>> givenBack = std::make_shared<std::atomic<bool>>(false);
};

class HoldQueue : public QObject
{
public:
    HoldQueue(Client *client, const QString &context, const RecipeOptions &options, bool interruptOnLoss);

    // --- any thread -------------------------------------------------------------------------
    // Runs attempt on the dispatcher thread; the future finishes once.
    QFuture<Status> submit(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout);
    // The blocking twin's wait for submit()'s future. When the wait ends first (interruption,
    // stop, a library thread) the attempt is stopped and a hold it won meanwhile is given back.
    Status await(const std::shared_ptr<QueuedAttempt> &attempt, const QFuture<Status> &future, const StopToken &stop,
                 const QString &what);
    // The owner thread lets go of hold: its waits no longer see the hold's loss from now on.
    void postRelease(std::shared_ptr<QueuedHold> hold);

    // Dispatcher thread: stops every attempt (Cancelled) and revokes every hold, which stays
    // listed so that its unlock()/release() can report that nothing was left to release.
    void shutDown(const QList<std::shared_ptr<QueuedHold>> &holds);

    Client *const client;
    const QString context;
    const RecipeOptions options;  // clientId already resolved
    const bool interruptOnLoss;

protected:
    // --- dispatcher thread ------------------------------------------------------------------
    void stopAttempt(const std::shared_ptr<QueuedAttempt> &attempt, const Status &why);
    // True when the attempt was stopped, which finished it.
    bool stopped(const std::shared_ptr<QueuedAttempt> &attempt);
    // True when the attempt must not go on: it finished, or it re-queued because its lease died.
    bool interrupted(const std::shared_ptr<QueuedAttempt> &attempt);
    void enqueue(std::shared_ptr<QueuedAttempt> attempt);
    void requeue(std::shared_ptr<QueuedAttempt> attempt, const QString &why);
    void claim(std::shared_ptr<QueuedAttempt> attempt);
    void finish(const std::shared_ptr<QueuedAttempt> &attempt, const Status &status);
    void release(std::shared_ptr<QueuedHold> hold);
    void dropEntry(const std::shared_ptr<QueuedHold> &hold);

    // Before the attempt's entry exists; the default goes straight to enqueue().
    virtual void prepare(std::shared_ptr<QueuedAttempt> attempt);
    virtual QByteArray entryKey(const QueuedAttempt &attempt) const = 0;
    // Decides, or waits and decides again: claim(), requeue() or finish().
    virtual void admit(std::shared_ptr<QueuedAttempt> attempt) = 0;
    // anchor was released while dependent still stands on it; the default drops it at once.
    virtual void settle(std::shared_ptr<QueuedHold> anchor, std::shared_ptr<QueuedHold> dependent);

    // The recipe's side of a hold's life; none of these may block.
    virtual void publish(const std::shared_ptr<QueuedHold> &hold) = 0;
    virtual void withdraw(const std::shared_ptr<QueuedHold> &hold) = 0;
    virtual void announceLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause) = 0;
    virtual void announceRelease(const std::shared_ptr<QueuedHold> &hold) = 0;
    // The recipe this queue serves; null once it is gone.
    virtual Recipe *recipe() const = 0;

    // The recipe's history and health, while it lives.
    void note(const QString &text);
    int track(ExclusivityLease *lease, const QString &name, std::function<void(const Status &)> onLost = {});
    void untrack(int source, ExclusivityLease *lease);

    bool closing = false;

private:
    void begin(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout);
    // Any thread (the loss thread first): tells the loss once, then settles it on the dispatcher.
    void holdLost(const std::shared_ptr<QueuedHold> &hold, const Status &cause);
    void releaseLostHold(const std::shared_ptr<QueuedHold> &hold, const Status &cause);
    void unanchor(const std::shared_ptr<QueuedHold> &hold);

    QList<std::shared_ptr<QueuedAttempt>> m_attempts;
};

} // namespace QEtcd::Internal
