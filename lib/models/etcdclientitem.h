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

// `EtcdClient` in QML: a Client built from properties once the component is complete, and
// rebuilt (on the next turn of the event loop) when a connection property changes afterwards.
// Its connectionState comes from a bounded ping every healthCheckInterval: Suspended until the
// first answer and whenever one fails, Connected on the first success (a "permission denied"
// is an answer too: a user's role may not cover the probe's key), Reconnected after a failure,
// Lost when the options were refused (errorString says why).
class QETCD_QUICK_EXPORT EtcdClientItem : public QObject, public QQmlParserStatus
{
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_NAMED_ELEMENT(EtcdClient)
    Q_PROPERTY(QStringList endpoints READ endpoints WRITE setEndpoints NOTIFY optionsChanged)
    Q_PROPERTY(QString caFile READ caFile WRITE setCaFile NOTIFY optionsChanged)
    Q_PROPERTY(QString certFile READ certFile WRITE setCertFile NOTIFY optionsChanged)
    Q_PROPERTY(QString keyFile READ keyFile WRITE setKeyFile NOTIFY optionsChanged)
    Q_PROPERTY(QString user READ user WRITE setUser NOTIFY optionsChanged)
    Q_PROPERTY(QString password READ password WRITE setPassword NOTIFY optionsChanged)
    Q_PROPERTY(QString namespace READ keyNamespace WRITE setKeyNamespace NOTIFY optionsChanged)
    Q_PROPERTY(bool readOnly READ isReadOnly WRITE setReadOnly NOTIFY optionsChanged)
    Q_PROPERTY(int healthCheckInterval READ healthCheckInterval WRITE setHealthCheckInterval
                   NOTIFY healthCheckIntervalChanged)
    Q_PROPERTY(QEtcd::Client *client READ client NOTIFY clientChanged)
    Q_PROPERTY(QEtcd::ConnectionState connectionState READ connectionState NOTIFY connectionStateChanged)
    Q_PROPERTY(QString activeEndpoint READ activeEndpoint NOTIFY activeEndpointChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

public:
    explicit EtcdClientItem(QObject *parent = nullptr);
    ~EtcdClientItem() override;
    Q_DISABLE_COPY_MOVE(EtcdClientItem)

    // Null until the component is complete; refused options still give a client, whose calls
    // all fail with the reason.
    Client *client() const;

    QStringList endpoints() const;
    void setEndpoints(const QStringList &endpoints);
    QString caFile() const;
    void setCaFile(const QString &path);
    QString certFile() const;
    void setCertFile(const QString &path);
    QString keyFile() const;
    void setKeyFile(const QString &path);
    QString user() const;
    void setUser(const QString &user);
    QString password() const;
    void setPassword(const QString &password);
    QString keyNamespace() const;
    void setKeyNamespace(const QString &prefix);
    bool isReadOnly() const;
    void setReadOnly(bool readOnly);
    int healthCheckInterval() const;
    void setHealthCheckInterval(int milliseconds);

    ConnectionState connectionState() const;
    QString activeEndpoint() const;
    QString errorString() const;

    void classBegin() override;
    void componentComplete() override;

Q_SIGNALS:
    void optionsChanged();
    void healthCheckIntervalChanged();
    // A new Client replaced the previous one (or none, as this item goes), and the previous one
    // goes once this signal has returned.
    void clientChanged();
    void connectionStateChanged(QEtcd::ConnectionState state);
    void activeEndpointChanged();
    void errorStringChanged();
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
