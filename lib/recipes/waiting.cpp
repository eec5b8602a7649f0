// SPDX-License-Identifier: Apache-2.0
#include "waiting_p.h"

#include "client_p.h"
#include "continuation_p.h"
#include "logging_p.h"
#include "threading_p.h"
#include "watcher.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDateTime>
#include <QtCore/QHash>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QPromise>
#include <QtCore/QRandomGenerator>
#include <QtCore/QSysInfo>
#include <QtCore/QTimer>

namespace QEtcd::Internal {

QByteArray identityValue(const QString &clientId, const QString &role)
{
    // Each asks the kernel (uname, getpid), and every lock attempt writes an identity.
    static const QString host = QSysInfo::machineHostName();
    static const qint64 pid = QCoreApplication::applicationPid();
    return QJsonDocument(QJsonObject{{QStringLiteral("clientId"), clientId},
                                     {QStringLiteral("host"), host},
                                     {QStringLiteral("pid"), pid},
                                     {QStringLiteral("requestedAt"), QDateTime::currentMSecsSinceEpoch()},
                                     {QStringLiteral("role"), role}})
        .toJson(QJsonDocument::Compact);
}

QByteArray uniqueToken(const QString &clientId)
{
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    QByteArray token = clientId.toUtf8() + ':';
    for (int i = 0; i < 7; ++i)
        token += alphabet[QRandomGenerator::global()->bounded(int(sizeof(alphabet) - 1))];
    return token;
}

RangeOptions newestEntries(qint64 limit, qint64 createdBefore)
{
    RangeOptions newest;
    newest.range = KeyRange::prefix();
    newest.sortTarget = SortTarget::CreateRevision;
    newest.sortOrder = SortOrder::Descending;
    newest.limit = limit;
    newest.keysOnly = true;
    newest.maxCreateRevision = createdBefore > 0 ? createdBefore - 1 : 0;
    return newest;
}

namespace {
// One read that a wait cannot do without: nothing else would see what happened before its
// watch began. A refused read is asked again, with backoff, for as long as the wait lasts. With
// asOfAtLeast, a local (serializable) read answers when the member's snapshot is at least that
// new, sparing a leader round trip; an older snapshot (another member after a fail-over) is
// asked again linearizably. Lives in, and answers on, its wait's thread.
class Probe
{
public:
    using Read = std::function<QFuture<RangeResult>(const RangeOptions &)>;
    using Judge = std::function<void(const RangeResult &)>;

    Probe(QObject *wait, QByteArray what, RangeOptions options, Read read, Judge judge, const bool *over)
        : m_wait(wait), m_what(std::move(what)), m_options(std::move(options)), m_read(std::move(read)),
          m_judge(std::move(judge)), m_over(over)
    {
    }

    void run(qint64 asOfAtLeast = 0)
    {
        if (*m_over)
            return;
        RangeOptions options = m_options;
        options.serializable = asOfAtLeast > 0;
        thenOn(m_read(options), m_wait, [this, asOfAtLeast](const RangeResult &result) {
            if (*m_over)
                return;
            if (!result.status) {
                const auto delay = backoff().nextDelay(++m_failures, {}).value_or(maxDelay);
                qCInfo(lcWatch).noquote() << "catch-up read of" << m_what << "failed:" << result.status.toString()
                                          << "- asking again in" << delay.count() << "ms";
                QTimer::singleShot(delay, m_wait, [this, asOfAtLeast] { run(asOfAtLeast); });
                return;
            }
            m_failures = 0;
            if (asOfAtLeast > 0 && result.header.revision < asOfAtLeast)
                return run();
            m_judge(result);
        });
    }

private:
    static constexpr std::chrono::milliseconds maxDelay{2000};
    static const RetryPolicy &backoff()
    {
        static const RetryPolicy policy = RetryPolicy::exponentialBackoff({std::chrono::milliseconds(100), maxDelay});
        return policy;
    }

    QObject *m_wait;
    QByteArray m_what;
    RangeOptions m_options;
    Read m_read;
    Judge m_judge;
    const bool *m_over;
    int m_failures = 0;
};

// A second watch for a one-shot wait, from etcd's current revision, asked for once the first
// exists. etcd serves a watch it files as unsynced from its catch-up loop, which runs every
// 100 ms, and deaf until then: an anchored watch when other writes landed before it existed,
// and (etcd 3.4 turns revision 0 into the revision it read just before registering the watch)
// a watch from now when a write lands in between. On a busy lock queue the latter befell a few
// percent of waits and made the whole hand-off tail (p99 60-85 ms at 4 contenders). The second
// watch is deaf only if the race strikes again; whichever hears the event first ends the wait.
// It only makes the wait shorter: the first watch and the wait's read make sure nothing goes
// unseen. The caller starts it.
template <class Handler>
Watcher *watchFromNowToo(QObject *wait, Client *client, const QByteArray &key, WatchOptions options,
                         const WatchResilience &resilience, Handler onEvents)
{
    options.startRevision = 0;
    auto *second = new Watcher(client, key, options, resilience, wait);
    QObject::connect(second, &Watcher::eventsReceived, wait, onEvents);
    return second;
}

// Owns the watch for one wait and finishes the promise once; lives on the dispatcher thread.
class DeletionWait : public QObject
{
public:
    using Deliver = std::function<void(const Deletion &)>;

    DeletionWait(Client *client, const QByteArray &key, qint64 observedRevision, const WatchResilience &resilience,
                 const StopToken &stop, const DeletionWatch &how, Deliver deliver)
        : m_client(client), m_key(key), m_observedRevision(observedRevision), m_stop(stop), m_how(how),
          m_resilience(resilience), m_deliver(std::move(deliver)), m_pending(awaitedKeys(key, how)),
          m_probe(this, key, existence(), probeRead(client, watchedKey(), how),
                  [this](const RangeResult &found) { judge(found); }, &m_finished)
    {
        m_watcher = new Watcher(client, watchedKey(), watchOptions(how.fromNow ? 0 : observedRevision + 1), resilience,
                                this);
    }

    void begin()
    {
        connect(m_watcher, &Watcher::eventsReceived, this,
                [this](const QList<WatchEvent> &events) { onEvents(events, m_watcher); });
        connect(m_watcher, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) {
            if (m_how.onRecovery)
                m_how.onRecovery(event);
            switch (event.kind) {
            case WatchRecoveryKind::Suspended:
            case WatchRecoveryKind::Resubscribed:
                return;  // resumed from the last revision seen: nothing was missed
            case WatchRecoveryKind::Resynced:
                if (m_how.range.kind != KeyRange::Kind::Single || !m_how.guard.isEmpty())
                    return finish({});
                if (m_how.absenceAfterResync)
                    m_probe.run();  // a compaction may have swallowed the deletion
                return;
            case WatchRecoveryKind::Failed:
                return finish({event.cause, {}});
            }
        });
        m_onStop = std::make_unique<StopCallback>(m_stop, [this] {
            QMetaObject::invokeMethod(this, [this] {
                finish({Status(StatusCode::Cancelled, QStringLiteral("stopped while waiting")), {}});
            }, Qt::QueuedConnection);
        });
        thenOn(m_watcher->start(), this, [this](const Status &started) {
            if (!started)
                return finish({started, {}});
            if (!m_how.fromNow || m_finished)  // the probe or a stop ended it meanwhile
                return;
            m_pendingSecond = m_pending;
            m_second = watchFromNowToo(this, m_client, watchedKey(), watchOptions(0), m_resilience,
                                       [this](const QList<WatchEvent> &events) { onEvents(events, m_second); });
            const QFuture<Status> secondStarted = m_second->start();
            if (!m_how.guard.isEmpty()) {
                thenOn(secondStarted, this, [this](const Status &started) {
                    // Keys deleted between the two watches are only in the first, which etcd may
                    // serve 100 ms late: a check from the second's start lets it end the wait alone.
                    const qint64 secondFrom = m_second->createdAtRevision();
                    if (started && secondFrom > m_guardStoodAt)
                        check(secondFrom);
                });
            }
            // The watch reports deletions after the revision it was created at. The caller saw
            // the key at observedRevision; if that is not older, nothing can have slipped by.
            const qint64 createdAt = m_watcher->createdAtRevision();
            if (m_observedRevision < createdAt)
                check(createdAt);  // it may be gone already: nothing would ever report it
            else
                m_guardStoodAt = m_observedRevision;  // the caller's read found it
        });
    }

private:
    WatchOptions watchOptions(qint64 startRevision) const
    {
        WatchOptions options;
        options.startRevision = startRevision;
        options.noPut = true;
        options.prevKv = m_how.previousValue;
        options.range = watchedRange();
        return options;
    }

    // Every key the wait waits for, with the incarnation (0: any).
    static QHash<QByteArray, qint64> awaitedKeys(const QByteArray &key, const DeletionWatch &how)
    {
        QHash<QByteArray, qint64> keys{{key, how.createRevision}};
        for (const KeyValue &other : how.alongWith)
            keys.insert(other.key, other.createRevision);
        return keys;
    }

    // With a guard, one watch spans the awaited keys, the guard and the keys between them: only
    // one watch hands over their deletions in etcd's order.
    std::pair<QByteArray, QByteArray> guardedSpan() const
    {
        QByteArray first = std::min(m_key, m_how.guard);
        QByteArray last = std::max(m_key, m_how.guard);
        for (const KeyValue &other : m_how.alongWith) {
            first = std::min(first, other.key);
            last = std::max(last, other.key);
        }
        return {first, last};
    }
    QByteArray watchedKey() const { return m_how.guard.isEmpty() ? m_key : guardedSpan().first; }
    KeyRange watchedRange() const
    {
        return m_how.guard.isEmpty() ? m_how.range : KeyRange::upTo(guardedSpan().second + '\0');
    }

    // The guard stood through the deletion when it was seen standing at or after the revision
    // the reporting watch began at: that watch would have told a deletion since, in order.
    // The guard's own deletion ends the wait, unproven: the waiter's entry is gone, and it must
    // learn now what became of it (an operator took it out of the queue, or its lease went),
    // not when the key ahead of it goes, which may be never.
    void onEvents(const QList<WatchEvent> &events, const Watcher *from)
    {
        QHash<QByteArray, qint64> &pending = from == m_second ? m_pendingSecond : m_pending;
        const WatchEvent *last = nullptr;  // the deletion that left nothing to wait for
        for (const WatchEvent &event : events) {
            if (event.type != WatchEvent::Type::Delete)
                continue;
            if (m_how.guard.isEmpty())
                return finish({{}, event.prevKv});
            // A range deleted at once (etcdctl del --prefix) takes all in one revision, in key
            // order: the guard gone in that revision did not stand.
            if (last && event.kv.modRevision != last->kv.modRevision)
                break;
            if (event.kv.key == m_how.guard)
                m_guardFell = true;
            else if (!last && pending.remove(event.kv.key) && pending.isEmpty())
                last = &event;
        }
        if (!last && m_guardFell)
            return finish({});
        if (!last)
            return;
        const bool guardStood = m_guardStoodAt > 0 && m_guardStoodAt >= from->createdAtRevision() && !m_guardFell;
        if (guardStood || from != m_second)
            return finish({{}, last->prevKv, guardStood});
        // The second watch began after the guard was last seen. The first watch's copy of the
        // same events comes in the same burst from etcd, within microseconds, unless etcd left
        // that watch unsynced (then up to 100 ms): a few milliseconds tell the two apart.
        if (!std::exchange(m_secondWaitsForFirst, true))
            QTimer::singleShot(firstWatchGrace, this, [this, previous = last->prevKv] { finish({{}, previous}); });
    }

    RangeOptions existence() const
    {
        RangeOptions current;
        current.keysOnly = true;
        if (!m_how.guard.isEmpty())
            current.range = watchedRange();
        return current;
    }

    static Probe::Read probeRead(Client *client, const QByteArray &key, const DeletionWatch &how)
    {
        if (how.probeRead)
            return [read = how.probeRead, key](const RangeOptions &options) { return read(key, options); };
        return [client, key](const RangeOptions &options) { return client->get(key, options); };
    }

    // One existence check at a time, as of at least the newest revision asked for: a check
    // asked for while one is on its way waits for its answer, which may already cover it.
    void check(qint64 asOfAtLeast)
    {
        m_checkWanted = std::max(m_checkWanted, asOfAtLeast);
        if (!std::exchange(m_checking, true))
            m_probe.run(m_checkWanted);
    }

    // Are the incarnations we wait for still there, and the guard's?
    void judge(const RangeResult &found)
    {
        m_checking = false;
        const auto stands = [&found](const QByteArray &key, qint64 createRevision) {
            return std::any_of(found.kvs.begin(), found.kvs.end(), [&](const KeyValue &kv) {
                return kv.key == key && (createRevision == 0 || kv.createRevision == createRevision);
            });
        };
        for (QHash<QByteArray, qint64> *pending : {&m_pending, &m_pendingSecond})
            pending->removeIf([&](const auto &awaited) { return !stands(awaited.key(), awaited.value()); });
        const bool guardStands = !m_how.guard.isEmpty() && stands(m_how.guard, m_how.guardCreateRevision);
        if (guardStands)
            m_guardStoodAt = std::max(m_guardStoodAt, found.header.revision);
        else if (!m_how.guard.isEmpty())
            m_guardFell = true;
        if (m_pending.isEmpty() || m_guardFell)
            return finish({{}, {}, guardStands && !m_guardFell});
        if (found.header.revision < m_checkWanted)
            check(m_checkWanted);
    }

    void finish(const Deletion &outcome)
    {
        if (m_finished)
            return;
        m_finished = true;
        m_onStop.reset();
        m_watcher->close();
        if (m_second)
            m_second->close();
        m_deliver(outcome);
        deleteLater();
    }

    Client *m_client;
    QByteArray m_key;
    qint64 m_observedRevision;
    StopToken m_stop;
    const DeletionWatch m_how;
    const WatchResilience m_resilience;
    Watcher *m_watcher = nullptr;
    Watcher *m_second = nullptr;  // fromNow only
    std::unique_ptr<StopCallback> m_onStop;
    Deliver m_deliver;
    // The awaited keys not yet seen deleted, by the first watch (or the check) and the second.
    QHash<QByteArray, qint64> m_pending;
    QHash<QByteArray, qint64> m_pendingSecond;
    bool m_secondWaitsForFirst = false;
    bool m_checking = false;     // an existence check is on its way
    qint64 m_checkWanted = 0;    // the newest revision a check was asked to be as of
    static constexpr std::chrono::milliseconds firstWatchGrace{5};
    bool m_finished = false;
    // The newest revision the guard is known to have stood at (0: none yet): the caller's read,
    // or an existence check's.
    qint64 m_guardStoodAt = 0;
    bool m_guardFell = false;  // its deletion was seen
    Probe m_probe;
};

// Owns the watches for one wait for a put and finishes the promise once; lives on the dispatcher
// thread. The watch is anchored at observedRevision + 1, so no put goes unseen. When other
// writes moved the revision before it was created, etcd serves it from its catch-up loop, which
// runs every 100 ms: the put the caller waits for may be among them, and later ones are heard
// no sooner. So then one read looks for a put made meanwhile, and a second watch from now hears
// the next at once.
class PutWait : public QObject
{
public:
    PutWait(Client *client, const QByteArray &prefix, qint64 observedRevision, const WatchResilience &resilience,
            const StopToken &stop, std::function<void(const WatchRecoveryEvent &)> onRecovery)
        : m_client(client), m_prefix(prefix), m_observedRevision(observedRevision), m_resilience(resilience),
          m_stop(stop), m_onRecovery(std::move(onRecovery)),
          m_probe(this, prefix, changedSince(observedRevision),
                  [client, prefix](const RangeOptions &options) { return client->get(prefix, options); },
                  [this](const RangeResult &found) {
                      if (!found.kvs.isEmpty())
                          finish({});
                  },
                  &m_finished)
    {
        m_watcher = new Watcher(client, prefix, watchOptions(observedRevision + 1), resilience, this);
    }

    QFuture<Status> begin()
    {
        m_promise.start();
        QFuture<Status> future = m_promise.future();
        connect(m_watcher, &Watcher::eventsReceived, this, [this] { finish({}); });
        connect(m_watcher, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) {
            if (m_onRecovery)
                m_onRecovery(event);
            switch (event.kind) {
            case WatchRecoveryKind::Suspended:
                return;
            case WatchRecoveryKind::Resubscribed:
            case WatchRecoveryKind::Resynced:
                return finish({});
            case WatchRecoveryKind::Failed:
                return finish(event.cause);
            }
        });
        m_onStop = std::make_unique<StopCallback>(m_stop, [this] {
            QMetaObject::invokeMethod(this, [this] {
                finish(Status(StatusCode::Cancelled, QStringLiteral("stopped while waiting")));
            }, Qt::QueuedConnection);
        });
        thenOn(m_watcher->start(), this, [this](const Status &started) {
            if (!started)
                return finish(started);
            const qint64 createdAt = m_watcher->createdAtRevision();
            if (m_observedRevision < createdAt && !m_finished) {
                m_second = watchFromNowToo(this, m_client, m_prefix, watchOptions(0), m_resilience,
                                           [this] { finish({}); });
                m_second->start();
                m_probe.run(createdAt);
            }
        });
        return future;
    }

private:
    static WatchOptions watchOptions(qint64 startRevision)
    {
        WatchOptions options;
        options.startRevision = startRevision;
        options.noDelete = true;
        options.range = KeyRange::prefix();
        return options;
    }

    // A key under the prefix written after the caller looked, and still there.
    static RangeOptions changedSince(qint64 observedRevision)
    {
        RangeOptions changed;
        changed.range = KeyRange::prefix();
        changed.keysOnly = true;
        changed.limit = 1;
        changed.minModRevision = observedRevision + 1;
        return changed;
    }

    void finish(const Status &outcome)
    {
        if (m_finished)
            return;
        m_finished = true;
        m_onStop.reset();
        m_watcher->close();
        if (m_second)
            m_second->close();
        m_promise.addResult(outcome);
        m_promise.finish();
        deleteLater();
    }

    Client *m_client;
    QByteArray m_prefix;
    qint64 m_observedRevision;
    const WatchResilience m_resilience;
    StopToken m_stop;
    std::function<void(const WatchRecoveryEvent &)> m_onRecovery;
    Watcher *m_watcher = nullptr;
    Watcher *m_second = nullptr;  // only when the revision had moved
    std::unique_ptr<StopCallback> m_onStop;
    QPromise<Status> m_promise;
    bool m_finished = false;
    Probe m_probe;
};
} // namespace

namespace {
// The wait's outcome, made into the result the caller wants on the dispatcher thread where the
// wait ends: a waiter there (a lock's next holder) hears of the deletion without a detour
// through the futures thread, two thread hops on every hand-off.
template <class Result, class Convert>
QFuture<Result> startDeletionWait(Client *client, const QByteArray &key, qint64 observedRevision,
                                  const WatchResilience &resilience, const StopToken &stop, const DeletionWatch &how,
                                  Convert convert)
{
    auto promise = std::make_shared<QPromise<Result>>();
    promise->start();
    QFuture<Result> future = promise->future();
    auto *wait = new DeletionWait(client, key, observedRevision, resilience, stop, how,
                                  [promise, convert](const Deletion &outcome) {
                                      promise->addResult(convert(outcome));
                                      promise->finish();
                                  });
    wait->moveToThread(ClientPrivate::get(client)->dispatcher());
    runOn(wait, [wait] { wait->begin(); });
    return future;
}
} // namespace

QFuture<Deletion> watchDeletion(Client *client, const QByteArray &key, qint64 observedRevision,
                                const WatchResilience &resilience, const StopToken &stop, const DeletionWatch &how)
{
    return startDeletionWait<Deletion>(client, key, observedRevision, resilience, stop, how,
                                       [](const Deletion &deletion) { return deletion; });
}

QFuture<Status> waitForDeletion(Client *client, const QByteArray &key, qint64 observedRevision,
                                const WatchResilience &resilience, const StopToken &stop, const DeletionWatch &how)
{
    return startDeletionWait<Status>(client, key, observedRevision, resilience, stop, how,
                                     [](const Deletion &deletion) { return deletion.status; });
}

QFuture<Status> waitForDeletion(Client *client, const KeyValue &observed, qint64 observedRevision,
                                const WatchResilience &resilience, const StopToken &stop)
{
    DeletionWatch fast;
    fast.fromNow = true;
    fast.createRevision = observed.createRevision;
    return waitForDeletion(client, observed.key, observedRevision, resilience, stop, fast);
}

QFuture<Status> waitForPut(Client *client, const QByteArray &prefix, qint64 observedRevision,
                           const WatchResilience &resilience, const StopToken &stop,
                           std::function<void(const WatchRecoveryEvent &)> onRecovery)
{
    auto *wait = new PutWait(client, prefix, observedRevision, resilience, stop, std::move(onRecovery));
    wait->moveToThread(ClientPrivate::get(client)->dispatcher());
    QFuture<Status> future;
    runOn(wait, [wait, &future] { future = wait->begin(); });
    return future;
}

} // namespace QEtcd::Internal
