// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/coordinationevent.h>
#include <QEtcd/kvtypes.h>

#include <QtCore/QHash>

#include <deque>
#include <map>

namespace QEtcd::Internal {

// What one revision did to the keys under a prefix, as far as telling its events needs.
struct RevisionChanges
{
    qint64 revision = 0;
    qint64 timeMs = -1;  // when it was seen to happen; -1 in a replay, where etcd keeps no time
    QHash<QByteArray, KeyValue> removed;  // the keys it deleted, as they were
    QHash<qint64, int> removedPerLease;   // how many of them each lease carried
    QHash<QByteArray, KeyValue> written;  // the keys it put, as they are now

    void remove(const KeyValue &was)
    {
        removed.insert(was.key, was);
        if (was.lease)
            ++removedPerLease[was.lease];
    }
};

// Turns the objects that changed at one revision into what happened to them, and remembers the
// presence entries that went, to tell when their owner brings them back on a new lease. A replay
// and a live monitor use one each, revision by revision: a heal is a departure at one revision
// and an arrival at a later one, which a batch of several revisions would hide.
class CoordinationEventDeriver
{
public:
    // How many departed presence entries are remembered for a heal; older ones are forgotten.
    static constexpr int MaxRemembered = 4096;

    QList<CoordinationEvent> derive(const RevisionChanges &revision, const QList<CoordinationObjectChange> &changes);

private:
    using Kind = CoordinationObject::Kind;
    using Type = CoordinationEvent::Type;
    using Cause = CoordinationEvent::Cause;

    void describe(const CoordinationObject &before, const CoordinationObject &now);
    void handOver(const CoordinationObject &before, const CoordinationObject &now, Type took, Type ended, Type queued,
                  Type leftQueue);
    void comeAndGo(const QList<CoordinationEntry> &before, const QList<CoordinationEntry> &now, Type came, Type went);
    CoordinationEvent &add(Type type, const CoordinationEntry &entry);
    void depart(Type type, const CoordinationEntry &entry);
    void noticeArrival(const CoordinationEntry &entry);
    bool isPresence() const;
    Cause causeOf(const CoordinationEntry &entry) const;

    struct Departure
    {
        qint64 revision = 0;
        qint64 timeMs = -1;
        CoordinationEntry entry;
    };
    using PathAndName = std::pair<QByteArray, QString>;

    const RevisionChanges *m_revision = nullptr;
    const CoordinationObject *m_object = nullptr;
    QList<CoordinationEvent> m_events;
    std::map<PathAndName, Departure> m_departed;
    std::deque<PathAndName> m_departureOrder;
};

} // namespace QEtcd::Internal
