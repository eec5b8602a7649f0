// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QString>

#include <chrono>
#include <optional>

namespace QEtcd::Cli {

// Durations as etcdctl (Go's time.ParseDuration) writes them: "5s", "500ms", "1m30s", "1.5h";
// units ns, us, ms, s, m, h. A bare number is seconds ("5", "0.5"), as --ttl takes them, where Go
// would refuse it; a number without unit inside a longer duration ("1m30") is still refused.
// Negative durations are refused: every use is a wait.
std::optional<std::chrono::milliseconds> parseDuration(const QString &text, QString *error = nullptr);

// The shortest spelling parseDuration() reads back: "2s", "500ms", "3m".
QString formatDuration(std::chrono::milliseconds duration);
// Go's time.Duration.String() of ns nanoseconds, as etcdctl prints how long something took:
// "850.2µs", "18.368799ms", "1.001926921s", "1m2.5s".
QString goDuration(qint64 ns);

} // namespace QEtcd::Cli
