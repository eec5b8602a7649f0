// SPDX-License-Identifier: Apache-2.0
#pragma once

// The clock of lease deadlines. etcd's clock runs on while this machine sleeps, and so does
// CLOCK_BOOTTIME; steady_clock (CLOCK_MONOTONIC) stops, so after an hour's suspend a deadline
// kept by it would still lie ahead of a lease etcd dropped long ago.
//
// A process that is paused (SIGSTOP, a frozen VM, a debugger) sees no time pass on either
// clock and cannot tell locally; fencing tokens are for that.

#include <QEtcd/qetcdexport.h>

#include <chrono>
#include <functional>
#include <memory>

namespace QEtcd::Internal {

struct LeaseClock
{
    using duration = std::chrono::nanoseconds;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<LeaseClock>;
    static constexpr bool is_steady = true;

    static time_point now() noexcept;

    // The same moment on steady_clock, the clock the public API speaks: the two differ by the
    // time the system spent suspended.
    static std::chrono::steady_clock::time_point toSteady(time_point deadline)
    {
        return std::chrono::steady_clock::now()
            + std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline - now());
    }

    // The same instant on the system's CLOCK_BOOTTIME, which a timerfd arms on: the two differ by
    // the suspends simulated so far.
    static duration systemBootTime(time_point at);

    // wake runs on simulateSuspend's caller's thread each time it moves the clock, until the
    // returned handle is dropped: a wait armed on the system's clock must look again.
    static std::shared_ptr<void> onSimulatedSuspend(std::function<void()> wake);

    // Tests only: as if the system had been suspended for asleep (boot time moves on,
    // monotonic time does not). Process-wide and irreversible.
    QETCD_INTERNAL_EXPORT static void simulateSuspend(duration asleep);
};

} // namespace QEtcd::Internal
