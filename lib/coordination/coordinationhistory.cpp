// SPDX-License-Identifier: Apache-2.0
#include "coordinationhistory.h"

#include "client.h"
#include "clustermaintenance.h"
#include "compacted_p.h"
#include "continuation_p.h"
#include "coordinationeventderiver_p.h"
#include "coordinationindex_p.h"
#include "keymirror_p.h"
#include "watcher.h"

#include <QtCore/QHash>
#include <QtCore/QPromise>
#include <QtCore/QTimer>

#include <atomic>
#include <deque>
#include <limits>
#include <map>
#include <optional>

namespace QEtcd {

using namespace Internal;



class CoordinationHistoryPrivate
{
public:
    // etcd 3.4 catches a watch up at most 1,000 revisions per round, and each round reads every
    // revision from the oldest watch still catching up to the newest: one watch replaying N
    // revisions costs etcd N²/2,000 reads (a million revisions: half an hour). Windows of the
    // history watched side by side each take 1,000 revisions from one round's read, so a
    // replay costs rounds ÷ Windows; only the window being told streams, the ones after it are
    // held until their turn (Windows × WindowRevisions revisions at most).
    static constexpr int Windows = 32;
    static constexpr qint64 WindowRevisions = 2000;

    // A stretch of the history, watched from its first revision; complete once an event after
    // its last has come (a watch delivers in revision order).
    struct Window
    {
        qint64 first = 0;
        qint64 last = 0;
        Watcher *watcher = nullptr;
        QList<WatchEvent> events;  // not yet told, in revision order
        bool complete = false;
    };

    CoordinationHistory *q = nullptr;
    Client *client = nullptr;
    QByteArray prefix;
    qint64 from = 0;
    qint64 until = 0;
    bool started = false;
    bool following = false;
    bool tailOpen = false;  // following: the window without end, from the last revision on

    std::deque<Window> windows;
    qint64 nextWindow = 0;  // the first revision of the next window to open
    CoordinationIndex index;
    std::map<QByteArray, KeyValue> state;  // the keys under the prefix as of lastTold
    CoordinationEventDeriver deriver;
    qint64 lastTold = 0;
    QTimer quiet;  // no news for a while: has the replay reached its end?
    std::shared_ptr<QPromise<Status>> done;

    void finish(const Status &status)
    {
        if (!done)
            return;
        quiet.stop();
        for (Window &window : windows)
            stop(window);
        windows.clear();
        const std::shared_ptr<QPromise<Status>> promise = std::exchange(done, nullptr);
        if (status && lastTold < until) {
            lastTold = until;
            Q_EMIT q->progressed(until);
        }
        promise->addResult(status);
        promise->finish();
    }

    static void stop(Window &window)
    {
        if (window.watcher) {
            window.watcher->close();
            window.watcher->deleteLater();
            window.watcher = nullptr;
        }
    }

    // The store's revision, and the oldest revision etcd still keeps from the one before first:
    // the replay's state is read there.
    void begin()
    {
        const qint64 asked = from > 0 ? from - 1 : 1;
        // A key under the prefix: one the client may read when authentication restricts it.
        const QByteArray probeKey = prefix.isEmpty() ? QByteArray(1, '\0') : prefix;
        thenOn(ClusterMaintenance::retainedHistory(client, asked, probeKey), q, [this, asked](const RetainedHistory &kept) {
            if (!kept.status)
                return finish(kept.status);
            if (until > kept.current) {
                return finish(Status(StatusCode::InvalidArgument, QStringLiteral("revision %1 is in the future: the store is at %2")
                                                                      .arg(until)
                                                                      .arg(kept.current)));
            }
            until = until > 0 ? until : kept.current;
            // Beginning right after the end tells nothing, which is an answer ("since 10m": nothing).
            if (from > until + 1) {
                return finish(Status(StatusCode::InvalidArgument,
                                     QStringLiteral("the replay would begin at revision %1, after its end at %2").arg(from).arg(until)));
            }
            if (kept.oldest > until) {
                return finish(Status(StatusCode::OutOfRange, QStringLiteral("etcd has compacted the revisions up to %1: it keeps them from %2 on")
                                                                 .arg(until)
                                                                 .arg(kept.oldest)));
            }
            replayFrom(kept.oldest, kept.oldest > asked ? kept.oldest : 0);
        });
    }

    void replayFrom(qint64 stateRevision, qint64 compactedBefore)
    {
        // A mirror of its own reads the first state in pages at that revision, whatever its size.
        auto *reader = new KeyMirror(client, prefix, KeyRange::prefix(), WatchResilience::defaults(), {});
        thenOn(reader->readOnce(stateRevision), q, [=, this](const RangeResult &read) {
            reader->close();
            reader->deleteLater();
            if (!read.status)
                return finish(read.status.withContext(QStringLiteral("read revision %1").arg(stateRevision)));
            for (const KeyValue &kv : read.kvs) {
                state[kv.key] = kv;
                index.put(kv);
            }
            index.refresh();
            lastTold = stateRevision;
            nextWindow = stateRevision + 1;
            Q_EMIT q->began(stateRevision + 1, until, compactedBefore);
            Q_EMIT q->objectsAtStart(index.objects());
            if (lastTold >= until && !following)
                return finish(Status());
            openWindows();
            quiet.start();
        });
    }

    void openWindows()
    {
        while (windows.size() < Windows && !tailOpen && (nextWindow <= until || following)) {
            Window window;
            window.first = nextWindow;
            window.last = std::min(until, nextWindow + WindowRevisions - 1);
            nextWindow = window.last + 1;
            if (following && window.last == until) {
                // The last window of the range goes on as a live watch.
                window.last = std::numeric_limits<qint64>::max();
                tailOpen = true;
            }
            WatchOptions options;
            options.range = KeyRange::prefix();
            options.startRevision = window.first;
            // No resync: revisions compacted under a replay are lost to it, which it says.
            window.watcher = new Watcher(client, prefix, options, WatchResilience::defaults());
            Watcher *watcher = window.watcher;
            // Sorted out where the watch delivers: a window's watch goes on past its last
            // revision until it is closed, and what it sends then must not pile up behind a
            // busy replay, only the end of the window is worth telling.
            auto passed = std::make_shared<std::atomic<bool>>(false);
            QObject::connect(watcher, &Watcher::eventsReceived, watcher,
                             [this, watcher, passed, last = window.last](const QList<WatchEvent> &events) {
                if (passed->load())
                    return;
                QList<WatchEvent> inWindow;
                for (const WatchEvent &event : events) {
                    if (event.kv.modRevision > last) {
                        passed->store(true);
                        break;
                    }
                    inWindow.append(event);
                }
                QMetaObject::invokeMethod(q, [this, watcher, inWindow, complete = passed->load()] {
                    receive(watcher, inWindow, complete);
                }, Qt::QueuedConnection);
            }, Qt::DirectConnection);
            QObject::connect(watcher, &Watcher::recovery, q, [this](const WatchRecoveryEvent &event) {
                if (event.kind == WatchRecoveryKind::Failed || event.kind == WatchRecoveryKind::Resynced)
                    lost(event);
            });
            thenOn(watcher->start(), q, [this](const Status &watching) {
                if (!watching)
                    finish(watching.withContext(QStringLiteral("watch the history")));
            });
            windows.push_back(std::move(window));
        }
    }

    void receive(Watcher *watcher, const QList<WatchEvent> &events, bool complete)
    {
        const auto found = std::find_if(windows.begin(), windows.end(),
                                        [watcher](const Window &window) { return window.watcher == watcher; });
        if (!done || found == windows.end())
            return;
        quiet.start();
        found->events += events;
        if (complete) {
            found->complete = true;
            stop(*found);
        }
        tell();
    }

    // Tells the first window's events, and moves on while it is complete.
    void tell()
    {
        while (done && !windows.empty()) {
            Window &head = windows.front();
            tellEvents(head.events);
            head.events.clear();
            if (!head.complete)
                break;
            lastTold = std::max(lastTold, head.last);
            windows.pop_front();
            openWindows();
        }
        Q_EMIT q->progressed(lastTold);
        if (done && windows.empty())
            finish(Status());
    }

    void tellEvents(const QList<WatchEvent> &events)
    {
        QList<CoordinationEvent> told;
        qsizetype at = 0;
        while (at < events.size()) {
            const qint64 revision = events[at].kv.modRevision;
            RevisionChanges changed;
            changed.revision = revision;
            for (; at < events.size() && events[at].kv.modRevision == revision; ++at) {
                const WatchEvent &event = events[at];
                if (event.type == WatchEvent::Type::Put) {
                    state[event.kv.key] = event.kv;
                    changed.written.insert(event.kv.key, event.kv);
                    index.put(event.kv);
                    continue;
                }
                if (const auto held = state.find(event.kv.key); held != state.end()) {
                    changed.remove(held->second);
                    state.erase(held);
                }
                index.remove(event.kv.key);
            }
            told += deriver.derive(changed, index.refresh());
            lastTold = revision;
        }
        if (!told.isEmpty())
            Q_EMIT q->eventsReady(told);
    }

    void lost(const WatchRecoveryEvent &event)
    {
        if (event.kind == WatchRecoveryKind::Failed)
            return finish(event.cause.withContext(QStringLiteral("replay at revision %1").arg(lastTold + 1)));
        finish(Status(StatusCode::OutOfRange,
                      QStringLiteral("etcd compacted revisions up to %1 while the replay read them: what happened then "
                                     "is lost; replay again from revision %2")
                          .arg(event.compactRevision)
                          .arg(event.compactRevision + 1)));
    }

    // etcd says nothing when a watch has caught up with no more changes to tell: after a quiet
    // while, the replay is at its end when its keys are the ones etcd has at that end.
    void checkEnd()
    {
        // Following, the end of the range is a point passed on the way, told by progressed().
        if (!done || (following && lastTold >= until))
            return;
        RangeOptions newest;
        newest.revision = until;
        newest.keysOnly = true;
        newest.range = KeyRange::prefix();
        newest.sortTarget = SortTarget::ModRevision;
        newest.sortOrder = SortOrder::Descending;
        newest.limit = 1;
        thenOn(client->get(prefix, newest), q, [this](const RangeResult &atEnd) {
            if (!done)
                return;
            qint64 newestHere = 0;
            for (const auto &[key, kv] : state)
                newestHere = std::max(newestHere, kv.modRevision);
            const qint64 newestThere = atEnd.kvs.isEmpty() ? 0 : atEnd.kvs.first().modRevision;
            const bool nothingHeld = std::all_of(windows.begin(), windows.end(),
                                                 [](const Window &window) { return window.events.isEmpty(); });
            if (atEnd.status && nothingHeld && atEnd.count == qint64(state.size()) && newestThere == newestHere) {
                if (!following)
                    return finish(Status());
                lastTold = std::max(lastTold, until);
                Q_EMIT q->progressed(lastTold);
                return;
            }
            quiet.start();
        });
    }
};

CoordinationHistory::CoordinationHistory(Client *client, const QByteArray &prefix, QObject *parent)
    : QObject(parent), d(std::make_unique<CoordinationHistoryPrivate>())
{
    qRegisterMetaType<QList<CoordinationEvent>>();
    d->q = this;
    d->client = client;
    d->prefix = prefix;
    d->quiet.setSingleShot(true);
    d->quiet.setInterval(std::chrono::seconds(1));
    connect(&d->quiet, &QTimer::timeout, this, [this] { d->checkEnd(); });
}

CoordinationHistory::~CoordinationHistory()
{
    cancel();
}

QByteArray CoordinationHistory::prefix() const
{
    return d->prefix;
}

void CoordinationHistory::setFromRevision(qint64 revision)
{
    d->from = std::max<qint64>(revision, 0);
}

void CoordinationHistory::setUntilRevision(qint64 revision)
{
    d->until = std::max<qint64>(revision, 0);
}

void CoordinationHistory::setFollowing(bool following)
{
    d->following = following;
}

QFuture<Status> CoordinationHistory::start()
{
    if (std::exchange(d->started, true))
        return QtFuture::makeReadyFuture(Status(StatusCode::AlreadyStarted, QStringLiteral("CoordinationHistory: already started")));
    d->done = std::make_shared<QPromise<Status>>();
    d->done->start();
    QFuture<Status> future = d->done->future();
    d->begin();
    return future;
}

void CoordinationHistory::cancel()
{
    d->finish(Status(StatusCode::Cancelled, QStringLiteral("the replay was cancelled")));
}

QFuture<CoordinationSnapshot> CoordinationHistory::objectsAt(Client *client, const QByteArray &prefix, qint64 revision)
{
    auto *mirror = new KeyMirror(client, prefix, KeyRange::prefix(), WatchResilience::defaults(), {});
    const auto snapshot = [mirror, revision](const RangeResult &read) {
        mirror->close();
        mirror->deleteLater();
        CoordinationSnapshot taken{read.status, revision, {}};
        if (read.status)
            taken.objects = CoordinationRecogniser::recognise(read.kvs);
        else if (isCompacted(read.status))
            taken.status = read.status.withContext(QStringLiteral("etcd no longer keeps revision %1").arg(revision));
        return taken;
    };
    return after(mirror->readOnce(revision), snapshot);
}

} // namespace QEtcd
