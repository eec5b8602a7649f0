// SPDX-License-Identifier: Apache-2.0
#include "leaderselector.h"

#include "client_p.h"
#include "election_p.h"
#include "fencing_p.h"
#include "threading_p.h"

#include <QtCore/QThread>

namespace QEtcd {

using namespace Internal;

namespace {
// The selector's own thread. It is started once per term, which also clears the previous
// term's interruption request (QThread resets it when run() returns).
class TermThread : public QThread
{
public:
    std::function<void()> term;

protected:
    void run() override { term(); }
};
} // namespace

class LeaderSelectorPrivate : public QObject
{
public:
    LeaderSelectorPrivate(LeaderSelector *q, const QByteArray &path, const QByteArray &proclamation,
                          LeaderSelector::TakeLeadership take, LeaderSelector::Relinquish relinquish,
                          const ElectionOptions &options)
        : q(q), path(path), options(options), take(std::move(take)), relinquish(std::move(relinquish)),
          candidacy(new Candidacy<LeaderSelector>(q, path, proclamation,
                                                  {[this](qint64 token) { onElected(token); },
                                                   [this](const Status &cause) { onLost(cause); }}))
    {
        termThread.setObjectName(QStringLiteral("leader-") + q->clientId());
        moveToThread(ClientPrivate::get(q->client())->dispatcher());
        candidacy->setParent(this);  // after the move: a parent and its child share one thread
    }

    // --- dispatcher thread ----------------------------------------------------------------
    void onElected(qint64 token)
    {
        if (!q || closing)
            return candidacy->resign();
        StopToken stop;
        {
            QMutexLocker locker(&mutex);
            termStop = StopSource();
            stop = termStop.token();
        }
        termRunning = true;
        Q_EMIT q->elected(token);
        termThread.term = [this, stop] {
            take(stop);
            if (relinquish)
                relinquish();
            QMetaObject::invokeMethod(this, [this] { onTermFinished(); }, Qt::QueuedConnection);
        };
        termThread.start();
    }

    void onLost(const Status &cause)
    {
        if (!q)
            return;
        q->recordError(QStringLiteral("leadership ") + QString::fromUtf8(candidacy->key()), cause);
        Q_EMIT q->leadershipLost(cause);
        if (options.interruptOnLeaseLoss)
            interruptTerm();
    }

    // Interruption first: a term woken by its stop token then sees both.
    void interruptTerm()
    {
        termThread.requestInterruption();
        StopSource stop;
        {
            QMutexLocker locker(&mutex);
            stop = termStop;
        }
        stop.requestStop();  // runs the term's stop callbacks: not under our lock
    }

    // Only now does our key go, so the next leader is elected after relinquish returned.
    void onTermFinished()
    {
        termThread.wait();
        termRunning = false;
        candidacy->settleLoss();
        if (q) {
            q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("term ended"));
            Q_EMIT q->termEnded();
        }
        candidacy->resign();
        if (q && !closing && options.autoRequeue)
            candidacy->campaign();
    }

    void shutDown()
    {
        closing = true;
        candidacy->close();
        if (termRunning)
            interruptTerm();
        else
            candidacy->resign();
    }

    LeaderSelector *q;
    const QByteArray path;
    const ElectionOptions options;
    const LeaderSelector::TakeLeadership take;
    const LeaderSelector::Relinquish relinquish;
    Candidacy<LeaderSelector> *const candidacy;
    TermThread termThread;

    mutable QMutex mutex;
    StopSource termStop;  // guarded by mutex

    // dispatcher thread only
    bool termRunning = false;
    bool closing = false;
};

LeaderSelector::LeaderSelector(Client *client, const QByteArray &path, const QByteArray &proclamation,
                               TakeLeadership take, Relinquish relinquish, const ElectionOptions &options,
                               QObject *parent)
    : Recipe(client, QStringLiteral("LeaderSelector"), path, options, parent),
      d(std::make_unique<LeaderSelectorPrivate>(this, path, proclamation, std::move(take), std::move(relinquish),
                                                options))
{
}

LeaderSelector::~LeaderSelector()
{
    close();
    LeaderSelectorPrivate *priv = d.release();
    priv->termThread.wait();
    runOn(priv, [priv] {
        priv->q = nullptr;
        priv->candidacy->detach();
    });
    priv->deleteLater();
}

QByteArray LeaderSelector::path() const
{
    return d->path;
}

QFuture<Status> LeaderSelector::start()
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->path.isEmpty())
        return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument, context() + QStringLiteral(": path is empty")));
    if (!d->take)
        return QtFuture::makeReadyFuture(
            Status(StatusCode::InvalidArgument, context() + QStringLiteral(": no takeLeadership callback")));
    if (Status refused = beginStart(); !refused)
        return QtFuture::makeReadyFuture(refused);
    QFuture<Status> queued;
    runOn(d.get(), [priv = d.get(), &queued] { queued = priv->candidacy->campaign(); });
    return queued;
}

QFuture<Status> LeaderSelector::requeue()
{
    if (!isStarted())
        return QtFuture::makeReadyFuture(Status(StatusCode::NotStarted, context() + QStringLiteral(": not started")));
    QFuture<Status> queued;
    runOn(d.get(), [priv = d.get(), &queued, where = context()] {
        queued = priv->closing ? QtFuture::makeReadyFuture(Status(StatusCode::Closed, where + QStringLiteral(": closed")))
                               : priv->candidacy->campaign();
    });
    return queued;
}

bool LeaderSelector::isLeader() const
{
    return d->candidacy->isLeader();
}

qint64 LeaderSelector::fencingToken() const
{
    return d->candidacy->fencingToken();
}

QByteArray LeaderSelector::key() const
{
    return d->candidacy->key();
}

Compare LeaderSelector::ownershipCompare() const
{
    return d->candidacy->ownershipCompare();
}

StopToken LeaderSelector::stopToken() const
{
    QMutexLocker locker(&d->mutex);
    return d->termStop.token();
}

QFuture<TxnResult> LeaderSelector::guardedTxn(const Txn &txn)
{
    return Internal::guardedTxn(client(), {ownershipCompare()}, txn, context());
}

QFuture<Status> LeaderSelector::proclaim(const QByteArray &value)
{
    QFuture<Status> written;
    runOn(d.get(), [priv = d.get(), &written, &value] { written = priv->candidacy->proclaim(value); });
    return written;
}

QFuture<ParticipantsResult> LeaderSelector::participants() const
{
    return readParticipants(client(), d->path);
}

void LeaderSelector::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
    QThread *current = QThread::currentThread();
    if (current == &d->termThread || current == d->thread())
        return;
    d->termThread.wait();
    // The term's end was queued to the dispatcher before this: once this returns, it has run
    // and our key is gone.
    runOn(d.get(), [] {});
}

} // namespace QEtcd
