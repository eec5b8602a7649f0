// SPDX-License-Identifier: Apache-2.0
#include "coordinationrecogniser.h"

#include "coordinationindex_p.h"
#include "coordinationlayouts_p.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QMutex>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QStringDecoder>
#include <QtCore/QtEndian>

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace QEtcd {

namespace {
using Kind = CoordinationObject::Kind;

// The layouts, most specific first: a key belongs to the first whose pattern it fits. Where a
// key goes depends on that key alone, so an object can be recognised from its own keys and a
// change touches at most the object a key left and the one it joined.
enum class Layout {
    Declared,       // an operator's, tried first (CoordinationRecogniser::setDeclaredLayouts())
    WorkQueue,
    Semaphore,
    CountedBarrier,
    DoubleBarrier,  // a counted barrier whose path ends in /enter or /leave
    LeaderSelector,
    Service,
    Patroni,        // <namespace>/<scope>/leader, members/<name>, config...
    ReadWriteLock,
    NodeElection,   // node etcd3's election/<name>/<lease id in decimal>
    NativeQueue,    // etcd's lock and election layout
    PriorityQueue,
    FifoQueue,
    Barrier,
    BuiltInDeclared,  // the built-in layouts the declared form says (CoordinationLayouts::builtIn())
    LockSegmentKey,   // a leased key under a locks/ segment (node etcd3's Lock)
    Counter,
};

// "<clientId>:<7-char token>", etcd-recipes' per-participant value.
const QRegularExpression uniqueTokenValue(QStringLiteral("^(.+):[0-9A-Za-z]{7}$"));

QByteArray baseName(const QByteArray &key)
{
    return key.mid(key.lastIndexOf('/') + 1);
}


struct LayoutRule
{
    Layout layout;
    QRegularExpression pattern;  // capture 1: the object's path; the rest go to its builder
    bool (*accept)(const KeyValue &kv);
};

// Go's concurrency package names a key after its lease with %x; etcdctl prints lease IDs with
// %016x, so a key named from its output ("lease 0694… granted") carries leading zeros.
bool namesLease(const QByteArray &name, qint64 lease)
{
    bool hex = false;
    return name.size() <= 16 && name.toULongLong(&hex, 16) == quint64(lease) && hex;
}

const std::vector<LayoutRule> &layoutRules()
{
    static const std::vector<LayoutRule> rules{
        {Layout::WorkQueue, QRegularExpression(QStringLiteral("^(.+)/(items|delayed|claimed|claims|attempts|dlq)/([^/]+)$")),
         nullptr},
        {Layout::Semaphore, QRegularExpression(QStringLiteral("^(.+)/(permits|holders/[^/]+)$")),
         [](const KeyValue &kv) { return !kv.key.endsWith("/permits") || kv.value.size() == int(sizeof(qint32)); }},
        {Layout::CountedBarrier, QRegularExpression(QStringLiteral("^(.+)/(ready|waiting/[^/]+)$")), nullptr},
        {Layout::LeaderSelector, QRegularExpression(QStringLiteral("^(.+)/(LEADER|participants/[^/]+)$")), nullptr},
        {Layout::Service, QRegularExpression(QStringLiteral("^(.+/names/[^/]+)/([^/]+)$")),
         [](const KeyValue &kv) {
             return QJsonDocument::fromJson(kv.value).object().contains(QLatin1String("name"));
         }},
        // Patroni's keys under its default namespace, service/. After Service: a ServiceRegistry
        // at a service/ path whose service is called "members" writes instances with a JSON
        // "name", which no Patroni member has.
        {Layout::Patroni,
         QRegularExpression(QStringLiteral("^((?:.*/)?service/[^/]+)/(leader|members/[^/]+|config|initialize|"
                                           "optime/leader|status|failover|failsafe|sync|history)$")),
         nullptr},
        {Layout::ReadWriteLock, QRegularExpression(QStringLiteral("^(.+)/(read|write)-([^/]+)$")), nullptr},
        // node etcd3 names a candidate's key after its lease in decimal, under election/<name>/
        // of the client's namespace.
        {Layout::NodeElection, QRegularExpression(QStringLiteral("^((?:.*/)?election/[^/]+)/(\\d{1,20})$")),
         [](const KeyValue &kv) { return kv.lease != 0 && baseName(kv.key).toULongLong() == quint64(kv.lease); }},
        {Layout::NativeQueue, QRegularExpression(QStringLiteral("^(.*)/([0-9a-f]+)$")),
         [](const KeyValue &kv) { return kv.lease != 0 && namesLease(baseName(kv.key), kv.lease); }},
        {Layout::PriorityQueue, QRegularExpression(QStringLiteral("^(.+)/(\\d{5})/\\d{16}$")), nullptr},
        {Layout::FifoQueue, QRegularExpression(QStringLiteral("^(.+)/(\\d{19})-(?:\\d{5}-)?[0-9A-Za-z]{3}$")), nullptr},
        // A key on a lease whose value is "<clientId>:<token>": a DistributedBarrier that is set.
        {Layout::Barrier, QRegularExpression(QStringLiteral("^(.+)$")),
         [](const KeyValue &kv) {
             return kv.lease != 0 && uniqueTokenValue.match(QString::fromUtf8(kv.value)).hasMatch();
         }},
        // python3-etcd3's lock.
        {Layout::BuiltInDeclared, QRegularExpression(), nullptr},
        // Any other key on a lease is a lock only when its path says so: the key alone, not the
        // keys below it, which a declared rule's object would take in.
        {Layout::LockSegmentKey, QRegularExpression(QStringLiteral("^((?:.*/)?locks/[^/]+)$")),
         [](const KeyValue &kv) { return kv.lease != 0; }},
        // An int64 big-endian value on no lease. Eight bytes of text are not a counter, so at
        // least one byte must be outside printable ASCII (true of every value below 2^56).
        {Layout::Counter, QRegularExpression(QStringLiteral("^(.+)$")),
         [](const KeyValue &kv) {
             return kv.lease == 0 && kv.value.size() == int(sizeof(qint64))
                 && std::any_of(kv.value.begin(), kv.value.end(), [](char c) { return c < 0x20 || c > 0x7e; });
         }},
    };
    return rules;
}

// An operator's layout, its glob made a pattern once.
struct CompiledLayout
{
    DeclaredLayout layout;
    QRegularExpression glob;
};
using CompiledLayouts = std::vector<CompiledLayout>;

// What setDeclaredLayouts() gave, shared by the recognitions that started since.
struct DeclaredStore
{
    QMutex mutex;
    std::shared_ptr<const CompiledLayouts> layouts = std::make_shared<const CompiledLayouts>();
};

DeclaredStore &declaredStore()
{
    static DeclaredStore store;
    return store;
}

std::shared_ptr<const CompiledLayouts> currentDeclaredLayouts()
{
    DeclaredStore &store = declaredStore();
    const QMutexLocker locker(&store.mutex);
    return store.layouts;
}

CompiledLayouts compile(const QList<DeclaredLayout> &layouts)
{
    CompiledLayouts compiled;
    for (const DeclaredLayout &layout : layouts)
        compiled.push_back({layout, layout.glob.isEmpty() ? QRegularExpression() : Internal::globExpression(layout.glob)});
    return compiled;
}

const CompiledLayouts &builtInDeclared()
{
    static const CompiledLayouts compiled = compile(CoordinationLayouts::builtIn());
    return compiled;
}

// The object a declared layout puts \a kv in: the prefix and one more segment, or the path
// the glob matches; the key is that path or one segment below it.
std::optional<QByteArray> declaredPath(const CompiledLayout &compiled, const KeyValue &kv)
{
    if ((compiled.layout.leased && kv.lease == 0)
        || (compiled.layout.valueBytes >= 0 && kv.value.size() != compiled.layout.valueBytes))
        return std::nullopt;
    const QByteArray &key = kv.key;
    QByteArray path;
    if (!compiled.layout.prefix.isEmpty()) {
        const QByteArray &prefix = compiled.layout.prefix;
        if (!key.startsWith(prefix))
            return std::nullopt;
        const qsizetype end = key.indexOf('/', prefix.size());
        path = end < 0 ? key : key.left(end);
        if (path.size() == prefix.size())
            return std::nullopt;
    } else if (compiled.glob.match(QString::fromUtf8(key)).hasMatch()) {
        return key;
    } else {
        path = key.left(std::max<qsizetype>(0, key.lastIndexOf('/')));
        return compiled.glob.match(QString::fromUtf8(path)).hasMatch() ? std::optional(path) : std::nullopt;
    }
    const bool entryBelow = key.size() > path.size() + 1 && key.indexOf('/', path.size() + 1) < 0;
    return key.size() == path.size() || entryBelow ? std::optional(path) : std::nullopt;
}

// Which object a key belongs to: the layout (and which declared one), the object's path, and
// the pattern's captures after the path.
struct Placement
{
    Layout layout;
    QByteArray path;
    QStringList captures;
    int declared = -1;
};

std::optional<Placement> place(const KeyValue &kv, const CompiledLayouts &declared)
{
    for (std::size_t i = 0; i < declared.size(); ++i) {
        if (std::optional<QByteArray> path = declaredPath(declared[i], kv))
            return Placement{Layout::Declared, *path, {}, int(i)};
    }
    const QString key = QString::fromUtf8(kv.key);
    for (const LayoutRule &rule : layoutRules()) {
        if (rule.layout == Layout::BuiltInDeclared) {
            for (std::size_t i = 0; i < builtInDeclared().size(); ++i) {
                if (std::optional<QByteArray> path = declaredPath(builtInDeclared()[i], kv))
                    return Placement{Layout::BuiltInDeclared, *path, {}, int(i)};
            }
            continue;
        }
        const QRegularExpressionMatch match = rule.pattern.match(key);
        if (!match.hasMatch() || (rule.accept && !rule.accept(kv)))
            continue;
        Placement placement{rule.layout, match.captured(1).toUtf8(), match.capturedTexts().mid(2), -1};
        // A double barrier is two counted ones, at <path>/enter and <path>/leave.
        const QByteArray side = baseName(placement.path);
        if (rule.layout == Layout::CountedBarrier && (side == "enter" || side == "leave")) {
            placement.layout = Layout::DoubleBarrier;
            placement.path.chop(side.size() + 1);
            placement.captures.prepend(QString::fromLatin1(side));
        }
        return placement;
    }
    return std::nullopt;
}

// One key of an object, with its pattern's captures after the path.
struct Match
{
    const KeyValue *kv;
    QStringList captures;
    bool valueUnread = false;  // too large to read: kv->value is empty, the value is not
};

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

void buildWorkQueue(CoordinationObject &queue, const QList<Match> &matches)
{
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
    queue.orphans = std::count_if(claimed.begin(), claimed.end(), [&](const QString &id) { return !claims.contains(id); });
    queue.holders = inQueueOrder(queue.holders);
}

void buildSemaphore(CoordinationObject &semaphore, const QList<Match> &matches)
{
    QList<CoordinationEntry> entries;
    for (const Match &match : matches) {
        if (match.captures.at(0) == QLatin1String("permits"))
            semaphore.permits = qFromBigEndian<qint32>(match.kv->value.constData());
        else
            entries.append(namedEntryOf(*match.kv));
    }
    entries = inQueueOrder(entries);
    // Admitted while fewer than N entries were created before it.
    const qsizetype admitted = semaphore.permits < 0 ? entries.size()
                                                     : std::min<qsizetype>(semaphore.permits, entries.size());
    semaphore.holders = entries.mid(0, admitted);
    semaphore.waiters = entries.mid(admitted);
}

// The members that arrived at a rendezvous and the one that opened its round: captures[at] is
// "ready" or "waiting/<token>".
std::pair<QList<CoordinationEntry>, std::optional<CoordinationEntry>> rendezvousOf(const QList<Match> &matches,
                                                                                   qsizetype at)
{
    QList<CoordinationEntry> arrived;
    std::optional<CoordinationEntry> opener;
    for (const Match &match : matches) {
        if (match.captures.at(at) == QLatin1String("ready"))
            opener = namedEntryOf(*match.kv);
        else
            arrived.append(namedEntryOf(*match.kv));
    }
    return {inQueueOrder(arrived), opener};
}

void buildCountedBarrier(CoordinationObject &barrier, const QList<Match> &matches)
{
    const auto [arrived, opener] = rendezvousOf(matches, 0);
    barrier.members = arrived;
    barrier.set = opener.has_value();
    if (opener)
        barrier.holders = {*opener};
}

// Its keys' first capture says which of its two counted barriers they belong to.
void buildDoubleBarrier(CoordinationObject &barrier, const QList<Match> &matches)
{
    const auto sideOf = [&matches](QLatin1String side) {
        QList<Match> keys;
        std::copy_if(matches.cbegin(), matches.cend(), std::back_inserter(keys),
                     [side](const Match &match) { return match.captures.at(0) == side; });
        return keys;
    };
    const auto [entered, opener] = rendezvousOf(sideOf(QLatin1String("enter")), 1);
    barrier.members = entered;
    barrier.set = opener.has_value();
    barrier.leaving = rendezvousOf(sideOf(QLatin1String("leave")), 1).first;
}

void buildLeaderSelector(CoordinationObject &election, const QList<Match> &matches)
{
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

void buildService(CoordinationObject &service, const QList<Match> &matches)
{
    for (const Match &match : matches) {
        CoordinationEntry instance = entryOf(*match.kv);
        instance.name = match.captures.at(0);
        service.members.append(instance);
    }
    service.members = inQueueOrder(service.members);
}

// The leader key names its member; each member describes itself in JSON. The other keys
// (config, initialize, status...) belong to the cluster and say nothing of who leads.
void buildPostgresCluster(CoordinationObject &cluster, const QList<Match> &matches)
{
    for (const Match &match : matches) {
        const QString &what = match.captures.at(0);
        if (what == QLatin1String("leader")) {
            CoordinationEntry leader = entryOf(*match.kv);
            leader.name = QString::fromUtf8(match.kv->value);
            cluster.holders = {leader};
        } else if (what.startsWith(QLatin1String("members/"))) {
            CoordinationEntry member = entryOf(*match.kv);
            member.name = what.mid(int(qstrlen("members/")));
            const QJsonObject described = QJsonDocument::fromJson(match.kv->value).object();
            member.role = described.value(QLatin1String("role")).toString();
            member.state = described.value(QLatin1String("state")).toString();
            cluster.members.append(member);
        }
    }
}

void buildReadWriteLock(CoordinationObject &lock, const QList<Match> &matches)
{
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

// etcd's lock and election share one layout, <path>/<lease id in hex>; qetcd's identity says
// which it is, an empty value is a lock (etcdctl lock, Go), anything else a proposal, also one
// too large to read (a lock's value is empty or a small identity).
void buildNativeQueue(CoordinationObject &queue, const QList<Match> &matches)
{
    QList<CoordinationEntry> entries;
    int locks = 0;
    for (const Match &match : matches) {
        entries.append(entryOf(*match.kv));
        if (match.valueUnread)
            continue;
        const QJsonObject identity = QJsonDocument::fromJson(match.kv->value).object();
        if (match.kv->value.isEmpty()
            || (identity.contains(QLatin1String("clientId"))
                && identity.value(QLatin1String("role")).toString() != QLatin1String("candidate")))
            ++locks;
    }
    entries = inQueueOrder(entries);
    queue.kind = locks * 2 >= entries.size() ? Kind::Lock : Kind::Election;
    queue.holders = entries.mid(0, 1);
    queue.waiters = entries.mid(1);
}

// The lowest create revision leads; the others follow in the order they campaigned.
void buildNodeElection(CoordinationObject &election, const QList<Match> &matches)
{
    QList<CoordinationEntry> candidates;
    for (const Match &match : matches)
        candidates.append(entryOf(*match.kv));
    candidates = inQueueOrder(candidates);
    election.holders = candidates.mid(0, 1);
    election.waiters = candidates.mid(1);
}

void buildPriorityQueue(CoordinationObject &queue, const QList<Match> &matches)
{
    queue.depth = matches.size();
    for (const Match &match : matches)
        ++queue.depthByPriority[match.captures.at(0).toInt()];
}

void buildFifoQueue(CoordinationObject &queue, const QList<Match> &matches)
{
    queue.depth = matches.size();
    for (const Match &match : matches) {
        const qint64 put = match.captures.at(0).toLongLong();
        if (queue.oldestMs < 0 || put < queue.oldestMs)
            queue.oldestMs = put;
    }
}

// An operator's layout: who each entry is, their order, and what holds.
void buildDeclared(CoordinationObject &object, const DeclaredLayout &layout, const QList<Match> &matches)
{
    using Declared = DeclaredLayout;
    QList<CoordinationEntry> entries;
    for (const Match &match : matches) {
        CoordinationEntry entry = entryOf(*match.kv);
        switch (layout.identity) {
        case Declared::Identity::Lease:
            entry.name.clear();
            break;
        case Declared::Identity::Value:
            entry.name = entry.valueText();
            break;
        case Declared::Identity::JsonField:
            entry.name = QJsonDocument::fromJson(match.kv->value).object().value(layout.field).toVariant().toString();
            break;
        }
        entries.append(entry);
    }
    // matches come sorted by key.
    if (layout.order != Declared::Order::Key) {
        const bool byCreation = layout.order == Declared::Order::CreateRevision;
        std::stable_sort(entries.begin(), entries.end(),
                         [byCreation](const CoordinationEntry &a, const CoordinationEntry &b) {
                             return byCreation ? a.createRevision < b.createRevision : a.modRevision < b.modRevision;
                         });
    }
    object.rule = layout.name;
    qsizetype holding = 1;
    switch (layout.kind) {
    case Declared::Kind::Lock:
        object.kind = Kind::Lock;
        break;
    case Declared::Kind::Election:
    case Declared::Kind::LeaderKey:
        object.kind = Kind::Election;
        break;
    case Declared::Kind::Semaphore:
        object.kind = Kind::Semaphore;
        object.permits = layout.permits;
        holding = layout.permits < 0 ? entries.size() : layout.permits;
        break;
    case Declared::Kind::Barrier:
        object.kind = Kind::Barrier;
        object.set = true;
        object.holders = entries.mid(0, 1);
        return;
    case Declared::Kind::Service:
        object.kind = Kind::Service;
        object.members = entries;
        return;
    case Declared::Kind::Queue:
        object.kind = Kind::Queue;
        object.depth = entries.size();
        return;
    }
    object.holders = entries.mid(0, holding);
    object.waiters = entries.mid(holding);
}

// matches: every key placed at (layout, path), sorted by key; declared: the rule in declared
// form when layout is Layout::Declared (an operator's) or Layout::BuiltInDeclared.
CoordinationObject build(Layout layout, const DeclaredLayout *declared, const QByteArray &path,
                         const QList<Match> &matches)
{
    CoordinationObject object;
    object.path = path;
    for (const Match &match : matches)
        object.keys.append(match.kv->key);
    switch (layout) {
    case Layout::Declared:
    case Layout::BuiltInDeclared:
        buildDeclared(object, *declared, matches);
        break;
    case Layout::WorkQueue:
        object.kind = Kind::WorkQueue;
        buildWorkQueue(object, matches);
        break;
    case Layout::Semaphore:
        object.kind = Kind::Semaphore;
        buildSemaphore(object, matches);
        break;
    case Layout::CountedBarrier:
        object.kind = Kind::CountedBarrier;
        buildCountedBarrier(object, matches);
        break;
    case Layout::DoubleBarrier:
        object.kind = Kind::DoubleBarrier;
        buildDoubleBarrier(object, matches);
        break;
    case Layout::LeaderSelector:
        object.kind = Kind::Election;
        buildLeaderSelector(object, matches);
        break;
    case Layout::Service:
        object.kind = Kind::Service;
        buildService(object, matches);
        break;
    case Layout::Patroni:
        object.kind = Kind::PostgresCluster;
        object.rule = QStringLiteral("Patroni");
        buildPostgresCluster(object, matches);
        break;
    case Layout::ReadWriteLock:
        object.kind = Kind::ReadWriteLock;
        buildReadWriteLock(object, matches);
        break;
    case Layout::NodeElection:
        object.kind = Kind::Election;
        object.rule = QStringLiteral("node etcd3 election");
        buildNodeElection(object, matches);
        break;
    case Layout::NativeQueue:
        buildNativeQueue(object, matches);
        break;
    case Layout::PriorityQueue:
        object.kind = Kind::PriorityQueue;
        buildPriorityQueue(object, matches);
        break;
    case Layout::FifoQueue:
        object.kind = Kind::Queue;
        buildFifoQueue(object, matches);
        break;
    case Layout::Barrier:
        object.kind = Kind::Barrier;
        object.set = true;
        object.holders = {namedEntryOf(*matches.first().kv)};
        break;
    case Layout::LockSegmentKey:
        object.kind = Kind::Lock;
        object.rule = QStringLiteral("leased key under locks/ (node etcd3 lock)");
        object.holders = {entryOf(*matches.first().kv)};
        break;
    case Layout::Counter:
        object.kind = Kind::Counter;
        object.value = qFromBigEndian<qint64>(matches.first().kv->value.constData());
        break;
    }
    return object;
}

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
        && modRevision == other.modRevision && role == other.role && state == other.state;
}

bool CoordinationObject::operator==(const CoordinationObject &other) const
{
    return kind == other.kind && path == other.path && holders == other.holders && waiters == other.waiters
        && members == other.members && leaving == other.leaving && permits == other.permits && set == other.set
        && depth == other.depth && oldestMs == other.oldestMs && delayed == other.delayed
        && inFlight == other.inFlight && orphans == other.orphans && deadLetters == other.deadLetters
        && depthByPriority == other.depthByPriority && value == other.value && keys == other.keys
        && rule == other.rule;
}

QString CoordinationEntry::displayName() const
{
    if (!name.isEmpty())
        return name;
    if (lease != 0)
        return QStringLiteral("lease ") + Internal::leaseIdText(lease);
    return QString::fromUtf8(key);
}

bool CoordinationEntry::valueIsBinary() const
{
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = utf8.decode(value);
    return utf8.hasError() || std::any_of(text.cbegin(), text.cend(), [](QChar c) {
        return c.category() == QChar::Other_Control && c != u'\n' && c != u'\r' && c != u'\t';
    });
}

QString CoordinationEntry::valueText() const
{
    return valueIsBinary() ? QString::fromLatin1(value.toHex()) : QString::fromUtf8(value);
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
        json.insert(QLatin1String("lease_id"), Internal::leaseIdText(lease));
    if (!role.isEmpty())
        json.insert(QLatin1String("role"), role);
    if (!state.isEmpty())
        json.insert(QLatin1String("state"), state);
    // qetcd's identity is shown field by field above; other JSON (a service instance) as is.
    const QJsonDocument document = QJsonDocument::fromJson(value);
    if (!document.isObject() && valueIsBinary())
        json.insert(QLatin1String("value_hex"), valueText());
    else if (!document.isObject() && !value.isEmpty())
        json.insert(QLatin1String("value"), valueText());
    else if (document.isObject() && !document.object().contains(QLatin1String("clientId")))
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
    case Kind::PostgresCluster: return QStringLiteral("postgresCluster");
    }
    return {};
}

QJsonObject CoordinationObject::toJson(qint64 nowMs) const
{
    QJsonObject json{{QLatin1String("kind"), kindName()}, {QLatin1String("name"), QString::fromUtf8(path)}};
    if (!rule.isEmpty())
        json.insert(QLatin1String("rule"), rule);
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
    case Kind::PostgresCluster:
        put("leader", holders.isEmpty() ? QJsonValue() : QJsonValue(holders.first().toJson(nowMs)));
        put("members", entriesJson(members, nowMs));
        break;
    }
    return json;
}

namespace Internal {

struct CoordinationIndex::Private
{
    struct Held
    {
        KeyValue kv;
        QStringList captures;
        qint64 appearedMs;
        bool valueUnread;
    };
    // Where keys are placed, one object each: the layout, which declared one, the path.
    using Unit = std::tuple<Layout, int, QByteArray>;
    // Objects in the order they are listed: by path, then kind; two layouts can make an
    // election at one path.
    using Order = std::tuple<QByteArray, Kind, Layout, int>;

    // The key's old place, if it had one, is now out of date.
    std::optional<qint64> take(const QByteArray &key)
    {
        const auto placed = unitOfKey.find(key);
        if (placed == unitOfKey.end())
            return std::nullopt;
        const auto unit = units.find(*placed);
        const auto held = unit->second.find(key);
        const qint64 appeared = held->second.appearedMs;
        if (isTallied(std::get<0>(*placed)))
            tally(*placed, key, held->second.captures, -1);
        unit->second.erase(held);
        if (unit->second.empty())
            units.erase(unit);
        dirty.insert(*placed);
        unitOfKey.erase(placed);
        return appeared;
    }

    // etcd-recipes' FIFO and priority queues are counts of their keys, kept a key at a time: a
    // put or a take costs what one key does, not what the queue holds (rebuilt at every
    // revision, a queue of 50,000 items took 18 ms a revision to follow).
    static bool isTallied(Layout layout) { return layout == Layout::FifoQueue || layout == Layout::PriorityQueue; }

    // Counts key in (change 1) or out (change -1) of its queue's object, as build() would make it.
    void tally(const Unit &unit, const QByteArray &key, const QStringList &captures, int change)
    {
        const auto &[layout, declaredIndex, path] = unit;
        CoordinationObject &queue = tallies[unit];
        if (queue.keys.isEmpty()) {
            queue.path = path;
            queue.kind = layout == Layout::FifoQueue ? Kind::Queue : Kind::PriorityQueue;
        }
        const auto at = std::lower_bound(queue.keys.begin(), queue.keys.end(), key);
        if (change > 0)
            queue.keys.insert(at, key);
        else if (at != queue.keys.end() && *at == key)
            queue.keys.erase(at);
        queue.depth = queue.keys.size();
        if (queue.keys.isEmpty()) {
            tallies.erase(unit);
            return;
        }
        if (layout == Layout::PriorityQueue) {
            const int priority = captures.at(0).toInt();
            if ((queue.depthByPriority[priority] += change) == 0)
                queue.depthByPriority.remove(priority);
        } else {
            // Keys sort by the 19 digits of the time they were put: the first is the oldest.
            queue.oldestMs = queue.keys.constFirst().mid(path.size() + 1, 19).toLongLong();
        }
    }

    std::optional<CoordinationObject> recognise(const Unit &unit) const
    {
        if (isTallied(std::get<0>(unit))) {
            const auto tallied = tallies.find(unit);
            return tallied == tallies.end() ? std::nullopt : std::optional<CoordinationObject>(tallied->second);
        }
        const auto held = units.find(unit);
        if (held == units.end())
            return std::nullopt;
        QList<Match> matches;
        matches.reserve(qsizetype(held->second.size()));
        for (const auto &[key, entry] : held->second)
            matches.append({&entry.kv, entry.captures, entry.valueUnread});
        const auto &[layout, declaredIndex, path] = unit;
        const CompiledLayouts &rules = layout == Layout::BuiltInDeclared ? builtInDeclared() : *declared;
        CoordinationObject object = build(layout, declaredIndex < 0 ? nullptr : &rules.at(declaredIndex).layout, path,
                                          matches);
        for (auto *entries : {&object.holders, &object.waiters, &object.members, &object.leaving}) {
            for (CoordinationEntry &entry : *entries) {
                if (entry.sinceMs < 0)
                    entry.sinceMs = held->second.at(entry.key).appearedMs;
            }
        }
        return object;
    }

    // The operator's layouts as they were when the index was made.
    std::shared_ptr<const CompiledLayouts> declared = currentDeclaredLayouts();
    std::map<Unit, std::map<QByteArray, Held>> units;
    std::map<Unit, CoordinationObject> tallies;  // the queues isTallied() names
    QHash<QByteArray, Unit> unitOfKey;
    std::set<Unit> dirty;
    std::map<Order, CoordinationObject> objects;
    std::map<Unit, Order> orderOfUnit;
    std::optional<QList<CoordinationObject>> list;  // objects, listed when first asked after a change
};

CoordinationIndex::CoordinationIndex() : d(std::make_unique<Private>()) {}

CoordinationIndex::~CoordinationIndex() = default;

void CoordinationIndex::put(const KeyValue &kv, qint64 appearedMs, qsizetype unreadValueBytes)
{
    const qint64 appeared = d->take(kv.key).value_or(appearedMs);
    std::optional<Placement> placement = place(kv, *d->declared);
    if (!placement)
        return;
    Private::Unit unit{placement->layout, placement->declared, placement->path};
    if (Private::isTallied(placement->layout))
        d->tally(unit, kv.key, placement->captures, 1);
    d->units[unit].insert_or_assign(kv.key, Private::Held{kv, std::move(placement->captures), appeared,
                                                           unreadValueBytes > 0});
    d->unitOfKey.insert(kv.key, unit);
    d->dirty.insert(std::move(unit));
}

void CoordinationIndex::remove(const QByteArray &key)
{
    d->take(key);
}

void CoordinationIndex::clear()
{
    std::shared_ptr<const CompiledLayouts> declared = d->declared;
    *d = Private();
    d->declared = std::move(declared);
}

QList<CoordinationObjectChange> CoordinationIndex::refresh()
{
    using Change = CoordinationObjectChange;
    QList<Change> changes;
    for (const Private::Unit &unit : std::exchange(d->dirty, {})) {
        std::optional<CoordinationObject> object = d->recognise(unit);
        std::optional<Private::Order> order;
        if (object)
            order = Private::Order{object->path, object->kind, std::get<0>(unit), std::get<1>(unit)};
        const auto listed = d->orderOfUnit.find(unit);
        if (listed != d->orderOfUnit.end()) {
            const auto old = d->objects.find(listed->second);
            if (order && old->first == *order) {
                if (old->second != *object)
                    changes.append({Change::Type::Changed, *object, std::exchange(old->second, *object)});
                continue;
            }
            changes.append({Change::Type::Removed, std::move(old->second), {}});
            d->objects.erase(old);
            d->orderOfUnit.erase(listed);
        }
        if (object) {
            changes.append({Change::Type::Added, *object, {}});
            d->orderOfUnit.insert_or_assign(unit, *order);
            d->objects.emplace(std::move(*order), std::move(*object));
        }
    }
    if (!changes.isEmpty())
        d->list.reset();
    return changes;
}

QList<CoordinationObject> CoordinationIndex::objects() const
{
    if (!d->list) {
        QList<CoordinationObject> list;
        list.reserve(qsizetype(d->objects.size()));
        for (const auto &[order, object] : d->objects)
            list.append(object);
        d->list = std::move(list);
    }
    return *d->list;
}

} // namespace Internal

void CoordinationRecogniser::setDeclaredLayouts(const QList<DeclaredLayout> &layouts)
{
    auto compiled = std::make_shared<CompiledLayouts>(compile(layouts));
    DeclaredStore &store = declaredStore();
    const QMutexLocker locker(&store.mutex);
    store.layouts = std::move(compiled);
}

QList<DeclaredLayout> CoordinationRecogniser::declaredLayouts()
{
    QList<DeclaredLayout> layouts;
    for (const CompiledLayout &compiled : *currentDeclaredLayouts())
        layouts.append(compiled.layout);
    return layouts;
}

QList<CoordinationObject> CoordinationRecogniser::recognise(const QList<KeyValue> &kvs)
{
    Internal::CoordinationIndex index;
    for (const KeyValue &kv : kvs)
        index.put(kv);
    index.refresh();
    return index.objects();
}

} // namespace QEtcd
