// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "leaseclock_p.h"

#include <QtCore/QtGlobal>

#include <atomic>

namespace QEtcd::Internal {

// One lease's identity and loss deadline, readable from any thread. The lease keeps it current
// and the recipe that reports it holds a share, so either may be destroyed first.
struct LeaseReport
{
    std::atomic<qint64> leaseId{-1};
    std::atomic<qint64> ttlSeconds{0};
    std::atomic<LeaseClock::rep> deadlineNs{0};
    // The LeaseMetrics kind the lease counts under (leaseMetricsKind()): its own class until a
    // recipe tracks it and names it after itself, through the share it holds (hence mutable).
    mutable std::atomic<int> metricsKind{-1};

    LeaseClock::time_point deadline() const { return LeaseClock::time_point(LeaseClock::duration(deadlineNs.load())); }
    void setDeadline(LeaseClock::time_point deadline) { deadlineNs = deadline.time_since_epoch().count(); }
};

} // namespace QEtcd::Internal
