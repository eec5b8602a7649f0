// SPDX-License-Identifier: Apache-2.0
#include "qmltestsetup.h"

#include "../common/authsetup.h"
#include "../common/awaitfuture.h"
#include "../common/fillquota.h"

#include <QEtcd/client.h>
#include <QEtcd/testtimeouts.h>

#include "eventlogmodel.h"
#include "testhooks_p.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QHash>
#include <QtCore/QStandardPaths>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>

#include <pwd.h>
#include <unistd.h>
#include <QtQml/QQmlContext>
#include <QtQml/QQmlEngine>

using QEtcd::Testing::FaultProxy;

QmlTestSetup::QmlTestSetup() = default;
QmlTestSetup::~QmlTestSetup()
{
    if (m_sshd) {
        m_sshd->terminate();
        if (!m_sshd->waitForFinished(5000))
            m_sshd->kill();
        m_sshd->waitForFinished(5000);
    }
}

bool QmlTestSetup::start()
{
    if (!m_cluster.start()) {
        m_errorString = QStringLiteral("etcd did not start: ") + m_cluster.errorString();
        return false;
    }
    m_proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
    if (!m_proxy->start()) {
        m_errorString = QStringLiteral("the fault proxy did not start: ") + m_proxy->errorString();
        return false;
    }
    return true;
}

QString QmlTestSetup::errorString() const
{
    return m_errorString;
}

QString QmlTestSetup::endpoint() const
{
    return m_cluster.clientUrl(0);
}

QString QmlTestSetup::proxyEndpoint() const
{
    return m_proxy->url();
}

void QmlTestSetup::setFault(const QString &mode)
{
    static const QHash<QString, FaultProxy::Mode> modes{{QStringLiteral("pass"), FaultProxy::Mode::Pass},
                                                        {QStringLiteral("blackhole"), FaultProxy::Mode::Blackhole},
                                                        {QStringLiteral("reset"), FaultProxy::Mode::Reset}};
    if (!modes.contains(mode)) {
        qCritical("qetcdTest.setFault: unknown mode \"%s\" (pass, blackhole, reset)", qPrintable(mode));
        return;
    }
    m_proxy->setMode(modes.value(mode));
}

QString QmlTestSetup::etcdctl(const QStringList &arguments) const
{
    return QString::fromUtf8(m_cluster.etcdctl(arguments));
}

bool QmlTestSetup::putBytes(const QString &keyHex, const QString &value) const
{
    QEtcd::Client client(QEtcd::ClientOptions::fromEndpoints({endpoint()}));
    const auto put = client.put(QByteArray::fromHex(keyHex.toLatin1()), value.toUtf8());
    return QEtcd::Testing::awaitFuture(put) && put.result().status;
}

QString QmlTestSetup::setEnvironmentVariable(const QString &name, const QString &value)
{
    const QString previous = qEnvironmentVariable(qPrintable(name));
    if (value.isEmpty())
        qunsetenv(qPrintable(name));
    else
        qputenv(qPrintable(name), value.toLocal8Bit());
    return previous;
}

int QmlTestSetup::timeout(int milliseconds) const
{
    return QEtcd::Testing::scaledMs(milliseconds);
}

QString QmlTestSetup::authEndpoint()
{
    if (m_authCluster)
        return m_authCluster->clientUrl(0);
    m_authCluster = std::make_unique<QEtcd::Testing::EtcdCluster>();
    if (!m_authCluster->start()) {
        qCritical("qetcdTest.authEndpoint: etcd did not start: %s", qPrintable(m_authCluster->errorString()));
        return {};
    }
    // As tst_auth sets it up: root, and "app" confined to /app/.
    if (const QString failed = QEtcd::Testing::enableAuth(*m_authCluster); !failed.isEmpty()) {
        qCritical("qetcdTest.authEndpoint: etcdctl %s", qPrintable(failed));
        return {};
    }
    return m_authCluster->clientUrl(0);
}

namespace {
bool writeFile(const QString &path, const QByteArray &contents, QFileDevice::Permissions permissions)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(contents) == contents.size()
        && file.setPermissions(permissions);
}
} // namespace

QVariantMap QmlTestSetup::sshServer()
{
    if (!m_ssh.isEmpty())
        return m_ssh;
    const auto fail = [](const QString &why) {
        qCritical("qetcdTest.sshServer: %s", qPrintable(why));
        return QVariantMap();
    };
    const QString sshd = QStandardPaths::findExecutable(QStringLiteral("sshd"), {QStringLiteral("/usr/sbin")});
    if (sshd.isEmpty())
        return fail(QStringLiteral("no sshd: install openssh-server"));
    const QDir dir(m_files.filePath(QStringLiteral("ssh")));
    if (!QDir().mkpath(dir.path()))
        return fail(QStringLiteral("cannot make ") + dir.path());
    for (const char *key : {"host_key", "client_key"}) {
        const int exitCode = QProcess::execute(QStringLiteral("ssh-keygen"),
                                               {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                                                QStringLiteral("-N"), QString(), QStringLiteral("-f"),
                                                dir.filePath(QLatin1String(key))});
        if (exitCode != 0)
            return fail(QStringLiteral("ssh-keygen for %1 exited with %2").arg(QLatin1String(key)).arg(exitCode));
    }
    const auto readAll = [](const QString &path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed() : QByteArray();
    };
    quint16 port = 0;
    {
        QTcpServer probe;
        if (probe.listen(QHostAddress::LocalHost, 0))
            port = probe.serverPort();
    }
    const QFileDevice::Permissions ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    const QFileDevice::Permissions script = ownerOnly | QFileDevice::ExeOwner;
    const QByteArray config = QStringLiteral("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nPidFile %3\n"
                                             "AuthorizedKeysFile %4\nPasswordAuthentication no\n"
                                             "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                                             "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
                                             "AllowTcpForwarding yes\n")
                                  .arg(port)
                                  .arg(dir.filePath(QStringLiteral("host_key")), dir.filePath(QStringLiteral("sshd.pid")),
                                       dir.filePath(QStringLiteral("authorized_keys")))
                                  .toUtf8();
    if (port == 0 || m_closedPort.port() == 0)
        return fail(QStringLiteral("no free loopback port for sshd or none to hold closed"));
    if (!writeFile(dir.filePath(QStringLiteral("authorized_keys")), readAll(dir.filePath(QStringLiteral("client_key.pub"))), ownerOnly)
        || !writeFile(dir.filePath(QStringLiteral("sshd_config")), config, ownerOnly))
        return fail(QStringLiteral("cannot write the server's files in ") + dir.path());
    // As root, sshd wants its privilege separation directory, which only its service makes.
    if (::geteuid() == 0)
        QDir().mkpath(QStringLiteral("/run/sshd"));
    m_sshd = std::make_unique<QProcess>();
    m_sshd->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_sshd->start(sshd, {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"), dir.filePath(QStringLiteral("sshd_config"))});
    bool listening = false;
    for (int attempt = 0; attempt < 100 && !listening && m_sshd->state() != QProcess::NotRunning; ++attempt) {
        QTcpSocket probe;
        probe.connectToHost(QHostAddress::LocalHost, port);
        listening = probe.waitForConnected(100);
        if (!listening)
            m_sshd->waitForFinished(100);
    }
    if (!listening)
        return fail(QStringLiteral("sshd did not listen on port %1").arg(port));

    // Three ssh programs for QETCD_SSH, each ssh with a configuration of its own.
    const QByteArray knownHosts = "[127.0.0.1]:" + QByteArray::number(port) + ' ' + readAll(dir.filePath(QStringLiteral("host_key.pub"))) + '\n';
    if (!writeFile(dir.filePath(QStringLiteral("known_hosts")), knownHosts, ownerOnly)
        || !writeFile(dir.filePath(QStringLiteral("no_known_hosts")), QByteArray(), ownerOnly))
        return fail(QStringLiteral("cannot write known_hosts"));
    const auto program = [&](const QString &name, const QString &knownHostsFile, bool withKey) {
        const QByteArray clientConfig = QStringLiteral("Host *\n  UserKnownHostsFile %1\n  GlobalKnownHostsFile /dev/null\n"
                                                       "  StrictHostKeyChecking yes\n  IdentitiesOnly yes\n  IdentityFile %2\n"
                                                       "  IdentityAgent none\n")
                                            .arg(dir.filePath(knownHostsFile),
                                                 withKey ? dir.filePath(QStringLiteral("client_key")) : QStringLiteral("none"))
                                            .toUtf8();
        const QString configFile = dir.filePath(name + QStringLiteral(".config"));
        const QString path = dir.filePath(name);
        if (!writeFile(configFile, clientConfig, ownerOnly)
            || !writeFile(path, "#!/bin/sh\nexec ssh -F " + configFile.toUtf8() + " \"$@\"\n", script))
            return QString();
        return path;
    };
    const passwd *account = ::getpwuid(::geteuid());
    m_ssh = {{QStringLiteral("port"), port},
             {QStringLiteral("closedPort"), m_closedPort.port()},
             {QStringLiteral("user"), account ? QString::fromLocal8Bit(account->pw_name) : QString()},
             {QStringLiteral("ssh"), program(QStringLiteral("ssh-known"), QStringLiteral("known_hosts"), true)},
             {QStringLiteral("unknownHost"), program(QStringLiteral("ssh-unknown-host"), QStringLiteral("no_known_hosts"), true)},
             {QStringLiteral("noKey"), program(QStringLiteral("ssh-no-key"), QStringLiteral("known_hosts"), false)}};
    return m_ssh;
}

QString QmlTestSetup::noSpaceEndpoint()
{
    if (m_noSpaceCluster)
        return m_noSpaceCluster->clientUrl(0);
    QEtcd::Testing::EtcdCluster::Options tiny;
    tiny.extraArgs = {QStringLiteral("--quota-backend-bytes=1048576")};
    m_noSpaceCluster = std::make_unique<QEtcd::Testing::EtcdCluster>(tiny);
    if (!m_noSpaceCluster->start()) {
        qCritical("qetcdTest.noSpaceEndpoint: etcd did not start: %s", qPrintable(m_noSpaceCluster->errorString()));
        return {};
    }
    QEtcd::Client client(QEtcd::ClientOptions::fromEndpoints(m_noSpaceCluster->clientUrls()));
    const QEtcd::Status refused = QEtcd::Testing::fillUntilRefused(client);
    if (refused.message().contains(QLatin1String("database space exceeded")))
        return m_noSpaceCluster->clientUrl(0);
    qCritical("qetcdTest.noSpaceEndpoint: etcd never raised NOSPACE: %s", qPrintable(refused.toString()));
    return {};
}

QStringList QmlTestSetup::threeMemberEndpoints()
{
    if (m_threeMembers)
        return m_threeMembers->clientUrls();
    QEtcd::Testing::EtcdCluster::Options three;
    three.members = 3;
    m_threeMembers = std::make_unique<QEtcd::Testing::EtcdCluster>(three);
    if (!m_threeMembers->start()) {
        qCritical("qetcdTest.threeMemberEndpoints: etcd did not start: %s", qPrintable(m_threeMembers->errorString()));
        return {};
    }
    return m_threeMembers->clientUrls();
}

void QmlTestSetup::answerTooManyRequests(QObject *client, bool on)
{
    auto *etcd = qobject_cast<QEtcd::Client *>(client);
    if (!etcd) {
        qCritical("qetcdTest.answerTooManyRequests: %s is not a QEtcd::Client", client ? client->metaObject()->className() : "null");
        return;
    }
    using QEtcd::Internal::SendFault;
    QEtcd::Internal::setBeforeSend(etcd, on ? QEtcd::Internal::BeforeSend([](const QString &) { return SendFault::TooManyRequests; })
                                            : QEtcd::Internal::BeforeSend());
}

QVariantMap QmlTestSetup::tlsEndpoint()
{
    if (!m_tlsCluster) {
        m_certificates = std::make_unique<QEtcd::Testing::TestCertificates>();
        if (!m_certificates->addAuthority(QStringLiteral("ca")) || !m_certificates->addAuthority(QStringLiteral("other-ca"))
            || !m_certificates->addCertificate(QStringLiteral("server"), QStringLiteral("ca"),
                                               QStringLiteral("IP:127.0.0.1,DNS:localhost"))) {
            qCritical("qetcdTest.tlsEndpoint: %s", qPrintable(m_certificates->errorString()));
            return {};
        }
        QEtcd::Testing::EtcdCluster::Options options;
        options.caFile = m_certificates->path(QStringLiteral("ca.pem"));
        options.certFile = m_certificates->path(QStringLiteral("server.pem"));
        options.keyFile = m_certificates->path(QStringLiteral("server.key"));
        m_tlsCluster = std::make_unique<QEtcd::Testing::EtcdCluster>(options);
        if (!m_tlsCluster->start()) {
            qCritical("qetcdTest.tlsEndpoint: etcd did not start: %s", qPrintable(m_tlsCluster->errorString()));
            m_tlsCluster.reset();
            return {};
        }
    }
    return {{QStringLiteral("endpoint"), m_tlsCluster->clientUrl(0)},
            {QStringLiteral("caFile"), m_certificates->path(QStringLiteral("ca.pem"))},
            {QStringLiteral("otherCaFile"), m_certificates->path(QStringLiteral("other-ca.pem"))}};
}

void QmlTestSetup::appendEvent(QObject *log, double monotonicMs, const QVariantMap &event)
{
    auto *events = qobject_cast<QEtcd::EventLogModel *>(log);
    if (!events) {
        qCritical("qetcdTest.appendEvent: %s is not an EventLogModel", log ? log->metaObject()->className() : "null");
        return;
    }
    events->append({qint64(monotonicMs), event.value(QStringLiteral("participant")).toString(),
                    event.value(QStringLiteral("kind")).toString(), event.value(QStringLiteral("detail")).toString(),
                    event.value(QStringLiteral("spurious")).toBool(), event.value(QStringLiteral("key")).toString()});
}

double QmlTestSetup::monotonicNowMs() const
{
    return double(QEtcd::EventLogModel::monotonicNowMs());
}

QString QmlTestSetup::temporaryPath(const QString &name) const
{
    return m_files.filePath(name);
}

QString QmlTestSetup::readFile(const QString &path) const
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool QmlTestSetup::writeTextFile(const QString &path, const QString &text) const
{
    return writeFile(path, text.toUtf8(), QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
}

void QmlTestSetup::qmlEngineAvailable(QQmlEngine *engine)
{
    engine->addImportPath(QStringLiteral(QETCD_QML_IMPORT_PATH));
    // The console's views, linked in statically, are found in the resources.
    engine->addImportPath(QStringLiteral("qrc:/"));
    engine->rootContext()->setContextProperty(QStringLiteral("qetcdTest"), this);
}
