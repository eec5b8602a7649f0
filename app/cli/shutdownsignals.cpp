// SPDX-License-Identifier: Apache-2.0
#include "shutdownsignals.h"

#include <QtCore/QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace QEtcd::Cli {

namespace {
// The handler may run on any thread (gRPC's included) and may only do async-signal-safe work:
// it writes the signal number into a pipe that the event loop watches.
volatile sig_atomic_t s_writeFd = -1;

void onSignal(int signo)
{
    const int savedErrno = errno;
    const char byte = char(signo);
    [[maybe_unused]] const ssize_t written = ::write(s_writeFd, &byte, 1);
    errno = savedErrno;
}
} // namespace

ShutdownSignals::ShutdownSignals(QObject *parent) : QObject(parent)
{
    Q_ASSERT_X(s_writeFd == -1, "ShutdownSignals", "only one instance may exist at a time");
    if (::pipe2(m_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        qFatal("ShutdownSignals: pipe2 failed: %s", strerror(errno));
    s_writeFd = m_pipe[1];
    m_notifier = new QSocketNotifier(m_pipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        char byte = 0;
        while (::read(m_pipe[0], &byte, 1) == 1)
            request(int(byte) == SIGINT ? QStringLiteral("SIGINT") : QStringLiteral("SIGTERM"));
    });

    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, &m_previousInt);
    sigaction(SIGTERM, &action, &m_previousTerm);
    m_handlersInstalled = true;

    m_hold.setSingleShot(true);
    // A coarse timer may fire 5 % early; --hold 1s means at least a second.
    m_hold.setTimerType(Qt::PreciseTimer);
    connect(&m_hold, &QTimer::timeout, this, [this] { request(QStringLiteral("hold")); });
}

ShutdownSignals::~ShutdownSignals()
{
    restoreHandlers();
    s_writeFd = -1;
    ::close(m_pipe[0]);
    ::close(m_pipe[1]);
}

void ShutdownSignals::holdFor(std::chrono::milliseconds hold)
{
    m_hold.start(hold);
}

void ShutdownSignals::request(const QString &reason)
{
    if (m_requested)
        return;
    m_requested = true;
    m_hold.stop();
    restoreHandlers();
    Q_EMIT shutdownRequested(reason);
}

void ShutdownSignals::restoreHandlers()
{
    if (!m_handlersInstalled)
        return;
    m_handlersInstalled = false;
    sigaction(SIGINT, &m_previousInt, nullptr);
    sigaction(SIGTERM, &m_previousTerm, nullptr);
}

} // namespace QEtcd::Cli
