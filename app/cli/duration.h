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

} // namespace QEtcd::Cli
