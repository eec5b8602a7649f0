// SPDX-License-Identifier: Apache-2.0
// Whoever may write one key must not reach through the console to its operators. Every field a
// page shows — a key's name and value, a lock holder's clientId and host, an election's
// proposal, a barrier's owner, a service's name, the keys of a lease — holds markup with an
// <img> pointing at a local HTTP server that counts requests; each page is rendered through the
// real window (`qetcd-console --page NAME --screenshot FILE`), and the server must see none.
// The pages' numbers (the JSON line --screenshot prints) show that the data was there to render.

#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDateTime>
#include <QtCore/QDir>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {
// Counts the requests made to it, by path, and answers each with a 404.
class Beacon : public QObject
{
public:
    Beacon()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                ++m_connections;
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    const QByteArray request = socket->readAll();
                    m_requests.append(QString::fromLatin1(request.left(request.indexOf('\r'))));
                    socket->write("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
                    socket->disconnectFromHost();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    // Markup that fetches this server's /field when rendered as rich text, and shouts if shown so.
    QByteArray markup(const char *field) const
    {
        return QByteArrayLiteral("<img src=\"http://127.0.0.1:") + QByteArray::number(m_server.serverPort()) + '/'
            + field + QByteArrayLiteral("\"><b>") + field + QByteArrayLiteral("</b>");
    }
    int connections() const { return m_connections; }
    // The requests' lines since the last forget().
    QString requests() const { return m_requests.join(QLatin1String("; ")); }
    void forget() { m_requests.clear(); }

private:
    QTcpServer m_server;
    int m_connections = 0;
    QStringList m_requests;
};
} // namespace

class tst_ConsoleMarkup : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_beacon.listen());
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));

        // A key and its value, as anyone may write them.
        QVERIFY(put("/markup/key" + m_beacon.markup("keyName"), m_beacon.markup("keyValue")));
        // A lock held and waited for, in etcd's layout <name>/<lease>, with the identity qetcd
        // writes ({clientId, host, pid, requestedAt, role}) made up by whoever wrote the key.
        const QByteArray lock = "/markup/lock" + m_beacon.markup("lockName");
        QVERIFY(putOnLease(lock, identity(m_beacon.markup("holderClientId"), m_beacon.markup("holderHost"), "lock")));
        QVERIFY(putOnLease(lock, identity(m_beacon.markup("waiterClientId"), m_beacon.markup("waiterHost"), "lock")));
        // An election as `etcdctl elect NAME PROPOSAL` leaves it: a leader and a candidate.
        const QByteArray election = "/markup/election" + m_beacon.markup("electionName");
        QVERIFY(putOnLease(election, m_beacon.markup("proposal") + "<b>LEADER</b>"));
        QVERIFY(putOnLease(election, m_beacon.markup("candidate")));
        // A set barrier: its key on its owner's lease, valued "<clientId>:<token>".
        QVERIFY(putOnLease("/markup/gate" + m_beacon.markup("barrierName"), m_beacon.markup("barrierOwner") + ":a1b2c3d",
                           false));
        // A registered service instance.
        QVERIFY(putOnLease("/markup/svc" + m_beacon.markup("serviceName") + "/names/web/instance-1",
                           "{\"name\":\"web\",\"address\":\"" + m_beacon.markup("serviceAddress").replace('"', "\\\"")
                               + "\",\"port\":80}",
                           false));
    }

    void page_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QJsonObject>("expected");
        // The Coordination page builds its cards while another page shows: no page may fetch.
        QTest::newRow("cluster, read-only") << QStringList{"--page", "cluster", "--read-only"}
                                            << QJsonObject{{"members", 1}};
        QTest::newRow("cluster") << QStringList{"--page", "cluster"} << QJsonObject{{"members", 1}};
        // Seven keys: the plain one, two of the lock, two of the election, the barrier, the service.
        const QString key = QString::fromUtf8("/markup/key" + m_beacon.markup("keyName"));
        QTest::newRow("keys") << QStringList{"--page", "keys", "--select", key}
                              << QJsonObject{{"keys", 7}, {"selected", key}};
        const QString lockKey = QString::fromUtf8(m_lockKey);
        QTest::newRow("keys, lock key selected")
            << QStringList{"--page", "keys", "--select", lockKey} << QJsonObject{{"keys", 7}, {"selected", lockKey}};
        QTest::newRow("leases") << QStringList{"--page", "leases"} << QJsonObject{{"leases", 6}};
        QTest::newRow("coordination") << QStringList{"--page", "coordination"} << QJsonObject{{"objects", 4}};
        QTest::newRow("timeline") << QStringList{"--page", "timeline"} << QJsonObject{};
        QTest::newRow("participants") << QStringList{"--page", "participants"} << QJsonObject{};
    }

    void page()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QJsonObject, expected);
        const int before = m_beacon.connections();
        m_beacon.forget();
        QProcess console;
        console.setProcessChannelMode(QProcess::SeparateChannels);
        QSignalSpy finished(&console, &QProcess::finished);
        console.start(QStringLiteral(QETCD_CONSOLE_PATH),
                      QStringList{QStringLiteral("--endpoints"), m_cluster.clientUrls().constFirst(),
                                  QStringLiteral("--screenshot"), m_scratch.filePath(QStringLiteral("page.png"))}
                          + arguments);
        // The event loop runs meanwhile, so the beacon answers while the console renders.
        QVERIFY(finished.wait(scaledMs(90000)));
        QVERIFY2(console.exitStatus() == QProcess::NormalExit && console.exitCode() == 0,
                 console.readAllStandardError().constData());
        const QJsonObject summary = QJsonDocument::fromJson(console.readAllStandardOutput()).object();
        for (auto it = expected.constBegin(); it != expected.constEnd(); ++it)
            QVERIFY2(summary.value(it.key()) == it.value(),
                     qPrintable(QStringLiteral("%1 is %2, expected %3")
                                    .arg(it.key(), summary.value(it.key()).toVariant().toString(),
                                         it.value().toVariant().toString())));
        // A request under way when the console exited has connected by now.
        QCoreApplication::processEvents();
        QVERIFY2(m_beacon.connections() == before,
                 qPrintable(QStringLiteral("the console rendered etcd's data as markup and fetched: %1").arg(m_beacon.requests())));
    }

private:
    static QByteArray identity(const QByteArray &clientId, const QByteArray &host, const QByteArray &role)
    {
        return QJsonDocument(QJsonObject{{"clientId", QString::fromUtf8(clientId)},
                                         {"host", QString::fromUtf8(host)},
                                         {"pid", 4121},
                                         {"requestedAt", QDateTime::currentMSecsSinceEpoch()},
                                         {"role", QString::fromUtf8(role)}})
            .toJson(QJsonDocument::Compact);
    }
    bool put(const QByteArray &key, const QByteArray &value, qint64 lease = 0)
    {
        PutOptions options;
        options.lease = lease;
        const auto future = m_client->put(key, value, options);
        return awaitFuture(future) && future.result().status;
    }
    // Puts value on a lease of its own that outlives the test, at path/<lease in hex> (etcd's
    // lock and election layout), or at path itself.
    bool putOnLease(const QByteArray &path, const QByteArray &value, bool leaseInKey = true)
    {
        const auto granted = m_client->leaseGrant(3600);
        if (!awaitFuture(granted) || !granted.result().status)
            return false;
        const qint64 lease = granted.result().id;
        const QByteArray key = leaseInKey ? path + '/' + QByteArray::number(quint64(lease), 16) : path;
        if (m_lockKey.isEmpty() && path.startsWith("/markup/lock"))
            m_lockKey = key;
        return put(key, value, lease);
    }

    Beacon m_beacon;
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;
    QByteArray m_lockKey;
    QTemporaryDir m_scratch;
};

QTEST_GUILESS_MAIN(tst_ConsoleMarkup)
#include "tst_consolemarkup.moc"
