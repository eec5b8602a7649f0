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

QString goDuration(qint64 ns)
{
    if (ns == 0)
        return QStringLiteral("0s");
    const auto withFraction = [](qint64 value, qint64 unit, int digits, const QString &suffix) {
        QString text = QString::number(value / unit);
        if (const qint64 rest = value % unit) {
            QString decimals = QString::number(rest).rightJustified(digits, QLatin1Char('0'));
            while (decimals.endsWith(QLatin1Char('0')))
                decimals.chop(1);
            text += QLatin1Char('.') + decimals;
        }
        return text + suffix;
    };
    if (ns < 1000)
        return QString::number(ns) + QLatin1String("ns");
    if (ns < 1000000)
        return withFraction(ns, 1000, 3, QStringLiteral("\u00b5s"));
    if (ns < 1000000000)
        return withFraction(ns, 1000000, 6, QStringLiteral("ms"));
    constexpr qint64 minute = 60 * qint64(1000000000);
    const qint64 hours = ns / (60 * minute);
    const qint64 minutes = ns % (60 * minute) / minute;
    QString text;
    if (hours > 0)
        text += QString::number(hours) + QLatin1Char('h');
    if (hours > 0 || minutes > 0)
        text += QString::number(minutes) + QLatin1Char('m');
    return text + withFraction(ns % minute, 1000000000, 9, QStringLiteral("s"));
}

} // namespace QEtcd::Cli
