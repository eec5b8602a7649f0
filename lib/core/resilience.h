// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/retrypolicy.h>

#include <chrono>

namespace QEtcd {

/// The per-attempt deadline that means "none": the call waits as long as the server takes.
inline constexpr std::chrono::milliseconds NoTimeout = std::chrono::milliseconds::max();

/// How unary calls (get, put, delete, transactions, lease calls) are retried and bounded.
///
/// Only UNAVAILABLE, INTERNAL and DEADLINE_EXCEEDED are retried, and never for transactions or
/// lease revokes: a failed commit is ambiguous and the caller's compare-and-set decides.
struct QETCD_EXPORT RpcResilience
{
    /// Paces the retries; by default 4 of them, 250 ms apart.
    RetryPolicy retryPolicy = RetryPolicy::bounded(4, std::chrono::milliseconds(250));
    /// The deadline of each attempt; NoTimeout for none.
    std::chrono::milliseconds operationTimeout{30000};

    /// Retries and a 30 s deadline per attempt, as above.
    static RpcResilience defaults() { return {}; }
    /// One attempt without a deadline.
    static RpcResilience disabled() { return {RetryPolicy::never(), NoTimeout}; }
    /// For health probes: one attempt bounded at 2 s, so a dead server answers "no" quickly.
    static RpcResilience probe() { return {RetryPolicy::never(), std::chrono::milliseconds(2000)}; }
};

/// How a Watcher recovers from a broken stream, a restarted member or a cancelled watch.
struct QETCD_EXPORT WatchResilience
{
    /// Paces the attempts to re-create the watch; when it gives up the watch is Failed.
    RetryPolicy retryPolicy = RetryPolicy::exponentialBackoff();
    /// Ask etcd for progress notifications, so an idle watch still learns the revision it could
    /// resume from.
    bool progressNotify = true;

    /// Unlimited exponential backoff, with progress notifications.
    static WatchResilience defaults() { return {}; }
    /// No recovery: the first failure is final.
    static WatchResilience disabled() { return {RetryPolicy::never(), false}; }
};

/// How a self-healing lease heals: the pacing of its attempts and the bound on each.
struct QETCD_EXPORT LeaseResilience
{
    /// Paces the attempts to grant a new lease and re-establish the keys; when it gives up the
    /// lease is Failed. Campaigns of the elections retry under it too.
    RetryPolicy retryPolicy = RetryPolicy::exponentialBackoff();
    /// The deadline of each call a heal makes.
    std::chrono::milliseconds healOperationTimeout{10000};

    /// Unlimited exponential backoff, 10 s per call.
    static LeaseResilience defaults() { return {}; }
    /// No healing: the first expiry is final.
    static LeaseResilience disabled() { return {RetryPolicy::never(), std::chrono::milliseconds(10000)}; }
};

/// The resilience of everything a recipe does: its watches, its leases and its calls.
struct QETCD_EXPORT ResilienceConfig
{
    WatchResilience watch;  ///< For the recipe's watches.
    LeaseResilience lease;  ///< For its self-healing leases and campaigns.
    RpcResilience rpc;      ///< For its unary calls.

    /// The defaults of all three.
    static ResilienceConfig defaults() { return {}; }
    /// No retries anywhere: every first failure is final.
    static ResilienceConfig disabled()
    {
        return {WatchResilience::disabled(), LeaseResilience::disabled(), RpcResilience::disabled()};
    }
    /// Ok, or the first problem found: an invalid retry policy among the three, or a timeout
    /// that is not positive. A recipe given a configuration that fails this refuses to start.
    Status validate() const;
};

} // namespace QEtcd
