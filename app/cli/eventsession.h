// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "command.h"
#include "eventwriter.h"
#include "shutdownsignals.h"

#include <QEtcd/recipe.h>

#include <QtCore/QMetaEnum>
#include <QtCore/QProcess>

#include <chrono>
#include <functional>
#include <optional>

namespace QEtcd::Cli {

// --hold DURATION, which every long-running command takes.
QCommandLineOption holdOption();

// How long a child command (lock NAME COMMAND, watch KEY -- COMMAND) gets between SIGTERM and
// SIGKILL when qetcd ends it.
constexpr std::chrono::seconds terminationGrace{10};
// Ends process that way, and waits for its end; nothing when it is not running.
void stopChild(QProcess &process);
// False with error when --hold is malformed; *hold stays nullopt when it was not given.
bool parseHold(const Invocation &invocation, std::optional<std::chrono::milliseconds> *hold, QString *error);

// The TTL of the lease a command holds, unless --ttl says otherwise.
constexpr qint64 DefaultTtlSeconds = 10;
// --ttl SECONDS, for the commands that hold a lease: whole seconds, as etcdctl's "lease grant
// TTL" takes them; a duration such as 10s or 1m is read too.
QCommandLineOption ttlOption();
// What every command that holds a lease reads first: --ttl into options->ttlSeconds
// (DefaultTtlSeconds when not given) and --hold into *hold. False with error when either is
// malformed.
bool parseLeaseOptions(const Invocation &invocation, RecipeOptions *options,
                       std::optional<std::chrono::milliseconds> *hold, QString *error);

// "cause" (the message) and "cause_code" (the StatusCode's name), unless cause is Ok.
void insertCause(QJsonObject *object, const Status &cause);

template <class Enum>
QString enumName(Enum value)
{
    return QString::fromLatin1(QMetaEnum::fromType<Enum>().valueToKey(int(value)));
}

// The life of a long-running command (watch, lease keep, ...) on the main thread's event loop:
//
//   EventSession session(invocation, hold);          // SIGINT/SIGTERM are caught from here on
//   connect(&recipe, &Recipe::..., &session, ...);    // the library emits on its own thread;
//                                                     // the session lives on the main thread, so
//                                                     // AutoConnection queues the printing here
//   session.run(recipe.start(), what, [&] { session.write("established", ...); });
//   recipe.close();                                   // release, resign, revoke
//   return session.finish({...});                     // "closed", then the exit code
//
// run() waits up to --command-timeout for the start, prints through the callback once it
// succeeded, starts the --hold timer, and returns on SIGINT, SIGTERM, the end of --hold or
// fail(). Everything is printed from the main thread, in the order the library reported it.
class EventSession : public QObject
{
    Q_OBJECT
public:
    EventSession(Invocation &invocation, std::optional<std::chrono::milliseconds> hold);
    ~EventSession() override;
    Q_DISABLE_COPY_MOVE(EventSession)

    // One JSON line on stdout, flushed; nothing after finish() printed "closed".
    void write(const QString &event, const QJsonObject &fields = {});

    // How long run() waits for the start: a connection or a first read gets --command-timeout,
    // an acquisition (lock, semaphore) may queue behind other holders for as long as it takes.
    enum class StartWait { CommandTimeout, Unbounded };

    void run(const QFuture<Status> &start, const QString &what, const std::function<void()> &established,
             StartWait wait = StartWait::CommandTimeout);
    // Ends run() (or, after it, the command) with this failure; the first failure wins.
    void fail(const Status &status);
    // Ends run() without a failure, for a reason of the command's own ("exited"); the first
    // end, a signal's included, wins.
    void end(const QString &reason);

    // Prints a connectionState line ("state", "previous") for each change of recipe's state.
    void reportConnectionState(Recipe &recipe);

    // Revokes leaseId and waits up to --command-timeout for the answer; true when the lease is
    // gone (NotFound included: an earlier revoke got there first). A recipe's close() sends its
    // revoke without waiting, and destroying the client cancels calls still in flight, so a
    // command revokes once more before it exits to leave no key behind. A revoke without an
    // answer fails the session: the keys stay until the lease's TTL runs out.
    bool revokeLease(qint64 leaseId);

    // Prints what the library reported before the recipe's close() returned and is still
    // queued for this thread; finish() does it too.
    void drain();

    bool isEstablished() const { return m_established; }
    bool hasFailed() const { return !m_failure.isOk(); }

    // Drains, prints {"event":"closed","reason":...} with fields, unless the start failed, and returns
    // the exit code: 0; Interrupted when a signal came before the start was done; or the failure's
    // code after its line on stderr. reason is "SIGINT", "SIGTERM", "hold" or "failed".
    int finish(QJsonObject fields = {});

private:
    Invocation &m_invocation;
    EventWriter m_writer;
    ShutdownSignals m_shutdown;
    std::optional<std::chrono::milliseconds> m_hold;
    QEventLoop *m_loop = nullptr;
    bool m_established = false;
    bool m_ended = false;
    bool m_closed = false;
    QString m_reason;
    QString m_what;
    Status m_failure;
};

} // namespace QEtcd::Cli
