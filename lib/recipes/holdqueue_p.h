// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the lock recipes (DistributedMutex, DistributedReadWriteLock, DistributedSemaphore) and
// the elections' candidacy share: a FIFO of entries in etcd, one per acquisition (or campaign),
// each on its own ExclusivityLease, driven on the client's dispatcher thread.
//
// An attempt takes a lease, and one transaction creates its entry and reads the entries ahead
// of it (the recipe's lookAhead()); the recipe's turn() then admits it or names what to wait
// for, and after each wait one read guarded by the entry's own create revision looks again.
// A recipe whose rule is etcd's lock (the oldest entry holds) may have the queue follow the
// deletions under its prefix instead (departuresPrefix()): a waiter that knows every entry
// ahead of it is then admitted once they have all departed, with no watch or read of its own.
// A waiter whose lease dies re-queues with a fresh one and says so in the history. A waiter
// stopped by its deadline, close() or interruption revokes its lease, which removes its entry.
//
// Holds never heal: a loss is told once, from the client's loss thread, even while the holder
// and the dispatcher are busy (or from the dispatcher, when the holder's release met the
// passed deadline first), and then the lease is revoked so that the next in line need not wait
// for etcd's expiry. A hold given back in good health has its entry deleted instead and its
// lease kept for the next attempt: a hand-off then costs one delete here and one transaction
// there, as with a bare etcd lock.

#include "client.h"
#include "exclusivitylease.h"
#include "lossinterruption_p.h"
#include "recipe.h"
#include "stoptoken.h"
#include "watcher.h"

#include <QtCore/QFuture>
#include <QtCore/QMutex>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QPromise>
#include <QtCore/QSet>
#include <QtCore/QThread>
#include <QtCore/QTimer>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace QEtcd::Internal {

// A hold's delete sent ahead of the dispatcher: its answer, should it come before release()
// takes it over, or what release() left for the answer to do. Dispatcher thread. It owns nothing
// that must go on that thread, so whichever thread drops it may.
struct SentDelete
{
    std::optional<TxnResult> answer;
    std::function<void(const TxnResult &)> then;
};

struct QueuedHold
{
    QPointer<QThread> owner;  // the thread that asked
    int kind = 0;             // the recipe's own distinction, e.g. the side of a read/write lock
    std::shared_ptr<ExclusivityLease> lease;
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
    // By its holder, by close() or by an abandoned wait; its lease may then serve another hold.
    std::atomic<bool> released{false};
    // The recipe has announced the hold: a loss is told only after that, exactly once.
    std::atomic<bool> published{false};
    std::atomic<bool> lossTold{false};
    // The entry's delete, sent by the thread that gave the hold back (HoldQueue::holdsStandAlone),
    // which posts release() after setting it.
    std::shared_ptr<SentDelete> deleting;
    // Set by giveBack() before it sends that delete: the entry's deletion is then ours, not a
    // takeover.
    std::atomic<bool> deletedByHolder{false};

    // dispatcher thread
    int source = -1;
    bool dropped = false;    // its entry is gone, or on its way out
    StopSource retired;      // requested when dropped: ends any wait about this entry
    std::weak_ptr<QueuedHold> dependent;

    // Any thread: not released, lost nor given back, its lease's loss deadline ahead, and its
    // anchor's while anchored.
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
    std::shared_ptr<ExclusivityLease> lease;
    int source = -1;      // the lease's, while it counts for the recipe's health
    QByteArray key;
    qint64 revision = 0;  // 0 until the entry exists
    std::unique_ptr<QTimer> deadline;
    std::weak_ptr<QueuedHold> won;
    // The requester stopped waiting: a hold won anyway is given back, and never its own.
    std::shared_ptr<std::atomic<bool>> givenBack = std::make_shared<std::atomic<bool>>(false);
    // The thread it counts as the one attempt of its kind of (HoldQueue::beginThreadAttempt);
    // guarded by HoldQueue's m_threadAttemptsMutex.
    QThread *countedFor = nullptr;
};

// What an entry waits for before it looks again.
struct Turn
{
    enum class Kind { Admitted, AfterEntry, AfterAnyUnder };
    Kind kind = Kind::Admitted;
    KeyValue entry;     // AfterEntry: the incarnation whose deletion ends the wait
    QByteArray prefix;  // AfterAnyUnder: a deletion of any key under it ends the wait
    // AfterEntry: every entry ahead (entry among them), when the read found them all. Entries
    // ahead can only go (new ones queue behind), so their deletion admits, provided the
    // waiter's own entry still stands then.
    QList<KeyValue> everyAhead;

    static Turn admitted() { return {}; }
    static Turn after(const KeyValue &entry, QList<KeyValue> everyAhead = {})
    {
        return {Kind::AfterEntry, entry, {}, std::move(everyAhead)};
    }
    static Turn afterAnyUnder(const QByteArray &prefix) { return {Kind::AfterAnyUnder, {}, prefix, {}}; }
    // After the newest entry the ranges found (each newest first), admitted when they found none.
    static Turn afterNearest(const QList<TxnOpResult> &ahead);
};

class HoldQueue : public QObject
{
public:
    HoldQueue(Recipe *owner, const QByteArray &path, bool interruptOnLoss);

    // --- any thread -------------------------------------------------------------------------
    // Ok, or why the recipe refuses an attempt (bad options, no path, closed); Ok marks it
    // started.
    Status beginAttempt();
    // For recipes whose holds are per thread and reentrant (a mutex, each side of a read/write
    // lock): Ok, and attempt counted as the requesting thread's one attempt of its kind until it
    // finishes, or why not. A second attempt from that thread would queue behind the first,
    // whose hold only that thread can give back: a blocking lock() would wait on itself, and an
    // asynchronous one take the lock again after the first's unlock(). It is refused.
    Status beginThreadAttempt(QueuedAttempt &attempt);
    // The attempt no longer counts (finished, or its thread stopped waiting for it).
    void endThreadAttempt(QueuedAttempt &attempt);
    // Runs attempt on the dispatcher thread; the future finishes once.
    QFuture<Status> submit(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout);
    // The blocking twin's wait for submit()'s future. When the wait ends first (interruption,
    // stop, a library thread) the attempt is stopped and a hold it won meanwhile is given back.
    Status await(const std::shared_ptr<QueuedAttempt> &attempt, const QFuture<Status> &future, const StopToken &stop,
                 const QString &what);
    // The owner lets go of hold: its owner thread's waits no longer see the hold's loss from
    // now on. True when the hold was still ours.
    bool giveBack(std::shared_ptr<QueuedHold> hold);

    // Dispatcher thread: stops every attempt (Cancelled) and releases every hold, which stays
    // listed so that its unlock()/release() can report that nothing was left to release.
    void shutDown(const QList<std::shared_ptr<QueuedHold>> &holds);

    Client *const client;
    const QString context;
    const QByteArray path;
    const RecipeOptions options;  // clientId already resolved
    const bool interruptOnLoss;

protected:
    // --- dispatcher thread ------------------------------------------------------------------
    void enqueue(std::shared_ptr<QueuedAttempt> attempt);
    void claim(std::shared_ptr<QueuedAttempt> attempt);
    // True when the attempt was stopped, which finished it.
    bool stopped(const std::shared_ptr<QueuedAttempt> &attempt);
    void finish(const std::shared_ptr<QueuedAttempt> &attempt, const Status &status);
    // Ends the attempt now with why; its entry goes with its lease.
    void stopAttempt(const std::shared_ptr<QueuedAttempt> &attempt, const Status &why);
    // For failed(): lets go of the attempt's lease and entry, and queues it again after delay.
    void retryAfter(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds delay);
    void release(std::shared_ptr<QueuedHold> hold);
    // A hold whose loss deadline has passed before the keep-alive hub noticed (its holder read
    // the clock first): its loss is told now, never hidden by what the holder does next.
    void tellLateLoss(const std::shared_ptr<QueuedHold> &hold);
    void dropEntry(const std::shared_ptr<QueuedHold> &hold);

    // Before the attempt's entry exists; the default goes straight to enqueue().
    virtual void prepare(std::shared_ptr<QueuedAttempt> attempt);
    // The entry's name and value, once the attempt's lease is granted.
    virtual QByteArray entryKey(const QueuedAttempt &attempt) const = 0;
    virtual QByteArray entryValue(const QueuedAttempt &attempt) const;
    // Reads (ranges under the recipe's prefixes, built with ahead()) that find what the entry
    // waits for. They run in the transaction that creates it, and later guarded by it.
    virtual QList<TxnOp> lookAhead(const QueuedAttempt &attempt) const = 0;
    // Decides from lookAhead()'s answers, which hold only entries created before the
    // attempt's own.
    virtual Turn turn(QueuedAttempt &attempt, const QList<TxnOpResult> &ahead) = 0;
    // anchor was released while dependent still stands on it; the default drops it at once.
    virtual void settle(std::shared_ptr<QueuedHold> anchor, std::shared_ptr<QueuedHold> dependent);
    // etcd failed the attempt (a grant, a transaction, a wait that could not recover); the
    // default ends it with why.
    virtual void failed(std::shared_ptr<QueuedAttempt> attempt, const Status &why);
    // The attempt's entry is in the queue now (attempt.key, attempt.revision).
    virtual void queued(const std::shared_ptr<QueuedAttempt> &attempt);
    // The name a lease of this queue has in the recipe's history and lease events.
    virtual QString leaseName(const QByteArray &key) const;

    // The recipe's side of a hold's life; none of these may block.
    virtual void publish(const std::shared_ptr<QueuedHold> &hold) = 0;
    virtual void withdraw(const std::shared_ptr<QueuedHold> &hold) = 0;
    virtual void announceLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause) = 0;
    virtual void announceRelease(const std::shared_ptr<QueuedHold> &hold) = 0;

    // The newest `limit` entries under a prefix that were created before the attempt's own
    // (which the range leaves out, or the engine does, before the entry's revision is known).
    static RangeOptions ahead(const QueuedAttempt &attempt, qint64 limit);
    // How many entries ahead a lock's or a candidate's read asks for. With all of them known, a
    // waiter waits for them together and is admitted once they are gone, without another read;
    // more than this and it waits for the nearest, then reads again, as etcd's Go recipes do.
    static constexpr qint64 entriesAheadRead = 4;
    // How many a read asks for in a queue that follows its departures: up to this many entries
    // ahead, a waiter knows them all and is admitted from the departures alone.
    static constexpr qint64 entriesAheadFollowed = 64;
    // How long a queue's departures watch outlives its last waiter, for the next one to find
    // it live.
    static constexpr std::chrono::seconds departuresLinger{10};

    // The recipe this queue serves; null once it is gone.
    virtual Recipe *recipe() const = 0;
    // For a recipe whose rule is etcd's lock (the oldest entry holds), the prefix its entries
    // live under: the queue then follows every deletion there through one watch, and a waiter
    // whose read found every entry ahead is admitted once they have all been deleted while its
    // own stood. Empty (the default): every wait watches the entries it waits for.
    virtual QByteArray departuresPrefix() const { return {}; }
    // Where held entries are followed. Empty (the default), for a recipe that names its entries
    // after their leases: each held entry's own key is watched, and a lease kept for the next
    // attempt brings its name, and so its watch, along; the queue then hears of its own entries
    // only, not of every hand-off under the prefix. Otherwise the prefix every entry lives
    // under (fresh names on every attempt), followed through one watch.
    virtual QByteArray entriesPrefix() const { return {}; }
    // The recipe's history, while it lives.
    void note(const QString &text);

    bool closing = false;
    // A waiting attempt's lease counts for the recipe's health too, not only a hold's.
    bool waitingLeasesCount = false;
    // A lost hold's lease is revoked once the loss is told, so that the next in line need not
    // wait for etcd's expiry; when false, only as the hold is released.
    bool lostHoldsLetGoAtOnce = true;
    // No hold of the recipe ever stands on another or has one stand on it, so giving one back
    // always deletes its entry: the giving thread sends that delete itself. The next in line
    // waits for it, and the hop to the dispatcher is then no longer on the way.
    bool holdsStandAlone = false;

private:
    void begin(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout);
    // True when the attempt must not go on: it finished, or it re-queued because its lease died.
    bool interrupted(const std::shared_ptr<QueuedAttempt> &attempt);
    bool takeSpareLease(const std::shared_ptr<QueuedAttempt> &attempt);
    void watchLease(const std::shared_ptr<QueuedAttempt> &attempt);
    void join(std::shared_ptr<QueuedAttempt> attempt);
    // throughLeader: linearizable, for a serializable look that did not find the entry.
    void lookAgain(std::shared_ptr<QueuedAttempt> attempt, bool throughLeader = false);
    void entryVanished(std::shared_ptr<QueuedAttempt> attempt);
    void decide(std::shared_ptr<QueuedAttempt> attempt, QList<TxnOpResult> ahead, qint64 observedRevision);
    void requeue(std::shared_ptr<QueuedAttempt> attempt, const QString &why);
    // The attempt's lease and entry go; it may queue again.
    void leave(const std::shared_ptr<QueuedAttempt> &attempt);
    int track(ExclusivityLease *lease, const QString &name, std::function<void(const Status &)> onLost = {});
    void untrack(int &source, ExclusivityLease *lease);
    // Any thread (the loss thread first): tells the loss once, then settles it on the dispatcher.
    void holdLost(const std::shared_ptr<QueuedHold> &hold, const Status &cause);
    void tellLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause);
    void releaseLostHold(const std::shared_ptr<QueuedHold> &hold, const Status &cause);
    void unanchor(const std::shared_ptr<QueuedHold> &hold);

    // An operator breaking a stuck lock (`etcdctl del`), a careless `del --prefix`, or a tool
    // putting the key on its own lease lets the next in line in while the holder still
    // believes it holds. Every change to a held entry is followed through a watch (its key's,
    // or entriesPrefix()'s) while the entry is held, and departuresLinger after, for the next
    // hold to find it live: a hold's entry deleted or moved to another lease by someone else
    // is its loss.
    void watchEntry(const std::shared_ptr<QueuedHold> &hold);
    void unwatchEntry(const std::shared_ptr<QueuedHold> &hold);
    struct EntryWatch;
    // The key or prefix whose watch follows hold's entry.
    QByteArray watchedFor(const QueuedHold &hold) const;
    EntryWatch &startEntryWatch(const QByteArray &watched, qint64 from);
    void takeEntryChanges(const QByteArray &watched, const QList<WatchEvent> &events);
    // The changes among events made to hold's entry after its creation, judged in order.
    void judgeChanges(const std::shared_ptr<QueuedHold> &hold, const QList<WatchEvent> &events);
    void dropEntryWatch(const QByteArray &watched, const QString &why);
    void dropIdleEntryWatches(size_t kept);
    void dropIdleWatchOfLetGoEntry(const QByteArray &key);
    // What a read finds at the hold's entry now.
    void readEntry(const std::shared_ptr<QueuedHold> &hold);
    // The hold's entry as of revision (nullopt: absent); a change not ours is the hold's loss.
    void judgeEntry(const std::shared_ptr<QueuedHold> &hold, const std::optional<KeyValue> &now, qint64 revision);
    void recycle(const std::shared_ptr<QueuedHold> &hold);
    // Deletes the hold's entry, and nothing that took its name since.
    static Txn entryDeletion(const QueuedHold &hold);
    // When every entry ahead is one this queue is deleting or has just deleted, runs then(true)
    // once all those deletes landed, then(false) if one failed; returns false (then never runs)
    // otherwise.
    bool afterOwnDeletes(const QList<KeyValue> &ahead, std::function<void(bool)> then);

    // The deletions under departuresPrefix(), followed from the first wait on: live once the
    // watch runs; waits fall back to their own watches while it is not.
    void followDepartures();
    // The attempt's entries ahead (every one of them, as of asOf) are awaited in the departures.
    void awaitDepartures(std::shared_ptr<QueuedAttempt> attempt, const QList<KeyValue> &ahead, qint64 asOf);
    void takeDepartures(const QList<WatchEvent> &events);
    // Stops following; the waiters read again. A why says so in the recipe's history.
    void dropDepartures(const QString &why);

    QList<std::shared_ptr<QueuedAttempt>> m_attempts;
    QMutex m_threadAttemptsMutex;
    QSet<std::pair<int, QThread *>> m_threadAttempts;  // guarded by m_threadAttemptsMutex
    struct EntryWatch
    {
        Watcher *watcher = nullptr;
        std::vector<std::shared_ptr<QueuedHold>> holds;  // whose entries it follows
        // Every change delivered from revision `from` on, newest last: a hold that joins the
        // watch after some of them (its admission and the watch's events travel apart) is
        // judged by them; one created before `from` is read once instead.
        QList<WatchEvent> recent;
        qint64 from = 0;
        quint64 idleSince = 0;  // m_idleCount when it last lost its last hold; 0 while in use
    };
    std::map<QByteArray, EntryWatch> m_entryWatches;  // by the key or prefix watched
    QTimer *m_entryWatchesIdle = nullptr;
    quint64 m_idleCount = 0;
    static constexpr size_t entryChangesKept = 64;
    // Idle entry watches kept open between lulls: a lock taken again and again alternates two
    // leases, so two names.
    static constexpr size_t idleEntryWatchesKept = 2;
    std::shared_ptr<ExclusivityLease> m_spareLease;
    // Live once its watch runs: m_departuresFrom is then set.
    Watcher *m_departureWatch = nullptr;
    // Stops following once nobody waited for departuresLinger: an idle lock keeps no watch.
    QTimer *m_departuresIdle = nullptr;
    struct Departure
    {
        QByteArray key;
        qint64 revision = 0;  // of the deletion
    };
    // The newest deletions, so that a waiter whose read predates some of them still learns of
    // them; every deletion from m_departuresFrom on is here. 0 while not live.
    std::deque<Departure> m_departures;
    qint64 m_departuresFrom = 0;
    static constexpr size_t departuresKept = 256;
    struct DepartureWaiter
    {
        std::shared_ptr<QueuedAttempt> attempt;
        QList<QByteArray> ahead;  // the entries ahead not yet deleted
        qint64 asOf = 0;          // the revision the read that found them saw
        std::unique_ptr<StopCallback> onStop;
    };
    enum class Verdict { Waiting, Admitted, ReadAgain };
    // Passes the departures from index from on to waiter.
    Verdict judge(DepartureWaiter &waiter, size_t from) const;
    void carryOut(std::vector<std::pair<std::shared_ptr<QueuedAttempt>, Verdict>> decided);
    std::vector<DepartureWaiter> m_departureWaiters;
    // A released hold's entry whose delete is on its way, and the lease it was on.
    struct Recycling
    {
        std::shared_ptr<ExclusivityLease> lease;
        QByteArray key;
        qint64 revision = 0;
        std::vector<std::function<void(bool)>> whenDeleted;
    };
    std::vector<std::unique_ptr<Recycling>> m_recycling;
    // The last few of those deletes answered, and whether each removed its entry: etcd may have
    // applied a create sent right behind one before it, and answered the delete first.
    struct Recycled
    {
        QByteArray key;
        qint64 revision = 0;
        bool deleted = false;
    };
    std::deque<Recycled> m_recycled;
    static constexpr size_t recycledKept = 4;
};

// Commit-only-while-ours compares for hold, or one that never succeeds (no key has create
// revision -1) when it is not valid: its entry's, and its anchor's while it stands on one.
QList<Compare> ownershipGuards(const std::shared_ptr<QueuedHold> &hold, const QByteArray &prefix);

} // namespace QEtcd::Internal
