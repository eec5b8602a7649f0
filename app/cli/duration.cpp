// SPDX-License-Identifier: Apache-2.0
#include "duration.h"

#include <QtCore/QRegularExpression>

#include <cmath>

namespace QEtcd::Cli {

std::optional<std::chrono::milliseconds> parseDuration(const QString &text, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<std::chrono::milliseconds> {
        if (error)
            *error = QStringLiteral("invalid duration \"%1\": %2").arg(text, why);
        return std::nullopt;
    };
    if (text.isEmpty())
        return fail(QStringLiteral("empty"));
    if (text.startsWith(QLatin1Char('-')))
        return fail(QStringLiteral("must not be negative"));

    static const QRegularExpression term(QStringLiteral("\\G(\\d+\\.?\\d*|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)?"));
    static const QList<std::pair<QString, double>> unitsInMs = {
        {QStringLiteral("ns"), 1e-6}, {QStringLiteral("us"), 1e-3}, {QStringLiteral("µs"), 1e-3},
        {QStringLiteral("μs"), 1e-3}, {QStringLiteral("ms"), 1},    {QStringLiteral("s"), 1e3},
        {QStringLiteral("m"), 60e3},  {QStringLiteral("h"), 3600e3},
    };
    const auto fromMilliseconds = [&](double totalMs) -> std::optional<std::chrono::milliseconds> {
        if (totalMs > double(std::chrono::milliseconds::max().count()) / 2)
            return fail(QStringLiteral("too long"));
        // Rounded up, so "1us" never turns into zero, which would mean "do not wait at all".
        return std::chrono::milliseconds(qint64(std::ceil(totalMs)));
    };
    const QString body = text.startsWith(QLatin1Char('+')) ? text.mid(1) : text;
    static const QRegularExpression bareNumber(QStringLiteral("\\A(\\d+\\.?\\d*|\\.\\d+)\\z"));
    if (bareNumber.match(body).hasMatch())
        return fromMilliseconds(body.toDouble() * 1e3);

    double totalMs = 0;
    qsizetype position = 0;
    while (position < body.size()) {
        const QRegularExpressionMatch match = term.match(body, position);
        if (!match.hasMatch())
            return fail(QStringLiteral("expected a number and a unit (ns, us, ms, s, m, h), like 5s or 500ms"));
        if (match.captured(2).isEmpty() && match.capturedEnd() == body.size())
            return fail(QStringLiteral("missing unit after %1 (e.g. 1m30s)").arg(match.captured(1)));
        if (match.captured(2).isEmpty()) {
            return fail(QStringLiteral("unknown unit \"%1\" (use ns, us, ms, s, m or h)")
                            .arg(body.mid(match.capturedEnd())));
        }
        const auto unit = std::find_if(unitsInMs.cbegin(), unitsInMs.cend(),
                                       [&](const auto &u) { return u.first == match.captured(2); });
        totalMs += match.captured(1).toDouble() * unit->second;
        position = match.capturedEnd();
    }
    return fromMilliseconds(totalMs);
}

QString formatDuration(std::chrono::milliseconds duration)
{
    const qint64 ms = duration.count();
    if (ms == 0)
        return QStringLiteral("0");
    if (ms % 1000 != 0)
        return QStringLiteral("%1ms").arg(ms);
    if (ms % 60000 != 0)
        return QStringLiteral("%1s").arg(ms / 1000);
    if (ms % 3600000 != 0)
        return QStringLiteral("%1m").arg(ms / 60000);
    return QStringLiteral("%1h").arg(ms / 3600000);
}

} // namespace QEtcd::Cli
