#include "eventsession.h"

#include "duration.h"

#include <QtCore/QCoreApplication>

namespace QEtcd::Cli {

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
                       const std::function<void()> &established)
{
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
    startTimeout.start(std::chrono::ceil<std::chrono::milliseconds>(
        m_invocation.requestDeadline().remainingTimeAsDuration()));
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
    return m_failure.isOk() ? Success : m_invocation.failed(m_failure);
}

} // namespace QEtcd::Cli
