// SPDX-License-Identifier: Apache-2.0
#include "participant.h"

#include <QEtcd/client.h>

#include <QtCore/QMetaEnum>

#include <chrono>

namespace QEtcd {

using namespace std::chrono;

RecipeParticipant::RecipeParticipant(QObject *parent) : QObject(parent)
{
    // A countdown a ring can follow smoothly without a signal per frame.
    m_leaseTimer.setInterval(100);
    connect(&m_leaseTimer, &QTimer::timeout, this, &RecipeParticipant::refreshLease);
}

RecipeParticipant::~RecipeParticipant() = default;

EtcdClientItem *RecipeParticipant::client() const
{
    return m_client;
}

void RecipeParticipant::setClient(EtcdClientItem *client)
{
    if (m_client == client)
        return;
    if (m_client)
        disconnect(m_client, nullptr, this, nullptr);
    m_client = client;
    if (client)
        connect(client, &EtcdClientItem::clientChanged, this, &RecipeParticipant::reconfigure);
    reconfigure();
    Q_EMIT clientChanged();
}

QString RecipeParticipant::path() const
{
    return m_path;
}

void RecipeParticipant::setPath(const QString &path)
{
    if (changeSetting(m_path, path))
        Q_EMIT pathChanged();
}

int RecipeParticipant::ttl() const
{
    return m_ttl;
}

void RecipeParticipant::setTtl(int seconds)
{
    if (changeSetting(m_ttl, seconds))
        Q_EMIT ttlChanged();
}

QString RecipeParticipant::clientId() const
{
    return m_recipe ? m_recipe->clientId() : m_clientId;
}

void RecipeParticipant::setClientId(const QString &clientId)
{
    if (changeSetting(m_clientId, clientId))
        Q_EMIT clientIdChanged();
}

RecipeParticipant::State RecipeParticipant::state() const
{
    return m_state;
}

ConnectionState RecipeParticipant::connectionState() const
{
    return m_connectionState;
}

QString RecipeParticipant::leaseId() const
{
    return m_lease.leaseId > 0 ? hex(m_lease.leaseId) : QString();
}

int RecipeParticipant::leaseTtl() const
{
    return int(m_lease.ttlSeconds);
}

int RecipeParticipant::leaseTimeLeft() const
{
    return m_leaseTimeLeft;
}

QString RecipeParticipant::errorString() const
{
    return m_errorString;
}

QString RecipeParticipant::participantName() const
{
    return m_participantName.isEmpty() ? clientId() : m_participantName;
}

void RecipeParticipant::setParticipantName(const QString &name)
{
    if (std::exchange(m_participantName, name) != name)
        Q_EMIT participantNameChanged();
}

EventLogModel *RecipeParticipant::eventLog() const
{
    return m_eventLog;
}

void RecipeParticipant::setEventLog(EventLogModel *log)
{
    if (m_eventLog == log)
        return;
    m_eventLog = log;
    Q_EMIT eventLogChanged();
}

void RecipeParticipant::record(const QString &kind, const QString &detail, const QString &key, bool spurious,
                               qint64 monotonicMs)
{
    if (m_eventLog)
        m_eventLog->append({monotonicMs, participantName(), kind, detail, spurious, key.isEmpty() ? logKey() : key});
}

QString RecipeParticipant::logKey() const
{
    return m_path;
}

void RecipeParticipant::close()
{
    dropRecipe(State::Closed);
}

Recipe *RecipeParticipant::ensureRecipe()
{
    if (m_recipe)
        return m_recipe.get();
    Client *client = m_client ? m_client->client() : nullptr;
    if (!client) {
        reportError(Status(StatusCode::NotStarted, QStringLiteral("%1: no EtcdClient, or it is not complete yet")
                                                       .arg(QString::fromLatin1(metaObject()->className()))));
        return nullptr;
    }
    if (m_path.isEmpty()) {
        reportError(Status(StatusCode::InvalidArgument, QStringLiteral("%1: path is empty")
                                                            .arg(QString::fromLatin1(metaObject()->className()))));
        return nullptr;
    }
    RecipeOptions options;
    options.ttlSeconds = m_ttl;
    options.clientId = m_clientId;
    ++m_generation;
    m_recipe = createRecipe(client, m_path.toUtf8(), options);
    Recipe *recipe = m_recipe.get();
    relay(recipe, &Recipe::connectionStateChanged,
          [this](ConnectionState state, ConnectionState previous) { setConnectionState(state, previous); });
    relay(recipe, &Recipe::backgroundError, [this](const QString &, const Status &status) { reportError(status); });
    relay(recipe, &Recipe::historyAppended,
          [this](const RecipeHistoryEntry &entry) { Q_EMIT historyAppended(entry.text); });
    relay(recipe, &Recipe::leaseEventOccurred, [this](const QString &lease, const LeaseEvent &event) {
        refreshLease();
        recordLeaseEvent(lease, event);
        Q_EMIT leaseEvent(event.kind, hex(event.leaseId), event.newLeaseId > 0 ? hex(event.newLeaseId) : QString(),
                          event.cause, lease);
    });
    setConnectionState(m_recipe->connectionState(), m_connectionState);
    m_leaseTimer.start();
    if (m_clientId.isEmpty())
        Q_EMIT clientIdChanged();  // the recipe chose one
    return m_recipe.get();
}

void RecipeParticipant::dropRecipe(State next)
{
    if (m_recipe) {
        ++m_generation;
        m_leaseTimer.stop();
        m_recipe.reset();  // closes it: holds are released, waits end
        recipeDropped();
        refreshLease();
        setConnectionState(ConnectionState::Connected, m_connectionState);
    }
    setState(next);
}

void RecipeParticipant::reconfigure()
{
    if (m_recipe)
        dropRecipe(State::Idle);
}

void RecipeParticipant::refreshLease()
{
    const RecipeLeaseStatus lease = m_recipe ? m_recipe->leaseStatus() : RecipeLeaseStatus();
    if (lease.leaseId != m_lease.leaseId || lease.ttlSeconds != m_lease.ttlSeconds) {
        m_lease = lease;
        Q_EMIT leaseChanged();
    }
    m_lease.lossDeadline = lease.lossDeadline;
    const int left = lease.leaseId > 0
        ? int(std::max<qint64>(0, duration_cast<milliseconds>(lease.lossDeadline - steady_clock::now()).count()))
        : 0;
    if (left != m_leaseTimeLeft) {
        m_leaseTimeLeft = left;
        Q_EMIT leaseTimeLeftChanged();
    }
}

void RecipeParticipant::whenDone(QFuture<Status> future, State onSuccess, State onFailure)
{
    whenDone(std::move(future), [this, onSuccess, onFailure](const Status &status) {
        if (!status)
            reportError(status);
        setState(status ? onSuccess : onFailure);
    });
}

void RecipeParticipant::followHealingLease()
{
    connect(this, &RecipeParticipant::leaseEvent, this, [this](LeaseEventKind kind) {
        if (state() != State::Active && state() != State::Pending)
            return;  // not (or no longer) started
        switch (kind) {
        case LeaseEventKind::Suspended: break;
        case LeaseEventKind::Expired: setState(State::Pending); break;
        case LeaseEventKind::Restored: setState(State::Active); break;
        case LeaseEventKind::Failed: setState(State::Lost); break;
        }
    });
}

void RecipeParticipant::setState(State state)
{
    refreshLease();  // acquired, lost, released: the lease changes with the state, not a tick later
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged();
}

void RecipeParticipant::setConnectionState(ConnectionState state, ConnectionState previous)
{
    if (m_connectionState == state)
        return;
    m_connectionState = state;
    record(QStringLiteral("connectionState"), QString::fromLatin1(QMetaEnum::fromType<ConnectionState>().valueToKey(int(state))));
    Q_EMIT connectionStateChanged(state, previous);
}

void RecipeParticipant::reportError(const Status &status)
{
    if (status.isOk())
        return;
    if (m_errorString != status.message()) {
        m_errorString = status.message();
        Q_EMIT errorStringChanged();
    }
    record(QStringLiteral("error"), status.message());
    Q_EMIT errorOccurred(status);
}

void RecipeParticipant::recordLeaseEvent(const QString &lease, const LeaseEvent &event)
{
    static const QHash<LeaseEventKind, QString> kinds{{LeaseEventKind::Suspended, QStringLiteral("leaseSuspended")},
                                                     {LeaseEventKind::Expired, QStringLiteral("leaseExpired")},
                                                     {LeaseEventKind::Restored, QStringLiteral("leaseRestored")},
                                                     {LeaseEventKind::Failed, QStringLiteral("leaseFailed")}};
    QString detail = QStringLiteral("%1, lease %2").arg(lease, hex(event.leaseId));
    if (event.newLeaseId > 0)
        detail += QStringLiteral(" \u2192 %1").arg(hex(event.newLeaseId));
    if (!event.cause.isOk())
        detail += QStringLiteral(": ") + event.cause.message();
    // The lease's own clock (steady_clock is CLOCK_MONOTONIC here), not when the news crossed threads.
    record(kinds.value(event.kind), detail, QString(), false, event.monotonicMs);
}

milliseconds RecipeParticipant::waitTime(int timeoutMs)
{
    return timeoutMs < 0 ? milliseconds::max() : milliseconds(timeoutMs);
}

QString RecipeParticipant::hex(qint64 leaseId)
{
    return QString::number(leaseId, 16);
}

} // namespace QEtcd
