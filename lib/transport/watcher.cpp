// SPDX-License-Identifier: Apache-2.0
#include "watcher.h"

#include "client.h"
#include "client_p.h"
#include "logging_p.h"
#include "mailbox_p.h"
#include "threading_p.h"
#include "watchhub_p.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QMetaEnum>
#include <QtCore/QTimer>

#include <chrono>

namespace QEtcd {

using namespace Internal;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
// A watch re-created below the store's revision catches up first; if its start was compacted
// away, etcd says so within one sync pass (100 ms) instead of sending events. Until the first
// events, a progress notification or this window passed, "Resubscribed" would be a guess.
constexpr milliseconds confirmWindow = 500ms;

qint64 monotonicNowMs()
{
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

QString WatchRecoveryEvent::toString() const
{
    QString text = QString::fromLatin1(QMetaEnum::fromType<WatchRecoveryKind>().valueToKey(int(kind)))
        + QLatin1Char(' ') + describeKey(watchedKey);
    switch (kind) {
    case WatchRecoveryKind::Resubscribed:
        text += QStringLiteral(" from=%1").arg(resumeRevision);
        break;
    case WatchRecoveryKind::Resynced:
        text += QStringLiteral(" compact=%1 anchor=%2").arg(compactRevision).arg(anchorRevision);
        break;
    case WatchRecoveryKind::Suspended:
    case WatchRecoveryKind::Failed:
        text += QStringLiteral(" resume=%1").arg(resumeRevision);
        break;
    }
    if (!cause.isOk())
        text += QStringLiteral(" cause=") + cause.toString();
    return text;
}

// Lives on the client's dispatcher thread; everything but the atomics is touched only there.
class WatcherPrivate : public QObject, public WatchSink
{
public:
    WatcherPrivate(Watcher *q, Client *client, const QByteArray &key, const WatchOptions &options,
                   const WatchResilience &resilience)
        : q(q), clientPrivate(ClientPrivate::get(client)), registry(clientPrivate->watchers()), key(key),
          options(options), resilience(resilience), mailbox(Mailbox::create(this)), resume(options.startRevision)
    {
        retryTimer.setSingleShot(true);
        confirmTimer.setSingleShot(true);
        connect(&retryTimer, &QTimer::timeout, this, &WatcherPrivate::attempt);
        connect(&confirmTimer, &QTimer::timeout, this, &WatcherPrivate::confirmRecovery);
        moveToThread(clientPrivate->dispatcher());
        retryTimer.moveToThread(clientPrivate->dispatcher());
        confirmTimer.moveToThread(clientPrivate->dispatcher());
        if (!registry->add(this))
            clientGone = closed = true;
    }

    // Dispatcher thread, the client being destroyed: stop for good and leave this thread,
    // which ends with the client, so that the Watcher can delete this directly.
    void detachFromClient()
    {
        clientGone = true;
        closed = true;
        mailbox->close();
        shutDown(Status(StatusCode::Closed, QStringLiteral("the client was destroyed")));
        retryTimer.moveToThread(nullptr);
        confirmTimer.moveToThread(nullptr);
        moveToThread(nullptr);
    }

    // --- WatchSink: completion-queue thread, hub lock held --------------------------------
    void watchCreated(qint64 resumeRevision, qint64 createdFrom, qint64 headerRevision) override
    {
        mailbox->post([this, resumeRevision, createdFrom, headerRevision] {
            onCreated(resumeRevision, createdFrom, headerRevision);
        });
    }
    void watchEvents(qint64 resumeRevision, const QList<WatchEvent> &events, qint64 headerRevision) override
    {
        mailbox->post([this, resumeRevision, events, headerRevision] {
            if (!live())
                return;
            confirmRecovery();
            resume = resumeRevision;
            emitSignal([&] { Q_EMIT q->eventsReceived(events, headerRevision); });
        });
    }
    void watchProgress(qint64 resumeRevision, qint64 revision) override
    {
        mailbox->post([this, resumeRevision, revision] {
            if (!live())
                return;
            confirmRecovery();
            resume = resumeRevision;
            emitSignal([&] { Q_EMIT q->progressed(revision); });
        });
    }
    void watchEnded(qint64 resumeRevision, const Status &cause, qint64 compactRevision, bool refused) override
    {
        mailbox->post([this, resumeRevision, cause, compactRevision, refused] {
            onEnded(resumeRevision, cause, compactRevision, refused);
        });
    }

    // --- dispatcher thread --------------------------------------------------------------
    bool live() const { return !closed && !dead; }

    void start(std::shared_ptr<QPromise<Status>> promise, etcdserverpb::WatchCreateRequest request)
    {
        startPromise = std::move(promise);
        if (closed)
            return finishStart(Status(StatusCode::Closed, QStringLiteral("close() was called before the watch started")));
        hub = clientPrivate->watchHub();
        handle = hub->add(request, options.startRevision, this);
        hub->subscribe(handle);
    }

    void onCreated(qint64 resumeRevision, qint64 createdFrom, qint64 headerRevision)
    {
        if (!live())
            return;
        resume = resumeRevision;
        if (!suspended) {
            setHealthy(true);  // before the start is seen finished, so a caller reads it true
            return finishStart({}, headerRevision);
        }
        finishStart({}, headerRevision);
        WatchRecoveryEvent event = makeEvent(WatchRecoveryKind::Resubscribed, {});
        if (compactPending > 0) {
            event.kind = WatchRecoveryKind::Resynced;
            event.compactRevision = compactPending;
            event.anchorRevision = createdFrom;
        } else {
            event.resumeRevision = createdFrom;
        }
        unconfirmed = event;
        if (createdFrom > 0 && createdFrom <= headerRevision)
            confirmTimer.start(confirmWindow);
        else
            confirmRecovery();  // nothing to catch up on, so nothing can have been compacted
    }

    void confirmRecovery()
    {
        if (!unconfirmed)
            return;
        confirmTimer.stop();
        WatchRecoveryEvent event = *unconfirmed;
        unconfirmed.reset();
        event.monotonicMs = monotonicNowMs();
        suspended = false;
        attempts = 0;
        compactPending = 0;
        setHealthy(true);
        emitRecovery(event);
    }

    void onEnded(qint64 resumeRevision, const Status &cause, qint64 compactRevision, bool refused)
    {
        if (!live())
            return;
        resume = resumeRevision;
        confirmTimer.stop();
        unconfirmed.reset();  // the recovery it stood for did not hold
        setHealthy(false);
        const Status described = cause.withContext(QStringLiteral("watch on ") + describeKey(key));
        if (refused && startPromise) {
            // etcd turned down the create before the watch ever existed (a bad range, no
            // permission): nothing to recover, the caller hears it from start(). Listeners that
            // already heard Suspended hear Failed.
            if (suspended)
                return fail(described);
            dead = true;
            removeFromHub();
            return finishStart(described);
        }
        lastCause = described;
        if (compactRevision > 0)
            compactPending = compactRevision;
        if (!suspended) {
            suspended = true;
            attempts = 0;
            outageStarted = steady_clock::now();
            emitRecovery(makeEvent(WatchRecoveryKind::Suspended, described));
        }
        scheduleAttempt();
    }

    void scheduleAttempt()
    {
        const auto elapsed = duration_cast<milliseconds>(steady_clock::now() - outageStarted);
        const auto delay = resilience.retryPolicy.nextDelay(attempts + 1, elapsed);
        if (!delay)
            return fail(lastCause);
        retryTimer.start(*delay);
    }

    void attempt()
    {
        if (!live() || !suspended)
            return;
        ++attempts;
        if (compactPending <= 0) {
            hub->subscribe(handle);
            return;
        }
        if (!resync) {
            // Without a hook the gap cannot be repaired, only reported.
            hub->subscribe(handle, compactPending + 1);
            return;
        }
        auto *watcher = new QFutureWatcher<qint64>(this);
        connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
            watcher->deleteLater();
            if (!live())
                return;
            const QFuture<qint64> future = watcher->future();
            const qint64 from = future.isCanceled() || future.resultCount() == 0 ? 0 : future.result();
            if (from <= 0) {
                lastCause = Status(StatusCode::Aborted, QStringLiteral("watch on %1: resyncWith did not give a "
                                                                       "revision to resume from")
                                                            .arg(describeKey(key)));
                return scheduleAttempt();
            }
            hub->subscribe(handle, from);
        });
        watcher->setFuture(resync());
    }

    void fail(const Status &cause)
    {
        dead = true;
        retryTimer.stop();
        confirmTimer.stop();
        removeFromHub();
        setHealthy(false);
        qCWarning(lcWatch).noquote() << "watch on" << describeKey(key) << "gave up:" << cause.toString();
        emitRecovery(makeEvent(WatchRecoveryKind::Failed, cause));
        finishStart(cause);
    }

    void shutDown(const Status &why)
    {
        retryTimer.stop();
        confirmTimer.stop();
        removeFromHub();
        setHealthy(false);
        finishStart(why);
    }

    void removeFromHub()
    {
        if (hub && handle)
            hub->remove(handle);
        handle = 0;
    }

    void finishStart(const Status &status, qint64 headerRevision = 0)
    {
        // Taken out first: a continuation that runs inside finish() may close this watcher,
        // which finishes the start again.
        const std::shared_ptr<QPromise<Status>> promise = std::exchange(startPromise, nullptr);
        if (!promise)
            return;
        if (status) {
            startedFrom = resume.load();
            createdAt = headerRevision;
        }
        promise->addResult(status);
        promise->finish();
    }

    void setHealthy(bool value) { healthy = value; }

    WatchRecoveryEvent makeEvent(WatchRecoveryKind kind, const Status &cause) const
    {
        WatchRecoveryEvent event;
        event.kind = kind;
        event.watchedKey = key;
        event.resumeRevision = resume.load();
        event.cause = cause;
        event.monotonicMs = monotonicNowMs();
        return event;
    }

    void emitRecovery(const WatchRecoveryEvent &event)
    {
        if (event.kind == WatchRecoveryKind::Suspended || event.kind == WatchRecoveryKind::Failed)
            qCInfo(lcWatch).noquote() << event.toString();
        else
            qCDebug(lcWatch).noquote() << event.toString();
        emitSignal([&] { Q_EMIT q->recovery(event); });
    }

    template <class Emit>
    void emitSignal(Emit emitter)
    {
        if (q && !closed)
            emitter();
    }

    Watcher *q;
    ClientPrivate *clientPrivate;
    const std::shared_ptr<WatcherRegistry> registry;
    const QByteArray key;
    const WatchOptions options;
    const WatchResilience resilience;
    Watcher::Resync resync;  // set before start(), read on the dispatcher thread after
    const std::shared_ptr<Mailbox> mailbox;

    std::atomic<qint64> resume;
    std::atomic<qint64> startedFrom{0};
    std::atomic<qint64> createdAt{0};
    std::atomic<bool> healthy{false};
    std::atomic<bool> closed{false};
    std::atomic<bool> started{false};
    std::atomic<bool> clientGone{false};

    WatchHub *hub = nullptr;
    quint64 handle = 0;
    std::shared_ptr<QPromise<Status>> startPromise;
    bool dead = false;
    bool suspended = false;  // in an outage: Suspended was emitted, no recovery confirmed yet
    int attempts = 0;
    steady_clock::time_point outageStarted;
    Status lastCause;
    qint64 compactPending = 0;
    std::optional<WatchRecoveryEvent> unconfirmed;
    QTimer retryTimer;
    QTimer confirmTimer;
};

bool WatcherRegistry::add(WatcherPrivate *watcher)
{
    std::lock_guard lock(m_mutex);
    if (m_clientGone)
        return false;
    m_watchers.insert(watcher);
    return true;
}

bool WatcherRegistry::remove(WatcherPrivate *watcher)
{
    std::lock_guard lock(m_mutex);
    return m_watchers.erase(watcher) > 0;
}

void WatcherRegistry::closeAll(QObject *dispatcherContext)
{
    const auto detachAll = [this] {
        std::set<WatcherPrivate *> watchers;
        {
            std::lock_guard lock(m_mutex);
            m_clientGone = true;
            watchers.swap(m_watchers);
        }
        for (WatcherPrivate *watcher : watchers)
            watcher->detachFromClient();
    };
    if (dispatcherContext)
        runOn(dispatcherContext, detachAll);
    else
        detachAll();
}

Watcher::Watcher(Client *client, const QByteArray &key, const WatchOptions &options,
                 const WatchResilience &resilience, QObject *parent)
    : QObject(parent), d(std::make_unique<WatcherPrivate>(this, client, key, options, resilience))
{
    qRegisterMetaType<WatchEvent>();
    qRegisterMetaType<QList<WatchEvent>>();
    qRegisterMetaType<WatchRecoveryEvent>();
}

Watcher::~Watcher()
{
    close();
    WatcherPrivate *priv = d.release();
    if (!priv->registry->remove(priv)) {
        delete priv;  // detached from the client's dispatcher: nothing else refers to it
        return;
    }
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

void Watcher::setResyncWith(Resync resync)
{
    if (d->started || d->closed) {
        qCWarning(lcWatch).noquote() << "setResyncWith() after start() on" << describeKey(d->key) << "is ignored";
        return;
    }
    d->resync = std::move(resync);
}

QFuture<Status> Watcher::start()
{
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    QFuture<Status> future = promise->future();
    etcdserverpb::WatchCreateRequest request;
    Status refused;
    if (d->clientGone)
        refused = Status(StatusCode::Closed, QStringLiteral("the client was destroyed"));
    else if (!d->clientPrivate->configurationStatus)
        refused = d->clientPrivate->configurationStatus;
    else if (!d->resilience.retryPolicy.isValid())
        refused = d->resilience.retryPolicy.validation();
    else if (d->options.startRevision < 0)
        refused = Status(StatusCode::InvalidArgument,
                         QStringLiteral("start revision must be >= 0 (got %1)").arg(d->options.startRevision));
    else if (Status built = d->clientPrivate->codec.range(d->key, d->options.range, request.mutable_key(),
                                                          request.mutable_range_end());
             !built)
        refused = built;
    else if (d->closed)
        refused = Status(StatusCode::Closed, QStringLiteral("close() was already called"));
    else if (d->started.exchange(true))
        refused = Status(StatusCode::AlreadyStarted, QStringLiteral("start() was already called"));
    if (!refused.isOk()) {
        promise->addResult(refused.withContext(QStringLiteral("watch on ") + describeKey(d->key)));
        promise->finish();
        return future;
    }
    request.set_prev_kv(d->options.prevKv);
    request.set_progress_notify(d->resilience.progressNotify);
    if (d->options.noPut)
        request.add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
    if (d->options.noDelete)
        request.add_filters(etcdserverpb::WatchCreateRequest::NODELETE);
    d->mailbox->post([priv = d.get(), promise, request] { priv->start(promise, request); });
    return future;
}

void Watcher::close()
{
    if (d->closed.exchange(true))
        return;
    d->mailbox->close();
    WatcherPrivate *priv = d.get();
    runOn(priv, [priv] {
        priv->shutDown(Status(StatusCode::Closed, QStringLiteral("close() was called before the watch started")));
    });
}

QByteArray Watcher::key() const
{
    return d->key;
}

qint64 Watcher::resumeRevision() const
{
    return d->resume.load();
}

qint64 Watcher::startRevision() const
{
    return d->startedFrom.load();
}

qint64 Watcher::createdAtRevision() const
{
    return d->createdAt.load();
}

bool Watcher::isHealthy() const
{
    return d->healthy.load();
}

} // namespace QEtcd
