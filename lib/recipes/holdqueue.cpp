// SPDX-License-Identifier: Apache-2.0
#include "holdqueue_p.h"

#include "blockingwait_p.h"
#include "client_p.h"
#include "clientthread_p.h"
#include "continuation_p.h"
#include "resilience.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QTimer>

#include <algorithm>
#include <atomic>

namespace QEtcd::Internal {

namespace {
// How long a waiter woken by close() may wait for its entry's revoke to be answered (finish()).
constexpr std::chrono::seconds closedRevokeGrace{1};
} // namespace

bool QueuedHold::isValid() const
{
    // Released first: its lease may already serve the next hold.
    if (released || lost || *givenBack || !lease->isValid())
        return false;
    // anchored is read again after the anchor's lease: settling clears it before that lease
    // is let go of, so a lease seen invalid here with anchored now false was settled, not lost.
    return !anchored || anchor->lease->isValid() || !anchored;
}

HoldQueue::HoldQueue(Recipe *owner, const QByteArray &path, bool interruptOnLoss)
    : client(owner->client()), context(owner->context()), path(path), options(owner->options()),
      interruptOnLoss(interruptOnLoss)
{
    if (client)  // without one, every call is refused before anything runs
        moveToThread(ClientPrivate::get(client)->dispatcher());
}

Status HoldQueue::beginAttempt()
{
    Recipe *owner = recipe();
    if (Status status = owner->validate(); !status)
        return status;
    if (path.isEmpty())
        return Status(StatusCode::InvalidArgument, context + QStringLiteral(": path is empty"));
    if (owner->isClosed())
        return Status(StatusCode::Closed, context + QStringLiteral(": closed"));
    owner->beginStart();
    return {};
}

Status HoldQueue::beginThreadAttempt(QueuedAttempt &attempt)
{
    QMutexLocker locker(&m_threadAttemptsMutex);
    const std::pair<int, QThread *> mine{attempt.kind, attempt.requester.data()};
    if (m_threadAttempts.contains(mine))
        return Status(StatusCode::Unsupported,
                      context + QStringLiteral(": this thread is already acquiring it; a second acquisition would "
                                               "wait for the first one's hold, which only this thread can give "
                                               "back: wait for the first (a hold is reentrant once held)"));
    m_threadAttempts.insert(mine);
    attempt.countedFor = mine.second;
    return {};
}

void HoldQueue::endThreadAttempt(QueuedAttempt &attempt)
{
    QMutexLocker locker(&m_threadAttemptsMutex);
    if (QThread *thread = std::exchange(attempt.countedFor, nullptr))
        m_threadAttempts.remove({attempt.kind, thread});
}

QFuture<Status> HoldQueue::submit(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout)
{
    attempt->promise->start();
    QFuture<Status> future = attempt->promise->future();
    QMetaObject::invokeMethod(this, [this, attempt, timeout] { begin(attempt, timeout); }, Qt::QueuedConnection);
    return future;
}

Status HoldQueue::await(const std::shared_ptr<QueuedAttempt> &attempt, const QFuture<Status> &future,
                        const StopToken &stop, const QString &what)
{
    if (future.isFinished())
        return future.result();
    const Status waited = waitBlocking(client, future, QDeadlineTimer::Forever, stop, what);
    if (waited)
        return future.result();
    // Until the dispatcher has given back what the attempt may just have won, this thread must
    // not count itself into it (a second lock()), and the attempt no longer stands in the way
    // of the thread's next one: that one queues behind a hold on its way back, not its own.
    attempt->givenBack->store(true);
    endThreadAttempt(*attempt);
    QMetaObject::invokeMethod(this, [this, attempt, waited] { stopAttempt(attempt, waited); }, Qt::QueuedConnection);
    thenOn(QFuture<Status>(future), this, [this, attempt](const Status &won) {
        const auto hold = attempt->won.lock();
        if (won && hold) {
            withdraw(hold);
            release(hold);
        }
    });
    return waited;
}

bool HoldQueue::giveBack(std::shared_ptr<QueuedHold> hold)
{
    hold->interruption.disarm();  // here: this thread's next wait must not see the loss
    // Given back while valid, the hold is over: a loss deadline that passes on the way to the
    // dispatcher (tellLateLoss()), or a loss the loss thread finds meanwhile, is no longer a
    // loss to tell; unlock() said true. Taking the one tell makes it either, never both: a loss
    // told first has made the hold invalid.
    const bool stillOurs = hold->isValid() && !hold->lossTold.exchange(true);
    if (stillOurs && holdsStandAlone) {
        hold->deletedByHolder = true;  // before the delete: its watch event may beat release()
        hold->deleting = std::make_shared<SentDelete>();
        client->txn(entryDeletion(*hold), {}, answerOn<TxnResult>(this, [sent = hold->deleting](const TxnResult &deleted) {
            if (sent->then)
                sent->then(deleted);
            else
                sent->answer = deleted;
        }));
    }
    QMetaObject::invokeMethod(this, [this, hold] { release(hold); }, Qt::QueuedConnection);
    return stillOurs;
}

void HoldQueue::begin(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds timeout)
{
    m_attempts.append(attempt);
    if (closing)  // submitted while close() was running
        return finish(attempt, Status(StatusCode::Cancelled, context + QStringLiteral(": closed")));
    if (timeout != NoTimeout) {
        attempt->deadline = makeDeadlineTimer();
        connect(attempt->deadline.get(), &QTimer::timeout, this, [this, attempt] {
            stopAttempt(attempt, Status(StatusCode::DeadlineExceeded, context + QStringLiteral(": not acquired in time")));
        });
        attempt->deadline->start(timeout);
    }
    prepare(attempt);
}

void HoldQueue::prepare(std::shared_ptr<QueuedAttempt> attempt)
{
    enqueue(attempt);
}

QByteArray HoldQueue::entryValue(const QueuedAttempt &) const
{
    return options.clientId.toUtf8();
}

void HoldQueue::failed(std::shared_ptr<QueuedAttempt> attempt, const Status &why)
{
    finish(attempt, why);
}

void HoldQueue::queued(const std::shared_ptr<QueuedAttempt> &)
{
}

QString HoldQueue::leaseName(const QByteArray &key) const
{
    return QStringLiteral("hold ") + QString::fromUtf8(key);
}

Turn Turn::afterNearest(const QList<TxnOpResult> &ahead)
{
    KeyValue nearest;
    QList<KeyValue> every;
    bool more = false;  // a limit left entries out
    for (const TxnOpResult &each : ahead) {
        every += each.range.kvs;
        more = more || each.range.more;
        const KeyValue candidate = each.range.kvs.value(0);
        if (candidate.createRevision > nearest.createRevision)
            nearest = candidate;
    }
    if (nearest.key.isEmpty())
        return admitted();
    return more ? after(nearest) : after(nearest, every);
}

void HoldQueue::stopAttempt(const std::shared_ptr<QueuedAttempt> &attempt, const Status &why)
{
    if (attempt->stopReason.isOk())
        attempt->stopReason = why;
    attempt->stop.requestStop();
    // Now, not at etcd's next answer, which a partition can hold back for as long as the RPC
    // timeouts allow. Whatever is still in flight finds the attempt over.
    finish(attempt, attempt->stopReason);
}

bool HoldQueue::stopped(const std::shared_ptr<QueuedAttempt> &attempt)
{
    return attempt->stop.stopRequested();
}

bool HoldQueue::interrupted(const std::shared_ptr<QueuedAttempt> &attempt)
{
    if (stopped(attempt))
        return true;
    if (attempt->lease->isValid())
        return false;
    requeue(attempt, QStringLiteral("its lease was lost while it waited"));
    return true;
}

void HoldQueue::enqueue(std::shared_ptr<QueuedAttempt> attempt)
{
    if (stopped(attempt))
        return;
    attempt->round = StopSource();
    attempt->roundLink = std::make_unique<StopCallback>(attempt->stop.token(),
                                                        [round = attempt->round]() mutable { round.requestStop(); });
    if (takeSpareLease(attempt))
        return join(attempt);
    attempt->lease = std::make_shared<ExclusivityLease>(client, options.ttlSeconds);
    watchLease(attempt);
    thenOn(attempt->lease->grant(), this, [this, attempt](const Status &granted) {
        if (stopped(attempt))
            return;
        if (!granted)
            return failed(attempt, granted);
        join(attempt);
    });
}

bool HoldQueue::takeSpareLease(const std::shared_ptr<QueuedAttempt> &attempt)
{
    std::shared_ptr<ExclusivityLease> spare = std::exchange(m_spareLease, nullptr);
    if (!spare)
        return false;
    if (!spare->isValid()) {
        spare->release();
        return false;
    }
    attempt->lease = std::move(spare);
    watchLease(attempt);
    return true;
}

// Losing the lease while queued means the entry is gone: the wait ends, and the attempt queues
// again.
void HoldQueue::watchLease(const std::shared_ptr<QueuedAttempt> &attempt)
{
    connect(attempt->lease.get(), &ExclusivityLease::lost, this, [round = attempt->round]() mutable { round.requestStop(); });
    if (waitingLeasesCount)
        attempt->source = track(attempt->lease.get(), leaseName(attempt->key));
}

// One transaction creates the entry and reads what is ahead of it. Its name taken means an
// earlier try of the same transaction landed (the request was retried) when the entry found
// there is on our lease: it is ours.
void HoldQueue::join(std::shared_ptr<QueuedAttempt> attempt)
{
    attempt->key = entryKey(*attempt);
    attempt->revision = 0;
    PutOptions onLease;
    onLease.lease = attempt->lease->leaseId();
    Txn txn;
    txn.compares = {Compare::absent(attempt->key)};
    txn.success = QList<TxnOp>{TxnOp::put(attempt->key, entryValue(*attempt), onLease)} + lookAhead(*attempt);
    txn.failure = {TxnOp::range(attempt->key)};
    client->txn(txn, {}, answerOn<TxnResult>(this, [this, weak = std::weak_ptr(attempt)](const TxnResult &created) {
        const auto attempt = weak.lock();  // gone: it finished, and its lease went with it
        if (!attempt || interrupted(attempt))
            return;
        if (!created.status)
            return failed(attempt, created.status);
        if (!created.succeeded) {
            const KeyValue existing = created.responses.value(0).range.kvs.value(0);
            if (existing.lease != attempt->lease->leaseId())
                return requeue(attempt, QStringLiteral("its entry's name was taken"));
            attempt->revision = existing.createRevision;
            queued(attempt);
            return lookAgain(attempt);
        }
        attempt->revision = created.header.revision;
        queued(attempt);
        decide(attempt, created.responses.mid(1), created.header.revision);
    }));
}

void HoldQueue::lookAgain(std::shared_ptr<QueuedAttempt> attempt, bool throughLeader)
{
    Txn txn;
    txn.compares = {Compare::createRevision(attempt->key, CompareResult::Equal, attempt->revision)};
    txn.success = lookAhead(*attempt);
    if (throughLeader) {
        for (TxnOp &read : txn.success)
            read.rangeOptions.serializable = false;
    }
    client->txn(txn, {}, answerOn<TxnResult>(this, [this, weak = std::weak_ptr(attempt), throughLeader](const TxnResult &result) {
        const auto attempt = weak.lock();
        if (!attempt || interrupted(attempt))
            return;
        if (!result.status)
            return failed(attempt, result.status);
        // A serializable read is answered by whichever member the client is on: after a
        // fail-over to one that lags, from a store that may not have our entry yet. Only the
        // leader's word that it is gone costs the waiter its place.
        if (!result.succeeded && !throughLeader)
            return lookAgain(attempt, true);
        if (!result.succeeded)
            return entryVanished(attempt);
        decide(attempt, result.responses, result.header.revision);
    }));
}

// Our entry went while we waited. With our lease, which etcd deletes keys and all, it is an
// outage's or a revoke's doing, which the lease's renewals may not have told yet: the lease is
// declared lost now, and the next look queues again on a fresh one, as any lease lost while
// waiting does. With the lease alive, another client deleted the entry: an operator taking this
// waiter out of the queue (the console's Remove, `qetcd lock break --entry`). That is honoured
// and told, not undone by queueing again at the back.
void HoldQueue::entryVanished(std::shared_ptr<QueuedAttempt> attempt)
{
    thenOn(client->leaseTimeToLive(attempt->lease->leaseId()), this, [this, attempt](const LeaseTimeToLiveResult &alive) {
        if (interrupted(attempt))
            return;
        if (!alive.status)
            return requeue(attempt, QStringLiteral("its entry vanished while it waited"));
        if (alive.ttl <= 0) {
            attempt->lease->declareLost(LeaseEventKind::Expired,
                                        Status(StatusCode::NotFound,
                                               QStringLiteral("lease %1 is gone from etcd (revoked or expired), and "
                                                              "%2 with it")
                                                   .arg(attempt->lease->leaseId(), 0, 16)
                                                   .arg(QString::fromUtf8(attempt->key))));
            return lookAgain(attempt);
        }
        failed(attempt, Status(StatusCode::OwnershipLost,
                               QStringLiteral("%1 was deleted by another client while it waited: taken out of the queue")
                                   .arg(QString::fromUtf8(attempt->key))));
    });
}

RangeOptions HoldQueue::ahead(const QueuedAttempt &attempt, qint64 limit)
{
    // In the transaction that creates the entry, the entry is the newest of all.
    if (attempt.revision == 0)
        return newestEntries(limit + 1);
    RangeOptions older = newestEntries(limit, attempt.revision);
    // A serializable read spares the leader round trip on every hand-off, and cannot admit
    // early: the compare on the entry makes the member's snapshot at least as new as the
    // entry, so every older entry still alive is in it, and once none is left none can appear
    // (new entries are always created after ours).
    older.serializable = true;
    return older;
}

void HoldQueue::decide(std::shared_ptr<QueuedAttempt> attempt, QList<TxnOpResult> ahead, qint64 observedRevision)
{
    for (TxnOpResult &each : ahead)
        each.range.kvs.removeIf([&](const KeyValue &kv) { return kv.createRevision >= attempt->revision; });
    const Turn next = turn(*attempt, ahead);
    const auto lookAgainAfter = [this, attempt](const Status &waited) {
        if (interrupted(attempt))
            return;
        if (!waited)
            return failed(attempt, waited);
        lookAgain(attempt);
    };
    // Admitted when every entry ahead provably went while ours stood; anything less, read again.
    const auto admitIfProven = [this, attempt, lookAgainAfter](const Status &waited, bool proven) {
        if (!waited || !proven)
            return lookAgainAfter(waited);
        if (!interrupted(attempt))
            claim(attempt);
    };
    switch (next.kind) {
    case Turn::Kind::Admitted:
        return claim(attempt);
    case Turn::Kind::AfterEntry: {
        // Only our own previous entries, their deletes sent before our entry's create: etcd took
        // them in the other order. The deletes' answers, already on their way, tell what a watch
        // would, a round trip sooner; our entry stood when created, after those deletes left.
        if (afterOwnDeletes(next.everyAhead, [admitIfProven](bool deleted) { admitIfProven(Status(), deleted); }))
            return;
        // The departures hold every deletion since the read when they started before it.
        if (m_departuresFrom > 0 && !next.everyAhead.isEmpty() && observedRevision + 1 >= m_departuresFrom)
            return awaitDepartures(attempt, next.everyAhead, observedRevision);
        // The first wait starts following for those after it; a queue that never waits (one
        // instance taking the lock again and again) has no use for it.
        if (!m_departureWatch && !departuresPrefix().isEmpty())
            followDepartures();
        DeletionWatch ahead;
        ahead.fromNow = true;
        ahead.createRevision = next.entry.createRevision;
        // With every entry ahead known, their deletion admits when it came while our entry
        // stood: the read after it would only tell the same, a round trip later on every hand-off.
        if (!next.everyAhead.isEmpty()) {
            ahead.alongWith = next.everyAhead;
            ahead.guard = attempt->key;
            ahead.guardCreateRevision = attempt->revision;
        }
        thenOn(watchDeletion(client, next.entry.key, observedRevision, options.resilience.watch,
                             attempt->round.token(), ahead),
               this, [admitIfProven](const Deletion &deleted) { admitIfProven(deleted.status, deleted.guardStood); });
        return;
    }
    case Turn::Kind::AfterAnyUnder: {
        DeletionWatch anyEntry;
        anyEntry.range = KeyRange::prefix();
        thenOn(waitForDeletion(client, next.prefix, observedRevision, options.resilience.watch, attempt->round.token(),
                               anyEntry),
               this, lookAgainAfter);
        return;
    }
    }
}

void HoldQueue::followDepartures()
{
    WatchOptions deletions;
    deletions.range = KeyRange::prefix();
    deletions.noPut = true;  // a new entry queues behind every waiter: only departures admit
    m_departureWatch = new Watcher(client, departuresPrefix(), deletions, options.resilience.watch, this);
    connect(m_departureWatch, &Watcher::eventsReceived, this,
            [this](const QList<WatchEvent> &events) { takeDepartures(events); });
    connect(m_departureWatch, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) {
        if (event.kind == WatchRecoveryKind::Failed)
            dropDepartures(QStringLiteral("its watch failed: ") + event.cause.toString());
        else if (event.kind == WatchRecoveryKind::Resynced)
            dropDepartures(QStringLiteral("a compaction hid some of them"));
    });
    if (!m_departuresIdle) {
        m_departuresIdle = new QTimer(this);
        m_departuresIdle->setSingleShot(true);
        m_departuresIdle->setInterval(departuresLinger);
        connect(m_departuresIdle, &QTimer::timeout, this, [this] {
            if (m_departureWaiters.empty())
                dropDepartures({});
        });
    }
    thenOn(m_departureWatch->start(), this, [this, watch = QPointer<Watcher>(m_departureWatch)](const Status &started) {
        if (watch != m_departureWatch)
            return;
        if (!started)
            return dropDepartures(QStringLiteral("its watch could not start: ") + started.toString());
        m_departuresFrom = m_departureWatch->startRevision();
        m_departuresIdle->start();
    });
}

void HoldQueue::dropDepartures(const QString &why)
{
    if (!m_departureWatch)
        return;
    if (!why.isEmpty())
        note(QStringLiteral("the lock's waiters stop following its deletions and read again: ") + why);
    m_departuresFrom = 0;
    m_departureWatch->close();
    m_departureWatch->deleteLater();
    m_departureWatch = nullptr;
    m_departures.clear();
    // The waits go on as they would have without the departures: each reads again.
    for (DepartureWaiter &waiter : std::exchange(m_departureWaiters, {})) {
        if (!interrupted(waiter.attempt))
            lookAgain(waiter.attempt);
    }
}

void HoldQueue::awaitDepartures(std::shared_ptr<QueuedAttempt> attempt, const QList<KeyValue> &ahead, qint64 asOf)
{
    m_departuresIdle->stop();
    DepartureWaiter waiter;
    waiter.attempt = attempt;
    for (const KeyValue &entry : ahead)
        waiter.ahead.append(entry.key);
    waiter.asOf = asOf;
    // Departures the watch delivered before this waiter's read was answered.
    const Verdict verdict = judge(waiter, 0);
    if (verdict != Verdict::Waiting)
        return carryOut({{attempt, verdict}});
    // A stopped round ends the wait at the next look, which no departure need prompt.
    waiter.onStop = std::make_unique<StopCallback>(attempt->round.token(), [this] {
        QMetaObject::invokeMethod(this, [this] { takeDepartures({}); }, Qt::QueuedConnection);
    });
    m_departureWaiters.push_back(std::move(waiter));
}

// Entries ahead can only go, new ones queue behind: once every one found ahead has been deleted
// after the read while the waiter's own entry stood, it is the oldest, and holds the lock.
HoldQueue::Verdict HoldQueue::judge(DepartureWaiter &waiter, size_t from) const
{
    for (size_t i = from; i < m_departures.size(); ++i) {
        const Departure &gone = m_departures[i];
        if (gone.revision <= waiter.asOf)
            continue;
        if (gone.key == waiter.attempt->key)
            return Verdict::ReadAgain;  // the read tells what became of it
        waiter.ahead.removeOne(gone.key);
        // Its own entry may go in the same revision, further on.
        const bool revisionEnds = i + 1 == m_departures.size() || m_departures[i + 1].revision != gone.revision;
        if (waiter.ahead.isEmpty() && revisionEnds)
            return Verdict::Admitted;
    }
    return Verdict::Waiting;
}

void HoldQueue::takeDepartures(const QList<WatchEvent> &events)
{
    const size_t firstNew = m_departures.size();
    for (const WatchEvent &event : events)
        m_departures.push_back({event.kv.key, event.kv.modRevision});
    std::vector<std::pair<std::shared_ptr<QueuedAttempt>, Verdict>> decided;
    for (auto it = m_departureWaiters.begin(); it != m_departureWaiters.end();) {
        const Verdict verdict = it->attempt->round.token().stopRequested() ? Verdict::ReadAgain : judge(*it, firstNew);
        if (verdict == Verdict::Waiting) {
            ++it;
            continue;
        }
        decided.push_back({it->attempt, verdict});
        it = m_departureWaiters.erase(it);
    }
    while (m_departures.size() > departuresKept) {
        m_departuresFrom = m_departures.front().revision + 1;
        m_departures.pop_front();
    }
    if (!decided.empty())
        carryOut(std::move(decided));
}

void HoldQueue::carryOut(std::vector<std::pair<std::shared_ptr<QueuedAttempt>, Verdict>> decided)
{
    if (m_departureWaiters.empty())
        m_departuresIdle->start();
    for (const auto &[attempt, verdict] : decided) {
        if (interrupted(attempt))
            continue;
        if (verdict == Verdict::Admitted)
            claim(attempt);
        else
            lookAgain(attempt);
    }
}

void HoldQueue::requeue(std::shared_ptr<QueuedAttempt> attempt, const QString &why)
{
    note(QStringLiteral("a waiter re-queues with a fresh lease: ") + why);
    // A lease can be found lost here (its deadline passed) before the loss thread has told it:
    // the owner hears it now, or its source would go with the lease untold and the loss be hidden.
    if (attempt->lease && !attempt->lease->isValid()) {
        if (Recipe *owner = recipe(); owner && attempt->source >= 0)
            owner->reportSource(attempt->source, Recipe::SourceHealth::Lost);
    }
    leave(attempt);
    enqueue(attempt);
}

void HoldQueue::retryAfter(std::shared_ptr<QueuedAttempt> attempt, std::chrono::milliseconds delay)
{
    leave(attempt);
    QTimer::singleShot(delay, this, [this, attempt] { enqueue(attempt); });
}

void HoldQueue::leave(const std::shared_ptr<QueuedAttempt> &attempt)
{
    attempt->roundLink.reset();
    if (!attempt->lease)
        return;
    untrack(attempt->source, attempt->lease.get());
    attempt->lease->release();  // revoking removes the entry
    attempt->lease.reset();
}

void HoldQueue::claim(std::shared_ptr<QueuedAttempt> attempt)
{
    if (!attempt->lease->isValid())
        return requeue(attempt, QStringLiteral("its lease was lost just before it was admitted"));
    auto hold = std::make_shared<QueuedHold>();
    hold->owner = attempt->requester;
    hold->kind = attempt->kind;
    hold->key = attempt->key;
    hold->revision = attempt->revision;
    hold->lease = std::move(attempt->lease);
    hold->givenBack = attempt->givenBack;
    if (interruptOnLoss)
        hold->interruption.arm(hold->owner.data(), hold->stop.token());
    if (attempt->anchor) {
        hold->anchor = attempt->anchor;
        hold->anchored = true;
        attempt->anchor->dependent = hold;
    }
    disconnect(hold->lease.get(), nullptr, this, nullptr);
    untrack(attempt->source, hold->lease.get());
    hold->source = track(hold->lease.get(), leaseName(hold->key), [this, weak = std::weak_ptr(hold)](const Status &cause) {
        if (auto hold = weak.lock())
            holdLost(hold, cause);
    });
    attempt->won = hold;
    publish(hold);
    hold->published = true;
    if (hold->lost)  // while it was being announced
        tellLoss(hold, hold->lease->whyInvalid());
    finish(attempt, {});
    watchEntry(hold);
}

void HoldQueue::watchEntry(const std::shared_ptr<QueuedHold> &hold)
{
    if (hold->lost || closing)
        return;
    const QByteArray watched = watchedFor(*hold);
    const auto found = m_entryWatches.find(watched);
    EntryWatch &watch = found != m_entryWatches.end() ? found->second : startEntryWatch(watched, hold->revision + 1);
    watch.holds.push_back(hold);
    watch.idleSince = 0;
    // Created before the watch began (a hold that waited long, from another thread): what
    // happened to it in between, one read tells.
    if (hold->revision + 1 < watch.from)
        return readEntry(hold);
    judgeChanges(hold, QList(watch.recent));  // a copy: judging may end the watch
}

void HoldQueue::unwatchEntry(const std::shared_ptr<QueuedHold> &hold)
{
    const auto found = m_entryWatches.find(watchedFor(*hold));
    if (found == m_entryWatches.end())
        return;
    std::vector<std::shared_ptr<QueuedHold>> &holds = found->second.holds;
    const auto it = std::find(holds.begin(), holds.end(), hold);
    if (it == holds.end())
        return;
    holds.erase(it);
    if (!holds.empty())
        return;
    found->second.idleSince = ++m_idleCount;
    dropIdleEntryWatches(idleEntryWatchesKept);
    m_entryWatchesIdle->start();
}

QByteArray HoldQueue::watchedFor(const QueuedHold &hold) const
{
    return entriesPrefix().isEmpty() ? hold.key : entriesPrefix();
}

HoldQueue::EntryWatch &HoldQueue::startEntryWatch(const QByteArray &watched, qint64 from)
{
    WatchOptions everyChange;
    if (!entriesPrefix().isEmpty())
        everyChange.range = KeyRange::prefix();
    everyChange.startRevision = from;
    EntryWatch &watch = m_entryWatches[watched];
    watch.watcher = new Watcher(client, watched, everyChange, options.resilience.watch, this);
    watch.from = from;
    const QPointer<Watcher> watcher = watch.watcher;
    // What a compaction hid, the entries as they are now tell.
    watch.watcher->setResyncWith([this, watched, watcher, range = everyChange.range] {
        RangeOptions every;
        every.range = range;
        every.keysOnly = true;
        return thenOn(client->get(watched, every), this, [this, watched, watcher](const RangeResult &read) -> qint64 {
            const auto found = m_entryWatches.find(watched);
            if (!read.status || found == m_entryWatches.end() || found->second.watcher != watcher)
                return 0;  // a failed recovery attempt: the watcher tries again
            EntryWatch &watch = found->second;
            watch.recent.clear();
            watch.from = read.header.revision + 1;
            for (const auto &hold : std::vector(watch.holds)) {
                const auto kv = std::find_if(read.kvs.cbegin(), read.kvs.cend(),
                                             [&](const KeyValue &each) { return each.key == hold->key; });
                judgeEntry(hold, kv == read.kvs.cend() ? std::nullopt : std::optional(*kv), read.header.revision);
            }
            return read.header.revision + 1;
        }, [](const RangeResult &) -> qint64 { return 0; });
    });
    connect(watch.watcher, &Watcher::eventsReceived, this,
            [this, watched](const QList<WatchEvent> &events) { takeEntryChanges(watched, events); });
    connect(watch.watcher, &Watcher::recovery, this, [this, watched, watcher](const WatchRecoveryEvent &event) {
        const auto found = m_entryWatches.find(watched);
        if (event.kind == WatchRecoveryKind::Failed && found != m_entryWatches.end() && found->second.watcher == watcher)
            dropEntryWatch(watched, event.cause.toString());
    });
    thenOn(watch.watcher->start(), this, [this, watched, watcher](const Status &started) {
        const auto found = m_entryWatches.find(watched);
        if (!started && found != m_entryWatches.end() && found->second.watcher == watcher)
            dropEntryWatch(watched, started.toString());
    });
    if (!m_entryWatchesIdle) {
        m_entryWatchesIdle = new QTimer(this);
        m_entryWatchesIdle->setSingleShot(true);
        m_entryWatchesIdle->setInterval(departuresLinger);
        connect(m_entryWatchesIdle, &QTimer::timeout, this, [this] { dropIdleEntryWatches(0); });
    }
    return watch;
}

void HoldQueue::takeEntryChanges(const QByteArray &watched, const QList<WatchEvent> &events)
{
    const auto found = m_entryWatches.find(watched);
    if (found == m_entryWatches.end())
        return;
    EntryWatch &watch = found->second;
    watch.recent.append(events);
    while (size_t(watch.recent.size()) > entryChangesKept)
        watch.from = watch.recent.takeFirst().kv.modRevision + 1;
    // Judging may end a hold, and with it the watch.
    for (const auto &hold : std::vector(watch.holds))
        judgeChanges(hold, events);
}

void HoldQueue::judgeChanges(const std::shared_ptr<QueuedHold> &hold, const QList<WatchEvent> &events)
{
    for (const WatchEvent &event : events) {
        if (event.kv.key == hold->key && event.kv.modRevision > hold->revision)
            judgeEntry(hold, event.type == WatchEvent::Type::Put ? std::optional(event.kv) : std::nullopt,
                       event.kv.modRevision);
    }
}

// The holds still standing on it are no longer followed; the next hold starts a new watch.
void HoldQueue::dropEntryWatch(const QByteArray &watched, const QString &why)
{
    const auto found = m_entryWatches.find(watched);
    if (found == m_entryWatches.end())
        return;
    for (const auto &hold : found->second.holds) {
        if (!why.isEmpty() && !hold->lost)
            note(QStringLiteral("%1 is no longer watched, so another client deleting it would go untold: %2")
                     .arg(QString::fromUtf8(hold->key), why));
    }
    found->second.watcher->close();
    found->second.watcher->deleteLater();
    m_entryWatches.erase(found);
}

// Where entries are named after their leases, a lease let go never names an entry again: the
// idle watch of its name would only keep out one whose lease is still kept for the next hold.
// Under load a third lease joins the two a lock alternates (both still deleting their entries),
// and one of the two would lose its watch to the third's, soon useless.
void HoldQueue::dropIdleWatchOfLetGoEntry(const QByteArray &key)
{
    if (!entriesPrefix().isEmpty())
        return;  // one watch for every entry
    const auto found = m_entryWatches.find(key);
    if (found != m_entryWatches.end() && found->second.idleSince > 0)
        dropEntryWatch(key, {});
}

// Closes the idle watches beyond the `kept` most recently used.
void HoldQueue::dropIdleEntryWatches(size_t kept)
{
    // Counted first: on every release, and almost always within bounds.
    const auto idleCount = size_t(std::count_if(m_entryWatches.cbegin(), m_entryWatches.cend(),
                                                [](const auto &each) { return each.second.idleSince > 0; }));
    if (idleCount <= kept)
        return;
    std::vector<std::pair<quint64, QByteArray>> idle;
    for (const auto &[watched, watch] : m_entryWatches) {
        if (watch.idleSince > 0)
            idle.push_back({watch.idleSince, watched});
    }
    std::sort(idle.begin(), idle.end());
    for (size_t i = 0; i + kept < idle.size(); ++i)
        dropEntryWatch(idle[i].second, {});
}

void HoldQueue::readEntry(const std::shared_ptr<QueuedHold> &hold)
{
    thenOn(client->get(hold->key), this, [this, weak = std::weak_ptr(hold)](const RangeResult &read) {
        if (const auto hold = weak.lock(); hold && read.status)
            judgeEntry(hold, read.kvs.isEmpty() ? std::nullopt : std::optional(read.kvs.first()), read.header.revision);
    });
}

void HoldQueue::judgeEntry(const std::shared_ptr<QueuedHold> &hold, const std::optional<KeyValue> &now, qint64 revision)
{
    // The holder's own delete, release() or close(), or a loss already told.
    if (hold->dropped || hold->lost || hold->deletedByHolder)
        return;
    const qint64 ourLease = hold->lease->leaseId();
    const QString key = QString::fromUtf8(hold->key);
    if (now && now->createRevision == hold->revision) {
        if (now->lease == ourLease)
            return;  // rewritten on our lease: an election's proclamation
        const QString where = now->lease ? QStringLiteral("lease %1").arg(now->lease, 0, 16) : QStringLiteral("no lease");
        return hold->lease->declareLost(LeaseEventKind::Failed,
                                        Status(StatusCode::OwnershipLost,
                                               QStringLiteral("%1 was moved to %2 by another client at revision %3")
                                                   .arg(key, where)
                                                   .arg(revision)));
    }
    // Deleted (and perhaps created again since): by a delete, or with our lease, which etcd
    // revokes keys and all. Which of the two, one question to etcd tells.
    const std::weak_ptr<QueuedHold> weak = hold;
    thenOn(client->leaseTimeToLive(ourLease), this, [weak, key, revision](const LeaseTimeToLiveResult &alive) {
        const auto hold = weak.lock();
        if (!hold || hold->dropped || hold->lost)
            return;
        if (alive.status && alive.ttl < 0) {
            hold->lease->declareLost(LeaseEventKind::Expired,
                                     Status(StatusCode::NotFound,
                                            QStringLiteral("lease %1 is gone from etcd (revoked or expired), and %2 "
                                                           "with it at revision %3")
                                                .arg(hold->lease->leaseId(), 0, 16)
                                                .arg(key)
                                                .arg(revision)));
            return;
        }
        hold->lease->declareLost(LeaseEventKind::Failed,
                                 Status(StatusCode::OwnershipLost,
                                        QStringLiteral("%1 was deleted by another client at revision %2").arg(key).arg(revision)));
    });
}

void HoldQueue::finish(const std::shared_ptr<QueuedAttempt> &attempt, const Status &status)
{
    if (!m_attempts.removeOne(attempt))
        return;
    endThreadAttempt(*attempt);  // before it is told: the thread may try again at once
    if (attempt->deadline)  // later: this may run inside the timer's own signal
        attempt->deadline.release()->deleteLater();
    attempt->roundLink.reset();
    // Revoking removes our entry at once. The lease object stays with the attempt: a grant
    // may still be in flight, and it finishes into that object.
    QFuture<Status> revoked = QtFuture::makeReadyFuture(Status());
    if (attempt->lease) {
        untrack(attempt->source, attempt->lease.get());
        revoked = attempt->lease->release();
    }
    const auto tell = [promise = attempt->promise, status, told = std::make_shared<std::atomic<bool>>(false)] {
        if (told->exchange(true))
            return;
        promise->addResult(status);
        promise->finish();
    };
    // Closed, the caller may exit as soon as it is told: tell it once the entry is gone, or the
    // entry outlives the process by its TTL and holds up whoever queued behind it. Cut off, the
    // revoke could take the whole RPC timeout, so a waiter woken by close() hears within a second
    // anyway. A timeout or an interruption is told at once, as its caller asked.
    if (closing) {
        after(revoked, [tell](const Status &) { tell(); });
        // On the client's dispatcher context, which outlives this queue as long as the client
        // lives; a client going away cancels the revoke, and that tells too.
        QTimer::singleShot(closedRevokeGrace, dispatcherContext(client), tell);
    } else {
        tell();
    }
}

void HoldQueue::holdLost(const std::shared_ptr<QueuedHold> &hold, const Status &cause)
{
    if (hold->lost.exchange(true))
        return;
    tellLoss(hold, cause);  // or claim() does, right after announcing the hold
    QMetaObject::invokeMethod(this, [this, hold, cause] { releaseLostHold(hold, cause); }, Qt::QueuedConnection);
}

void HoldQueue::tellLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause)
{
    if (!hold->published || hold->released || hold->lossTold.exchange(true))
        return;
    announceLoss(hold, cause);
    if (interruptOnLoss)
        hold->stop.requestStop();
}

void HoldQueue::releaseLostHold(const std::shared_ptr<QueuedHold> &hold, const Status &cause)
{
    unwatchEntry(hold);
    // Told: now free the entry for the next in line rather than leave it to etcd's expiry.
    if (lostHoldsLetGoAtOnce)
        hold->lease->release();
    // A hold that stood on this one's entry is no safer than it was, and its own entry would
    // only keep others waiting.
    if (const auto dependent = hold->dependent.lock(); dependent && dependent->anchored) {
        holdLost(dependent, cause);
        dropEntry(dependent);
    }
    unanchor(hold);
    if (hold->released)
        dropEntry(hold);  // an anchor that outlived its release
}

void HoldQueue::tellLateLoss(const std::shared_ptr<QueuedHold> &hold)
{
    if (!hold->lost && !hold->lease->isValid())
        holdLost(hold, hold->lease->whyInvalid());
}

void HoldQueue::release(std::shared_ptr<QueuedHold> hold)
{
    if (hold->released)
        return;
    // Given back after its loss deadline passed but before the keep-alive hub noticed (the
    // holder reads the clock, the hub ticks): the loss is still told, before the release.
    tellLateLoss(hold);
    if (hold->released.exchange(true))
        return;
    hold->interruption.disarm();
    announceRelease(hold);
    const auto dependent = hold->dependent.lock();
    if (dependent && dependent->anchored && !hold->lost && !closing)
        return settle(hold, dependent);
    dropEntry(hold);
}

void HoldQueue::settle(std::shared_ptr<QueuedHold> anchor, std::shared_ptr<QueuedHold>)
{
    dropEntry(anchor);
}

void HoldQueue::dropEntry(const std::shared_ptr<QueuedHold> &hold)
{
    if (std::exchange(hold->dropped, true))
        return;
    unwatchEntry(hold);  // before recycle()'s delete, which is ours
    untrack(hold->source, hold->lease.get());
    disconnect(hold->lease.get(), nullptr, this, nullptr);
    hold->retired.requestStop();
    if (hold->lost || closing || !hold->lease->isValid()) {
        hold->lease->release();  // revoking removes the entry
        dropIdleWatchOfLetGoEntry(hold->key);
    } else {
        recycle(hold);
    }
    unanchor(hold);
}

Txn HoldQueue::entryDeletion(const QueuedHold &hold)
{
    Txn txn;
    txn.compares = {Compare::createRevision(hold.key, CompareResult::Equal, hold.revision)};
    txn.success = {TxnOp::remove(hold.key)};
    return txn;
}

// Deleting the entry, rather than revoking its lease, keeps the lease for a later attempt. It
// is reusable only once the delete has landed: an entry created on it under the same name (the
// mutex names entries after their lease) must never be removed by the old delete, nor found by
// its own create. An attempt made meanwhile takes another lease and does not wait: its entry's
// create follows the delete at once, and a lock taken again and again alternates two leases.
void HoldQueue::recycle(const std::shared_ptr<QueuedHold> &hold)
{
    // The lease waits in m_recycling, not in the continuation: should this queue die first,
    // the lease then goes with it on the dispatcher thread, not on whichever thread drops the
    // continuation.
    auto recycling = std::make_unique<Recycling>();
    recycling->lease = hold->lease;
    recycling->key = hold->key;
    recycling->revision = hold->revision;
    Recycling *raw = recycling.get();
    m_recycling.push_back(std::move(recycling));
    const auto recycled = [this, raw](const TxnResult &deleted) {
        const auto it = std::find_if(m_recycling.begin(), m_recycling.end(),
                                     [raw](const std::unique_ptr<Recycling> &each) { return each.get() == raw; });
        const std::unique_ptr<Recycling> done = std::move(*it);
        m_recycling.erase(it);
        if (deleted.status && !closing && !m_spareLease) {
            m_spareLease = done->lease;
        } else {
            done->lease->release();
            dropIdleWatchOfLetGoEntry(done->key);
        }
        m_recycled.push_back({done->key, done->revision, deleted.status && deleted.succeeded});
        if (m_recycled.size() > recycledKept)
            m_recycled.pop_front();
        for (const auto &then : done->whenDeleted)
            then(deleted.status && deleted.succeeded);
    };
    if (!hold->deleting)
        client->txn(entryDeletion(*hold), {}, answerOn<TxnResult>(this, recycled));
    else if (hold->deleting->answer)
        recycled(*hold->deleting->answer);
    else
        hold->deleting->then = recycled;
}

bool HoldQueue::afterOwnDeletes(const QList<KeyValue> &ahead, std::function<void(bool)> then)
{
    if (ahead.isEmpty())
        return false;
    QList<Recycling *> awaited;
    bool answeredDeleted = true;  // those already answered
    for (const KeyValue &entry : ahead) {
        const auto it = std::find_if(m_recycling.begin(), m_recycling.end(), [&](const std::unique_ptr<Recycling> &each) {
            return each->key == entry.key && each->revision == entry.createRevision;
        });
        if (it != m_recycling.end()) {
            awaited.append(it->get());
            continue;
        }
        const auto answered = std::find_if(m_recycled.begin(), m_recycled.end(), [&](const Recycled &each) {
            return each.key == entry.key && each.revision == entry.createRevision;
        });
        if (answered == m_recycled.end())
            return false;
        answeredDeleted = answeredDeleted && answered->deleted;
    }
    if (awaited.isEmpty()) {
        then(answeredDeleted);
        return true;
    }
    auto pending = std::make_shared<int>(int(awaited.size()));
    auto allDeleted = std::make_shared<bool>(answeredDeleted);
    for (Recycling *each : awaited) {
        each->whenDeleted.push_back([pending, allDeleted, then](bool deleted) {
            *allDeleted = *allDeleted && deleted;
            if (--*pending == 0)
                then(*allDeleted);
        });
    }
    return true;
}

void HoldQueue::unanchor(const std::shared_ptr<QueuedHold> &hold)
{
    if (hold->anchor && hold->anchored.exchange(false) && hold->anchor->released)
        dropEntry(hold->anchor);
}

void HoldQueue::shutDown(const QList<std::shared_ptr<QueuedHold>> &holds)
{
    closing = true;
    for (const auto &attempt : QList(m_attempts))
        stopAttempt(attempt, Status(StatusCode::Cancelled, context + QStringLiteral(": closed")));
    for (const auto &hold : holds) {
        hold->lost = true;
        release(hold);
    }
    if (m_spareLease)
        std::exchange(m_spareLease, nullptr)->release();
    dropDepartures({});
    while (!m_entryWatches.empty())
        dropEntryWatch(m_entryWatches.begin()->first, {});
}

void HoldQueue::note(const QString &text)
{
    if (Recipe *owner = recipe())
        owner->recordHistory(RecipeHistoryEntry::Source::Recipe, text);
}

int HoldQueue::track(ExclusivityLease *lease, const QString &name, std::function<void(const Status &)> onLost)
{
    Recipe *owner = recipe();
    return owner ? owner->track(lease, name, std::move(onLost)) : -1;
}

void HoldQueue::untrack(int &source, ExclusivityLease *lease)
{
    Recipe *owner = recipe();
    if (!owner || source < 0)
        return;
    owner->removeSource(std::exchange(source, -1));
    disconnect(lease, nullptr, owner, nullptr);
}

QList<Compare> ownershipGuards(const std::shared_ptr<QueuedHold> &hold, const QByteArray &prefix)
{
    if (!hold || !hold->isValid())
        return {Compare::createRevision(prefix, CompareResult::Equal, -1)};
    QList<Compare> guards{Compare::createRevision(hold->key, CompareResult::Equal, hold->revision)};
    if (hold->anchored)
        guards.append(Compare::createRevision(hold->anchor->key, CompareResult::Equal, hold->anchor->revision));
    return guards;
}

} // namespace QEtcd::Internal
