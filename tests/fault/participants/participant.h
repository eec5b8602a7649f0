// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every checker participant program shares: one JSON line per event on stdout, stamped
// with CLOCK_MONOTONIC (steady_clock) so the checker can line processes up, and a belief
// sampled every two milliseconds. The checker freezes participants with SIGSTOP and asks them
// to stop with SIGTERM.

#include <QEtcd/status.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QThread>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include <execinfo.h>
#include <unistd.h>

namespace Checker {

// A participant that dies of a signal says where, on stderr (which the checker forwards): a
// crash in a fault run is rare, and the checker's log is all there is of it.
inline void tellWhereItCrashed()
{
    for (const int signo : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
        std::signal(signo, [](int caught) {
            static const char header[] = "participant died of a signal; backtrace:\n";
            [[maybe_unused]] const auto written = ::write(STDERR_FILENO, header, sizeof header - 1);
            void *frames[64];
            backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
            std::signal(caught, SIG_DFL);
            std::raise(caught);
        });
    }
}

// Every participant's command line: the etcd URL it talks to (its fault proxy), its name and
// its random seed, beside its own options.
struct CommandLine
{
    QCommandLineParser parser;
    const QCommandLineOption endpoint{"endpoint", "etcd URL (the participant's fault proxy)", "url"};
    const QCommandLineOption name{"name", "participant name", "name"};
    const QCommandLineOption seed{"seed", "random seed", "n", "1"};
    // The checkers' self-checks only: a participant broken on purpose, which its checker must
    // catch. ignore-loss: it goes on acting as the holder whatever the recipe says; unfenced: its
    // writes skip the fence (a plain transaction instead of guardedTxn()). A participant with
    // other ways to break says which (sabotageModes).
    const QCommandLineOption sabotage{"sabotage", "break this participant on purpose (checker self-checks)", "mode"};

    void process(const QCoreApplication &app, const QList<QCommandLineOption> &own,
                 const QStringList &sabotageModes = {QStringLiteral("ignore-loss"), QStringLiteral("unfenced")})
    {
        tellWhereItCrashed();
        parser.addOptions({endpoint, name, seed, sabotage});
        parser.addOptions(own);
        parser.process(app);
        const QString mode = parser.value(sabotage);
        if (!mode.isEmpty() && !sabotageModes.contains(mode)) {
            std::fprintf(stderr, "--sabotage: unknown mode \"%s\" (%s)\n", qPrintable(mode),
                         qPrintable(sabotageModes.join(QLatin1String(", "))));
            std::exit(128);
        }
    }
    QString value(const QCommandLineOption &option) const { return parser.value(option); }
    bool ignoresLoss() const { return parser.value(sabotage) == QLatin1String("ignore-loss"); }
    bool unfenced() const { return parser.value(sabotage) == QLatin1String("unfenced"); }
};

// Set by SIGTERM once stopOnSigterm() ran: the checker asks the participant to finish the hold
// it is in and exit.
inline std::atomic<bool> stopRequested{false};
inline void stopOnSigterm()
{
    std::signal(SIGTERM, [](int) { stopRequested = true; });
}

inline qint64 nowNs()
{
    return std::chrono::steady_clock::now().time_since_epoch().count();
}

// stdio locks the stream for each call, so lines from the library's thread (loss signals) and
// from the participant's own thread never interleave.
inline void emitLine(const QJsonObject &object)
{
    std::fputs(QJsonDocument(object).toJson(QJsonDocument::Compact).append('\n').constData(), stdout);
    std::fflush(stdout);
}

// One line {"event": event, "name": name, "cause": ...} each time recipe's loss signal fires,
// printed from the client's loss thread as it is told.
template <class Recipe>
void reportLoss(Recipe &recipe, void (Recipe::*lost)(const QEtcd::Status &), const char *event, const QString &name)
{
    QObject::connect(&recipe, lost, &recipe,
                     [event, name](const QEtcd::Status &cause) {
                         emitLine({{"event", event}, {"name", name}, {"cause", cause.toString()}});
                     },
                     Qt::DirectConnection);
}

// What one thread believed about one hold (a lock, a permit, a term of leadership). The clock
// is read *before* asking: a yes means the hold was valid at that moment even if the process
// is frozen right after, whereas a clock read after the yes could land after a freeze and
// inside a rival's hold.
struct Belief
{
    static constexpr unsigned long samplePeriodMs = 2;

    std::function<bool()> stillHeld;
    // Sabotage: the answer is asked for and ignored, as by a holder that never checks.
    bool ignoresLoss = false;
    qint64 lastYesNs = 0;
    bool lost = false;

    bool sample()
    {
        if (lost)
            return false;
        const qint64 asked = nowNs();
        if (!stillHeld() && !ignoresLoss) {
            lost = true;
            return false;
        }
        lastYesNs = asked;
        return true;
    }

    // Keeps sampling, a period apart, until `done` says so, or until the belief ends unless
    // `pastLoss` (a write in flight is waited for whatever the belief). The period is the
    // hold's work between two checks. False when the belief has ended.
    bool workUntil(const std::function<bool()> &done, bool pastLoss = false)
    {
        while (!done()) {
            if (!sample() && !pastLoss)
                break;
            QThread::msleep(samplePeriodMs);
        }
        return !lost;
    }

    // Keeps sampling until `until` (steady_clock ns) or the belief ends.
    bool workUntilNs(qint64 until)
    {
        return workUntil([until] { return nowNs() >= until; });
    }
};

} // namespace Checker
