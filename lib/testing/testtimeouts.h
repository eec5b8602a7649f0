// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdtestingexport.h>

#include <chrono>

namespace QEtcd::Testing {

/// Multiplies by the environment variable QETCD_TEST_TIMEOUT_SCALE (a positive number, default 1),
/// read once per process, so a slow machine can stretch every wait without editing a test.
QETCD_TESTING_EXPORT std::chrono::milliseconds scaled(std::chrono::milliseconds base);
/// scaled() for plain milliseconds, as QTRY_COMPARE_WITH_TIMEOUT takes them.
QETCD_TESTING_EXPORT int scaledMs(int baseMs);

} // namespace QEtcd::Testing
