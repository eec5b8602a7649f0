#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/retrypolicy.h>

#include <chrono>

namespace QEtcd {

// Per-attempt deadline of "no deadline": the call waits as long as the server takes.
inline constexpr std::chrono::milliseconds NoTimeout = std::chrono::milliseconds::max();

// Unary RPCs. Only UNAVAILABLE, INTERNAL and DEADLINE_EXCEEDED are retried, and never for
// transactions or lease revokes: a failed commit is ambiguous and the caller's CAS decides.
struct QETCD_EXPORT RpcResilience
{
    RetryPolicy retryPolicy = RetryPolicy::bounded(4, std::chrono::milliseconds(250));
    std::chrono::milliseconds operationTimeout{30000};

    static RpcResilience defaults() { return {}; }
    static RpcResilience disabled() { return {RetryPolicy::never(), NoTimeout}; }
    // Health probes: one bounded attempt, so a dead server answers "no" quickly.
    static RpcResilience probe() { return {RetryPolicy::never(), std::chrono::milliseconds(2000)}; }
};

struct QETCD_EXPORT WatchResilience
{
    RetryPolicy retryPolicy = RetryPolicy::exponentialBackoff();
    bool progressNotify = true;

    static WatchResilience defaults() { return {}; }
    static WatchResilience disabled() { return {RetryPolicy::never(), false}; }
};

struct QETCD_EXPORT LeaseResilience
{
    RetryPolicy retryPolicy = RetryPolicy::exponentialBackoff();
    std::chrono::milliseconds healOperationTimeout{10000};

    static LeaseResilience defaults() { return {}; }
    static LeaseResilience disabled() { return {RetryPolicy::never(), std::chrono::milliseconds(10000)}; }
};

struct QETCD_EXPORT ResilienceConfig
{
    WatchResilience watch;
    LeaseResilience lease;
    RpcResilience rpc;

    static ResilienceConfig defaults() { return {}; }
    static ResilienceConfig disabled()
    {
        return {WatchResilience::disabled(), LeaseResilience::disabled(), RpcResilience::disabled()};
    }
    // The first invalid retry policy among the three, or Ok.
    Status validate() const;
};

} // namespace QEtcd
