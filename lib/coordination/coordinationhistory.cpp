#include "coordinationhistory.h"

#include "barriermarks_p.h"
#include "client.h"
#include "continuation_p.h"
#include "coordinationindex_p.h"
#include "keymirror_p.h"

#include <QtCore/QHash>
#include <QtCore/QPromise>
#include <QtCore/QTimer>

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

bool isCompacted(const Status &status)
{
    return status.code() == StatusCode::OutOfRange && status.message().contains(QLatin1String("compacted"));
}
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
    CoordinationHistory *q = nullptr;
    Client *client = nullptr;
    QByteArray prefix;
    qint64 from = 0;
    qint64 until = 0;
    bool started = false;

    KeyMirror *mirror = nullptr;  // on the client's dispatcher thread
    CoordinationIndex index;
    std::map<QByteArray, KeyValue> state;  // the keys under the prefix as of lastTold
    EventDeriver deriver;
    qint64 lastTold = 0;
    qint64 compacted = 0;  // the revision etcd compacted up to, when the replay had to begin there
    QTimer quiet;  // no news for a while: has the replay reached its end?
    std::shared_ptr<QPromise<Status>> done;

    void finish(const Status &status)
    {
        if (!done)
            return;
        quiet.stop();
        if (mirror) {
            mirror->close();
            mirror->deleteLater();
            mirror = nullptr;
        }
        const std::shared_ptr<QPromise<Status>> promise = std::exchange(done, nullptr);
        if (status && lastTold < until) {
            lastTold = until;
            Q_EMIT q->progressed(until);
        }
        promise->addResult(status);
        promise->finish();
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
            if (from > until) {
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
        lastTold = stateRevision;
        KeyMirror::Handlers handlers;
        handlers.changed = [this](const QList<MirrorChange> &changes, MirrorOrigin origin) {
            QMetaObject::invokeMethod(q, [this, changes, origin] { apply(changes, origin); }, Qt::QueuedConnection);
        };
        handlers.recovery = [this](const WatchRecoveryEvent &event) {
            QMetaObject::invokeMethod(q, [this, event] { recover(event); }, Qt::QueuedConnection);
        };
        mirror = new KeyMirror(client, prefix, KeyRange::prefix(), WatchResilience::defaults(), handlers);
        compacted = compactedBefore;
        thenOn(mirror->start(true, stateRevision), q, [this, stateRevision](const Status &watching) {
            if (!watching)
                return finish(watching.withContext(QStringLiteral("replay from revision %1").arg(stateRevision + 1)));
            if (done)
                quiet.start();
        });
    }

    void apply(const QList<MirrorChange> &changes, MirrorOrigin origin)
    {
        if (!done)
            return;
        if (origin != MirrorOrigin::Watch) {
            // The first state, or one read again after a compaction: no events, only a new start.
            for (const MirrorChange &change : changes)
                put(change);
            index.refresh();
            // Told here, not when the watch is created: its first changes may already be queued
            // behind this state.
            if (origin == MirrorOrigin::Snapshot) {
                Q_EMIT q->began(lastTold + 1, until, compacted);
                if (lastTold >= until)
                    finish(Status());
            }
            return;
        }
        quiet.start();
        QList<CoordinationEvent> events;
        qsizetype at = 0;
        while (at < changes.size()) {
            const qint64 revision = changes[at].revision;
            if (revision > until) {
                flush(events);
                return finish(Status());
            }
            Removals removals;
            for (; at < changes.size() && changes[at].revision == revision; ++at) {
                if (changes[at].kind == MirrorChange::Kind::Removed && changes[at].kv) {
                    removals.keys.insert(changes[at].key, *changes[at].kv);
                    if (changes[at].kv->lease)
                        ++removals.perLease[changes[at].kv->lease];
                }
                put(changes[at]);
            }
            events += deriver.derive(revision, index.refresh(), removals, state);
            lastTold = revision;
        }
        flush(events);
        if (lastTold >= until)
            finish(Status());
    }

    void put(const MirrorChange &change)
    {
        if (change.kind == MirrorChange::Kind::Removed) {
            state.erase(change.key);
            index.remove(change.key);
        } else {
            state[change.key] = *change.kv;
            index.put(*change.kv);
        }
    }

    void flush(const QList<CoordinationEvent> &events)
    {
        if (!events.isEmpty())
            Q_EMIT q->eventsReady(events);
        Q_EMIT q->progressed(lastTold);
    }

    void recover(const WatchRecoveryEvent &event)
    {
        if (!done)
            return;
        if (event.kind == WatchRecoveryKind::Failed)
            return finish(event.cause.withContext(QStringLiteral("replay at revision %1").arg(lastTold + 1)));
        if (event.kind != WatchRecoveryKind::Resynced)
            return;
        const qint64 readAgainAt = event.anchorRevision - 1;
        Q_EMIT q->historyLost(lastTold + 1, readAgainAt);
        lastTold = std::max(lastTold, readAgainAt);
        if (lastTold >= until)
            finish(Status());
    }

    // etcd says nothing when a replay has caught up with no more changes to tell: after a quiet
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
            if (atEnd.status && atEnd.count == qint64(state.size()) && newestThere == newestHere)
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
