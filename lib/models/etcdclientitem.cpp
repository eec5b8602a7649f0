// SPDX-License-Identifier: Apache-2.0
#include "etcdclientitem.h"

#include "continuation_p.h"

#include <QEtcd/client.h>

namespace QEtcd {

EtcdClientItem::EtcdClientItem(QObject *parent) : QObject(parent)
{
    m_healthTimer.setInterval(2000);
    connect(&m_healthTimer, &QTimer::timeout, this, &EtcdClientItem::checkHealth);
}

EtcdClientItem::~EtcdClientItem()
{
    // QML destroys objects in no particular order: participants drop their recipes first.
    std::unique_ptr<Client> client = std::move(m_client);
    Q_EMIT clientChanged();
}

Client *EtcdClientItem::client() const
{
    return m_client.get();
}

template <class T>
void EtcdClientItem::setOption(T &field, const T &value)
{
    if (field == value)
        return;
    field = value;
    Q_EMIT optionsChanged();
    // Several properties usually change together: rebuild once, after all of them.
    if (m_complete && !std::exchange(m_rebuildPending, true))
        QMetaObject::invokeMethod(this, &EtcdClientItem::rebuild, Qt::QueuedConnection);
}

QStringList EtcdClientItem::endpoints() const { return m_options.endpoints; }
void EtcdClientItem::setEndpoints(const QStringList &endpoints) { setOption(m_options.endpoints, endpoints); }
QString EtcdClientItem::caFile() const { return m_options.tls.caFile; }
void EtcdClientItem::setCaFile(const QString &path) { setOption(m_options.tls.caFile, path); }
QString EtcdClientItem::serverName() const { return m_options.tls.serverNameOverride; }
void EtcdClientItem::setServerName(const QString &name) { setOption(m_options.tls.serverNameOverride, name); }
QString EtcdClientItem::certFile() const { return m_options.tls.certFile; }
void EtcdClientItem::setCertFile(const QString &path) { setOption(m_options.tls.certFile, path); }
QString EtcdClientItem::keyFile() const { return m_options.tls.keyFile; }
void EtcdClientItem::setKeyFile(const QString &path) { setOption(m_options.tls.keyFile, path); }
QString EtcdClientItem::user() const { return m_options.user; }
void EtcdClientItem::setUser(const QString &user) { setOption(m_options.user, user); }
QString EtcdClientItem::password() const { return m_options.password; }
void EtcdClientItem::setPassword(const QString &password) { setOption(m_options.password, password); }
QString EtcdClientItem::keyNamespace() const { return QString::fromUtf8(m_options.keyNamespace); }
void EtcdClientItem::setKeyNamespace(const QString &prefix) { setOption(m_options.keyNamespace, prefix.toUtf8()); }
bool EtcdClientItem::isReadOnly() const { return m_options.readOnly; }
void EtcdClientItem::setReadOnly(bool readOnly) { setOption(m_options.readOnly, readOnly); }

int EtcdClientItem::healthCheckInterval() const
{
    return m_healthTimer.interval();
}

void EtcdClientItem::setHealthCheckInterval(int milliseconds)
{
    if (milliseconds <= 0) {
        qWarning("EtcdClient: healthCheckInterval must be > 0 ms (got %d); keeping %d", milliseconds,
                 m_healthTimer.interval());
        return;
    }
    if (milliseconds == m_healthTimer.interval())
        return;
    m_healthTimer.setInterval(milliseconds);
    Q_EMIT healthCheckIntervalChanged();
}

ConnectionState EtcdClientItem::connectionState() const
{
    return m_state;
}

QString EtcdClientItem::activeEndpoint() const
{
    return m_client ? m_client->activeEndpoint() : QString();
}

QString EtcdClientItem::errorString() const
{
    return m_errorString;
}

void EtcdClientItem::classBegin() {}

void EtcdClientItem::componentComplete()
{
    m_complete = true;
    rebuild();
}

void EtcdClientItem::rebuild()
{
    m_rebuildPending = false;
    std::unique_ptr<Client> previous = std::move(m_client);
    m_client = std::make_unique<Client>(m_options);
    ++m_generation;
    m_pingInFlight = false;
    m_everConnected = false;
    connect(m_client.get(), &Client::activeEndpointChanged, this, &EtcdClientItem::activeEndpointChanged);
    // Participants drop their recipes on the old client before it goes.
    Q_EMIT clientChanged();
    previous.reset();
    Q_EMIT activeEndpointChanged();
    if (const Status configuration = m_client->configurationStatus(); !configuration) {
        m_healthTimer.stop();
        setError(configuration);
        setConnectionState(ConnectionState::Lost);
        return;
    }
    setError({});
    setConnectionState(ConnectionState::Suspended);
    m_healthTimer.start();
    checkHealth();
}

void EtcdClientItem::checkHealth()
{
    if (!m_client || std::exchange(m_pingInFlight, true))
        return;
    Internal::thenOn(m_client->ping(), this, [this, generation = m_generation](const Result &answer) {
        if (generation != m_generation)
            return;
        m_pingInFlight = false;
        // A user whose role may not read the probe's key was still authenticated and answered.
        if (!answer.status && answer.status.code() != StatusCode::PermissionDenied) {
            setError(answer.status);
            setConnectionState(ConnectionState::Suspended);
            return;
        }
        setError({});
        setConnectionState(std::exchange(m_everConnected, true) ? ConnectionState::Reconnected
                                                                : ConnectionState::Connected);
    });
}

void EtcdClientItem::setConnectionState(ConnectionState state)
{
    // Reconnected is only news after a failure; a healthy client stays in its state.
    if (state == ConnectionState::Reconnected && m_state != ConnectionState::Suspended)
        return;
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT connectionStateChanged(state);
}

void EtcdClientItem::setError(const Status &status)
{
    const QString text = status ? QString() : status.message();
    if (text == m_errorString)
        return;
    m_errorString = text;
    Q_EMIT errorStringChanged();
    if (!status)
        Q_EMIT errorOccurred(status);
}

} // namespace QEtcd
