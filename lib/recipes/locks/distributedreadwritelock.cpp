#include "distributedreadwritelock.h"

#include "client.h"
#include "continuation_p.h"
#include "fencing_p.h"
#include "holdqueue_p.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QDebug>
#include <QtCore/QHash>
#include <QtCore/QMutex>

namespace QEtcd {

using namespace Internal;
using Side = DistributedReadWriteLock::Side;

namespace {
QString sideName(Side side)
{
    return side == Side::Write ? QStringLiteral("write") : QStringLiteral("read");
}
} // namespace

class DistributedReadWriteLockPrivate : public HoldQueue
{
public:
    DistributedReadWriteLockPrivate(DistributedReadWriteLock *q, Client *client, const QByteArray &path,
                                    const LockOptions &options)
        : HoldQueue(client, q->context(), q->options(), options.interruptOnLockLoss), q(q), path(path),
          prefix(path + '/')
    {
    }

    QByteArray sidePrefix(Side side) const { return prefix + (side == Side::Write ? "write-" : "read-"); }

    // --- any thread -----------------------------------------------------------------------
    std::shared_ptr<QueuedHold> holdOf(Side side, QThread *thread = QThread::currentThread()) const
    {
        QMutexLocker locker(&mutex);
        return holds[int(side)].value(thread);
    }

    QFuture<Status> lockAsync(Side side, std::chrono::milliseconds timeout, std::shared_ptr<QueuedAttempt> *started)
    {
        if (Status status = q->validate(); !status)
            return QtFuture::makeReadyFuture(status);
        if (path.isEmpty())
            return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument, context + QStringLiteral(": path is empty")));
        if (q->isClosed())
            return QtFuture::makeReadyFuture(Status(StatusCode::Closed, context + QStringLiteral(": closed")));
        q->beginStart();
        QThread *self = QThread::currentThread();
        if (auto own = holdOf(side, self); own && own->isValid()) {
            ++own->count;
            return QtFuture::makeReadyFuture(Status());
        }
        auto attempt = std::make_shared<QueuedAttempt>();
        attempt->requester = self;
        attempt->kind = int(side);
        if (side == Side::Write) {
            if (auto read = holdOf(Side::Read, self); read && !read->lost)
                return QtFuture::makeReadyFuture(Status(
                    StatusCode::Unsupported,
                    context + QStringLiteral(": this thread holds the read lock, so the write lock would wait for it "
                                             "forever; upgrades are not supported: unlock the read lock first")));
        } else if (auto write = holdOf(Side::Write, self); write && write->isValid()) {
            attempt->anchor = write;  // a downgrade
        }
        *started = attempt;
        return submit(attempt, timeout);
    }

    // What a blocking call of this thread watches besides interruption: the other side's hold.
    StopToken waitToken(Side side) const
    {
        const auto other = holdOf(side == Side::Write ? Side::Read : Side::Write);
        return other ? other->stop.token() : StopToken();
    }

    QList<Compare> guards(const std::shared_ptr<QueuedHold> &hold) const
    {
        // Without a hold we believe in, the compare can never succeed: no key has create
        // revision -1.
        if (!hold || !hold->isValid())
            return {Compare::createRevision(prefix, CompareResult::Equal, -1)};
        QList<Compare> guards{Compare::createRevision(hold->key, CompareResult::Equal, hold->revision)};
        if (hold->anchored)
            guards.append(Compare::createRevision(hold->anchor->key, CompareResult::Equal, hold->anchor->revision));
        return guards;
    }

    // --- dispatcher thread ----------------------------------------------------------------
    QByteArray entryKey(const QueuedAttempt &attempt) const override
    {
        return sidePrefix(Side(attempt.kind)) + uniqueToken(options.clientId);
    }

    // Until no conflicting entry created before ours is left; each round watches only the
    // nearest one. A writer conflicts with every entry, a reader with writers only.
    void admit(std::shared_ptr<QueuedAttempt> attempt) override
    {
        if (const auto anchor = attempt->anchor) {
            // The write hold proves nobody else is in. Writers queued behind it must not keep
            // its own thread's read out, or that thread would wait for itself.
            if (!anchor->released && anchor->isValid())
                return claim(attempt);
            attempt->anchor.reset();
        }
        const RangeOptions nearest = newestEntries(1, attempt->revision);
        Txn txn;
        txn.compares = {Compare::createRevision(attempt->key, CompareResult::Equal, attempt->revision)};
        txn.success = {TxnOp::range(sidePrefix(Side::Write), nearest)};
        if (Side(attempt->kind) == Side::Write)
            txn.success.append(TxnOp::range(sidePrefix(Side::Read), nearest));
        thenOn(client->txn(txn), this, [this, attempt](const TxnResult &result) {
            if (interrupted(attempt))
                return;
            if (!result.status)
                return finish(attempt, result.status);
            if (!result.succeeded)
                return requeue(attempt, QStringLiteral("its entry vanished while it waited"));
            KeyValue conflict;
            for (const TxnOpResult &each : result.responses) {
                const KeyValue candidate = each.range.kvs.value(0);
                if (candidate.createRevision > conflict.createRevision)
                    conflict = candidate;
            }
            if (conflict.key.isEmpty())
                return claim(attempt);
            thenOn(waitForDeletion(client, conflict, result.header.revision, options.resilience.watch,
                            attempt->round.token()), this, [this, attempt](const Status &deleted) {
                    if (interrupted(attempt))
                        return;
                    if (!deleted)
                        return finish(attempt, deleted);
                    admit(attempt);
                });
        });
    }

    // The write lock was released while a read taken under it stands on its entry. Only a
    // writer queued between the two entries could get in once the write entry goes (any later
    // writer waits for the read entry), so the entry stays until none is left there. None can
    // join: new entries are always created after the read's.
    void settle(std::shared_ptr<QueuedHold> anchor, std::shared_ptr<QueuedHold> dependent) override
    {
        RangeOptions between;
        between.range = KeyRange::prefix();
        between.keysOnly = true;
        between.limit = 1;
        between.minCreateRevision = anchor->revision + 1;
        between.maxCreateRevision = dependent->revision - 1;
        thenOn(client->get(sidePrefix(Side::Write), between),
               this, [this, anchor, dependent](const RangeResult &found) {
            if (anchor->dropped || !dependent->anchored)
                return;
            if (!found.status) {
                // Keeping the entry is safe; only readers queued behind it wait longer.
                QTimer::singleShot(1000, this, [this, anchor, dependent] {
                    if (!anchor->dropped && dependent->anchored)
                        settle(anchor, dependent);
                });
                return;
            }
            if (found.kvs.isEmpty()) {
                dependent->anchored = false;
                note(QStringLiteral("downgrade settled: %1 no longer needs %2")
                         .arg(QString::fromUtf8(dependent->key), QString::fromUtf8(anchor->key)));
                return dropEntry(anchor);
            }
            thenOn(waitForDeletion(client, found.kvs.first(), found.header.revision, options.resilience.watch,
                            anchor->retired.token()), this, [this, anchor, dependent](const Status &) {
                    if (!anchor->dropped && dependent->anchored)
                        settle(anchor, dependent);
                });
        });
    }

    void publish(const std::shared_ptr<QueuedHold> &hold) override
    {
        {
            QMutexLocker locker(&mutex);
            holds[hold->kind].insert(hold->owner.data(), hold);
        }
        if (!q)
            return;
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         QStringLiteral("acquired the %1 lock: %2 (fencing token %3)")
                             .arg(sideName(Side(hold->kind)), QString::fromUtf8(hold->key))
                             .arg(hold->revision));
        Q_EMIT q->acquired(Side(hold->kind), hold->revision, hold->key);
    }

    void withdraw(const std::shared_ptr<QueuedHold> &hold) override
    {
        QMutexLocker locker(&mutex);
        if (holds[hold->kind].value(hold->owner.data()) == hold)
            holds[hold->kind].remove(hold->owner.data());
    }

    void announceLoss(const std::shared_ptr<QueuedHold> &hold, const Status &cause) override
    {
        if (!q)
            return;
        q->recordError(QStringLiteral("hold ") + QString::fromUtf8(hold->key), cause);
        Q_EMIT q->lockLost(Side(hold->kind), cause);
    }

    void announceRelease(const std::shared_ptr<QueuedHold> &hold) override
    {
        if (q)
            Q_EMIT q->released(Side(hold->kind), hold->revision);
    }

    Recipe *recipe() const override { return q; }

    QList<std::shared_ptr<QueuedHold>> allHolds() const
    {
        QMutexLocker locker(&mutex);
        return holds[0].values() + holds[1].values();
    }

    DistributedReadWriteLock *q;
    const QByteArray path;
    const QByteArray prefix;

    mutable QMutex mutex;
    QHash<QThread *, std::shared_ptr<QueuedHold>> holds[2];  // by Side; guarded by mutex

    ReadWriteLockView readView{this, Side::Read};
    ReadWriteLockView writeView{this, Side::Write};
};

DistributedReadWriteLock::DistributedReadWriteLock(Client *client, const QByteArray &path, const LockOptions &options,
                                                   QObject *parent)
    : Recipe(client, QStringLiteral("DistributedReadWriteLock"), path, options, parent),
      d(std::make_unique<DistributedReadWriteLockPrivate>(this, client, path, options))
{
}

DistributedReadWriteLock::~DistributedReadWriteLock()
{
    close();
    DistributedReadWriteLockPrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QByteArray DistributedReadWriteLock::path() const
{
    return d->path;
}

ReadWriteLockView &DistributedReadWriteLock::readLock()
{
    return d->readView;
}

ReadWriteLockView &DistributedReadWriteLock::writeLock()
{
    return d->writeView;
}

void DistributedReadWriteLock::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(priv->allHolds()); });
}

ReadWriteLockView::ReadWriteLockView(DistributedReadWriteLockPrivate *d, DistributedReadWriteLock::Side side)
    : d(d), m_side(side)
{
}

ReadWriteLockView::~ReadWriteLockView() = default;

DistributedReadWriteLock::Side ReadWriteLockView::side() const
{
    return m_side;
}

QFuture<Status> ReadWriteLockView::lockAsync(std::chrono::milliseconds timeout)
{
    std::shared_ptr<QueuedAttempt> attempt;
    return d->lockAsync(m_side, timeout, &attempt);
}

Status ReadWriteLockView::lock(std::chrono::milliseconds timeout)
{
    std::shared_ptr<QueuedAttempt> attempt;
    const QFuture<Status> future = d->lockAsync(m_side, timeout, &attempt);
    return d->await(attempt, future, d->waitToken(m_side), d->context + QStringLiteral(": lock"));
}

bool ReadWriteLockView::tryLock(std::chrono::milliseconds timeout)
{
    return lock(timeout).isOk();
}

bool ReadWriteLockView::unlock()
{
    const auto hold = d->holdOf(m_side);
    if (!hold) {
        qWarning().noquote() << d->context << "unlock() of the" << sideName(m_side)
                             << "lock by a thread that holds nothing";
        return false;
    }
    if (--hold->count > 0)
        return hold->isValid();
    d->withdraw(hold);
    const bool stillOurs = hold->isValid();
    d->postRelease(hold);
    return stillOurs;
}

bool ReadWriteLockView::isHeldByCurrentThread() const
{
    const auto hold = d->holdOf(m_side);
    return hold && hold->isValid();
}

int ReadWriteLockView::holdCount() const
{
    const auto hold = d->holdOf(m_side);
    return hold && hold->isValid() ? hold->count : 0;
}

QFuture<bool> ReadWriteLockView::isLocked() const
{
    // The oldest entry is always admitted, and so is every reader before the first writer.
    RangeOptions oldest;
    oldest.range = KeyRange::prefix();
    oldest.sortTarget = SortTarget::CreateRevision;
    oldest.sortOrder = SortOrder::Ascending;
    oldest.limit = 1;
    oldest.keysOnly = true;
    Txn txn;
    txn.success = {TxnOp::range(d->sidePrefix(m_side), oldest),
                   TxnOp::range(d->sidePrefix(m_side == Side::Write ? Side::Read : Side::Write), oldest)};
    return after(d->client->txn(txn), [](const TxnResult &result) {
        const qint64 mine = result.responses.value(0).range.kvs.value(0).createRevision;
        const qint64 theirs = result.responses.value(1).range.kvs.value(0).createRevision;
        return mine > 0 && (theirs == 0 || mine < theirs);
    });
}

qint64 ReadWriteLockView::fencingToken() const
{
    const auto hold = d->holdOf(m_side);
    return hold ? hold->revision : 0;
}

QByteArray ReadWriteLockView::holdKey() const
{
    const auto hold = d->holdOf(m_side);
    return hold ? hold->key : QByteArray();
}

qint64 ReadWriteLockView::leaseId() const
{
    const auto hold = d->holdOf(m_side);
    return hold ? hold->lease->leaseId() : -1;
}

Compare ReadWriteLockView::ownershipCompare() const
{
    return d->guards(d->holdOf(m_side)).first();
}

StopToken ReadWriteLockView::stopToken() const
{
    const auto hold = d->holdOf(m_side);
    return hold ? hold->stop.token() : StopToken();
}

QFuture<TxnResult> ReadWriteLockView::guardedTxn(const Txn &txn)
{
    return Internal::guardedTxn(d->client, d->guards(d->holdOf(m_side)), txn, d->context);
}

QFuture<Status> ReadWriteLockView::guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options)
{
    return Internal::guardedPut(d->client, d->guards(d->holdOf(m_side)), key, value, options, d->context);
}

} // namespace QEtcd
