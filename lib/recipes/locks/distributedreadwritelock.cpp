// SPDX-License-Identifier: Apache-2.0
#include "distributedreadwritelock.h"

#include "client.h"
#include "continuation_p.h"
#include "fencing_p.h"
#include "holdqueue_p.h"
#include "threadholds_p.h"
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
    DistributedReadWriteLockPrivate(DistributedReadWriteLock *q, const QByteArray &path, const LockOptions &options)
        : HoldQueue(q, path, options.interruptOnLockLoss), q(q), prefix(path + '/')
    {
    }

    QByteArray sidePrefix(Side side) const { return prefix + (side == Side::Write ? "write-" : "read-"); }

    // --- any thread -----------------------------------------------------------------------
    QFuture<Status> lockAsync(Side side, std::chrono::milliseconds timeout, std::shared_ptr<QueuedAttempt> *started)
    {
        if (Status refused = beginAttempt(); !refused)
            return QtFuture::makeReadyFuture(refused);
        if (holds.reenter(int(side)))
            return QtFuture::makeReadyFuture(Status());
        auto attempt = std::make_shared<QueuedAttempt>();
        attempt->requester = QThread::currentThread();
        attempt->kind = int(side);
        if (side == Side::Write) {
            if (auto read = holds.of(int(Side::Read)); read && !read->lost)
                return QtFuture::makeReadyFuture(Status(
                    StatusCode::Unsupported,
                    context + QStringLiteral(": this thread holds the read lock, so the write lock would wait for it "
                                             "forever; upgrades are not supported: unlock the read lock first")));
        } else if (auto write = holds.of(int(Side::Write)); write && write->isValid()) {
            attempt->anchor = write;  // a downgrade
        }
        if (Status refused = beginThreadAttempt(*attempt); !refused)
            return QtFuture::makeReadyFuture(refused);
        *started = attempt;
        return submit(attempt, timeout);
    }

    // What a blocking call of this thread watches besides interruption: the other side's hold.
    StopToken waitToken(Side side) const { return holds.stopToken(int(side == Side::Write ? Side::Read : Side::Write)); }

    // --- dispatcher thread ----------------------------------------------------------------
    QByteArray entryKey(const QueuedAttempt &attempt) const override
    {
        return sidePrefix(Side(attempt.kind)) + uniqueToken(options.clientId);
    }

    // A writer waits for every entry before its own, a reader for writers only; each round
    // watches only the nearest one.
    QList<TxnOp> lookAhead(const QueuedAttempt &attempt) const override
    {
        QList<TxnOp> conflicting{TxnOp::range(sidePrefix(Side::Write), ahead(attempt, entriesAheadRead))};
        if (Side(attempt.kind) == Side::Write)
            conflicting.append(TxnOp::range(sidePrefix(Side::Read), ahead(attempt, entriesAheadRead)));
        return conflicting;
    }

    Turn turn(QueuedAttempt &attempt, const QList<TxnOpResult> &ahead) override
    {
        if (const auto anchor = attempt.anchor) {
            // The write hold proves nobody else is in. Writers queued behind it must not keep
            // its own thread's read out, or that thread would wait for itself.
            if (!anchor->released && anchor->isValid())
                return Turn::admitted();
            attempt.anchor.reset();
        }
        return Turn::afterNearest(ahead);
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
        holds.insert(hold);
        if (!q)
            return;
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         QStringLiteral("acquired the %1 lock: %2 (fencing token %3)")
                             .arg(sideName(Side(hold->kind)), QString::fromUtf8(hold->key))
                             .arg(hold->revision));
        Q_EMIT q->acquired(Side(hold->kind), hold->revision, hold->key);
    }

    void withdraw(const std::shared_ptr<QueuedHold> &hold) override { holds.remove(hold); }

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
    QByteArray entriesPrefix() const override { return prefix; }

    DistributedReadWriteLock *q;
    const QByteArray prefix;
    ThreadHolds holds{this};

    ReadWriteLockView readView{this, Side::Read};
    ReadWriteLockView writeView{this, Side::Write};
};

DistributedReadWriteLock::DistributedReadWriteLock(Client *client, const QByteArray &path, const LockOptions &options,
                                                   QObject *parent)
    : Recipe(client, QStringLiteral("DistributedReadWriteLock"), path, options, parent),
      d(std::make_unique<DistributedReadWriteLockPrivate>(this, path, options))
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
    runOn(d.get(), [priv = d.get()] { priv->shutDown(priv->holds.all()); });
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
    return d->holds.unlock(int(m_side), QStringLiteral("unlock() of the %1 lock").arg(sideName(m_side)));
}

bool ReadWriteLockView::isHeldByCurrentThread() const
{
    return d->holds.isHeld(int(m_side));
}

int ReadWriteLockView::holdCount() const
{
    return d->holds.holdCount(int(m_side));
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
    return d->holds.fencingToken(int(m_side));
}

QByteArray ReadWriteLockView::holdKey() const
{
    return d->holds.holdKey(int(m_side));
}

qint64 ReadWriteLockView::leaseId() const
{
    return d->holds.leaseId(int(m_side));
}

Compare ReadWriteLockView::ownershipCompare() const
{
    return ownershipGuards(d->holds.of(int(m_side)), d->prefix).first();
}

StopToken ReadWriteLockView::stopToken() const
{
    return d->holds.stopToken(int(m_side));
}

QFuture<TxnResult> ReadWriteLockView::guardedTxn(const Txn &txn)
{
    return Internal::guardedTxn(d->client, ownershipGuards(d->holds.of(int(m_side)), d->prefix), txn, d->context);
}

QFuture<Status> ReadWriteLockView::guardedPut(const QByteArray &key, const QByteArray &value, const PutOptions &options)
{
    return Internal::guardedPut(d->client, ownershipGuards(d->holds.of(int(m_side)), d->prefix), key, value, options,
                                d->context);
}

} // namespace QEtcd
