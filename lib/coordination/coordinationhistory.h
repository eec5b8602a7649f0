#pragma once

#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QFuture>
#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMetaType>
#include <QtCore/QObject>

#include <memory>

namespace QEtcd {

class Client;
class CoordinationHistoryPrivate;

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

    /// "acquired", "handedOn", ... as `qetcd history --json` writes it.
    QString typeName() const;
    /// "deleted", "leaseEnded", ...; empty for Cause::None.
    QString causeName() const;
    /// One line of `qetcd history --json`.
    QJsonObject toJson() const;
    /// One line of `qetcd history`: revision, kind, path and what happened, in words.
    QString toText() const;
    /// Every field is the same.
    bool operator==(const CoordinationEvent &other) const;
};

/// The coordination objects under a prefix as they were at one revision, or why they could not
/// be read.
struct QETCD_EXPORT CoordinationSnapshot
{
    Status status;     ///< Ok, or why not: OutOfRange for a compacted or future revision.
    qint64 revision = 0;  ///< The revision they are as of.
    QList<CoordinationObject> objects;  ///< Sorted by path, then kind.
};

/// Replays etcd's retained history under a prefix as coordination events: who held what, when,
/// and how it changed hands, for any tool's layout the recogniser knows.
///
/// etcd keeps every revision until it is compacted. A replay reads the keys under the prefix as
/// they were at its first revision, then follows every change after it through a watch, up to
/// its last revision, recognising the objects again at each revision that touched them and
/// telling what changed in eventsReady(). Nothing is written: a read-only client is enough.
///
/// What etcd keeps is what it can tell. A replay that asks for compacted revisions begins at the
/// oldest one etcd still has and says so (began()); one whose revisions are compacted while it
/// runs ends with OutOfRange, naming where to begin again. etcd stores no time per revision
/// (RevisionTimes can tell), and no cause for a deletion: a key deleted alone is
/// Cause::Deleted, whoever deleted it.
///
/// The history is watched in windows side by side, as etcd catches up many watches at the cost
/// of one: a long history costs etcd a few passes, not one per thousand revisions. Memory holds
/// the keys under the prefix at one revision and the changes of the windows not yet told (tens
/// of thousands of revisions at most), never the whole history. Events come on the thread the
/// history lives in, in revision order.
class QETCD_EXPORT CoordinationHistory : public QObject
{
    Q_OBJECT
public:
    /// The history under \a prefix, through \a client; nothing is read until start().
    CoordinationHistory(Client *client, const QByteArray &prefix, QObject *parent = nullptr);
    /// Stops a replay still running.
    ~CoordinationHistory() override;
    Q_DISABLE_COPY_MOVE(CoordinationHistory)

    /// The prefix replayed.
    QByteArray prefix() const;
    /// The first revision whose changes are told; 0 (the default): the oldest etcd keeps.
    /// Set it before start().
    void setFromRevision(qint64 revision);
    /// The last revision told; 0 (the default): the store's revision when start() reads it.
    /// Set it before start().
    void setUntilRevision(qint64 revision);

    /// Replays; finishes once every change up to the last revision has been told (Ok), or with
    /// why not: InvalidArgument for a range that is backwards or in the future, Cancelled after
    /// cancel(), or the read's or watch's failure. One-shot.
    QFuture<Status> start();
    /// Stops the replay: start()'s future finishes with Cancelled, and no more events come.
    void cancel();

    /// The coordination objects under \a prefix as of \a revision.
    static QFuture<CoordinationSnapshot> objectsAt(Client *client, const QByteArray &prefix, qint64 revision);

Q_SIGNALS:
    /// The replay read its first state: changes from \a firstRevision to \a untilRevision are
    /// told. \a compactedBefore > 0: etcd had compacted everything before it, and an earlier
    /// first revision was asked for (or none was).
    void began(qint64 firstRevision, qint64 untilRevision, qint64 compactedBefore);
    /// The events of some revisions, in revision order.
    void eventsReady(const QList<QEtcd::CoordinationEvent> &events);
    /// Every change up to \a revision has been told.
    void progressed(qint64 revision);

private:
    std::unique_ptr<CoordinationHistoryPrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::CoordinationEvent)
Q_DECLARE_METATYPE(QEtcd::CoordinationSnapshot)
