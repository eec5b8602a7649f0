// SPDX-License-Identifier: Apache-2.0
#include "leaderobserver.h"

#include "client_p.h"
#include "continuation_p.h"
#include "election_p.h"
#include "threading_p.h"
#include "watcher.h"

#include <QtCore/QHash>

namespace QEtcd {

using namespace Internal;

class LeaderObserverPrivate : public QObject
{
public:
    LeaderObserverPrivate(LeaderObserver *q, const QByteArray &path, const RecipeOptions &options)
        : q(q), client(q->client()), path(path), prefix(electionPrefix(path)), options(options)
    {
        moveToThread(ClientPrivate::get(client)->dispatcher());
    }

    // --- dispatcher thread ----------------------------------------------------------------
    QFuture<RangeResult> readAll()
    {
        RangeOptions everything;
        everything.range = KeyRange::prefix();
        return client->get(prefix, everything);
    }

    void begin(const std::shared_ptr<QPromise<Status>> &started)
    {
        source = q->addSource(QStringLiteral("watch ") + QString::fromUtf8(prefix));
        thenOn(readAll(), this, [this, started](const RangeResult &snapshot) {
            if (closed)
                return settle(started, Status(StatusCode::Cancelled, QStringLiteral("closed before the first read")));
            if (!snapshot.status)
                return settle(started, snapshot.status);
            replace(snapshot.kvs);
            follow(snapshot.header.revision + 1, started);
        });
    }

    // Anchored just after the first read, so nothing between the read and the watch is missed.
    void follow(qint64 fromRevision, const std::shared_ptr<QPromise<Status>> &started)
    {
        WatchOptions watchOptions;
        watchOptions.range = KeyRange::prefix();
        watchOptions.startRevision = fromRevision;
        watcher = new Watcher(client, prefix, watchOptions, options.resilience.watch, this);
        watcher->setResyncWith([this] {
            return thenOn(
                readAll(), this,
                [this](const RangeResult &snapshot) -> qint64 {
                    if (!snapshot.status)
                        return 0;
                    replace(snapshot.kvs);
                    return snapshot.header.revision + 1;
                },
                [](const RangeResult &) -> qint64 { return 0; });
        });
        connect(watcher, &Watcher::eventsReceived, this, [this](const QList<WatchEvent> &events) {
            for (const WatchEvent &event : events) {
                if (event.type == WatchEvent::Type::Put)
                    keys.insert(event.kv.key, event.kv);
                else
                    keys.remove(event.kv.key);
            }
            recompute();
        });
        connect(watcher, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) { onRecovery(event); });
        thenOn(watcher->start(), this, [this, started](const Status &status) {
            if (!status && q)
                q->recordError(QStringLiteral("watch"), status);
            settle(started, status);
        });
    }

    void onRecovery(const WatchRecoveryEvent &event)
    {
        if (!q)
            return;
        q->recordHistory(RecipeHistoryEntry::Source::Watch, event.toString());
        switch (event.kind) {
        case WatchRecoveryKind::Suspended:
            return q->reportSource(source, Recipe::SourceHealth::Suspended);
        case WatchRecoveryKind::Resubscribed:
        case WatchRecoveryKind::Resynced:
            return q->reportSource(source, Recipe::SourceHealth::Healthy);
        case WatchRecoveryKind::Failed:
            q->recordError(QStringLiteral("watch"), event.cause);
            return q->reportSource(source, Recipe::SourceHealth::Lost);
        }
    }

    void replace(const QList<KeyValue> &kvs)
    {
        keys.clear();
        for (const KeyValue &kv : kvs)
            keys.insert(kv.key, kv);
        recompute();
    }

    void recompute()
    {
        const KeyValue *first = nullptr;
        for (const KeyValue &kv : std::as_const(keys)) {
            if (!first || kv.createRevision < first->createRevision)
                first = &kv;
        }
        std::optional<Participant> next;
        if (first)
            next = participantFrom(*first, true);
        {
            QMutexLocker locker(&mutex);
            if (leader == next)
                return;
            leader = next;
        }
        if (q)
            Q_EMIT q->leaderChanged(next);
    }

    static void settle(const std::shared_ptr<QPromise<Status>> &promise, const Status &status)
    {
        promise->addResult(status);
        promise->finish();
    }

    void shutDown()
    {
        closed = true;
        if (watcher)
            watcher->close();
    }

    LeaderObserver *q;
    Client *const client;
    const QByteArray path;
    const QByteArray prefix;
    const RecipeOptions options;

    mutable QMutex mutex;
    std::optional<Participant> leader;  // guarded by mutex

    // dispatcher thread only
    QHash<QByteArray, KeyValue> keys;
    Watcher *watcher = nullptr;
    int source = -1;
    bool closed = false;
};

LeaderObserver::LeaderObserver(Client *client, const QByteArray &path, const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("LeaderObserver"), path, options, parent),
      d(std::make_unique<LeaderObserverPrivate>(this, path, options))
{
}

LeaderObserver::~LeaderObserver()
{
    close();
    LeaderObserverPrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QByteArray LeaderObserver::path() const
{
    return d->path;
}

QFuture<Status> LeaderObserver::start()
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->path.isEmpty())
        return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument, context() + QStringLiteral(": path is empty")));
    if (Status refused = beginStart(); !refused)
        return QtFuture::makeReadyFuture(refused);
    auto started = std::make_shared<QPromise<Status>>();
    started->start();
    QMetaObject::invokeMethod(d.get(), [priv = d.get(), started] { priv->begin(started); }, Qt::QueuedConnection);
    return started->future();
}

std::optional<Participant> LeaderObserver::currentLeader() const
{
    QMutexLocker locker(&d->mutex);
    return d->leader;
}

QFuture<ParticipantsResult> LeaderObserver::participants() const
{
    return readParticipants(client(), d->path);
}

void LeaderObserver::doClose()
{
    runOn(d.get(), [priv = d.get()] { priv->shutDown(); });
}

} // namespace QEtcd
