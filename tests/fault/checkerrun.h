// SPDX-License-Identifier: Apache-2.0
#pragma once

// How long a checker runs and which fault schedule it draws, from the environment:
// QETCD_CHECKER_SECONDS lengthens a run, QETCD_CHECKER_SEED repeats one (a number) or draws a
// fresh one ("fresh", as scripts/soak does). Unset, a checker runs its committed seed (below).
// A run longer than QtTest's five minutes per test function also needs QTEST_FUNCTION_TIMEOUT
// (milliseconds), e.g. QETCD_CHECKER_SECONDS=600 QTEST_FUNCTION_TIMEOUT=900000 tests/fault/tst_mutexchecker.

#include <QtCore/QCoreApplication>
#include <QtCore/QHash>
#include <QtCore/QRandomGenerator>
#include <QtCore/QString>

namespace QEtcd::Testing {

inline int checkerSeconds(int defaultSeconds)
{
    const int seconds = qEnvironmentVariableIntValue("QETCD_CHECKER_SECONDS");
    return seconds > 0 ? seconds : defaultSeconds;
}

// The seeds CI runs, one per checker program, each seen to pass on a correct build: a build is
// then never failed by an unlucky schedule drawn for it alone, and a failure in CI replays with
// the same schedule. The faults still land wherever the processes' timing puts them, so a run is
// not repeated exactly. scripts/soak looks further, with fresh seeds.
inline quint32 committedCheckerSeed()
{
    static const QHash<QString, quint32> seeds{
        {QStringLiteral("tst_mutexchecker"), 3405691582u},
        {QStringLiteral("tst_semaphorechecker"), 2023120501u},
        {QStringLiteral("tst_electionchecker"), 1122334455u},
        {QStringLiteral("tst_barrierchecker"), 3141592653u},
        {QStringLiteral("tst_queuepartitions"), 987654321u},
        {QStringLiteral("tst_recipepartitions"), 271828182u},
        {QStringLiteral("tst_workqueuechecker"), 1618033988u},
    };
    return seeds.value(QCoreApplication::applicationName(), 1u);
}

// Logged, so that a failed run can be repeated.
inline quint32 checkerSeed()
{
    const QString asked = qEnvironmentVariable("QETCD_CHECKER_SEED");
    const quint32 seed = asked.isEmpty()             ? committedCheckerSeed()
        : asked == QLatin1String("fresh")            ? QRandomGenerator::global()->generate()
                                                     : asked.toUInt();
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
