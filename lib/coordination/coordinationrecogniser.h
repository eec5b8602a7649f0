// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/coordinationlayouts.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QMetaType>
#include <QtCore/QString>

namespace QEtcd {

/// One key that takes part in a coordination object: a holder, a waiter, a candidate, an
/// arrived member, a service instance.
struct QETCD_EXPORT CoordinationEntry
{
    QByteArray key;    ///< The key.
    QByteArray value;  ///< Its value.
    /// Who: the clientId from qetcd's identity JSON or from an etcd-recipes value
    /// (`<clientId>:<token>` or the clientId itself); empty for tools that write no name
    /// (etcdctl lock, Go's concurrency.Mutex), whose entries are known by their lease.
    QString name;
    QString host;         ///< The host it runs on; qetcd's identity only.
    qint64 pid = 0;       ///< Its process ID; qetcd's identity only.
    qint64 sinceMs = -1;  ///< When it queued, in ms since the epoch (qetcd's identity); -1 when unknown.
    qint64 lease = 0;     ///< The key's lease.
    qint64 createRevision = 0;  ///< A hold's fencing token, a leader's term.
    qint64 modRevision = 0;     ///< The revision that last changed the key.
    /// What a cluster member says it is, from its own JSON value (Patroni's "role":
    /// primary, replica...); empty when it does not say.
    QString role;
    /// What a cluster member says it is doing, from its own JSON value (Patroni's "state":
    /// running, starting...); empty when it does not say.
    QString state;

    /// name, else "lease" and the lease in hex, else the key.
    QString displayName() const;
    /// The value as text, or in hex when it is binary (python3-etcd3's lock writes a UUID's
    /// 16 bytes).
    QString valueText() const;
    /// The value holds bytes that are no text: toJson() writes it as "value_hex".
    bool valueIsBinary() const;
    /// The entry as `qetcd inspect --json` writes it; \a nowMs (ms since the epoch) turns
    /// sinceMs into a wait time.
    QJsonObject toJson(qint64 nowMs) const;
    /// Every field is the same.
    bool operator==(const CoordinationEntry &other) const;
    /// Some field differs.
    bool operator!=(const CoordinationEntry &other) const { return !(*this == other); }
};

/// What the recogniser found under one path. Which fields mean something depends on kind;
/// the others keep their defaults.
struct QETCD_EXPORT CoordinationObject
{
    /// Which coordination object it is.
    enum class Kind {
        /// etcd's lock layout (qetcd DistributedMutex, etcdctl lock, Go, v3lock); one leased
        /// key where a client's convention says it is a lock (python3-etcd3, node etcd3).
        Lock,
        /// etcd's election layout (qetcd, etcdctl elect, Go, v3election), etcd-recipes'
        /// `<path>/LEADER` + `<path>/participants/` and node etcd3's
        /// `election/<name>/<lease id in decimal>`.
        Election,
        ReadWriteLock,   ///< A DistributedReadWriteLock.
        Semaphore,       ///< A DistributedSemaphore.
        Barrier,         ///< A DistributedBarrier that is set.
        CountedBarrier,  ///< A DistributedBarrierWithCount.
        DoubleBarrier,   ///< A DistributedDoubleBarrier.
        Service,         ///< The instances of one service (ServiceRegistry).
        Queue,           ///< A DistributedQueue.
        PriorityQueue,   ///< A DistributedPriorityQueue.
        WorkQueue,       ///< A DistributedWorkQueue.
        Counter,         ///< A DistributedAtomicLong.
        /// A PostgreSQL cluster that Patroni runs: `<namespace>/<scope>/leader` (the leader's
        /// member name, on a lease), `members/<name>` (each member's JSON), `config` and the
        /// others Patroni writes under its scope.
        PostgresCluster,
    };

    Kind kind = Kind::Lock;  ///< Which object it is.
    QByteArray path;  ///< The recipe's path; for a service `<servicePath>/names/<name>`.

    /// Locks, read/write locks, semaphores: who holds, in the order they got in. Elections: the
    /// leader alone. A set barrier: its owner. A counted barrier: the member that opened it.
    /// A PostgreSQL cluster: its leader key, named by the member it names.
    QList<CoordinationEntry> holders;
    /// Waiters in FIFO order (locks, semaphores); candidates behind the leader (elections).
    QList<CoordinationEntry> waiters;
    /// Counted barriers: members arrived; double barriers: members entered; services: instances;
    /// PostgreSQL clusters: the members, by name.
    QList<CoordinationEntry> members;
    QList<CoordinationEntry> leaving;  ///< Double barriers: members at the leave barrier.

    int permits = -1;     ///< Semaphores: N from `<path>/permits`, -1 when not stored.
    bool set = false;     ///< Barriers: the key is there; counted barriers: the round is open.
    qint64 depth = -1;    ///< Queues: items waiting (work queues: ready now).
    qint64 oldestMs = -1; ///< Queues: when the oldest waiting item was put (ms since the epoch).
    qint64 delayed = -1;  ///< Work queues: items scheduled for later.
    qint64 inFlight = -1; ///< Work queues: items claimed and not yet acknowledged.
    qint64 orphans = -1;  ///< Work queues: claims whose consumer's lease is gone.
    qint64 deadLetters = -1;            ///< Work queues: items under dlq/.
    QMap<int, qint64> depthByPriority;  ///< Priority queues: items waiting, by priority.
    qint64 value = 0;                   ///< Counters: the value.
    QList<QByteArray> keys;             ///< Every key that belongs to the object, sorted.
    /// The client convention that made these keys this object ("python3-etcd3 lock"), where
    /// the layout alone would not say, or the name of the operator's DeclaredLayout that did;
    /// empty for the layouts that say it themselves.
    QString rule;

    /// "lock", "election", "readWriteLock", ...
    QString kindName() const;
    /// One object of `qetcd inspect --json`: kind and path first, then what applies to the kind.
    QJsonObject toJson(qint64 nowMs) const;
    /// Every field is the same.
    bool operator==(const CoordinationObject &other) const;
    /// Some field differs.
    bool operator!=(const CoordinationObject &other) const { return !(*this == other); }
};

/// One object that appeared, changed or went since the previous update of a changing set of
/// keys. An object whose kind changed (a lock whose queue turned out to be an election) goes
/// and appears again.
struct QETCD_EXPORT CoordinationObjectChange
{
    /// What happened to the object.
    enum class Type {
        Added,    ///< It appeared.
        Changed,  ///< Its entries or figures changed.
        Removed   ///< It went.
    };
    Type type = Type::Added;      ///< What happened.
    CoordinationObject object;    ///< The object now; Removed: as it was.
    CoordinationObject previous;  ///< Changed: as it was; Added, Removed: empty.
};

/// Tells, from etcd's contents alone, which coordination objects live in a set of keys: the
/// layouts qetcd writes, etcd's own (etcdctl lock/elect, Go's concurrency, v3lock, v3election),
/// etcd-recipes', node etcd3's, python3-etcd3's and Patroni's (under a `service/` segment, its
/// default namespace). A key belongs to at most one object; keys
/// that fit no layout (plain keys, transient keys) are left out.
///
/// A single key on a lease could be a lock or anything else with a lease (a registration): it is
/// a lock only where a client's convention says so, python3-etcd3's `/locks/<name>` with its
/// 16-byte UUID, or a key under a `locks/` path segment (node etcd3's Lock writes a leased empty
/// value at any key the caller picks, which nothing tells apart from other leased keys);
/// CoordinationObject::rule names the convention.
///
/// What etcd cannot tell: a counted barrier's N, a barrier that has been lifted (its key is
/// gone), waiters on a barrier, on python3-etcd3's lock or node etcd3's (they write nothing). A lock's holder and waiters are named
/// only when their tool wrote a name; a queued entry's wait time is known only from qetcd's
/// identity.
class QETCD_EXPORT CoordinationRecogniser
{
public:
    /// Every object among \a kvs, sorted by path, then kind.
    static QList<CoordinationObject> recognise(const QList<KeyValue> &kvs);
    /// The operator's layouts (CoordinationLayouts::load()), tried in their order before the
    /// built-in ones, by every recognition that starts afterwards in the process (a monitor
    /// keeps those it started with). A key a declared layout takes is its object's alone.
    static void setDeclaredLayouts(const QList<DeclaredLayout> &layouts);
    /// The layouts setDeclaredLayouts() gave; none at first.
    static QList<DeclaredLayout> declaredLayouts();
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::CoordinationObject)
Q_DECLARE_METATYPE(QEtcd::CoordinationObjectChange)
