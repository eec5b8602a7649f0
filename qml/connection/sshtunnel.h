// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/clientoptions.h>

#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QProcess>
#include <QtCore/QStringList>
#include <QtCore/QTimer>

// etcd's endpoints reached through a host the operator can ssh to, by the system's OpenSSH client:
// `ssh -N -L 127.0.0.1:<free port>:<etcd host>:<etcd port> ... host`, one forward per endpoint,
// so that ~/.ssh/config, the agent, keys and jump hosts work as they do in a terminal. ssh runs
// in batch mode: there is no terminal to ask in, so a host key not yet known or a login that
// wants a password fails, and failed() says which in words. The program is `ssh` on PATH, or
// QETCD_SSH (the tests point it at a configured one).
class SshTunnel : public QObject
{
    Q_OBJECT

public:
    struct Through
    {
        QString host;  // as ssh takes it: a name, an address or a ~/.ssh/config alias
        QString user;  // empty: ssh's own choice (the config's, else the local user)
        int port = 0;  // 0: ssh's own choice (the config's, else 22)
        QString jump;  // a jump host (ssh -J), empty for none
    };
    enum class State { Off, Opening, Open, Failed };

    explicit SshTunnel(QObject *parent = nullptr);
    ~SshTunnel() override;

    // Starts ssh (ending any tunnel before); opened() once every forward accepts connections.
    void open(const Through &through, const QList<QEtcd::Endpoint> &endpoints);
    // Ends ssh; nothing is told.
    void close();

    State state() const { return m_state; }
    Through through() const { return m_through; }
    // What open() was last given to forward.
    QList<QEtcd::Endpoint> endpoints() const { return m_endpoints; }
    // The endpoints to connect to instead, in the order open() was given them; empty unless Open.
    QStringList localEndpoints() const;

    // "bastion", "admin@bastion:2222 via jump": for messages.
    static QString describe(const Through &through);

Q_SIGNALS:
    void opened();
    // Opening failed, or an open tunnel ended; `why` is one sentence for the operator.
    void failed(const QString &why);

private:
    void fail(const QString &why);
    void probe();
    QString whyEnded() const;

    State m_state = State::Off;
    Through m_through;
    QList<QEtcd::Endpoint> m_endpoints;
    QList<quint16> m_localPorts;
    QPointer<QProcess> m_ssh;
    QByteArray m_stderr;  // what ssh said, for failed()
    QTimer m_probe;       // while Opening: does the first forward accept yet?
    int m_probes = 0;
};
