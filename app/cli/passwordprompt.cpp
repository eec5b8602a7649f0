// SPDX-License-Identifier: Apache-2.0
#include "passwordprompt.h"

#include <QtCore/QByteArray>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iterator>

#include <termios.h>
#include <unistd.h>

namespace QEtcd::Cli {

namespace {
struct termios echoingTerminal;

// A signal during the prompt would otherwise leave the user's shell without echo.
void restoreEchoAndDie(int signal)
{
    tcsetattr(STDIN_FILENO, TCSANOW, &echoingTerminal);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

constexpr int restoringSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void writeToStandardError(const QByteArray &text)
{
    // Best effort: the prompt and the line break after it are courtesy, not output.
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text.constData(), size_t(text.size()));
}
} // namespace

std::optional<QString> askPasswordOnTerminal(const QString &user, QString *error)
{
    return askSecretOnTerminal(QStringLiteral("Password for %1: ").arg(user), error);
}

std::optional<QString> askSecretOnTerminal(const QString &prompt, QString *error)
{
    if (!isatty(STDIN_FILENO)) {
        *error = QStringLiteral("standard input is not a terminal to ask on");
        return std::nullopt;
    }
    if (tcgetattr(STDIN_FILENO, &echoingTerminal) != 0) {
        *error = QStringLiteral("cannot read the terminal's settings: %1").arg(QString::fromLocal8Bit(strerror(errno)));
        return std::nullopt;
    }
    struct sigaction restoring = {};
    restoring.sa_handler = restoreEchoAndDie;
    struct sigaction previous[std::size(restoringSignals)];
    for (size_t i = 0; i < std::size(restoringSignals); ++i)
        sigaction(restoringSignals[i], &restoring, &previous[i]);
    struct termios silent = echoingTerminal;
    silent.c_lflag &= ~tcflag_t(ECHO);
    // Echo goes off before the prompt appears, so nothing typed after it is ever shown.
    tcsetattr(STDIN_FILENO, TCSANOW, &silent);
    writeToStandardError(prompt.toUtf8());

    QByteArray password;
    bool ended = false;
    for (;;) {
        char c;
        const ssize_t got = ::read(STDIN_FILENO, &c, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || c == '\n') {
            ended = got > 0;
            break;
        }
        password.append(c);
    }

    tcsetattr(STDIN_FILENO, TCSANOW, &echoingTerminal);
    for (size_t i = 0; i < std::size(restoringSignals); ++i)
        sigaction(restoringSignals[i], &previous[i], nullptr);
    // The Enter key was not echoed either.
    writeToStandardError("\n");
    if (!ended) {
        *error = QStringLiteral("no password entered (end of input)");
        return std::nullopt;
    }
    return QString::fromUtf8(password);
}

bool askConfirmationOnTerminal(const QString &question)
{
    if (!isatty(STDIN_FILENO))
        return false;
    writeToStandardError(question.toUtf8() + " [y/N] ");
    QByteArray answer;
    for (;;) {
        char c;
        const ssize_t got = ::read(STDIN_FILENO, &c, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || c == '\n')
            break;
        answer.append(c);
    }
    const QByteArray word = answer.trimmed().toLower();
    return word == "y" || word == "yes";
}

} // namespace QEtcd::Cli
