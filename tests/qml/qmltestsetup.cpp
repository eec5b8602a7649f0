// SPDX-License-Identifier: Apache-2.0
#include "qmltestsetup.h"

#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/testtimeouts.h>

#include "eventlogmodel.h"
#include "testhooks_p.h"

#include <QtCore/QFile>
#include <QtCore/QHash>
#include <QtQml/QQmlContext>
#include <QtQml/QQmlEngine>

using QEtcd::Testing::FaultProxy;

QmlTestSetup::QmlTestSetup() = default;
QmlTestSetup::~QmlTestSetup() = default;

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
    for (const QStringList &arguments : {QStringList{"user", "add", "root:rootpw"}, QStringList{"role", "add", "app-role"},
                                         QStringList{"role", "grant-permission", "app-role", "readwrite", "/app/", "--prefix=true"},
                                         QStringList{"user", "add", "app:apppw"}, QStringList{"user", "grant-role", "app", "app-role"},
                                         QStringList{"auth", "enable"}}) {
        int exitCode = -1;
        QByteArray error;
        m_authCluster->etcdctl(arguments, &exitCode, &error);
        if (exitCode != 0) {
            qCritical("qetcdTest.authEndpoint: etcdctl %s: %s", qPrintable(arguments.join(QLatin1Char(' '))), error.constData());
            return {};
        }
    }
    return m_authCluster->clientUrl(0);
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
    // Four keys written over and over: the history, not the keys, fills the quota.
    QEtcd::Client client(QEtcd::ClientOptions::fromEndpoints(m_noSpaceCluster->clientUrls()));
    const QByteArray large(100 * 1024, 'x');
    for (int i = 0; i < 64; ++i) {
        const QFuture<QEtcd::PutResult> put = client.put("/full/" + QByteArray::number(i % 4), large);
        if (!QEtcd::Testing::awaitFuture(put))
            break;
        if (put.result().status.message().contains(QLatin1String("database space exceeded")))
            return m_noSpaceCluster->clientUrl(0);
    }
    qCritical("qetcdTest.noSpaceEndpoint: etcd never raised NOSPACE");
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

void QmlTestSetup::qmlEngineAvailable(QQmlEngine *engine)
{
    engine->addImportPath(QStringLiteral(QETCD_QML_IMPORT_PATH));
    // The console's views, linked in statically, are found in the resources.
    engine->addImportPath(QStringLiteral("qrc:/"));
    engine->rootContext()->setContextProperty(QStringLiteral("qetcdTest"), this);
}
