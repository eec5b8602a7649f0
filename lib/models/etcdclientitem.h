// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QEtcd/clientoptions.h>
#include <QEtcd/enums.h>

#include <QtCore/QObject>
#include <QtCore/QStringList>
#include <QtCore/QTimer>
#include <QtQml/QQmlParserStatus>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

class Client;

/// `EtcdClient` in QML: a Client built from properties once the component is complete, and
/// rebuilt (on the next turn of the event loop) when a connection property changes afterwards.
/// Its connectionState comes from a bounded ping every healthCheckInterval: Suspended until the
/// first answer and whenever one fails, Connected on the first success (a "permission denied"
/// is an answer too: a user's role may not cover the probe's key), Reconnected after a failure,
/// Lost when the options were refused (errorString says why).
class QETCD_QUICK_EXPORT EtcdClientItem : public QObject, public QQmlParserStatus
{
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_NAMED_ELEMENT(EtcdClient)
    /// etcd's client URLs (ClientOptions::endpoints).
    Q_PROPERTY(QStringList endpoints READ endpoints WRITE setEndpoints NOTIFY optionsChanged)
    /// The CA bundle that must sign the server's certificate; empty: the system's roots.
    Q_PROPERTY(QString caFile READ caFile WRITE setCaFile NOTIFY optionsChanged)
    /// Verify the server's certificate against this name instead of the endpoint's host (an
    /// endpoint reached through a tunnel); empty: the host.
    Q_PROPERTY(QString serverName READ serverName WRITE setServerName NOTIFY optionsChanged)
    /// The client certificate for mutual TLS; needs keyFile.
    Q_PROPERTY(QString certFile READ certFile WRITE setCertFile NOTIFY optionsChanged)
    /// The client certificate's private key.
    Q_PROPERTY(QString keyFile READ keyFile WRITE setKeyFile NOTIFY optionsChanged)
    /// The etcd user for password authentication.
    Q_PROPERTY(QString user READ user WRITE setUser NOTIFY optionsChanged)
    /// That user's password.
    Q_PROPERTY(QString password READ password WRITE setPassword NOTIFY optionsChanged)
    /// A prefix applied to every key and stripped from every answer (ClientOptions::keyNamespace).
    Q_PROPERTY(QString namespace READ keyNamespace WRITE setKeyNamespace NOTIFY optionsChanged)
    /// Refuse every write before it is sent (ClientOptions::readOnly).
    Q_PROPERTY(bool readOnly READ isReadOnly WRITE setReadOnly NOTIFY optionsChanged)
    /// Milliseconds between two health pings (default 2000; > 0).
    Q_PROPERTY(int healthCheckInterval READ healthCheckInterval WRITE setHealthCheckInterval
                   NOTIFY healthCheckIntervalChanged)
    /// The Client, to hand on to a model's client; null until the component is complete.
    Q_PROPERTY(QEtcd::Client *client READ client NOTIFY clientChanged)
    /// What the health pings say (see the class description).
    Q_PROPERTY(QEtcd::ConnectionState connectionState READ connectionState NOTIFY connectionStateChanged)
    /// The endpoint calls go to now.
    Q_PROPERTY(QString activeEndpoint READ activeEndpoint NOTIFY activeEndpointChanged)
    /// Why the last ping failed, or why the options were refused; empty when all is well.
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

public:
    /// An EtcdClient whose Client is made when the component is complete.
    explicit EtcdClientItem(QObject *parent = nullptr);
    /// Destroys the Client, cancelling its calls.
    ~EtcdClientItem() override;
    Q_DISABLE_COPY_MOVE(EtcdClientItem)

    /// The Client. Null until the component is complete; refused options still give a client,
    /// whose calls all fail with the reason.
    Client *client() const;

    /// The endpoints.
    QStringList endpoints() const;
    /// Sets the endpoints.
    void setEndpoints(const QStringList &endpoints);
    /// The CA file.
    QString caFile() const;
    /// Sets the CA file.
    void setCaFile(const QString &path);
    /// The name the server's certificate is checked against; empty: the endpoint's host.
    QString serverName() const;
    /// Sets the name the server's certificate is checked against.
    void setServerName(const QString &name);
    /// The client certificate file.
    QString certFile() const;
    /// Sets the client certificate file.
    void setCertFile(const QString &path);
    /// The client key file.
    QString keyFile() const;
    /// Sets the client key file.
    void setKeyFile(const QString &path);
    /// The user.
    QString user() const;
    /// Sets the user.
    void setUser(const QString &user);
    /// The password.
    QString password() const;
    /// Sets the password.
    void setPassword(const QString &password);
    /// The key namespace.
    QString keyNamespace() const;
    /// Sets the key namespace.
    void setKeyNamespace(const QString &prefix);
    /// Writes are refused.
    bool isReadOnly() const;
    /// Sets whether writes are refused.
    void setReadOnly(bool readOnly);
    /// Milliseconds between two health pings.
    int healthCheckInterval() const;
    /// Sets the milliseconds between two health pings; a value <= 0 is refused with a warning.
    void setHealthCheckInterval(int milliseconds);

    /// What the health pings say.
    ConnectionState connectionState() const;
    /// The endpoint calls go to now.
    QString activeEndpoint() const;
    /// Why the last ping failed, or why the options were refused.
    QString errorString() const;

    /// QQmlParserStatus: nothing happens before the component is complete.
    void classBegin() override;
    /// QQmlParserStatus: makes the first Client.
    void componentComplete() override;

Q_SIGNALS:
    /// A connection property changed; the Client is rebuilt on the next turn of the event loop.
    void optionsChanged();
    /// healthCheckInterval changed.
    void healthCheckIntervalChanged();
    /// A new Client replaced the previous one (or none, as this item goes), and the previous one
    /// goes once this signal has returned.
    void clientChanged();
    /// connectionState changed to \a state.
    void connectionStateChanged(QEtcd::ConnectionState state);
    /// activeEndpoint changed.
    void activeEndpointChanged();
    /// errorString changed.
    void errorStringChanged();
    /// A ping failed, or the options were refused.
    void errorOccurred(const QEtcd::Status &status);

private:
    template <class T>
    void setOption(T &field, const T &value);
    void rebuild();
    void checkHealth();
    void setConnectionState(ConnectionState state);
    void setError(const Status &status);

    ClientOptions m_options;
    std::unique_ptr<Client> m_client;
    bool m_complete = false;
    bool m_rebuildPending = false;
    bool m_pingInFlight = false;
    quint64 m_generation = 0;  // of m_client: answers about an older client are dropped
    QTimer m_healthTimer;
    ConnectionState m_state = ConnectionState::Suspended;
    bool m_everConnected = false;
    QString m_errorString;
};

} // namespace QEtcd
