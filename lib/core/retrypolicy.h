#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <chrono>
#include <climits>
#include <functional>
#include <memory>
#include <optional>

namespace QEtcd {

// How failed attempts are paced and when they stop. Thread-safe, immutable, cheap to copy.
class QETCD_EXPORT RetryPolicy
{
public:
    using Delay = std::optional<std::chrono::milliseconds>;
    // attempt is 1-based; elapsed counts from the first failure. nullopt means "give up".
    using Function = std::function<Delay(int attempt, std::chrono::milliseconds elapsed)>;

    struct ExponentialBackoff
    {
        std::chrono::milliseconds initialDelay{250};
        std::chrono::milliseconds maxDelay{15000};
        double factor = 2.0;
        double jitterRatio = 0.25;
        int maxAttempts = INT_MAX;
        std::chrono::milliseconds maxElapsed = std::chrono::milliseconds::max();
    };

    // A default-constructed policy never retries.
    RetryPolicy();
    RetryPolicy(Function nextDelay, QString description);

    static RetryPolicy exponentialBackoff();
    static RetryPolicy exponentialBackoff(const ExponentialBackoff &parameters);
    static RetryPolicy bounded(int maxAttempts, std::chrono::milliseconds delay = std::chrono::milliseconds(500));
    // The reference calls this "forever"; that word is a Qt macro.
    static RetryPolicy unlimited();
    static RetryPolicy never();

    Delay nextDelay(int attempt, std::chrono::milliseconds elapsed) const;

    // Invalid parameters yield a policy that never retries and says why here; every component
    // that is handed one refuses to start with this status.
    bool isValid() const { return m_validation.isOk(); }
    Status validation() const { return m_validation; }
    QString description() const { return m_description; }

private:
    static RetryPolicy invalid(const QString &why);

    Function m_nextDelay;
    QString m_description;
    Status m_validation;
};

} // namespace QEtcd
