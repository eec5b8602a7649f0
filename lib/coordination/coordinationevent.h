// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMetaType>

namespace QEtcd {

/// One thing that happened to a coordination object at one revision of etcd's history.
struct QETCD_EXPORT CoordinationEvent
{
    /// What happened.
    enum class Type {
        Acquired,         ///< A lock, read/write lock or semaphore was taken by entry.
        HandedOn,         ///< It went from previous to entry in one revision (the next in line).
        Released,         ///< entry's hold ended and nobody took it at that revision (cause says how).
        WaiterJoined,     ///< entry queued for a lock or semaphore.
        WaiterLeft,       ///< entry left the queue without holding.
        Elected,          ///< entry leads an election (previous led before it, if anyone did).
        LeaderEnded,      ///< entry's term ended and nobody leads (cause says how).
        CandidateJoined,  ///< entry stood in an election.
        CandidateLeft,    ///< entry withdrew from an election without leading.
        BarrierSet,       ///< entry set a barrier.
        BarrierLifted,    ///< The barrier entry set came down (cause says how).
        MemberArrived,    ///< entry arrived at a counted or double barrier.
        MemberLeft,       ///< entry left a counted or double barrier.
        RoundOpened,      ///< A counted barrier's round opened.
        RoundReleased,    ///< A counted barrier's round was released (its count was reached).
        InstanceUp,       ///< A service instance registered.
        InstanceDown,     ///< A service instance went (cause says how).
        ItemsPut,         ///< count items went into a queue.
        ItemsTaken,       ///< count items left a queue.
        CounterChanged,   ///< A counter went from previousCount to count.
        /// A presence entry (a barrier's owner, a service instance, a candidate) came back under
        /// its own name on a new lease, count revisions after it went: its owner healed it.
        Healed,
    };
    /// How an entry's key went, where a departure can tell.
    enum class Cause {
        None,              ///< Not a departure.
        /// The key was deleted, alone among the keys under the prefix: released by its holder,
        /// deleted by someone, or the end of a lease that carried it alone; etcd does not say which.
        Deleted,
        LeaseEnded,        ///< Its lease ended, taking several keys under the prefix with it at once.
        RemovedByOwner,    ///< A qetcd barrier's owner took it down (its `;removing` mark).
        LiftedByOperator,  ///< An operator lifted it (the `;lifted` mark of an intervention).
    };

    qint64 revision = 0;  ///< The revision it happened at.
    Type type = Type::Acquired;  ///< What happened.
    CoordinationObject::Kind kind = CoordinationObject::Kind::Lock;  ///< The object's kind.
    QByteArray path;          ///< The object's path.
    CoordinationEntry entry;  ///< Who: the holder, waiter, leader, owner, member or instance.
    /// HandedOn and Elected: who had it before; Healed: the entry as it was before it went.
    CoordinationEntry previous;
    Cause cause = Cause::None;  ///< Departures: how the key went.
    /// ItemsPut, ItemsTaken: how many; CounterChanged: the new value; Healed: revisions between.
    qint64 count = 0;
    qint64 previousCount = 0;  ///< CounterChanged: the value before.
    QString rule;              ///< The client convention that made the object, if one did.
    /// When it was seen to happen, in ms since the epoch: known to a live CoordinationMonitor,
    /// -1 in a replay (etcd keeps no time per revision; RevisionTimes can bound it).
    qint64 timeMs = -1;
    /// Healed, seen live: how long the entry was gone, in ms; -1 otherwise.
    qint64 goneMs = -1;

    /// "acquired", "handedOn", ... as `qetcd history --json` writes it.
    QString typeName() const;
    /// "deleted", "leaseEnded", ...; empty for Cause::None.
    QString causeName() const;
    /// One line of `qetcd history --json`.
    QJsonObject toJson() const;
    /// One line of `qetcd history`: revision, kind, path and what happened, in words.
    QString toText() const;
    /// What happened, in words, without revision, kind and path: "handed on from A to B (token 7)".
    QString summary() const;
    /// Every field is the same.
    bool operator==(const CoordinationEvent &other) const;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::CoordinationEvent)
