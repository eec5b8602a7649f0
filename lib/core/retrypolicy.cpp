// SPDX-License-Identifier: Apache-2.0
#include "retrypolicy.h"

#include "logging_p.h"

#include <QtCore/QRandomGenerator>

#include <cmath>

namespace QEtcd {

using std::chrono::milliseconds;

namespace {
RetryPolicy::Delay giveUp(int, milliseconds)
{
    return {};
}
} // namespace

struct RetryPolicy::Data
{
    Function nextDelay;
    QString description;
    Status validation;
};

RetryPolicy::RetryPolicy(std::shared_ptr<const Data> data) : d(std::move(data)) {}

RetryPolicy::RetryPolicy() : d(never().d) {}

// Declared so that no move is: a moved-from policy with no state would crash its next use.
RetryPolicy::RetryPolicy(const RetryPolicy &other) = default;
RetryPolicy &RetryPolicy::operator=(const RetryPolicy &other) = default;
RetryPolicy::~RetryPolicy() = default;

RetryPolicy::RetryPolicy(Function nextDelay, QString description)
    : d(nextDelay ? std::make_shared<const Data>(Data{std::move(nextDelay), std::move(description), {}})
                  : invalid(QStringLiteral("RetryPolicy: the delay function is empty")).d)
{
}

RetryPolicy RetryPolicy::invalid(const QString &why)
{
    qCWarning(lcCore).noquote() << why;
    const Status refusal(StatusCode::InvalidArgument, why);
    return RetryPolicy(std::make_shared<const Data>(Data{giveUp, QStringLiteral("invalid"), refusal}));
}

RetryPolicy RetryPolicy::exponentialBackoff()
{
    static const RetryPolicy defaults = exponentialBackoff(ExponentialBackoff());
    return defaults;
}

RetryPolicy RetryPolicy::exponentialBackoff(const ExponentialBackoff &p)
{
    const auto bad = [](const char *what, const QString &value) {
        return invalid(QStringLiteral("RetryPolicy::exponentialBackoff: %1 (got %2)")
                           .arg(QLatin1String(what), value));
    };
    if (p.initialDelay <= milliseconds::zero())
        return bad("initialDelay must be > 0", QString::number(p.initialDelay.count()) + QLatin1String(" ms"));
    if (p.maxDelay < p.initialDelay)
        return bad("maxDelay must be >= initialDelay", QString::number(p.maxDelay.count()) + QLatin1String(" ms"));
    if (!(p.factor >= 1.0) || !std::isfinite(p.factor))
        return bad("factor must be a finite number >= 1", QString::number(p.factor));
    if (!(p.jitterRatio >= 0.0 && p.jitterRatio <= 1.0))
        return bad("jitterRatio must be within [0, 1]", QString::number(p.jitterRatio));
    if (p.maxAttempts < 1)
        return bad("maxAttempts must be >= 1", QString::number(p.maxAttempts));
    if (p.maxElapsed <= milliseconds::zero())
        return bad("maxElapsed must be > 0", QString::number(p.maxElapsed.count()) + QLatin1String(" ms"));

    auto next = [p](int attempt, milliseconds elapsed) -> Delay {
        if (attempt > p.maxAttempts || elapsed >= p.maxElapsed)
            return {};
        const double cap = double(p.maxDelay.count());
        double base = double(p.initialDelay.count()) * std::pow(p.factor, attempt - 1);
        if (!std::isfinite(base) || base > cap)
            base = cap;
        double delay = base;
        if (p.jitterRatio > 0.0) {
            const double unit = QRandomGenerator::global()->generateDouble() * 2.0 - 1.0;
            delay = std::min(cap, base * (1.0 + unit * p.jitterRatio));
        }
        return milliseconds(qint64(std::llround(delay)));
    };
    return RetryPolicy(std::move(next),
                       QStringLiteral("exponentialBackoff(initial=%1ms, max=%2ms, factor=%3, jitter=%4)")
                           .arg(p.initialDelay.count())
                           .arg(p.maxDelay.count())
                           .arg(p.factor)
                           .arg(p.jitterRatio));
}

RetryPolicy RetryPolicy::bounded(int maxAttempts, milliseconds delay)
{
    if (maxAttempts < 1)
        return invalid(QStringLiteral("RetryPolicy::bounded: maxAttempts must be >= 1 (got %1)").arg(maxAttempts));
    if (delay < milliseconds::zero())
        return invalid(QStringLiteral("RetryPolicy::bounded: delay must be >= 0 (got %1 ms)").arg(delay.count()));
    return RetryPolicy(
        [maxAttempts, delay](int attempt, milliseconds) -> Delay {
            return attempt <= maxAttempts ? Delay(delay) : Delay();
        },
        QStringLiteral("bounded(%1, %2ms)").arg(maxAttempts).arg(delay.count()));
}

RetryPolicy RetryPolicy::unlimited()
{
    static const RetryPolicy unlimited(std::make_shared<const Data>(
        Data{exponentialBackoff().d->nextDelay, QStringLiteral("unlimited"), {}}));
    return unlimited;
}

RetryPolicy RetryPolicy::never()
{
    static const RetryPolicy never(std::make_shared<const Data>(Data{giveUp, QStringLiteral("never"), {}}));
    return never;
}

RetryPolicy::Delay RetryPolicy::nextDelay(int attempt, milliseconds elapsed) const
{
    if (attempt < 1) {
        qCWarning(lcCore) << "RetryPolicy::nextDelay: attempt is 1-based, got" << attempt;
        return {};
    }
    return d->nextDelay(attempt, elapsed);
}

bool RetryPolicy::isValid() const
{
    return d->validation.isOk();
}

Status RetryPolicy::validation() const
{
    return d->validation;
}

QString RetryPolicy::description() const
{
    return d->description;
}

} // namespace QEtcd
