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

    LeaseClock::time_point deadline() const { return LeaseClock::time_point(LeaseClock::duration(deadlineNs.load())); }
    void setDeadline(LeaseClock::time_point deadline) { deadlineNs = deadline.time_since_epoch().count(); }
};

} // namespace QEtcd::Internal
