// SPDX-License-Identifier: Apache-2.0
#include "recipeoutput.h"

#include "duration.h"
#include "eventsession.h"
#include "kvformat.h"

#include <QtCore/QCoreApplication>

namespace QEtcd::Cli {

bool parseDurationOption(const Invocation &invocation, const QString &name, std::chrono::milliseconds fallback,
                         std::chrono::milliseconds *value, QString *error)
{
    *value = fallback;
    if (!invocation.isSet(name))
        return true;
    QString why;
    const auto parsed = parseDuration(invocation.value(name), &why);
    if (!parsed || *parsed <= std::chrono::milliseconds::zero()) {
        *error = QStringLiteral("--%1: %2").arg(name, parsed ? QStringLiteral("must be longer than 0") : why);
        return false;
    }
    *value = *parsed;
    return true;
}

std::optional<qint64> parseCount(const QString &text, qint64 minimum)
{
    bool ok = false;
    const qint64 count = text.toLongLong(&ok);
    if (!ok || count < minimum)
        return std::nullopt;
    return count;
}

QJsonObject pathFields(const QString &path)
{
    return {{QLatin1String("path"), path}};
}

QJsonObject leaseEventFields(const LeaseEvent &event)
{
    QJsonObject object{{QLatin1String("kind"), enumName(event.kind)},
                       {QLatin1String("lease_id"), leaseHex(event.leaseId)}};
    if (event.kind == LeaseEventKind::Restored)
        object.insert(QLatin1String("new_lease_id"), leaseHex(event.newLeaseId));
    insertCause(&object, event.cause);
    return object;
}

QJsonObject connectionStateFields(ConnectionState state, ConnectionState previous)
{
    return {{QLatin1String("state"), enumName(state)}, {QLatin1String("previous"), enumName(previous)}};
}

WaitSession::WaitSession(Invocation &invocation, Recipe *recipe)
    : m_invocation(invocation), m_recipe(recipe), m_writer(invocation.standardOutput())
{
    // The recipe emits on the client's thread; this object lives on the main thread, so
    // AutoConnection queues the printing here.
    connect(recipe, &Recipe::connectionStateChanged, this, [this](ConnectionState state, ConnectionState previous) {
        m_writer.write(QStringLiteral("connectionState"), connectionStateFields(state, previous));
    });
    connect(&m_shutdown, &ShutdownSignals::shutdownRequested, this, [this](const QString &reason) {
        m_interruptedBy = reason;
        m_recipe->close();
    });
}

void WaitSession::write(const QString &event, const QJsonObject &fields)
{
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    m_writer.write(event, fields);
}

void WaitSession::writeFromSlot(const QString &event, const QJsonObject &fields)
{
    m_writer.write(event, fields);
}

bool WaitSession::pause(std::chrono::milliseconds duration)
{
    if (!m_interruptedBy.isEmpty())
        return false;
    QEventLoop loop;
    QTimer::singleShot(duration, &loop, &QEventLoop::quit);
    connect(&m_shutdown, &ShutdownSignals::shutdownRequested, &loop, &QEventLoop::quit);
    loop.exec();
    return m_interruptedBy.isEmpty();
}

int WaitSession::failed(const Status &status, const QJsonObject &fields)
{
    if (m_interruptedBy.isEmpty())
        return m_invocation.failed(status);
    QJsonObject closed = fields;
    closed.insert(QLatin1String("reason"), m_interruptedBy);
    write(QStringLiteral("closed"), closed);
    return m_invocation.failed(interruption(m_interruptedBy));
}

int WaitSession::timedOut(const Status &status, const QJsonObject &fields)
{
    write(QStringLiteral("timedOut"), fields);
    return m_invocation.failed(status, FailureOrigin::OwnTimeout);
}

} // namespace QEtcd::Cli
