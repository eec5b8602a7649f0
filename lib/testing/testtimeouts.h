#pragma once

#include <chrono>

namespace QEtcd::Testing {

// Multiplies by the environment variable QETCD_TEST_TIMEOUT_SCALE (a positive number, default 1),
// read once per process, so a slow machine can stretch every wait without editing a test.
std::chrono::milliseconds scaled(std::chrono::milliseconds base);
int scaledMs(int baseMs);

} // namespace QEtcd::Testing
