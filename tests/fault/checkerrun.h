#pragma once

// How long a checker runs and which fault schedule it draws, from the environment:
// QETCD_CHECKER_SECONDS lengthens a run, QETCD_CHECKER_SEED repeats one. A run longer than
// QtTest's five minutes per test function also needs QTEST_FUNCTION_TIMEOUT (milliseconds),
// e.g. QETCD_CHECKER_SECONDS=600 QTEST_FUNCTION_TIMEOUT=900000 tests/fault/tst_mutexchecker.

#include <QtCore/QRandomGenerator>
#include <QtCore/QString>

namespace QEtcd::Testing {

inline int checkerSeconds(int defaultSeconds)
{
    const int seconds = qEnvironmentVariableIntValue("QETCD_CHECKER_SECONDS");
    return seconds > 0 ? seconds : defaultSeconds;
}

// Logged, so that a failed run can be repeated.
inline quint32 checkerSeed()
{
    const quint32 seed = qEnvironmentVariableIsSet("QETCD_CHECKER_SEED")
        ? qEnvironmentVariable("QETCD_CHECKER_SEED").toUInt()
        : QRandomGenerator::global()->generate();
    qInfo("seed %u (QETCD_CHECKER_SEED=%u repeats the fault schedule)", seed, seed);
    return seed;
}

// One checker run: how long it lasts and the fault schedule it draws from, both logged.
struct CheckerRun
{
    explicit CheckerRun(int defaultSeconds)
        : seconds(checkerSeconds(defaultSeconds)), seed(checkerSeed()), random(seed)
    {
        qInfo("%d s", seconds);
    }

    const int seconds;
    const quint32 seed;
    QRandomGenerator random;
};

} // namespace QEtcd::Testing
