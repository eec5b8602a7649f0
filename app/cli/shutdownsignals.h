// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QObject>
#include <QtCore/QTimer>

#include <chrono>
#include <csignal>

QT_BEGIN_NAMESPACE
class QSocketNotifier;
QT_END_NAMESPACE

namespace QEtcd::Cli {

// The stop convention of long-running commands: they run until SIGINT or SIGTERM, or until
// their --hold time is up, then close what they hold (release, resign, revoke) and exit 0.
// This object turns all three into one Qt signal, delivered on its thread's event loop where
// the command can close its recipe. Only the first request is caught: the previous handlers
// (normally the default) are back before the Qt signal is emitted, so a second SIGINT or SIGTERM
// ends the process at once, the way out when a clean close hangs.
//
// One instance at a time; it installs process-wide handlers and restores them when destroyed.
class ShutdownSignals : public QObject
{
    Q_OBJECT
public:
    explicit ShutdownSignals(QObject *parent = nullptr);
    ~ShutdownSignals() override;
    Q_DISABLE_COPY_MOVE(ShutdownSignals)

    // Requests shutdown once hold has passed, the --hold DURATION convention.
    void holdFor(std::chrono::milliseconds hold);

Q_SIGNALS:
    // Emitted once; reason is "SIGINT", "SIGTERM" or "hold".
    void shutdownRequested(const QString &reason);

private:
    void request(const QString &reason);
    void restoreHandlers();

    int m_pipe[2] = {-1, -1};
    QSocketNotifier *m_notifier = nullptr;
    QTimer m_hold;
    bool m_requested = false;
    bool m_handlersInstalled = false;
    struct sigaction m_previousInt = {};
    struct sigaction m_previousTerm = {};
};

} // namespace QEtcd::Cli
