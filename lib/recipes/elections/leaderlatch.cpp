// SPDX-License-Identifier: Apache-2.0
#include "leaderlatch.h"

#include "blockingwait_p.h"
#include "client_p.h"
#include "election_p.h"
#include "fencing_p.h"
#include "threading_p.h"

namespace QEtcd {

using namespace Internal;

namespace {
// One await() in flight, settled once on the dispatcher thread.
struct Waiter
{
    QPromise<Status> promise;
    std::unique_ptr<QTimer> deadline;
};
} // namespace

class LeaderLatchPrivate : public QObject
{
public:
    LeaderLatchPrivate(LeaderLatch *q, const QByteArray &path, const QByteArray &proclamation)
        : q(q), path(path),
          candidacy(new Candidacy<LeaderLatch>(q, path, proclamation,
                                               {[this](qint64) { onElected(); },
                                                [this](const Status &cause) { onLost(cause); }}))
    {
        moveToThread(ClientPrivate::get(q->client())->dispatcher());
        candidacy->setParent(this);  // after the move: a parent and its child share one thread
    }

    // --- any thread -----------------------------------------------------------------------
    QFuture<Status> startAwait(std::chrono::milliseconds timeout, std::shared_ptr<Waiter> *started)
    {
        if (!q->isStarted())
            return QtFuture::makeReadyFuture(Status(StatusCode::NotStarted, q->context() + QStringLiteral(": not started")));
        if (q->isClosed())
            return QtFuture::makeReadyFuture(Status(StatusCode::Closed, q->context() + QStringLiteral(": closed")));
        if (candidacy->isLeader())
            return QtFuture::makeReadyFuture(Status());
        auto waiter = std::make_shared<Waiter>();
        waiter->promise.start();
        *started = waiter;
        QMetaObject::invokeMethod(this, [this, waiter, timeout] { addWaiter(waiter, timeout); }, Qt::QueuedConnection);
        return waiter->promise.future();
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void addWaiter(const std::shared_ptr<Waiter> &waiter, std::chrono::milliseconds timeout)
    {
        if (closing)
            return settle(waiter, Status(StatusCode::Cancelled, q->context() + QStringLiteral(": closed")), false);
        if (candidacy->isLeader())
            return settle(waiter, {}, false);
        waiters.append(waiter);
        if (timeout == LeaderLatch::WaitForever)
            return;
        waiter->deadline = makeDeadlineTimer();
        connect(waiter->deadline.get(), &QTimer::timeout, this, [this, weak = std::weak_ptr(waiter)] {
            if (auto waiter = weak.lock())
                settle(waiter, Status(StatusCode::DeadlineExceeded, q->context() + QStringLiteral(": not leader in time")));
        });
        waiter->deadline->start(timeout);
    }

    void settle(const std::shared_ptr<Waiter> &waiter, const Status &status, bool listed = true)
    {
        if (listed && !waiters.removeOne(waiter))
            return;
        waiter->deadline.reset();
        waiter->promise.addResult(status);
        waiter->promise.finish();
    }

    void settleAll(const Status &status)
    {
        for (const auto &waiter : std::exchange(waiters, {}))
            settle(waiter, status, false);
    }

    void onElected()
    {
        if (!q)
            return;
        Q_EMIT q->isLeader();
        settleAll({});
    }

    // A latch stays in the running: tell, leave, and queue again at the tail.
    void onLost(const Status &cause)
    {
        if (!q)
            return;
        q->recordError(QStringLiteral("leadership ") + QString::fromUtf8(candidacy->key()), cause);
        Q_EMIT q->notLeader();
        // Queued, so that the lost lease is not destroyed while it is still emitting.
        QMetaObject::invokeMethod(this, [this] {
            if (!candidacy->hasLostLeadership())
                return;
            candidacy->resign();
            if (!closing)
                candidacy->campaign();
        }, Qt::QueuedConnection);
    }

    void shutDown()
    {
        closing = true;
        candidacy->close();
        candidacy->settleLoss();
        const bool led = candidacy->isLeading();
        candidacy->resign();
        if (led && q)
            Q_EMIT q->notLeader();
        settleAll(Status(StatusCode::Cancelled, q->context() + QStringLiteral(": closed")));
    }

    LeaderLatch *q;
    const QByteArray path;
    Candidacy<LeaderLatch> *const candidacy;

    // dispatcher thread only
    QList<std::shared_ptr<Waiter>> waiters;
    bool closing = false;
};

LeaderLatch::LeaderLatch(Client *client, const QByteArray &path, const QByteArray &proclamation,
                         const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("LeaderLatch"), path, options, parent),
      d(std::make_unique<LeaderLatchPrivate>(this, path, proclamation))
{
}

LeaderLatch::~LeaderLatch()
{
    close();
    LeaderLatchPrivate *priv = d.release();
    runOn(priv, [priv] {
        priv->q = nullptr;
        priv->candidacy->detach();
    });
    priv->deleteLater();
}

QByteArray LeaderLatch::path() const
{
    return d->path;
}

QFuture<Status> LeaderLatch::start()
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->path.isEmpty())
        return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument, context() + QStringLiteral(": path is empty")));
    if (Status refused = beginStart(); !refused)
        return QtFuture::makeReadyFuture(refused);
    QFuture<Status> queued;
    runOn(d.get(), [priv = d.get(), &queued] { queued = priv->candidacy->campaign(); });
    return queued;
}

bool LeaderLatch::hasLeadership() const
{
    return d->candidacy->isLeader();
}

QFuture<Status> LeaderLatch::awaitAsync(std::chrono::milliseconds timeout)
{
    std::shared_ptr<Waiter> waiter;
    return d->startAwait(timeout, &waiter);
}

Status LeaderLatch::await(std::chrono::milliseconds timeout)
{
    std::shared_ptr<Waiter> waiter;
    const QFuture<Status> future = d->startAwait(timeout, &waiter);
    const Status waited = waitBlocking(client(), future, QDeadlineTimer::Forever, StopToken(),
                                       context() + QStringLiteral(": await"));
    if (waited)
        return future.result();
    QMetaObject::invokeMethod(d.get(), [priv = d.get(), waiter, waited] { priv->settle(waiter, waited); },
                              Qt::QueuedConnection);
    return waited;
}

qint64 LeaderLatch::fencingToken() const
{
    return d->candidacy->fencingToken();
}

QByteArray LeaderLatch::key() const
{
    return d->candidacy->key();
}

Compare LeaderLatch::ownershipCompare() const
{
    return d->candidacy->ownershipCompare();
}

QFuture<TxnResult> LeaderLatch::guardedTxn(const Txn &txn)
{
    return Internal::guardedTxn(client(), {ownershipCompare()}, txn, context());
}

QFuture<ParticipantsResult> LeaderLatch::participants() const
{
    return readParticipants(client(), d->path);
}

void LeaderLatch::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
