// SPDX-License-Identifier: Apache-2.0
#pragma once

// Wakes a keep-alive hub at the instants it asks for, on the boot clock. A timerfd on
// CLOCK_BOOTTIME fires at its instant even when the machine slept through it, so the hub needs
// no tick in between just to look at the time. gRPC's alarms run on the monotonic clock, which
// stops during a suspend, and each one woke three threads of this process: measured on an idle
// client, its polls every 250 ms cost more CPU than renewing a thousand leases.
//
// One thread, blocked in read() between instants; tick runs on it. Should the process have no
// file descriptor left for the timer, it looks every 250 ms instead, as the hub used to.

#include "leaseclock_p.h"

#include <QEtcd/qetcdexport.h>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace QEtcd::Internal {

class LeaseTicker
{
public:
    explicit LeaseTicker(std::function<void()> tick);
    // No tick runs once this returns. Must not be called from a tick.
    ~LeaseTicker();
    Q_DISABLE_COPY_MOVE(LeaseTicker)

    // Any thread: the next tick comes at at (at once if that has passed), instead of whenever
    // was asked before. A tick may come early or twice; the hub then finds nothing due.
    void wakeAt(LeaseClock::time_point at);

    // Tests only: tickers made while withheld go without a timer, as if the process had no file
    // descriptor left. Process-wide.
    QETCD_INTERNAL_EXPORT static void withholdTimerForTests(bool withheld);

private:
    void run();
    // Until the armed instant (or, without a timer, a polling interval); false if interrupted.
    bool waitForTimer();
    void wakeNow();

    std::function<void()> m_tick;
    int m_timer = -1;
    std::atomic<bool> m_stopping{false};
    std::shared_ptr<void> m_suspendListener;
    std::thread m_thread;
};

} // namespace QEtcd::Internal
