// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QList>
#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QString>

namespace QEtcd {

/// What happened to the leases of one kind of owner in this process since it started.
struct QETCD_EXPORT LeaseKindMetrics
{
    /// Who owns the leases: the class of the recipe that tracks them ("DistributedMutex",
    /// "ServiceRegistry", ...), or "SelfHealingKeepAlive" / "ExclusivityLease" for a lease used
    /// on its own.
    QString kind;
    /// Times renewals stalled (LeaseEventKind::Suspended), whether or not the lease survived.
    quint64 suspensions = 0;
    /// Leases lost: an exclusivity lease's loss (a hold, permit or leadership ended), a healing
    /// lease's expiry (its keys gone until a heal puts them back).
    quint64 losses = 0;
    /// Healing leases restored, their keys back on a new lease.
    quint64 heals = 0;
    /// Heal attempts that failed: each was tried again, or healing stopped.
    quint64 healAttemptsFailed = 0;
    /// The heals by how long each took, from the expiry to the keys back, as a Prometheus
    /// histogram: healBuckets[i] counts those that took at most LeaseMetrics::healBucketBounds()[i]
    /// seconds (so each includes the ones before it); heals counts them all.
    QList<quint64> healBuckets;
    /// The heals' durations added up, in seconds.
    double healSecondsSum = 0;

    /// Every field is the same.
    bool operator==(const LeaseKindMetrics &other) const;
};

/// The process's lease counts, by kind of owner: how often its presence leases healed and its
/// exclusive ones were lost, without a server. Counted once, where the leases tell their events
/// (SelfHealingKeepAlive, ExclusivityLease), for every lease of every recipe; the exporter
/// (CoordinationMetrics) serves them for the process that runs it.
///
/// Thread-safe: leases count on the client's threads, snapshot() may be read from any thread.
/// changed() comes from the thread that counted; connect with the default AutoConnection.
class QETCD_EXPORT LeaseMetrics : public QObject
{
    Q_OBJECT
public:
    /// The one instance of the process; never null, never destroyed before the process exits.
    static LeaseMetrics *instance();
    /// The upper bounds, in seconds, of the heal-latency buckets, ascending; a heal slower than
    /// the last is only in LeaseKindMetrics::heals.
    static QList<double> healBucketBounds();

    /// The counts so far, one entry per kind that has a lease made, sorted by kind.
    QList<LeaseKindMetrics> snapshot() const;

Q_SIGNALS:
    /// A count changed; snapshot() tells the new ones.
    void changed();

private:
    LeaseMetrics();
    friend class LeaseMetricsHolder;
};

} // namespace QEtcd
