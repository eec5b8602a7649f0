#include "coordinationrecogniser.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QtEndian>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <optional>

namespace QEtcd {

namespace {
using Kind = CoordinationObject::Kind;

QString leaseHex(qint64 lease)
{
    return QString::number(quint64(lease), 16).rightJustified(16, QLatin1Char('0'));
}

// The keys a layout matched, grouped by the path of the object they make up; each key comes
// with the captures of its pattern.
struct Match
{
    const KeyValue *kv;
    QStringList captures;
};
using Groups = std::map<QByteArray, QList<Match>>;

// "<clientId>:<7-char token>", etcd-recipes' per-participant value.
const QRegularExpression uniqueTokenValue(QStringLiteral("^(.+):[0-9A-Za-z]{7}$"));

CoordinationEntry entryOf(const KeyValue &kv)
{
    CoordinationEntry entry;
    entry.key = kv.key;
    entry.value = kv.value;
    entry.lease = kv.lease;
    entry.createRevision = kv.createRevision;
    entry.modRevision = kv.modRevision;
    if (kv.value.startsWith('{')) {
        const QJsonObject identity = QJsonDocument::fromJson(kv.value).object();
        if (identity.contains(QLatin1String("clientId"))) {
            entry.name = identity.value(QLatin1String("clientId")).toString();
            entry.host = identity.value(QLatin1String("host")).toString();
            entry.pid = identity.value(QLatin1String("pid")).toInteger();
            entry.sinceMs = identity.value(QLatin1String("requestedAt")).toInteger(-1);
        }
    }
    return entry;
}

// An entry whose value names its owner: "<clientId>:<token>", or the clientId alone.
CoordinationEntry namedEntryOf(const KeyValue &kv)
{
    CoordinationEntry entry = entryOf(kv);
    if (entry.name.isEmpty()) {
        const QString text = QString::fromUtf8(kv.value);
        const QRegularExpressionMatch token = uniqueTokenValue.match(text);
        entry.name = token.hasMatch() ? token.captured(1) : text;
    }
    return entry;
}

QList<CoordinationEntry> inQueueOrder(QList<CoordinationEntry> entries)
{
    std::stable_sort(entries.begin(), entries.end(), [](const CoordinationEntry &a, const CoordinationEntry &b) {
        return a.createRevision < b.createRevision;
    });
    return entries;
}

// "<millis19>-…": etcd-recipes' queue item names start with the time they were put.
qint64 putTimeOf(const QByteArray &name)
{
    bool ok = false;
    const qint64 millis = name.left(19).toLongLong(&ok);
    return ok && name.size() > 19 && name.at(19) == '-' ? millis : -1;
}

QByteArray baseName(const QByteArray &key)
{
    return key.mid(key.lastIndexOf('/') + 1);
}

class Recogniser
{
public:
    explicit Recogniser(const QList<KeyValue> &kvs) : m_kvs(kvs)
    {
        std::sort(m_kvs.begin(), m_kvs.end(), [](const KeyValue &a, const KeyValue &b) { return a.key < b.key; });
    }

    QList<CoordinationObject> run()
    {
        // Most specific layouts first: their keys are taken before a looser pattern could.
        workQueues();
        semaphores();
        countedBarriers();
        leaderSelectors();
        services();
        readWriteLocks();
        nativeQueues();
        priorityQueues();
        fifoQueues();
        barriers();
        counters();
        std::sort(m_objects.begin(), m_objects.end(), [](const CoordinationObject &a, const CoordinationObject &b) {
            return a.path != b.path ? a.path < b.path : a.kind < b.kind;
        });
        QList<CoordinationObject> objects(m_objects.begin(), m_objects.end());
        for (CoordinationObject &object : objects)
            std::sort(object.keys.begin(), object.keys.end());
        return objects;
    }

private:
    // Every key not yet taken whose text matches pattern (and accept, when given), grouped by
    // the pattern's first capture.
    Groups collect(const QRegularExpression &pattern, const std::function<bool(const KeyValue &)> &accept = {})
    {
        Groups groups;
        for (const KeyValue &kv : std::as_const(m_kvs)) {
            if (m_taken.contains(kv.key))
                continue;
            const QRegularExpressionMatch match = pattern.match(QString::fromUtf8(kv.key));
            if (!match.hasMatch() || (accept && !accept(kv)))
                continue;
            groups[match.captured(1).toUtf8()].append({&kv, match.capturedTexts().mid(2)});
        }
        return groups;
    }

    CoordinationObject &add(Kind kind, const QByteArray &path, const QList<Match> &matches)
    {
        CoordinationObject object;
        object.kind = kind;
        object.path = path;
        for (const Match &match : matches) {
            object.keys.append(match.kv->key);
            m_taken.insert(match.kv->key);
        }
        m_objects.push_back(object);
        return m_objects.back();
    }

    void workQueues()
    {
        static const QRegularExpression pattern(
            QStringLiteral("^(.+)/(items|delayed|claimed|claims|attempts|dlq)/([^/]+)$"));
        for (const auto &[path, matches] : collect(pattern)) {
            CoordinationObject &queue = add(Kind::WorkQueue, path, matches);
            queue.depth = queue.delayed = queue.inFlight = queue.deadLetters = queue.orphans = 0;
            QSet<QString> claims;
            QStringList claimed;
            for (const Match &match : matches) {
                const QString &area = match.captures.at(0);
                if (area == QLatin1String("items")) {
                    ++queue.depth;
                    const qint64 put = putTimeOf(match.captures.at(1).toUtf8());
                    if (put >= 0 && (queue.oldestMs < 0 || put < queue.oldestMs))
                        queue.oldestMs = put;
                } else if (area == QLatin1String("delayed")) {
                    ++queue.delayed;
                } else if (area == QLatin1String("claimed")) {
                    claimed.append(match.captures.at(1));
                } else if (area == QLatin1String("claims")) {
                    claims.insert(match.captures.at(1));
                    queue.holders.append(namedEntryOf(*match.kv));
                } else if (area == QLatin1String("dlq")) {
                    ++queue.deadLetters;
                }
            }
            queue.inFlight = claimed.size();
            queue.orphans = std::count_if(claimed.begin(), claimed.end(),
                                          [&](const QString &id) { return !claims.contains(id); });
            queue.holders = inQueueOrder(queue.holders);
        }
    }

    void semaphores()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)/(permits|holders/[^/]+)$"));
        const auto isEntry = [](const KeyValue &kv) {
            return !kv.key.endsWith("/permits") || kv.value.size() == int(sizeof(qint32));
        };
        for (const auto &[path, matches] : collect(pattern, isEntry)) {
            QList<CoordinationEntry> entries;
            int permits = -1;
            for (const Match &match : matches) {
                if (match.captures.at(0) == QLatin1String("permits"))
                    permits = qFromBigEndian<qint32>(match.kv->value.constData());
                else
                    entries.append(namedEntryOf(*match.kv));
            }
            CoordinationObject &semaphore = add(Kind::Semaphore, path, matches);
            semaphore.permits = permits;
            entries = inQueueOrder(entries);
            // Admitted while fewer than N entries were created before it.
            const qsizetype admitted = permits < 0 ? entries.size() : std::min<qsizetype>(permits, entries.size());
            semaphore.holders = entries.mid(0, admitted);
            semaphore.waiters = entries.mid(admitted);
        }
    }

    void countedBarriers()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)/(ready|waiting/[^/]+)$"));
        QMap<QByteArray, CoordinationObject *> doubles;
        for (const auto &[path, matches] : collect(pattern)) {
            QList<CoordinationEntry> arrived;
            std::optional<CoordinationEntry> opener;
            for (const Match &match : matches) {
                if (match.captures.at(0) == QLatin1String("ready"))
                    opener = namedEntryOf(*match.kv);
                else
                    arrived.append(namedEntryOf(*match.kv));
            }
            arrived = inQueueOrder(arrived);
            // A double barrier is two counted ones, at <path>/enter and <path>/leave.
            const QByteArray side = baseName(path);
            if (side == "enter" || side == "leave") {
                const QByteArray parent = path.left(path.size() - side.size() - 1);
                CoordinationObject *barrier = doubles.value(parent);
                if (!barrier) {
                    barrier = &add(Kind::DoubleBarrier, parent, {});
                    doubles.insert(parent, barrier);
                }
                for (const Match &match : matches) {
                    barrier->keys.append(match.kv->key);
                    m_taken.insert(match.kv->key);
                }
                if (side == "enter") {
                    barrier->members = arrived;
                    barrier->set = opener.has_value();
                } else {
                    barrier->leaving = arrived;
                }
                continue;
            }
            CoordinationObject &barrier = add(Kind::CountedBarrier, path, matches);
            barrier.members = arrived;
            barrier.set = opener.has_value();
            if (opener)
                barrier.holders = {*opener};
        }
    }

    void leaderSelectors()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)/(LEADER|participants/[^/]+)$"));
        for (const auto &[path, matches] : collect(pattern)) {
            CoordinationObject &election = add(Kind::Election, path, matches);
            QList<CoordinationEntry> participants;
            for (const Match &match : matches) {
                if (match.captures.at(0) == QLatin1String("LEADER"))
                    election.holders = {namedEntryOf(*match.kv)};
                else
                    participants.append(namedEntryOf(*match.kv));
            }
            const QString leader = election.holders.isEmpty() ? QString() : election.holders.first().name;
            for (const CoordinationEntry &participant : inQueueOrder(participants)) {
                if (participant.name != leader)
                    election.waiters.append(participant);
            }
        }
    }

    void services()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+/names/[^/]+)/([^/]+)$"));
        const auto isInstance = [](const KeyValue &kv) {
            return QJsonDocument::fromJson(kv.value).object().contains(QLatin1String("name"));
        };
        for (const auto &[path, matches] : collect(pattern, isInstance)) {
            CoordinationObject &service = add(Kind::Service, path, matches);
            for (const Match &match : matches) {
                CoordinationEntry instance = entryOf(*match.kv);
                instance.name = match.captures.at(0);
                service.members.append(instance);
            }
            service.members = inQueueOrder(service.members);
        }
    }

    void readWriteLocks()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)/(read|write)-([^/]+)$"));
        for (const auto &[path, matches] : collect(pattern)) {
            CoordinationObject &lock = add(Kind::ReadWriteLock, path, matches);
            QList<CoordinationEntry> entries;
            for (const Match &match : matches)
                entries.append(namedEntryOf(*match.kv));
            // A writer is in when nothing is ahead of it, a reader when no writer is.
            bool writerAhead = false;
            for (const CoordinationEntry &entry : inQueueOrder(entries)) {
                const bool writer = baseName(entry.key).startsWith("write-");
                const bool admitted = lock.waiters.isEmpty() && (writer ? lock.holders.isEmpty() : !writerAhead);
                (admitted ? lock.holders : lock.waiters).append(entry);
                writerAhead = writerAhead || writer;
            }
        }
    }

    // etcd's lock and election share one layout, <path>/<lease id in hex>; qetcd's identity
    // says which it is, an empty value is a lock (etcdctl lock, Go), anything else a proposal.
    void nativeQueues()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.*)/([0-9a-f]+)$"));
        const auto ownKey = [](const KeyValue &kv) {
            return kv.lease != 0 && baseName(kv.key) == QByteArray::number(quint64(kv.lease), 16);
        };
        for (const auto &[path, matches] : collect(pattern, ownKey)) {
            QList<CoordinationEntry> entries;
            int locks = 0;
            for (const Match &match : matches) {
                entries.append(entryOf(*match.kv));
                const QJsonObject identity = QJsonDocument::fromJson(match.kv->value).object();
                if (match.kv->value.isEmpty()
                    || (identity.contains(QLatin1String("clientId"))
                        && identity.value(QLatin1String("role")).toString() != QLatin1String("candidate")))
                    ++locks;
            }
            entries = inQueueOrder(entries);
            CoordinationObject &queue = add(locks * 2 >= entries.size() ? Kind::Lock : Kind::Election, path, matches);
            queue.holders = entries.mid(0, 1);
            queue.waiters = entries.mid(1);
        }
    }

    void priorityQueues()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)/(\\d{5})/\\d{16}$"));
        for (const auto &[path, matches] : collect(pattern)) {
            CoordinationObject &queue = add(Kind::PriorityQueue, path, matches);
            queue.depth = matches.size();
            for (const Match &match : matches)
                ++queue.depthByPriority[match.captures.at(0).toInt()];
        }
    }

    void fifoQueues()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)/(\\d{19})-(?:\\d{5}-)?[0-9A-Za-z]{3}$"));
        for (const auto &[path, matches] : collect(pattern)) {
            CoordinationObject &queue = add(Kind::Queue, path, matches);
            queue.depth = matches.size();
            for (const Match &match : matches) {
                const qint64 put = match.captures.at(0).toLongLong();
                if (queue.oldestMs < 0 || put < queue.oldestMs)
                    queue.oldestMs = put;
            }
        }
    }

    // A key on a lease whose value is "<clientId>:<token>": a DistributedBarrier that is set.
    void barriers()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)$"));
        const auto isBarrier = [](const KeyValue &kv) {
            return kv.lease != 0 && uniqueTokenValue.match(QString::fromUtf8(kv.value)).hasMatch();
        };
        for (const auto &[path, matches] : collect(pattern, isBarrier)) {
            CoordinationObject &barrier = add(Kind::Barrier, path, matches);
            barrier.set = true;
            barrier.holders = {namedEntryOf(*matches.first().kv)};
        }
    }

    // An int64 big-endian value on no lease. Eight bytes of text are not a counter, so at least
    // one byte must be outside printable ASCII (true of every value below 2^56).
    void counters()
    {
        static const QRegularExpression pattern(QStringLiteral("^(.+)$"));
        const auto isCounter = [](const KeyValue &kv) {
            return kv.lease == 0 && kv.value.size() == int(sizeof(qint64))
                && std::any_of(kv.value.begin(), kv.value.end(), [](char c) { return c < 0x20 || c > 0x7e; });
        };
        for (const auto &[path, matches] : collect(pattern, isCounter)) {
            CoordinationObject &counter = add(Kind::Counter, path, matches);
            counter.value = qFromBigEndian<qint64>(matches.first().kv->value.constData());
        }
    }

    QList<KeyValue> m_kvs;
    QSet<QByteArray> m_taken;
    std::deque<CoordinationObject> m_objects;  // add() hands out references that must stay valid
};

QJsonArray entriesJson(const QList<CoordinationEntry> &entries, qint64 nowMs)
{
    QJsonArray array;
    for (const CoordinationEntry &entry : entries)
        array.append(entry.toJson(nowMs));
    return array;
}
} // namespace

bool CoordinationEntry::operator==(const CoordinationEntry &other) const
{
    return key == other.key && value == other.value && name == other.name && host == other.host && pid == other.pid
        && sinceMs == other.sinceMs && lease == other.lease && createRevision == other.createRevision
        && modRevision == other.modRevision;
}

bool CoordinationObject::operator==(const CoordinationObject &other) const
{
    return kind == other.kind && path == other.path && holders == other.holders && waiters == other.waiters
        && members == other.members && leaving == other.leaving && permits == other.permits && set == other.set
        && depth == other.depth && oldestMs == other.oldestMs && delayed == other.delayed
        && inFlight == other.inFlight && orphans == other.orphans && deadLetters == other.deadLetters
        && depthByPriority == other.depthByPriority && value == other.value && keys == other.keys;
}

QString CoordinationEntry::displayName() const
{
    if (!name.isEmpty())
        return name;
    if (lease != 0)
        return QStringLiteral("lease ") + leaseHex(lease);
    return QString::fromUtf8(key);
}

QJsonObject CoordinationEntry::toJson(qint64 nowMs) const
{
    QJsonObject json{{QLatin1String("key"), QString::fromUtf8(key)},
                     {QLatin1String("create_revision"), createRevision}};
    if (!name.isEmpty())
        json.insert(QLatin1String("name"), name);
    if (!host.isEmpty())
        json.insert(QLatin1String("host"), host);
    if (pid != 0)
        json.insert(QLatin1String("pid"), pid);
    if (sinceMs >= 0) {
        json.insert(QLatin1String("since_ms"), sinceMs);
        json.insert(QLatin1String("age_ms"), std::max<qint64>(0, nowMs - sinceMs));
    }
    if (lease != 0)
        json.insert(QLatin1String("lease_id"), leaseHex(lease));
    // qetcd's identity is shown field by field above; other JSON (a service instance) as is.
    const QJsonDocument document = QJsonDocument::fromJson(value);
    if (!document.isObject() && !value.isEmpty())
        json.insert(QLatin1String("value"), QString::fromUtf8(value));
    else if (!document.object().contains(QLatin1String("clientId")))
        json.insert(QLatin1String("value"), document.object());
    return json;
}

QString CoordinationObject::kindName() const
{
    switch (kind) {
    case Kind::Lock: return QStringLiteral("lock");
    case Kind::Election: return QStringLiteral("election");
    case Kind::ReadWriteLock: return QStringLiteral("readWriteLock");
    case Kind::Semaphore: return QStringLiteral("semaphore");
    case Kind::Barrier: return QStringLiteral("barrier");
    case Kind::CountedBarrier: return QStringLiteral("countedBarrier");
    case Kind::DoubleBarrier: return QStringLiteral("doubleBarrier");
    case Kind::Service: return QStringLiteral("service");
    case Kind::Queue: return QStringLiteral("queue");
    case Kind::PriorityQueue: return QStringLiteral("priorityQueue");
    case Kind::WorkQueue: return QStringLiteral("workQueue");
    case Kind::Counter: return QStringLiteral("counter");
    }
    return {};
}

QJsonObject CoordinationObject::toJson(qint64 nowMs) const
{
    QJsonObject json{{QLatin1String("kind"), kindName()}, {QLatin1String("name"), QString::fromUtf8(path)}};
    const auto put = [&json](const char *field, const QJsonValue &value) { json.insert(QLatin1String(field), value); };
    switch (kind) {
    case Kind::Lock:
    case Kind::ReadWriteLock:
    case Kind::Semaphore:
        put("holders", entriesJson(holders, nowMs));
        put("waiters", entriesJson(waiters, nowMs));
        if (kind == Kind::Lock && !holders.isEmpty())
            put("fencing_token", holders.first().createRevision);
        if (kind == Kind::Semaphore) {
            put("permits", permits);
            put("used", holders.size());
        }
        break;
    case Kind::Election:
        put("leader", holders.isEmpty() ? QJsonValue() : QJsonValue(holders.first().toJson(nowMs)));
        if (!holders.isEmpty()) {
            put("proclamation", QString::fromUtf8(holders.first().value));
            put("term", holders.first().createRevision);
        }
        put("candidates", entriesJson(waiters, nowMs));
        break;
    case Kind::Barrier:
        put("set", set);
        put("owner", holders.isEmpty() ? QJsonValue() : QJsonValue(holders.first().toJson(nowMs)));
        break;
    case Kind::CountedBarrier:
        put("open", set);
        put("arrived", members.size());
        put("members", entriesJson(members, nowMs));
        break;
    case Kind::DoubleBarrier:
        put("entered", members.size());
        put("left", leaving.size());
        put("members", entriesJson(members, nowMs));
        put("leaving", entriesJson(leaving, nowMs));
        break;
    case Kind::Service:
        put("instances", entriesJson(members, nowMs));
        break;
    case Kind::Queue:
    case Kind::PriorityQueue:
    case Kind::WorkQueue:
        put("depth", depth);
        if (oldestMs >= 0) {
            put("oldest_ms", oldestMs);
            put("oldest_age_ms", std::max<qint64>(0, nowMs - oldestMs));
        }
        if (kind == Kind::PriorityQueue) {
            QJsonObject byPriority;
            for (auto it = depthByPriority.cbegin(); it != depthByPriority.cend(); ++it)
                byPriority.insert(QString::number(it.key()), it.value());
            put("depth_by_priority", byPriority);
        }
        if (kind == Kind::WorkQueue) {
            put("delayed", delayed);
            put("in_flight", inFlight);
            put("orphans", orphans);
            put("dead_letters", deadLetters);
            put("claims", entriesJson(holders, nowMs));
        }
        break;
    case Kind::Counter:
        put("value", value);
        break;
    }
    return json;
}

QList<CoordinationObject> CoordinationRecogniser::recognise(const QList<KeyValue> &kvs)
{
    return Recogniser(kvs).run();
}

} // namespace QEtcd
