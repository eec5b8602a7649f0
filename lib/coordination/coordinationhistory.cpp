#include "coordinationhistory.h"

#include "barriermarks_p.h"
#include "client.h"
#include "compacted_p.h"
#include "continuation_p.h"
#include "coordinationindex_p.h"
#include "keymirror_p.h"
#include "watcher.h"

#include <QtCore/QHash>
#include <QtCore/QPromise>
#include <QtCore/QTimer>

#include <atomic>
#include <deque>
#include <map>
#include <optional>

namespace QEtcd {

using namespace Internal;

namespace {
using Kind = CoordinationObject::Kind;
using Type = CoordinationEvent::Type;
using Cause = CoordinationEvent::Cause;

// The entries of a that b does not have, by key, in a's order.
QList<CoordinationEntry> minus(const QList<CoordinationEntry> &a, const QList<CoordinationEntry> &b)
{
    QList<CoordinationEntry> rest;
    for (const CoordinationEntry &entry : a) {
        if (std::none_of(b.begin(), b.end(), [&entry](const CoordinationEntry &other) { return other.key == entry.key; }))
            rest.append(entry);
    }
    return rest;
}

bool holdsKey(const QList<CoordinationEntry> &entries, const QByteArray &key)
{
    return std::any_of(entries.begin(), entries.end(), [&key](const CoordinationEntry &entry) { return entry.key == key; });
}

// The keys under the prefix one revision deleted, with what they were.
struct Removals
{
    QHash<QByteArray, KeyValue> keys;
    QHash<qint64, int> perLease;
};

// Turns the objects that changed at one revision into what happened to them, and remembers the
// presence entries that went, to tell when their owner brings them back on a new lease.
class EventDeriver
{
public:
    // How many departed presence entries are remembered for a heal; older ones are forgotten.
    static constexpr int MaxRemembered = 4096;

    QList<CoordinationEvent> derive(qint64 revision, const QList<CoordinationObjectChange> &changes,
                                    const Removals &removals, const std::map<QByteArray, KeyValue> &state)
    {
        m_revision = revision;
        m_removals = &removals;
        m_state = &state;
        m_events.clear();
        for (const CoordinationObjectChange &change : changes) {
            const CoordinationObject none;
            const CoordinationObject &now = change.type == CoordinationObjectChange::Type::Removed ? none : change.object;
            const CoordinationObject &before = change.type == CoordinationObjectChange::Type::Added     ? none
                                             : change.type == CoordinationObjectChange::Type::Changed ? change.previous
                                                                                                       : change.object;
            m_object = &change.object;
            describe(before, now);
        }
        return m_events;
    }

private:
    void describe(const CoordinationObject &before, const CoordinationObject &now)
    {
        switch (m_object->kind) {
        case Kind::Lock:
        case Kind::ReadWriteLock:
        case Kind::Semaphore:
            return handOver(before, now, Type::Acquired, Type::Released, Type::WaiterJoined, Type::WaiterLeft);
        case Kind::Election:
            return handOver(before, now, Type::Elected, Type::LeaderEnded, Type::CandidateJoined, Type::CandidateLeft);
        case Kind::PostgresCluster:
            // Patroni's leader key changes hands like an election's leader; its members come and go.
            handOver(before, now, Type::Elected, Type::LeaderEnded, Type::CandidateJoined, Type::CandidateLeft);
            return comeAndGo(before.members, now.members, Type::MemberArrived, Type::MemberLeft);
        case Kind::Barrier:
            return comeAndGo(before.holders, now.holders, Type::BarrierSet, Type::BarrierLifted);
        case Kind::CountedBarrier:
            comeAndGo(before.members, now.members, Type::MemberArrived, Type::MemberLeft);
            if (now.set != before.set)
                add(now.set ? Type::RoundOpened : Type::RoundReleased, now.holders.value(0));
            return;
        case Kind::DoubleBarrier:
            return comeAndGo(before.members, now.members, Type::MemberArrived, Type::MemberLeft);
        case Kind::Service:
            return comeAndGo(before.members, now.members, Type::InstanceUp, Type::InstanceDown);
        case Kind::Queue:
        case Kind::PriorityQueue:
        case Kind::WorkQueue: {
            const qint64 moved = std::max<qint64>(now.depth, 0) - std::max<qint64>(before.depth, 0);
            if (moved != 0)
                add(moved > 0 ? Type::ItemsPut : Type::ItemsTaken, {}).count = moved > 0 ? moved : -moved;
            return;
        }
        case Kind::Counter:
            if (now.value != before.value || before.keys.isEmpty() != now.keys.isEmpty()) {
                CoordinationEvent &changed = add(Type::CounterChanged, {});
                changed.count = now.value;
                changed.previousCount = before.value;
            }
            return;
        }
    }

    // Holders and waiters: a holder that went and one that came in the same revision is a
    // hand-over (etcd's lock passes by the next key becoming the lowest).
    void handOver(const CoordinationObject &before, const CoordinationObject &now, Type took, Type ended, Type queued,
                  Type leftQueue)
    {
        const QList<CoordinationEntry> went = minus(before.holders, now.holders);
        const QList<CoordinationEntry> came = minus(now.holders, before.holders);
        for (qsizetype i = 0; i < came.size(); ++i) {
            const bool handed = i < went.size();
            CoordinationEvent &event = add(handed && took == Type::Acquired ? Type::HandedOn : took, came[i]);
            if (handed)
                event.previous = went[i];
            noticeArrival(came[i]);
        }
        for (qsizetype i = came.size(); i < went.size(); ++i)
            depart(ended, went[i]);
        for (const CoordinationEntry &waiter : minus(before.waiters, now.waiters)) {
            if (!holdsKey(now.holders, waiter.key))
                depart(leftQueue, waiter);
        }
        for (const CoordinationEntry &waiter : minus(now.waiters, before.waiters)) {
            if (!holdsKey(before.holders, waiter.key)) {
                add(queued, waiter);
                noticeArrival(waiter);
            }
        }
    }

    void comeAndGo(const QList<CoordinationEntry> &before, const QList<CoordinationEntry> &now, Type came, Type went)
    {
        for (const CoordinationEntry &entry : minus(now, before)) {
            add(came, entry);
            noticeArrival(entry);
        }
        for (const CoordinationEntry &entry : minus(before, now))
            depart(went, entry);
    }

    CoordinationEvent &add(Type type, const CoordinationEntry &entry)
    {
        CoordinationEvent event;
        event.revision = m_revision;
        event.type = type;
        event.kind = m_object->kind;
        event.path = m_object->path;
        event.entry = entry;
        event.rule = m_object->rule;
        m_events.append(event);
        return m_events.last();
    }

    void depart(Type type, const CoordinationEntry &entry)
    {
        add(type, entry).cause = causeOf(entry);
        if (!isPresence() || entry.name.isEmpty())
            return;
        const auto key = std::make_pair(m_object->path, entry.name);
        m_departed[key] = Departure{m_revision, entry};
        m_departureOrder.push_back(key);
        while (m_departureOrder.size() > MaxRemembered) {
            m_departed.erase(m_departureOrder.front());
            m_departureOrder.pop_front();
        }
    }

    // A presence entry back under the name of one that went, on another lease: healed.
    void noticeArrival(const CoordinationEntry &entry)
    {
        if (!isPresence() || entry.name.isEmpty())
            return;
        const auto found = m_departed.find(std::make_pair(m_object->path, entry.name));
        if (found == m_departed.end() || found->second.entry.lease == entry.lease)
            return;
        CoordinationEvent &healed = add(Type::Healed, entry);
        healed.previous = found->second.entry;
        healed.count = m_revision - found->second.revision;
        m_departed.erase(found);
    }

    // A barrier's owner, a service instance and a candidate keep their keys by a healing lease.
    bool isPresence() const
    {
        return m_object->kind == Kind::Barrier || m_object->kind == Kind::Service || m_object->kind == Kind::Election;
    }

    Cause causeOf(const CoordinationEntry &entry) const
    {
        if (const auto gone = m_removals->keys.constFind(entry.key); gone != m_removals->keys.constEnd())
            return gone->lease != 0 && m_removals->perLease.value(gone->lease) > 1 ? Cause::LeaseEnded : Cause::Deleted;
        // Still there, and no longer the object's: a qetcd barrier's mark before its deletion.
        if (const auto kept = m_state->find(entry.key); kept != m_state->end()) {
            if (kept->second.value.endsWith(barrierRemovingSuffix))
                return Cause::RemovedByOwner;
            if (kept->second.value.endsWith(barrierLiftedSuffix))
                return Cause::LiftedByOperator;
        }
        return Cause::None;
    }

    struct Departure
    {
        qint64 revision = 0;
        CoordinationEntry entry;
    };
    using PathAndName = std::pair<QByteArray, QString>;

    qint64 m_revision = 0;
    const CoordinationObject *m_object = nullptr;
    const Removals *m_removals = nullptr;
    const std::map<QByteArray, KeyValue> *m_state = nullptr;
    QList<CoordinationEvent> m_events;
    std::map<PathAndName, Departure> m_departed;
    std::deque<PathAndName> m_departureOrder;
};
} // namespace

QString CoordinationEvent::typeName() const
{
    static const char *const names[] = {"acquired",     "handedOn",      "released",      "waiterJoined",  "waiterLeft",
                                        "elected",      "leaderEnded",   "candidateJoined", "candidateLeft", "barrierSet",
                                        "barrierLifted", "memberArrived", "memberLeft",    "roundOpened",   "roundReleased",
                                        "instanceUp",   "instanceDown",  "itemsPut",      "itemsTaken",    "counterChanged",
                                        "healed"};
    return QString::fromLatin1(names[int(type)]);
}

QString CoordinationEvent::causeName() const
{
    switch (cause) {
    case Cause::None:
        return {};
    case Cause::Deleted:
        return QStringLiteral("deleted");
    case Cause::LeaseEnded:
        return QStringLiteral("leaseEnded");
    case Cause::RemovedByOwner:
        return QStringLiteral("removedByOwner");
    case Cause::LiftedByOperator:
        return QStringLiteral("liftedByOperator");
    }
    return {};
}

QJsonObject CoordinationEvent::toJson() const
{
    CoordinationObject object;
    object.kind = kind;
    QJsonObject json{{QLatin1String("revision"), revision},
                     {QLatin1String("event"), typeName()},
                     {QLatin1String("kind"), object.kindName()},
                     {QLatin1String("path"), QString::fromUtf8(path)}};
    if (!entry.key.isEmpty()) {
        json.insert(QLatin1String("who"), entry.displayName());
        json.insert(QLatin1String("key"), QString::fromUtf8(entry.key));
        json.insert(QLatin1String("token"), entry.createRevision);
        if (entry.lease)
            json.insert(QLatin1String("lease_id"), leaseIdText(entry.lease));
    }
    if (!previous.key.isEmpty()) {
        json.insert(QLatin1String("previous_who"), previous.displayName());
        json.insert(QLatin1String("previous_key"), QString::fromUtf8(previous.key));
        if (previous.lease)
            json.insert(QLatin1String("previous_lease_id"), leaseIdText(previous.lease));
    }
    if (cause != Cause::None)
        json.insert(QLatin1String("cause"), causeName());
    if (type == Type::ItemsPut || type == Type::ItemsTaken || type == Type::CounterChanged || type == Type::Healed)
        json.insert(type == Type::Healed ? QLatin1String("after_revisions") : QLatin1String("count"), count);
    if (type == Type::CounterChanged)
        json.insert(QLatin1String("previous_count"), previousCount);
    if (!rule.isEmpty())
        json.insert(QLatin1String("rule"), rule);
    return json;
}

QString CoordinationEvent::toText() const
{
    // A candidate that wrote no name is known by its proposal as well as by its lease.
    const auto named = [this](const CoordinationEntry &each) {
        return kind == Kind::Election && each.name.isEmpty() && !each.value.isEmpty()
            ? QStringLiteral("\"%1\" (%2)").arg(each.valueText(), each.displayName())
            : each.displayName();
    };
    const QString who = named(entry);
    const QString how = cause == Cause::Deleted            ? QStringLiteral(" (key deleted)")
                      : cause == Cause::LeaseEnded         ? QStringLiteral(" (its lease ended)")
                      : cause == Cause::RemovedByOwner     ? QStringLiteral(" (removed by its owner)")
                      : cause == Cause::LiftedByOperator   ? QStringLiteral(" (lifted by an operator)")
                                                           : QString();
    QString what;
    switch (type) {
    case Type::Acquired:
        what = QStringLiteral("acquired by %1 (token %2)").arg(who).arg(entry.createRevision);
        break;
    case Type::HandedOn:
        what = QStringLiteral("handed on from %1 to %2 (token %3)").arg(named(previous), who).arg(entry.createRevision);
        break;
    case Type::Released:
        what = QStringLiteral("released by %1%2").arg(who, how);
        break;
    case Type::WaiterJoined:
        what = QStringLiteral("%1 waits").arg(who);
        break;
    case Type::WaiterLeft:
        what = QStringLiteral("%1 stopped waiting%2").arg(who, how);
        break;
    case Type::Elected:
        what = previous.key.isEmpty() ? QStringLiteral("%1 elected (term %2)").arg(who).arg(entry.createRevision)
                                      : QStringLiteral("%1 elected after %2 (term %3)")
                                            .arg(who, named(previous))
                                            .arg(entry.createRevision);
        break;
    case Type::LeaderEnded:
        what = QStringLiteral("%1 no longer leads%2").arg(who, how);
        break;
    case Type::CandidateJoined:
        what = QStringLiteral("%1 stands").arg(who);
        break;
    case Type::CandidateLeft:
        what = QStringLiteral("%1 withdrew%2").arg(who, how);
        break;
    case Type::BarrierSet:
        what = QStringLiteral("set by %1").arg(who);
        break;
    case Type::BarrierLifted:
        what = QStringLiteral("lifted, set by %1%2").arg(who, how);
        break;
    case Type::MemberArrived:
        what = QStringLiteral("%1 arrived").arg(who);
        break;
    case Type::MemberLeft:
        what = QStringLiteral("%1 left%2").arg(who, how);
        break;
    case Type::RoundOpened:
        what = QStringLiteral("round opened by %1").arg(who);
        break;
    case Type::RoundReleased:
        what = QStringLiteral("round released");
        break;
    case Type::InstanceUp:
        what = QStringLiteral("instance %1 up").arg(who);
        break;
    case Type::InstanceDown:
        what = QStringLiteral("instance %1 down%2").arg(who, how);
        break;
    case Type::ItemsPut:
        what = QStringLiteral("%1 item(s) put").arg(count);
        break;
    case Type::ItemsTaken:
        what = QStringLiteral("%1 item(s) taken").arg(count);
        break;
    case Type::CounterChanged:
        what = QStringLiteral("%1 -> %2").arg(previousCount).arg(count);
        break;
    case Type::Healed:
        what = QStringLiteral("%1 healed after %2 revision(s), lease %3 -> %4")
                   .arg(who)
                   .arg(count)
                   .arg(leaseIdText(previous.lease), leaseIdText(entry.lease));
        break;
    }
    CoordinationObject object;
    object.kind = kind;
    return QStringLiteral("%1  %2 %3: %4").arg(revision).arg(object.kindName(), QString::fromUtf8(path), what);
}

bool CoordinationEvent::operator==(const CoordinationEvent &other) const
{
    return revision == other.revision && type == other.type && kind == other.kind && path == other.path
        && entry == other.entry && previous == other.previous && cause == other.cause && count == other.count
        && previousCount == other.previousCount && rule == other.rule;
}

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

    std::deque<Window> windows;
    qint64 nextWindow = 0;  // the first revision of the next window to open
    CoordinationIndex index;
    std::map<QByteArray, KeyValue> state;  // the keys under the prefix as of lastTold
    EventDeriver deriver;
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

    // The store's revision, and the first revision whose changes can be told from first.
    void begin()
    {
        RangeOptions probe;
        probe.countOnly = true;
        probe.range = KeyRange::prefix();  // an empty prefix (every key) is no single key
        thenOn(client->get(prefix, probe), q, [this](const RangeResult &now) {
            if (!now.status)
                return finish(now.status.withContext(QStringLiteral("read the store's revision")));
            const qint64 current = now.header.revision;
            if (until > current) {
                return finish(Status(StatusCode::InvalidArgument, QStringLiteral("revision %1 is in the future: the store is at %2")
                                                                      .arg(until)
                                                                      .arg(current)));
            }
            until = until > 0 ? until : current;
            // Beginning right after the end tells nothing, which is an answer ("since 10m": nothing).
            if (from > until + 1) {
                return finish(Status(StatusCode::InvalidArgument,
                                     QStringLiteral("the replay would begin at revision %1, after its end at %2").arg(from).arg(until)));
            }
            const qint64 asked = from > 0 ? from - 1 : 1;
            findReadable(asked, asked, until, asked);
        });
    }

    // Searches [low, high] for the oldest revision etcd can still read (it compacted the ones
    // before): the replay's state is read there.
    void findReadable(qint64 asked, qint64 low, qint64 high, qint64 probe)
    {
        RangeOptions options;
        options.countOnly = true;
        options.range = KeyRange::prefix();
        options.revision = probe;
        thenOn(client->get(prefix, options), q, [=, this](const RangeResult &read) {
            if (read.status && probe == asked)
                return replayFrom(asked, 0);
            if (!read.status && !isCompacted(read.status))
                return finish(read.status.withContext(QStringLiteral("read revision %1").arg(probe)));
            const qint64 nextLow = read.status ? low : probe + 1;
            const qint64 nextHigh = read.status ? probe : high;
            if (nextLow >= nextHigh)
                return replayFrom(nextHigh, nextHigh);
            findReadable(asked, nextLow, nextHigh, nextLow + (nextHigh - nextLow) / 2);
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
            if (lastTold >= until)
                return finish(Status());
            openWindows();
            quiet.start();
        });
    }

    void openWindows()
    {
        while (windows.size() < Windows && nextWindow <= until) {
            Window window;
            window.first = nextWindow;
            window.last = std::min(until, nextWindow + WindowRevisions - 1);
            nextWindow = window.last + 1;
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
                return;
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
            Removals removals;
            for (; at < events.size() && events[at].kv.modRevision == revision; ++at) {
                const WatchEvent &event = events[at];
                if (event.type == WatchEvent::Type::Put) {
                    state[event.kv.key] = event.kv;
                    index.put(event.kv);
                    continue;
                }
                if (const auto held = state.find(event.kv.key); held != state.end()) {
                    removals.keys.insert(held->first, held->second);
                    if (held->second.lease)
                        ++removals.perLease[held->second.lease];
                    state.erase(held);
                }
                index.remove(event.kv.key);
            }
            told += deriver.derive(revision, index.refresh(), removals, state);
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
        if (!done)
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
            if (atEnd.status && nothingHeld && atEnd.count == qint64(state.size()) && newestThere == newestHere)
                return finish(Status());
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
