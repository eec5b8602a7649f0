// SPDX-License-Identifier: Apache-2.0
#include "coordinationmonitor.h"

#include "continuation_p.h"
#include "coordinationeventderiver_p.h"
#include "coordinationindex_p.h"
#include "keymirror_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QHash>
#include <QtCore/QTimer>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace QEtcd {

using namespace Internal;

class CoordinationMonitorPrivate
{
public:
    Client *client;
    QByteArray prefix;
    KeyMirror *mirror = nullptr;  // lives on the client's dispatcher thread
    qsizetype maxValueBytes = -1;
    QTimer coalesce;
    // The monitor's thread:
    CoordinationIndex index;
    CoordinationEventDeriver deriver;
    // Since the last objectsChanged(), one per object; one that came and went is a gap.
    std::vector<std::optional<CoordinationObjectChange>> untold;
    // Where each object's untold change is, by kind, path and rule: a burst touching many
    // objects is folded in one pass, not one search of the others per change.
    std::map<std::tuple<int, QByteArray, QString>, std::size_t> untoldAt;
    QList<CoordinationEvent> untoldEvents;

    // unread: the sizes of the values in changes that were too large to read, by key.
    void apply(const QList<MirrorChange> &changes, const QHash<QByteArray, qsizetype> &unread, MirrorOrigin origin,
               qint64 nowMs)
    {
        if (origin != MirrorOrigin::Watch) {
            // What was there before the monitor started has no known arrival time; a re-read's
            // difference has no revisions to tell events by, only the objects it leaves.
            const qint64 appeared = origin == MirrorOrigin::Snapshot ? -1 : nowMs;
            for (const MirrorChange &change : changes)
                put(change, unread, appeared);
            fold(index.refresh());
            return;
        }
        // Revision by revision, as a replay tells them: a heal is a departure at one revision
        // and a return at a later one, which one look at both would miss.
        for (qsizetype at = 0; at < changes.size();) {
            RevisionChanges revision;
            revision.revision = changes[at].revision;
            revision.timeMs = nowMs;
            for (; at < changes.size() && changes[at].revision == revision.revision; ++at) {
                const MirrorChange &change = changes[at];
                if (change.kind == MirrorChange::Kind::Removed && change.kv)
                    revision.remove(*change.kv);
                else if (change.kind != MirrorChange::Kind::Removed)
                    revision.written.insert(change.key, *change.kv);
                put(change, unread, nowMs);
            }
            const QList<CoordinationObjectChange> refreshed = index.refresh();
            untoldEvents += deriver.derive(revision, refreshed);
            fold(refreshed);
        }
    }

    void put(const MirrorChange &change, const QHash<QByteArray, qsizetype> &unread, qint64 appearedMs)
    {
        if (change.kind == MirrorChange::Kind::Removed)
            index.remove(change.key);
        else
            index.put(*change.kv, appearedMs, unread.value(change.key));
    }

    // Adds changes to the untold ones so that each object is told once, from how it was at the
    // last objectsChanged() to how it is now. A change follows on the untold one of its object:
    // an appearance on its removal, anything else on the object as the untold change left it.
    void fold(const QList<CoordinationObjectChange> &changes)
    {
        using Change = CoordinationObjectChange;
        for (const Change &change : changes) {
            const CoordinationObject &was = change.type == Change::Type::Changed ? change.previous : change.object;
            const auto id = std::make_tuple(int(was.kind), was.path, was.rule);
            const auto at = untoldAt.find(id);
            std::optional<Change> *untoldOne = at == untoldAt.end() ? nullptr : &untold[at->second];
            const bool follows = untoldOne && *untoldOne
                && (change.type == Change::Type::Added ? (*untoldOne)->type == Change::Type::Removed
                                                       : (*untoldOne)->type != Change::Type::Removed
                                                             && (*untoldOne)->object == was);
            if (!follows) {
                untoldAt.insert_or_assign(id, untold.size());
                untold.push_back(change);
                continue;
            }
            Change &told = **untoldOne;
            if (change.type == Change::Type::Added) {  // went and came back: changed, if at all
                told = {Change::Type::Changed, change.object, told.object};
            } else if (change.type == Change::Type::Changed) {
                told.object = change.object;
            } else if (told.type == Change::Type::Added) {  // came and went unseen
                untoldOne->reset();
                continue;
            } else {
                told = {Change::Type::Removed, told.previous, {}};
            }
            if (told.type == Change::Type::Changed && told.object == told.previous)
                untoldOne->reset();
        }
    }

    // The untold changes, in the order they came; none untold after.
    QList<CoordinationObjectChange> takeUntold()
    {
        QList<CoordinationObjectChange> changes;
        for (std::optional<CoordinationObjectChange> &change : untold) {
            if (change)
                changes.append(std::move(*change));
        }
        untold.clear();
        untoldAt.clear();
        return changes;
    }
};

CoordinationMonitor::CoordinationMonitor(Client *client, const QByteArray &prefix, QObject *parent)
    : QObject(parent), d(std::make_unique<CoordinationMonitorPrivate>())
{
    d->client = client;
    d->prefix = prefix;
    d->coalesce.setSingleShot(true);
    d->coalesce.setInterval(std::chrono::milliseconds(16));
    qRegisterMetaType<QList<CoordinationObjectChange>>();
    qRegisterMetaType<QList<CoordinationEvent>>();
    connect(&d->coalesce, &QTimer::timeout, this, [this] {
        if (const QList<CoordinationObjectChange> changes = d->takeUntold(); !changes.isEmpty())
            Q_EMIT objectsChanged(changes);
        if (const QList<CoordinationEvent> events = std::exchange(d->untoldEvents, {}); !events.isEmpty())
            Q_EMIT eventsHappened(events);
    });
}

CoordinationMonitor::~CoordinationMonitor()
{
    if (d->mirror) {
        // No handler runs once close() returned; what they queued here dies with this object.
        d->mirror->close();
        d->mirror->deleteLater();
    }
}

QByteArray CoordinationMonitor::prefix() const
{
    return d->prefix;
}

void CoordinationMonitor::setInterval(std::chrono::milliseconds interval)
{
    d->coalesce.setInterval(interval);
}

void CoordinationMonitor::setMaxValueBytes(qsizetype bytes)
{
    d->maxValueBytes = bytes;
}

qsizetype CoordinationMonitor::unreadValueBytes(const QByteArray &key) const
{
    return d->mirror ? d->mirror->unreadValueBytes(key) : 0;
}

QFuture<Status> CoordinationMonitor::start()
{
    if (d->mirror)
        return QtFuture::makeReadyFuture(Status(StatusCode::AlreadyStarted,
                                                QStringLiteral("CoordinationMonitor: already started")));
    KeyMirror::Handlers handlers;
    // Dispatcher thread: the changes cross to this thread and are recognised there.
    handlers.changed = [this](const QList<MirrorChange> &changes, MirrorOrigin origin) {
        // Asked here, as the changes are told: the recogniser must know an empty value from one
        // too large to read (a proposal, not a lock), as of these changes.
        QHash<QByteArray, qsizetype> unread;
        for (const MirrorChange &change : changes) {
            if (change.kv && change.kv->value.isEmpty() && change.kind != MirrorChange::Kind::Removed) {
                if (const qsizetype bytes = d->mirror->unreadValueBytes(change.key))
                    unread.insert(change.key, bytes);
            }
        }
        QMetaObject::invokeMethod(this, [this, changes, unread, origin, now = QDateTime::currentMSecsSinceEpoch()] {
            d->apply(changes, unread, origin, now);
            if (!d->coalesce.isActive())
                d->coalesce.start();
        }, Qt::QueuedConnection);
    };
    handlers.recovery = [this](const WatchRecoveryEvent &event) {
        if (event.kind == WatchRecoveryKind::Failed)
            QMetaObject::invokeMethod(this, [this, cause = event.cause] { Q_EMIT failed(cause); }, Qt::QueuedConnection);
        else if (event.kind != WatchRecoveryKind::Suspended)
            QMetaObject::invokeMethod(this, [this, kind = event.kind] { Q_EMIT watchRecovered(kind); },
                                      Qt::QueuedConnection);
    };
    d->mirror = new KeyMirror(d->client, d->prefix, KeyRange::prefix(), WatchResilience::defaults(), handlers,
                              d->maxValueBytes);
    // The first objects are in place before the future is seen finished: the first read's
    // changes were queued to this thread before the start finished.
    return thenOn(d->mirror->start(true), this, [this](const Status &status) {
        if (status) {
            // The first read is told whole; events come from the changes after it.
            d->coalesce.stop();
            d->fold(d->index.refresh());
            Q_EMIT objectsChanged(d->takeUntold());
            if (const QList<CoordinationEvent> events = std::exchange(d->untoldEvents, {}); !events.isEmpty())
                Q_EMIT eventsHappened(events);
        }
        return status;
    }, [](const Status &status) { return status; });
}

QList<CoordinationObject> CoordinationMonitor::objects() const
{
    // The index is ahead of the last signal by the changes not told yet: undone here.
    QList<CoordinationObject> objects = d->index.objects();
    const auto sorted = [](const CoordinationObject &a, const CoordinationObject &b) {
        return a.path != b.path ? a.path < b.path : a.kind < b.kind;
    };
    for (const std::optional<CoordinationObjectChange> &untold : d->untold) {
        if (!untold)
            continue;
        const CoordinationObjectChange &change = *untold;
        if (change.type == CoordinationObjectChange::Type::Removed) {
            objects.insert(std::lower_bound(objects.begin(), objects.end(), change.object, sorted) - objects.begin(),
                           change.object);
            continue;
        }
        const auto now = std::find(objects.begin(), objects.end(), change.object);
        if (now == objects.end())
            continue;
        if (change.type == CoordinationObjectChange::Type::Added)
            objects.erase(now);
        else
            *now = change.previous;
    }
    return objects;
}

} // namespace QEtcd
