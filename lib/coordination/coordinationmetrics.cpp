// SPDX-License-Identifier: Apache-2.0
#include "coordinationmetrics.h"

#include "coordinationmonitor.h"
#include "leasemetrics.h"

#include <QtCore/QDateTime>
#include <QtCore/QHash>
#include <QtCore/QMap>
#include <QtCore/QSet>

#include <functional>
#include <limits>
#include <utility>

namespace QEtcd {

namespace {
using Kind = CoordinationObject::Kind;

// Who holds a lock, and since when.
struct Hold
{
    QByteArray key;
    QString holder;
    qint64 sinceMs = 0;
};

QByteArray seconds(qint64 ms)
{
    return QByteArray::number(double(ms) / 1000.0, 'f', 3);
}

bool isQueue(Kind kind)
{
    return kind == Kind::Queue || kind == Kind::PriorityQueue || kind == Kind::WorkQueue;
}

// One family being written: its header, then samples until the cap is reached.
class FamilyWriter
{
public:
    FamilyWriter(QByteArray *out, int *budget, int *dropped) : m_out(out), m_budget(budget), m_dropped(dropped) {}

    void begin(const char *name, const char *type, const char *help)
    {
        m_name = name;
        *m_out += "# HELP ";
        *m_out += name;
        *m_out += ' ';
        *m_out += help;
        *m_out += "\n# TYPE ";
        *m_out += name;
        *m_out += ' ';
        *m_out += type;
        *m_out += '\n';
    }
    // labels: name, value pairs.
    void sample(std::initializer_list<std::pair<const char *, QString>> labels, const QByteArray &value)
    {
        sample("", labels, value);
    }
    // A histogram's samples: suffix is "_bucket", "_sum" or "_count".
    void sample(const char *suffix, std::initializer_list<std::pair<const char *, QString>> labels,
                const QByteArray &value)
    {
        if (*m_budget <= 0) {
            ++*m_dropped;
            return;
        }
        --*m_budget;
        *m_out += m_name;
        *m_out += suffix;
        if (labels.size() > 0) {
            char separator = '{';
            for (const auto &[label, text] : labels) {
                *m_out += separator;
                *m_out += label;
                *m_out += "=\"";
                *m_out += CoordinationMetrics::escapeLabelValue(text);
                *m_out += '"';
                separator = ',';
            }
            *m_out += '}';
        }
        *m_out += ' ';
        *m_out += value;
        *m_out += '\n';
    }

private:
    QByteArray *m_out;
    int *m_budget;
    int *m_dropped;
    const char *m_name = "";
};
} // namespace

class CoordinationMetricsPrivate
{
public:
    // The objects, sorted by path, then kind: the order series are written in.
    QMap<std::pair<QByteArray, int>, CoordinationObject> objects;
    QHash<QByteArray, Hold> holds;                 // by lock path
    QMap<QByteArray, quint64> handoffs;            // by lock path; kept after the lock goes
    QMap<QByteArray, quint64> leaderChanges;       // by election path; kept after it goes
    QHash<qint64, int> entriesByLease;             // how many entries each lease holds
    quint64 leaseExpirations = 0;
    quint64 resyncs = 0;
    QSet<const CoordinationMonitor *> listed;      // monitors whose first list came
    bool connected = false;
    qint64 lastRefreshMs = -1;
    bool holderLabels = true;
    int maxSeries = 50000;
    mutable int dropped = 0;

    static void forEachEntry(const CoordinationObject &object, const std::function<void(const CoordinationEntry &)> &f)
    {
        for (const QList<CoordinationEntry> *entries : {&object.holders, &object.waiters, &object.members, &object.leaving}) {
            for (const CoordinationEntry &entry : *entries)
                f(entry);
        }
    }

    // sign: +1 for entries that came, -1 for those that went; the leases touched go in touched.
    void countLeases(const CoordinationObject &object, int sign, QSet<qint64> *touched)
    {
        forEachEntry(object, [&](const CoordinationEntry &entry) {
            if (entry.lease == 0)
                return;
            entriesByLease[entry.lease] += sign;
            touched->insert(entry.lease);
        });
    }

    void trackHold(const CoordinationObject &lock, bool firstList, qint64 nowMs)
    {
        if (!handoffs.contains(lock.path))
            handoffs.insert(lock.path, 0);
        if (lock.holders.isEmpty()) {
            holds.remove(lock.path);
            return;
        }
        const CoordinationEntry &holder = lock.holders.first();
        if (const auto known = holds.constFind(lock.path); known != holds.cend() && known->key == holder.key)
            return;
        // A hold already there when the exporter started: since its holder queued, when its tool
        // says (qetcd's identity), else since the start.
        const qint64 since = firstList && holder.sinceMs >= 0 ? std::min(holder.sinceMs, nowMs) : nowMs;
        holds.insert(lock.path, {holder.key, holder.displayName(), since});
    }

    // The counters come from the monitor's events, as the console tells them: a burst folded
    // into one change of objects may hold several hand-offs, and a hold released at one revision
    // and taken at a later one is no hand-off.
    void count(const QList<CoordinationEvent> &events)
    {
        using Type = CoordinationEvent::Type;
        QSet<qint64> leftLeases;
        const auto left = [&leftLeases](const CoordinationEntry &entry) {
            if (entry.lease != 0)
                leftLeases.insert(entry.lease);
        };
        for (const CoordinationEvent &event : events) {
            switch (event.type) {
            case Type::HandedOn:
                if (event.kind == Kind::Lock)
                    ++handoffs[event.path];
                left(event.previous);
                break;
            case Type::Elected:
                if (event.kind == Kind::Election)
                    ++leaderChanges[event.path];
                left(event.previous);
                break;
            case Type::Released:
            case Type::WaiterLeft:
            case Type::LeaderEnded:
            case Type::CandidateLeft:
            case Type::BarrierLifted:
            case Type::MemberLeft:
            case Type::InstanceDown:
                left(event.entry);
                break;
            default:
                break;
            }
        }
        // The objects are as of the end of the burst (objectsChanged() comes first).
        for (const qint64 lease : std::as_const(leftLeases)) {
            if (!entriesByLease.contains(lease))
                ++leaseExpirations;
        }
    }

    void forget(const QByteArray &prefix)
    {
        QSet<qint64> touched;
        for (auto it = objects.begin(); it != objects.end();) {
            if (it.key().first.startsWith(prefix)) {
                countLeases(*it, -1, &touched);
                it = objects.erase(it);
            } else {
                ++it;
            }
        }
        for (const qint64 lease : std::as_const(touched)) {
            if (entriesByLease.value(lease) <= 0)
                entriesByLease.remove(lease);
        }
    }

    void apply(const QList<CoordinationObjectChange> &changes, bool firstList, qint64 nowMs)
    {
        QSet<qint64> touched;
        for (const CoordinationObjectChange &change : changes) {
            const CoordinationObject &object = change.object;
            const std::pair<QByteArray, int> key{object.path, int(object.kind)};
            if (const auto was = objects.constFind(key); was != objects.cend())
                countLeases(*was, -1, &touched);
            if (change.type == CoordinationObjectChange::Type::Removed) {
                objects.remove(key);
                if (object.kind == Kind::Lock)
                    holds.remove(object.path);
                continue;
            }
            objects.insert(key, object);
            countLeases(object, +1, &touched);
            if (object.kind == Kind::Lock)
                trackHold(object, firstList, nowMs);
            else if (object.kind == Kind::Election && !leaderChanges.contains(object.path))
                leaderChanges.insert(object.path, 0);
        }
        for (const qint64 lease : std::as_const(touched)) {
            if (entriesByLease.value(lease) <= 0)
                entriesByLease.remove(lease);
        }
        if (firstList) {
            // Holds kept across a forget() whose locks did not come back.
            holds.removeIf([this](const QHash<QByteArray, Hold>::iterator &hold) {
                return !objects.contains({hold.key(), int(Kind::Lock)});
            });
        }
        lastRefreshMs = nowMs;
    }
};

CoordinationMetrics::CoordinationMetrics(QObject *parent)
    : QObject(parent), d(std::make_unique<CoordinationMetricsPrivate>())
{
}

CoordinationMetrics::~CoordinationMetrics() = default;

void CoordinationMetrics::follow(CoordinationMonitor *monitor)
{
    connect(monitor, &CoordinationMonitor::objectsChanged, this,
            [this, monitor](const QList<CoordinationObjectChange> &changes) {
                const bool firstList = !d->listed.contains(monitor);
                d->listed.insert(monitor);
                d->apply(changes, firstList, QDateTime::currentMSecsSinceEpoch());
            });
    connect(monitor, &CoordinationMonitor::eventsHappened, this,
            [this](const QList<CoordinationEvent> &events) { d->count(events); });
    connect(monitor, &CoordinationMonitor::watchRecovered, this, [this](WatchRecoveryKind kind) {
        if (kind == WatchRecoveryKind::Resynced)
            ++d->resyncs;
    });
    // A monitor replaced after a failure lists its prefix again from the start; what it listed
    // before is forgotten, the counters are not.
    connect(monitor, &QObject::destroyed, this, [this, monitor, prefix = monitor->prefix()] {
        d->listed.remove(monitor);
        d->forget(prefix);
    });
}

void CoordinationMetrics::setHolderLabels(bool enabled)
{
    d->holderLabels = enabled;
}

bool CoordinationMetrics::holderLabels() const
{
    return d->holderLabels;
}

void CoordinationMetrics::setMaxSeries(int series)
{
    d->maxSeries = std::max(1, series);
}

int CoordinationMetrics::maxSeries() const
{
    return d->maxSeries;
}

void CoordinationMetrics::setConnected(bool connected, qint64 nowMs)
{
    d->connected = connected;
    if (connected)
        d->lastRefreshMs = nowMs;
}

bool CoordinationMetrics::isConnected() const
{
    return d->connected;
}

int CoordinationMetrics::droppedSeries() const
{
    return d->dropped;
}

QByteArray CoordinationMetrics::escapeLabelValue(const QString &value)
{
    const QByteArray utf8 = value.toUtf8();
    QByteArray escaped;
    escaped.reserve(utf8.size());
    for (const char c : utf8) {
        switch (c) {
        case '\\':
            escaped += "\\\\";
            break;
        case '"':
            escaped += "\\\"";
            break;
        case '\n':
            escaped += "\\n";
            break;
        default:
            escaped += c;
        }
    }
    return escaped;
}

QByteArray CoordinationMetrics::render(qint64 nowMs) const
{
    QByteArray out;
    out.reserve(128 * d->objects.size() + 4096);
    int budget = d->maxSeries;
    int dropped = 0;
    FamilyWriter family(&out, &budget, &dropped);
    const auto name = [](const QByteArray &path) { return QString::fromUtf8(path); };
    const auto number = [](qint64 value) { return QByteArray::number(value); };
    const auto forKind = [this](auto kindMatches, auto write) {
        for (const CoordinationObject &object : std::as_const(d->objects)) {
            if (kindMatches(object.kind))
                write(object);
        }
    };
    const auto is = [](Kind wanted) { return [wanted](Kind kind) { return kind == wanted; }; };

    family.begin("qetcd_objects", "gauge", "Coordination objects recognised, by kind.");
    QMap<QString, qint64> byKind;
    for (const CoordinationObject &object : std::as_const(d->objects))
        ++byKind[object.kindName()];
    for (auto it = byKind.cbegin(); it != byKind.cend(); ++it)
        family.sample({{"kind", it.key()}}, number(it.value()));

    family.begin("qetcd_lock_held_seconds", "gauge",
                 "How long the lock's holder has held it; holds older than the exporter count from when the "
                 "holder queued when its tool wrote that, else from the exporter's start.");
    forKind(is(Kind::Lock), [&](const CoordinationObject &lock) {
        const auto hold = d->holds.constFind(lock.path);
        if (hold == d->holds.cend())
            return;
        const QByteArray held = seconds(std::max<qint64>(0, nowMs - hold->sinceMs));
        if (d->holderLabels)
            family.sample({{"name", name(lock.path)}, {"holder", hold->holder}}, held);
        else
            family.sample({{"name", name(lock.path)}}, held);
    });

    family.begin("qetcd_lock_waiters", "gauge", "Clients queued behind the lock's holder.");
    forKind(is(Kind::Lock), [&](const CoordinationObject &lock) {
        family.sample({{"name", name(lock.path)}}, number(lock.waiters.size()));
    });

    family.begin("qetcd_lock_handoffs_total", "counter",
                 "Times the lock passed from one holder to another while the exporter watched.");
    for (auto it = d->handoffs.cbegin(); it != d->handoffs.cend(); ++it)
        family.sample({{"name", name(it.key())}}, number(qint64(it.value())));

    family.begin("qetcd_election_has_leader", "gauge", "1 while the election has a leader, else 0.");
    forKind(is(Kind::Election), [&](const CoordinationObject &election) {
        family.sample({{"name", name(election.path)}}, election.holders.isEmpty() ? "0" : "1");
    });

    family.begin("qetcd_election_candidates", "gauge", "Candidates waiting behind the election's leader.");
    forKind(is(Kind::Election), [&](const CoordinationObject &election) {
        family.sample({{"name", name(election.path)}}, number(election.waiters.size()));
    });

    family.begin("qetcd_election_leader_changes_total", "counter",
                 "Times a new leader took the election while the exporter watched.");
    for (auto it = d->leaderChanges.cbegin(); it != d->leaderChanges.cend(); ++it)
        family.sample({{"name", name(it.key())}}, number(qint64(it.value())));

    family.begin("qetcd_semaphore_permits_in_use", "gauge", "Permits of the semaphore held now.");
    forKind(is(Kind::Semaphore), [&](const CoordinationObject &semaphore) {
        family.sample({{"name", name(semaphore.path)}}, number(semaphore.holders.size()));
    });

    family.begin("qetcd_semaphore_capacity", "gauge", "Permits the semaphore has, where it stores them.");
    forKind(is(Kind::Semaphore), [&](const CoordinationObject &semaphore) {
        if (semaphore.permits >= 0)
            family.sample({{"name", name(semaphore.path)}}, number(semaphore.permits));
    });

    family.begin("qetcd_semaphore_waiters", "gauge", "Clients waiting for a permit of the semaphore.");
    forKind(is(Kind::Semaphore), [&](const CoordinationObject &semaphore) {
        family.sample({{"name", name(semaphore.path)}}, number(semaphore.waiters.size()));
    });

    family.begin("qetcd_barrier_set", "gauge", "1 while the barrier is set (a lifted barrier leaves no key).");
    forKind(is(Kind::Barrier), [&](const CoordinationObject &barrier) {
        family.sample({{"name", name(barrier.path)}}, "1");
    });

    family.begin("qetcd_counted_barrier_arrived", "gauge", "Members arrived at the counted barrier.");
    forKind(is(Kind::CountedBarrier), [&](const CoordinationObject &barrier) {
        family.sample({{"name", name(barrier.path)}}, number(barrier.members.size()));
    });

    family.begin("qetcd_queue_depth", "gauge", "Items waiting in the queue (work queues: ready now).");
    forKind(isQueue, [&](const CoordinationObject &queue) {
        if (queue.depth >= 0)
            family.sample({{"name", name(queue.path)}}, number(queue.depth));
    });

    family.begin("qetcd_queue_oldest_item_age_seconds", "gauge",
                 "Age of the oldest item waiting in the queue, where its producer wrote the time.");
    forKind(isQueue, [&](const CoordinationObject &queue) {
        if (queue.oldestMs >= 0)
            family.sample({{"name", name(queue.path)}}, seconds(std::max<qint64>(0, nowMs - queue.oldestMs)));
    });

    family.begin("qetcd_service_instances", "gauge", "Instances registered for the service.");
    forKind(is(Kind::Service), [&](const CoordinationObject &service) {
        family.sample({{"service", name(service.path)}}, number(service.members.size()));
    });

    family.begin("qetcd_counter_value", "gauge", "The value of the distributed counter.");
    forKind(is(Kind::Counter), [&](const CoordinationObject &counter) {
        family.sample({{"name", name(counter.path)}}, number(counter.value));
    });

    // One series each, whatever the cap: the exporter's totals and its own health.
    budget = std::numeric_limits<int>::max();
    family.begin("qetcd_lease_expirations_total", "counter",
                 "Leases whose last coordination key went while the exporter watched: expired or revoked "
                 "(etcd's events do not tell the two apart), or their keys deleted.");
    family.sample({}, number(qint64(d->leaseExpirations)));

    // The process's own leases: a handful of kinds, not one series per lease.
    const QList<LeaseKindMetrics> leases = LeaseMetrics::instance()->snapshot();
    const auto perKind = [&](const char *name, const char *help, quint64 LeaseKindMetrics::*count) {
        family.begin(name, "counter", help);
        for (const LeaseKindMetrics &kind : leases)
            family.sample({{"kind", kind.kind}}, number(qint64(kind.*count)));
    };
    perKind("qetcd_lease_suspensions_total",
            "Times renewals of this process's leases stalled, by the recipe that owns them.",
            &LeaseKindMetrics::suspensions);
    perKind("qetcd_lease_losses_total",
            "Leases of this process lost: a hold, permit or leadership ended, or a presence lease expired.",
            &LeaseKindMetrics::losses);
    perKind("qetcd_lease_heals_total", "Presence leases of this process healed, their keys back on a new lease.",
            &LeaseKindMetrics::heals);
    perKind("qetcd_lease_heal_attempts_failed_total",
            "Attempts to heal a presence lease of this process that failed (tried again, or healing stopped).",
            &LeaseKindMetrics::healAttemptsFailed);
    family.begin("qetcd_lease_heal_seconds", "histogram",
                 "How long this process's presence leases took to heal, from the expiry to their keys back.");
    const QList<double> bounds = LeaseMetrics::healBucketBounds();
    for (const LeaseKindMetrics &kind : leases) {
        for (qsizetype bound = 0; bound < bounds.size(); ++bound) {
            family.sample("_bucket", {{"kind", kind.kind}, {"le", QString::number(bounds[bound])}},
                          number(qint64(kind.healBuckets[bound])));
        }
        family.sample("_bucket", {{"kind", kind.kind}, {"le", QStringLiteral("+Inf")}}, number(qint64(kind.heals)));
        family.sample("_sum", {{"kind", kind.kind}}, QByteArray::number(kind.healSecondsSum, 'f', 3));
        family.sample("_count", {{"kind", kind.kind}}, number(qint64(kind.heals)));
    }

    family.begin("qetcd_exporter_connected", "gauge", "1 while etcd answers the exporter, else 0.");
    family.sample({}, d->connected ? "1" : "0");
    family.begin("qetcd_exporter_last_refresh_timestamp_seconds", "gauge",
                 "When the exporter last knew its view of etcd current (Unix time).");
    if (d->lastRefreshMs >= 0)
        family.sample({}, seconds(d->lastRefreshMs));
    family.begin("qetcd_exporter_watch_resyncs_total", "counter",
                 "Times the exporter's watch had to read its prefix again after etcd compacted past it.");
    family.sample({}, number(qint64(d->resyncs)));
    family.begin("qetcd_exporter_series_dropped", "gauge",
                 "Series about objects left out of this scrape for the exporter's cap on series.");
    family.sample({}, number(dropped));
    d->dropped = dropped;
    return out;
}

} // namespace QEtcd
