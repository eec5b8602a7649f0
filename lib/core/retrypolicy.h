// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <chrono>
#include <climits>
#include <functional>
#include <memory>
#include <optional>

namespace QEtcd {

/// Decides how long to wait before the next attempt of a failed operation, or to stop.
///
/// Thread-safe, immutable, cheap to copy. Invalid parameters yield a policy that never retries
/// and says why in validation(); every component handed one refuses to start with that status.
class QETCD_EXPORT RetryPolicy
{
public:
    /// The wait before the next attempt; empty means "give up".
    using Delay = std::optional<std::chrono::milliseconds>;
    /// A policy as a function: attempt is 1-based, elapsed counts from the first failure.
    using Function = std::function<Delay(int attempt, std::chrono::milliseconds elapsed)>;

    /// The parameters of exponentialBackoff().
    struct ExponentialBackoff
    {
        std::chrono::milliseconds initialDelay{250};  ///< The wait before the first retry; > 0.
        std::chrono::milliseconds maxDelay{15000};    ///< No wait is longer; >= initialDelay.
        double factor = 2.0;                          ///< Each wait is this times the one before; >= 1.
        /// Each wait is moved at random by up to this fraction of itself; 0 to 1.
        double jitterRatio = 0.25;
        int maxAttempts = INT_MAX;  ///< Retries after which the policy gives up; >= 1.
        /// Time since the first failure after which the policy gives up; > 0.
        std::chrono::milliseconds maxElapsed = std::chrono::milliseconds::max();
    };

    /// A policy that never retries.
    RetryPolicy();
    /// A policy of your own: \a nextDelay decides, \a description names it in logs. An empty
    /// function makes the policy invalid.
    RetryPolicy(Function nextDelay, QString description);
    /// A copy shares the policy. There is no move: a policy moved from stays the same policy.
    RetryPolicy(const RetryPolicy &other);
    /// Makes this policy share \a other's.
    RetryPolicy &operator=(const RetryPolicy &other);
    /// Lets go of this copy.
    ~RetryPolicy();

    /// Exponential backoff with the default ExponentialBackoff parameters: 250 ms doubling up to
    /// 15 s, with 25 % jitter, without end.
    static RetryPolicy exponentialBackoff();
    /// Exponential backoff with jitter as \a parameters say; invalid parameters make an invalid
    /// policy (and a warning in the log).
    static RetryPolicy exponentialBackoff(const ExponentialBackoff &parameters);
    /// At most \a maxAttempts retries, each after the same \a delay.
    static RetryPolicy bounded(int maxAttempts, std::chrono::milliseconds delay = std::chrono::milliseconds(500));
    /// Retries without end, with the default exponential backoff. (The reference calls this
    /// "forever"; that word is a Qt macro.)
    static RetryPolicy unlimited();
    /// Never retries: the first failure is final.
    static RetryPolicy never();

    /// The wait before retry number \a attempt (1-based), \a elapsed after the first failure;
    /// empty to give up.
    Delay nextDelay(int attempt, std::chrono::milliseconds elapsed) const;

    /// The parameters were accepted.
    bool isValid() const;
    /// Ok, or InvalidArgument naming the parameter that was refused.
    Status validation() const;
    /// The policy and its parameters in words, for logs ("bounded(4, 250ms)").
    QString description() const;

private:
    struct Data;
    explicit RetryPolicy(std::shared_ptr<const Data> data);
    static RetryPolicy invalid(const QString &why);

    // Shared and never changed once made: every lease and recipe of a client carries a copy,
    // and a client may hold tens of thousands of leases.
    std::shared_ptr<const Data> d;
};

} // namespace QEtcd
