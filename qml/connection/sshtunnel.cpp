// SPDX-License-Identifier: Apache-2.0
#include "sshtunnel.h"

#include "stopprocess.h"

#include <QtCore/QProcessEnvironment>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>

namespace {

constexpr int ProbeIntervalMs = 100;
// ssh's own ConnectTimeout is 10 s; a jump host and the login take their share on top.
constexpr int OpenWithinMs = 30000;
constexpr int StopWithinMs = 3000;
constexpr qsizetype KeptStderrBytes = 8192;

// A port nothing listens on now, for ssh to listen on; ExitOnForwardFailure makes ssh say so
// should something take it in between.
quint16 freeLocalPort()
{
    QTcpServer server;
    return server.listen(QHostAddress::LocalHost, 0) ? server.serverPort() : 0;
}

} // namespace

SshTunnel::SshTunnel(QObject *parent)
    : QObject(parent)
{
    m_probe.setInterval(ProbeIntervalMs);
    connect(&m_probe, &QTimer::timeout, this, &SshTunnel::probe);
}

SshTunnel::~SshTunnel()
{
    // ssh must not outlive the console: a forward left listening would outlast the window.
    if (m_ssh && m_ssh->state() != QProcess::NotRunning) {
        m_ssh->terminate();
        if (!m_ssh->waitForFinished(StopWithinMs))
            m_ssh->kill();
    }
}

QString SshTunnel::describe(const Through &through)
{
    QString where = through.user.isEmpty() ? through.host : through.user + QLatin1Char('@') + through.host;
    if (through.port > 0)
        where += QLatin1Char(':') + QString::number(through.port);
    if (!through.jump.isEmpty())
        where += tr(" via %1").arg(through.jump);
    return where;
}

void SshTunnel::open(const Through &through, const QList<QEtcd::Endpoint> &endpoints)
{
    close();
    m_through = through;
    m_endpoints = endpoints;
    m_stderr.clear();
    m_probes = 0;
    QStringList arguments{QStringLiteral("-N"), QStringLiteral("-T"),
                          QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
                          QStringLiteral("-o"), QStringLiteral("ExitOnForwardFailure=yes"),
                          QStringLiteral("-o"), QStringLiteral("ConnectTimeout=10"),
                          // A path that went silent ends the tunnel, and the console says so.
                          QStringLiteral("-o"), QStringLiteral("ServerAliveInterval=10"),
                          QStringLiteral("-o"), QStringLiteral("ServerAliveCountMax=3")};
    for (const QEtcd::Endpoint &endpoint : endpoints) {
        const quint16 port = freeLocalPort();
        if (port == 0)
            return fail(tr("no local port was free for the tunnel"));
        m_localPorts.append(port);
        arguments << QStringLiteral("-L")
                  << QStringLiteral("127.0.0.1:%1:%2").arg(port).arg(endpoint.authority());
    }
    if (through.port > 0)
        arguments << QStringLiteral("-p") << QString::number(through.port);
    if (!through.user.isEmpty())
        arguments << QStringLiteral("-l") << through.user;
    if (!through.jump.isEmpty())
        arguments << QStringLiteral("-J") << through.jump;
    // "--": a host is never read as an option, whatever a profile holds.
    arguments << QStringLiteral("--") << through.host;

    auto *ssh = new QProcess(this);
    m_ssh = ssh;
    ssh->setProcessChannelMode(QProcess::SeparateChannels);
    ssh->setStandardOutputFile(QProcess::nullDevice());
    connect(ssh, &QProcess::readyReadStandardError, this, [this, ssh] {
        m_stderr += ssh->readAllStandardError();
        if (m_stderr.size() > KeptStderrBytes)
            m_stderr = m_stderr.right(KeptStderrBytes);
    });
    connect(ssh, &QProcess::errorOccurred, this, [this, ssh](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && ssh == m_ssh)
            fail(tr("%1 could not be started (%2): install openssh-client").arg(ssh->program(), ssh->errorString()));
    });
    connect(ssh, &QProcess::finished, this, [this, ssh] {
        if (ssh == m_ssh && (m_state == State::Opening || m_state == State::Open))
            fail(whyEnded());
    });
    m_state = State::Opening;
    ssh->start(QProcessEnvironment::systemEnvironment().value(QStringLiteral("QETCD_SSH"), QStringLiteral("ssh")),
               arguments);
    if (m_state == State::Opening)
        m_probe.start();
}

void SshTunnel::close()
{
    m_probe.stop();
    m_state = State::Off;
    m_localPorts.clear();
    if (QProcess *ssh = m_ssh.data()) {
        m_ssh.clear();
        stopProcess(ssh, std::chrono::milliseconds(StopWithinMs));
    }
}

QStringList SshTunnel::localEndpoints() const
{
    QStringList endpoints;
    for (qsizetype i = 0; m_state == State::Open && i < m_localPorts.size(); ++i) {
        endpoints.append(QStringLiteral("%1://127.0.0.1:%2")
                             .arg(m_endpoints[i].tls ? QStringLiteral("https") : QStringLiteral("http"))
                             .arg(m_localPorts[i]));
    }
    return endpoints;
}

void SshTunnel::fail(const QString &why)
{
    close();
    m_state = State::Failed;
    Q_EMIT failed(why);
}

// Open once the first forward takes a connection: ssh listens on its forwards only after the
// login, and with ExitOnForwardFailure every one of them is up by then or ssh has ended.
void SshTunnel::probe()
{
    if (++m_probes * ProbeIntervalMs > OpenWithinMs) {
        return fail(tr("ssh to %1 did not open the tunnel within %2 s")
                        .arg(describe(m_through))
                        .arg(OpenWithinMs / 1000));
    }
    auto *socket = new QTcpSocket(this);
    connect(socket, &QTcpSocket::connected, this, [this, socket] {
        socket->abort();
        socket->deleteLater();
        if (m_state != State::Opening)
            return;
        m_probe.stop();
        m_state = State::Open;
        Q_EMIT opened();
    });
    connect(socket, &QTcpSocket::errorOccurred, socket, &QObject::deleteLater);
    socket->connectToHost(QHostAddress::LocalHost, m_localPorts.constFirst());
}

// What ssh said, in words the operator can act on.
QString SshTunnel::whyEnded() const
{
    const QString said = QString::fromLocal8Bit(m_stderr);
    const QString host = m_through.host;
    if (said.contains(QLatin1String("REMOTE HOST IDENTIFICATION HAS CHANGED")))
        return tr("the host key of %1 is not the one ssh knows: find out why before you trust it").arg(host);
    if (said.contains(QLatin1String("Host key verification failed")))
        return tr("ssh does not know the host key of %1 yet: connect once from a terminal (ssh %1) to check and "
                  "accept it")
            .arg(host);
    if (said.contains(QLatin1String("Permission denied")))
        return tr("%1 refused the login: ssh found no key it accepts (the console cannot type a password; use a "
                  "key or the agent)")
            .arg(describe(m_through));
    if (said.contains(QLatin1String("Could not resolve hostname")))
        return tr("the name %1 is not known").arg(host);
    if (said.contains(QLatin1String("Connection refused")))
        return tr("nothing answers ssh at %1").arg(describe(m_through));
    if (said.contains(QLatin1String("timed out")))
        return tr("%1 did not answer ssh").arg(describe(m_through));
    const QStringList lines = said.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (!lines.isEmpty())
        return tr("ssh to %1 ended: %2").arg(describe(m_through), lines.constLast().trimmed());
    return tr("ssh to %1 ended (exit code %2)").arg(describe(m_through)).arg(m_ssh ? m_ssh->exitCode() : -1);
}
