// SPDX-License-Identifier: Apache-2.0
#include "leaseclock_p.h"

#include <atomic>
#include <list>
#include <mutex>

#include <time.h>

namespace QEtcd::Internal {

namespace {
std::atomic<LeaseClock::rep> simulatedSleep{0};

struct SuspendListeners
{
    std::mutex mutex;
    std::list<std::function<void()>> wakes;
};

SuspendListeners &suspendListeners()
{
    // Never destroyed: a client left for the exit handlers may still drop its handle.
    static auto *listeners = new SuspendListeners;
    return *listeners;
}

LeaseClock::duration systemNow()
{
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}
} // namespace

LeaseClock::time_point LeaseClock::now() noexcept
{
    return time_point(systemNow() + duration(simulatedSleep.load()));
}

LeaseClock::duration LeaseClock::systemBootTime(time_point at)
{
    return at.time_since_epoch() - duration(simulatedSleep.load());
}

std::shared_ptr<void> LeaseClock::onSimulatedSuspend(std::function<void()> wake)
{
    SuspendListeners &listeners = suspendListeners();
    std::lock_guard lock(listeners.mutex);
    const auto entry = listeners.wakes.insert(listeners.wakes.end(), std::move(wake));
    return std::shared_ptr<void>(nullptr, [entry](void *) {
        SuspendListeners &listeners = suspendListeners();
        std::lock_guard lock(listeners.mutex);
        listeners.wakes.erase(entry);
    });
}

void LeaseClock::simulateSuspend(duration asleep)
{
    simulatedSleep += asleep.count();
    SuspendListeners &listeners = suspendListeners();
    std::lock_guard lock(listeners.mutex);
    for (const std::function<void()> &wake : listeners.wakes)
        wake();
}

} // namespace QEtcd::Internal
