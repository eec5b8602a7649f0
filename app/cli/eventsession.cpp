// SPDX-License-Identifier: Apache-2.0
#include "eventsession.h"

#include "recipeoutput.h"

#include "duration.h"
#include "kvformat.h"

#include <QtCore/QCoreApplication>

namespace QEtcd::Cli {

void stopChild(QProcess &process)
{
    if (process.state() == QProcess::NotRunning)
        return;
    process.terminate();
    if (!process.waitForFinished(int(std::chrono::milliseconds(terminationGrace).count()))) {
        process.kill();
        process.waitForFinished();
    }
}

QCommandLineOption holdOption()
{
    return QCommandLineOption(QStringLiteral("hold"),
                              QStringLiteral("Stop by itself this long after \"established\", e.g. 30s, 1m "
                                             "(default: until SIGINT or SIGTERM)"),
                              QStringLiteral("DURATION"));
}

bool parseHold(const Invocation &invocation, std::optional<std::chrono::milliseconds> *hold, QString *error)
{
    if (!invocation.isSet(QStringLiteral("hold")))
        return true;
    QString why;
    const auto parsed = parseDuration(invocation.value(QStringLiteral("hold")), &why);
    if (!parsed) {
        *error = QLatin1String("--hold: ") + why;
        return false;
    }
    if (*parsed <= std::chrono::milliseconds::zero()) {
        *error = QStringLiteral("--hold: must be longer than 0");
        return false;
    }
    *hold = *parsed;
    return true;
}

QCommandLineOption ttlOption()
{
    return QCommandLineOption(QStringLiteral("ttl"),
                              QStringLiteral("The lease's time to live in seconds, or a duration such as 1m "
                                             "[default %1]").arg(DefaultTtlSeconds),
                              QStringLiteral("SECONDS"));
}

namespace {
bool parseTtl(const Invocation &invocation, qint64 *seconds, QString *error)
{
    *seconds = DefaultTtlSeconds;
    if (!invocation.isSet(QStringLiteral("ttl")))
        return true;
    const QString text = invocation.value(QStringLiteral("ttl"));
    bool ok = false;
    qint64 parsed = text.toLongLong(&ok);
    if (!ok) {
        const auto duration = parseDuration(text);
        ok = duration && duration->count() % 1000 == 0;
        parsed = ok ? duration->count() / 1000 : 0;
    }
    if (!ok || parsed <= 0) {
        *error = QStringLiteral("--ttl must be a whole number of seconds > 0, such as 10 or 1m, not \"%1\"").arg(text);
        return false;
    }
    *seconds = parsed;
    return true;
}
} // namespace

bool parseLeaseOptions(const Invocation &invocation, RecipeOptions *options,
                       std::optional<std::chrono::milliseconds> *hold, QString *error)
{
    return parseTtl(invocation, &options->ttlSeconds, error) && parseHold(invocation, hold, error);
}

void insertCause(QJsonObject *object, const Status &cause)
{
    if (cause.isOk())
        return;
    object->insert(QLatin1String("cause"), cause.message());
    object->insert(QLatin1String("cause_code"), cause.codeName());
}

EventSession::EventSession(Invocation &invocation, std::optional<std::chrono::milliseconds> hold)
    : m_invocation(invocation), m_writer(invocation.standardOutput()), m_hold(hold)
{
    connect(&m_shutdown, &ShutdownSignals::shutdownRequested, this, &EventSession::end);
}

EventSession::~EventSession() = default;

void EventSession::write(const QString &event, const QJsonObject &fields)
{
    if (!m_closed)
        m_writer.write(event, fields);
}

void EventSession::run(const QFuture<Status> &start, const QString &what,
                       const std::function<void()> &established, StartWait wait)
{
    m_what = what;
    QEventLoop loop;
    m_loop = &loop;
    QFutureWatcher<Status> watcher;
    QTimer startTimeout;
    startTimeout.setSingleShot(true);
    // Handlers run on this thread in the order their events were posted, so "established" is
    // printed before anything the library reports after the start.
    connect(&watcher, &QFutureWatcherBase::finished, this, [&] {
        startTimeout.stop();
        if (m_ended)
            return;
        const QFuture<Status> future = watcher.future();
        const Status status = future.resultCount() > 0
            ? future.result()
            : Status(StatusCode::Cancelled, what + QStringLiteral(": the start was cancelled"));
        if (!status)
            return fail(status);
        m_established = true;
        established();
        if (m_hold)
            m_shutdown.holdFor(*m_hold);
    });
    connect(&startTimeout, &QTimer::timeout, this, [&] { fail(m_invocation.timedOut(what)); });
    if (wait == StartWait::CommandTimeout) {
        startTimeout.start(std::chrono::ceil<std::chrono::milliseconds>(
            m_invocation.requestDeadline().remainingTimeAsDuration()));
    }
    watcher.setFuture(start);
    if (!m_ended)
        loop.exec();
    m_loop = nullptr;
}

void EventSession::fail(const Status &status)
{
    if (!m_failure.isOk())
        return;
    m_failure = status.isOk() ? Status(StatusCode::Unknown, QStringLiteral("failed")) : status;
    end(QStringLiteral("failed"));
}

void EventSession::end(const QString &reason)
{
    if (m_ended)
        return;
    m_ended = true;
    m_reason = reason;
    if (m_loop)
        m_loop->quit();
}

void EventSession::reportConnectionState(Recipe &recipe)
{
    connect(&recipe, &Recipe::connectionStateChanged, this, [this](ConnectionState state, ConnectionState previous) {
        write(QStringLiteral("connectionState"), connectionStateFields(state, previous));
    });
}

bool EventSession::revokeLease(qint64 leaseId)
{
    const QString what = QStringLiteral("revoke lease ") + leaseHex(leaseId);
    const Result result = m_invocation.await(m_invocation.client().leaseRevoke(leaseId), what);
    if (result.status.isOk() || result.status.isLeaseNotFound())
        return true;
    fail(Status(result.status.code(),
                result.status.message() + QStringLiteral("; the key stays until the lease's TTL runs out")));
    return false;
}

void EventSession::drain()
{
    // Queued signal deliveries are posted events of their context object, this session.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

int EventSession::finish(QJsonObject fields)
{
    drain();
    if (m_established || m_failure.isOk()) {
        fields.insert(QLatin1String("reason"), m_reason);
        write(QStringLiteral("closed"), fields);
    }
    m_closed = true;
    if (!m_failure.isOk())
        return m_invocation.failed(m_failure);
    // A signal before the start was done cut the wait short: a lock still queued did not get
    // what it was asked for, and a script must not go on as if it had.
    const bool signalled = m_reason == QLatin1String("SIGINT") || m_reason == QLatin1String("SIGTERM");
    if (!m_established && signalled)
        return m_invocation.failed(interruption(m_reason).withContext(m_what));
    return Success;
}

} // namespace QEtcd::Cli
