// SPDX-License-Identifier: Apache-2.0
#include "leasemetrics.h"
#include "leasemetrics_p.h"

#include <QtCore/QMutex>

#include <algorithm>
#include <array>
#include <deque>

namespace QEtcd {

namespace {
// Prometheus's usual latency buckets, stretched to minutes: a heal waits out a partition.
constexpr std::array<double, 11> healBounds{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
} // namespace

class LeaseMetricsHolder
{
public:
    LeaseMetrics metrics;
    mutable QMutex mutex;
    // A deque: its elements stay where they are as kinds are added, and a slot is an index.
    std::deque<LeaseKindMetrics> kinds;

    template <class Change>
    void count(int kind, Change change)
    {
        {
            QMutexLocker locker(&mutex);
            if (kind < 0 || std::size_t(kind) >= kinds.size())
                return;
            change(kinds[std::size_t(kind)]);
        }
        Q_EMIT metrics.changed();
    }
};

Q_GLOBAL_STATIC(LeaseMetricsHolder, leaseMetricsHolder)

bool LeaseKindMetrics::operator==(const LeaseKindMetrics &other) const
{
    return kind == other.kind && suspensions == other.suspensions && losses == other.losses && heals == other.heals
        && healAttemptsFailed == other.healAttemptsFailed && healBuckets == other.healBuckets
        && healSecondsSum == other.healSecondsSum;
}

LeaseMetrics::LeaseMetrics() = default;

LeaseMetrics *LeaseMetrics::instance()
{
    return &leaseMetricsHolder()->metrics;
}

QList<double> LeaseMetrics::healBucketBounds()
{
    return QList<double>(healBounds.begin(), healBounds.end());
}

QList<LeaseKindMetrics> LeaseMetrics::snapshot() const
{
    LeaseMetricsHolder *const all = leaseMetricsHolder();
    QList<LeaseKindMetrics> counts;
    {
        QMutexLocker locker(&all->mutex);
        counts = QList<LeaseKindMetrics>(all->kinds.begin(), all->kinds.end());
    }
    std::sort(counts.begin(), counts.end(),
              [](const LeaseKindMetrics &a, const LeaseKindMetrics &b) { return a.kind < b.kind; });
    return counts;
}

namespace Internal {

int leaseMetricsKind(const QString &kind)
{
    LeaseMetricsHolder *const all = leaseMetricsHolder();
    QMutexLocker locker(&all->mutex);
    const auto found = std::find_if(all->kinds.begin(), all->kinds.end(),
                                    [&kind](const LeaseKindMetrics &known) { return known.kind == kind; });
    if (found != all->kinds.end())
        return int(found - all->kinds.begin());
    LeaseKindMetrics added;
    added.kind = kind;
    added.healBuckets.fill(0, qsizetype(healBounds.size()));
    all->kinds.push_back(added);
    return int(all->kinds.size() - 1);
}

void countLease(int kind, LeaseCount what)
{
    leaseMetricsHolder()->count(kind, [what](LeaseKindMetrics &counts) {
        switch (what) {
        case LeaseCount::Suspension:
            ++counts.suspensions;
            break;
        case LeaseCount::Loss:
            ++counts.losses;
            break;
        case LeaseCount::HealAttemptFailed:
            ++counts.healAttemptsFailed;
            break;
        }
    });
}

void countHeal(int kind, std::chrono::milliseconds took)
{
    const double seconds = double(took.count()) / 1000.0;
    leaseMetricsHolder()->count(kind, [seconds](LeaseKindMetrics &counts) {
        ++counts.heals;
        counts.healSecondsSum += seconds;
        for (std::size_t bound = 0; bound < healBounds.size(); ++bound) {
            if (seconds <= healBounds[bound])
                ++counts.healBuckets[qsizetype(bound)];
        }
    });
}

} // namespace Internal

} // namespace QEtcd
