// SPDX-License-Identifier: Apache-2.0
#include "leaseclock_p.h"

#include <atomic>

#include <time.h>

namespace QEtcd::Internal {

namespace {
std::atomic<LeaseClock::rep> simulatedSleep{0};
}

LeaseClock::time_point LeaseClock::now() noexcept
{
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return time_point(std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec)
                      + duration(simulatedSleep.load()));
}

void LeaseClock::simulateSuspend(duration asleep)
{
    simulatedSleep += asleep.count();
}

} // namespace QEtcd::Internal
