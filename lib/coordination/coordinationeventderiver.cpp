// SPDX-License-Identifier: Apache-2.0
#include "coordinationeventderiver_p.h"

#include "barriermarks_p.h"

#include <algorithm>

namespace QEtcd::Internal {

namespace {
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
} // namespace

QList<CoordinationEvent> CoordinationEventDeriver::derive(const RevisionChanges &revision,
                                                          const QList<CoordinationObjectChange> &changes)
{
    m_revision = &revision;
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
    m_revision = nullptr;
    return std::exchange(m_events, {});
}

void CoordinationEventDeriver::describe(const CoordinationObject &before, const CoordinationObject &now)
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
void CoordinationEventDeriver::handOver(const CoordinationObject &before, const CoordinationObject &now, Type took,
                                        Type ended, Type queued, Type leftQueue)
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

void CoordinationEventDeriver::comeAndGo(const QList<CoordinationEntry> &before, const QList<CoordinationEntry> &now,
                                         Type came, Type went)
{
    for (const CoordinationEntry &entry : minus(now, before)) {
        add(came, entry);
        noticeArrival(entry);
    }
    for (const CoordinationEntry &entry : minus(before, now))
        depart(went, entry);
}

CoordinationEvent &CoordinationEventDeriver::add(Type type, const CoordinationEntry &entry)
{
    CoordinationEvent event;
    event.revision = m_revision->revision;
    event.timeMs = m_revision->timeMs;
    event.type = type;
    event.kind = m_object->kind;
    event.path = m_object->path;
    event.entry = entry;
    event.rule = m_object->rule;
    m_events.append(event);
    return m_events.last();
}

void CoordinationEventDeriver::depart(Type type, const CoordinationEntry &entry)
{
    add(type, entry).cause = causeOf(entry);
    if (!isPresence() || entry.name.isEmpty())
        return;
    const auto key = std::make_pair(m_object->path, entry.name);
    m_departed[key] = Departure{m_revision->revision, m_revision->timeMs, entry};
    m_departureOrder.push_back(key);
    while (m_departureOrder.size() > MaxRemembered) {
        m_departed.erase(m_departureOrder.front());
        m_departureOrder.pop_front();
    }
}

// A presence entry back under the name of one that went, on another lease: healed.
void CoordinationEventDeriver::noticeArrival(const CoordinationEntry &entry)
{
    if (!isPresence() || entry.name.isEmpty())
        return;
    const auto found = m_departed.find(std::make_pair(m_object->path, entry.name));
    if (found == m_departed.end() || found->second.entry.lease == entry.lease)
        return;
    CoordinationEvent &healed = add(Type::Healed, entry);
    healed.previous = found->second.entry;
    healed.count = m_revision->revision - found->second.revision;
    if (m_revision->timeMs >= 0 && found->second.timeMs >= 0)
        healed.goneMs = m_revision->timeMs - found->second.timeMs;
    m_departed.erase(found);
}

// A barrier's owner, a service instance and a candidate keep their keys by a healing lease.
bool CoordinationEventDeriver::isPresence() const
{
    return m_object->kind == Kind::Barrier || m_object->kind == Kind::Service || m_object->kind == Kind::Election;
}

CoordinationEvent::Cause CoordinationEventDeriver::causeOf(const CoordinationEntry &entry) const
{
    if (const auto gone = m_revision->removed.constFind(entry.key); gone != m_revision->removed.constEnd())
        return gone->lease != 0 && m_revision->removedPerLease.value(gone->lease) > 1 ? Cause::LeaseEnded : Cause::Deleted;
    // Rewritten at this revision and no longer the object's: a qetcd barrier's mark before its
    // deletion. An entry whose key was not touched left because of other keys: no cause of its own.
    if (const auto marked = m_revision->written.constFind(entry.key); marked != m_revision->written.constEnd()) {
        if (marked->value.endsWith(barrierRemovingSuffix))
            return Cause::RemovedByOwner;
        if (marked->value.endsWith(barrierLiftedSuffix))
            return Cause::LiftedByOperator;
    }
    return Cause::None;
}

} // namespace QEtcd::Internal
