// SPDX-License-Identifier: Apache-2.0
#include "leaseticker_p.h"

#include "logging_p.h"

#include <cerrno>
#include <cstring>

#include <pthread.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace QEtcd::Internal {

namespace {
// Without a timer (no file descriptor left), as often as gRPC's alarms used to poll.
constexpr std::chrono::milliseconds pollingInterval{250};

std::atomic<bool> timerWithheld{false};

timespec asTimespec(std::chrono::nanoseconds sinceBoot)
{
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(sinceBoot);
    return timespec{time_t(seconds.count()), long((sinceBoot - seconds).count())};
}
} // namespace

LeaseTicker::LeaseTicker(std::function<void()> tick) : m_tick(std::move(tick))
{
    const bool withheld = timerWithheld;
    m_timer = withheld ? -1 : timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC);
    if (m_timer < 0)
        qCCritical(lcLease) << "no timer for the lease clock (" << (withheld ? "withheld by a test" : std::strerror(errno))
                            << "); leases are looked at every" << pollingInterval.count() << "ms instead";
    // A simulated suspend moves every deadline nearer at once; a wait armed on the system's clock
    // would sleep past them.
    m_suspendListener = LeaseClock::onSimulatedSuspend([this] { wakeNow(); });
    m_thread = std::thread([this] { run(); });
    pthread_setname_np(m_thread.native_handle(), "qetcd-leases");
}

LeaseTicker::~LeaseTicker()
{
    m_suspendListener.reset();
    m_stopping = true;
    wakeNow();
    m_thread.join();
    if (m_timer >= 0)
        close(m_timer);
}

void LeaseTicker::withholdTimerForTests(bool withheld)
{
    timerWithheld = withheld;
}

void LeaseTicker::wakeAt(LeaseClock::time_point at)
{
    if (m_timer < 0)
        return;
    // An absolute time of zero would disarm the timer; one already past fires at once.
    const std::chrono::nanoseconds boot = std::max(LeaseClock::systemBootTime(at), std::chrono::nanoseconds(1));
    const itimerspec spec{{0, 0}, asTimespec(boot)};
    timerfd_settime(m_timer, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void LeaseTicker::wakeNow()
{
    if (m_timer < 0)
        return;
    const itimerspec spec{{0, 0}, {0, 1}};
    timerfd_settime(m_timer, 0, &spec, nullptr);
}

void LeaseTicker::run()
{
    while (true) {
        const bool due = waitForTimer();
        if (m_stopping)
            return;
        if (due)
            m_tick();
    }
}

bool LeaseTicker::waitForTimer()
{
    if (m_timer < 0) {
        std::this_thread::sleep_for(pollingInterval);
        return true;
    }
    quint64 expirations = 0;
    if (read(m_timer, &expirations, sizeof expirations) == ssize_t(sizeof expirations))
        return true;
    if (errno != EINTR)
        qCWarning(lcLease) << "lease clock: reading its timer failed:" << std::strerror(errno);
    return false;
}

} // namespace QEtcd::Internal
