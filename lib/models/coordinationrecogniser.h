#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QMetaType>
#include <QtCore/QString>

namespace QEtcd {

// One key that takes part in a coordination object: a holder, a waiter, a candidate, an
// arrived member, a service instance.
struct QETCD_EXPORT CoordinationEntry
{
    QByteArray key;
    QByteArray value;
    // Who: the clientId from qetcd's identity JSON or from an etcd-recipes value
    // ("<clientId>:<token>" or the clientId itself); empty for tools that write no name
    // (etcdctl lock, Go's concurrency.Mutex), whose entries are known by their lease.
    QString name;
    QString host;         // qetcd's identity only
    qint64 pid = 0;       // qetcd's identity only
    qint64 sinceMs = -1;  // ms since the epoch it queued (qetcd's identity), -1 when unknown
    qint64 lease = 0;
    qint64 createRevision = 0;  // a hold's fencing token, a leader's term
    qint64 modRevision = 0;

    QString displayName() const;  // name, else "lease <hex>", else the key
    QJsonObject toJson(qint64 nowMs) const;
    bool operator==(const CoordinationEntry &other) const;
    bool operator!=(const CoordinationEntry &other) const { return !(*this == other); }
};

// What the recogniser found under one path. Which fields mean something depends on kind;
// the others keep their defaults.
struct QETCD_EXPORT CoordinationObject
{
    enum class Kind {
        Lock,           // etcd's lock layout: qetcd DistributedMutex, etcdctl lock, Go, v3lock
        // etcd's election layout (qetcd, etcdctl elect, Go, v3election) and etcd-recipes'
        // <path>/LEADER + <path>/participants/
        Election,
        ReadWriteLock,
        Semaphore,
        Barrier,
        CountedBarrier,
        DoubleBarrier,
        Service,
        Queue,
        PriorityQueue,
        WorkQueue,
        Counter,
    };

    Kind kind = Kind::Lock;
    QByteArray path;  // the recipe's path; for a service <servicePath>/names/<name>

    // Locks, read/write locks, semaphores: who holds, in the order they got in. Elections: the
    // leader alone. A set barrier: its owner. A counted barrier: the member that opened it.
    QList<CoordinationEntry> holders;
    // Waiters in FIFO order (locks, semaphores); candidates behind the leader (elections).
    QList<CoordinationEntry> waiters;
    // Counted barriers: members arrived; double barriers: members entered; services: instances.
    QList<CoordinationEntry> members;
    QList<CoordinationEntry> leaving;  // double barriers: members at the leave barrier

    int permits = -1;     // semaphores: N from <path>/permits, -1 when not stored
    bool set = false;     // barriers: the key is there; counted barriers: the round is open
    qint64 depth = -1;    // queues: items waiting (work queues: ready now)
    qint64 oldestMs = -1; // queues: when the oldest waiting item was put (ms since the epoch)
    qint64 delayed = -1;  // work queues: items scheduled for later
    qint64 inFlight = -1; // work queues: items claimed and not yet acknowledged
    qint64 orphans = -1;  // work queues: claims whose consumer's lease is gone
    qint64 deadLetters = -1;
    QMap<int, qint64> depthByPriority;  // priority queues
    qint64 value = 0;                   // counters
    QList<QByteArray> keys;             // every key that belongs to the object, sorted

    QString kindName() const;  // "lock", "election", "readWriteLock", ...
    // One object of `qetcd inspect --json`: kind and path first, then what applies to the kind.
    QJsonObject toJson(qint64 nowMs) const;
    bool operator==(const CoordinationObject &other) const;
    bool operator!=(const CoordinationObject &other) const { return !(*this == other); }
};

// One object that appeared, changed or went since the previous update of a changing set of
// keys. An object whose kind changed (a lock whose queue turned out to be an election) goes
// and appears again.
struct QETCD_EXPORT CoordinationObjectChange
{
    enum class Type { Added, Changed, Removed };
    Type type = Type::Added;
    CoordinationObject object;    // Removed: as it was
    CoordinationObject previous;  // Changed: as it was; Added, Removed: empty
};

// Tells, from etcd's contents alone, which coordination objects live in a set of keys: the
// layouts qetcd writes, etcd's own (etcdctl lock/elect, Go's concurrency, v3lock, v3election)
// and etcd-recipes'. A key belongs to at most one object; keys that fit no layout (plain keys,
// transient keys) are left out.
//
// What etcd cannot tell: a counted barrier's N, a barrier that has been lifted (its key is
// gone), waiters on a barrier (they write nothing). A lock's holder and waiters are named
// only when their tool wrote a name; a queued entry's wait time is known only from qetcd's
// identity.
class QETCD_EXPORT CoordinationRecogniser
{
public:
    // Sorted by path, then kind.
    static QList<CoordinationObject> recognise(const QList<KeyValue> &kvs);
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::CoordinationObject)
Q_DECLARE_METATYPE(QEtcd::CoordinationObjectChange)
