#pragma once

#include <QtCore/QtGlobal>

#include <atomic>
#include <chrono>

namespace QEtcd::Internal {

// One lease's identity and loss deadline, readable from any thread. The lease keeps it current
// and the recipe that reports it holds a share, so either may be destroyed first.
struct LeaseClock
{
    using Clock = std::chrono::steady_clock;

    std::atomic<qint64> leaseId{-1};
    std::atomic<qint64> ttlSeconds{0};
    std::atomic<Clock::rep> deadlineNs{0};

    Clock::time_point deadline() const { return Clock::time_point(Clock::duration(deadlineNs.load())); }
    void setDeadline(Clock::time_point deadline) { deadlineNs = deadline.time_since_epoch().count(); }
};

} // namespace QEtcd::Internal
