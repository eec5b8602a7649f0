// SPDX-License-Identifier: Apache-2.0
#include "../common/closedport.h"

#include <QEtcd/faultproxy.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QThread>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>

#include <algorithm>
#include <atomic>

using QEtcd::Testing::FaultProxy;
using QEtcd::Testing::scaledMs;
using namespace std::chrono_literals;

namespace {

// Echoes on its own thread, so a test may block its main thread on a socket and the proxy and
// the upstream still run; what reached it is readable from any thread.
class EchoServer
{
public:
    EchoServer()
    {
        m_thread.start();
        m_server.moveToThread(&m_thread);
        QMetaObject::invokeMethod(&m_server, [this] { listen(); }, Qt::BlockingQueuedConnection);
    }
    ~EchoServer()
    {
        // Sockets are torn down on the thread that owns their notifiers.
        QMetaObject::invokeMethod(
                &m_server,
                [this] {
                    m_server.close();
                    qDeleteAll(m_server.findChildren<QTcpSocket *>());
                },
                Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    quint16 port() const { return m_port; }
    qint64 received() const { return m_received.load(); }
    int accepted() const { return m_accepted.load(); }

private:
    void listen()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                m_accepted.fetch_add(1);
                QObject::connect(socket, &QIODevice::readyRead, socket, [this, socket] {
                    const QByteArray data = socket->readAll();
                    m_received.fetch_add(data.size());
                    socket->write(data);
                });
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
        m_port = m_server.serverPort();
    }

    QThread m_thread;
    QTcpServer m_server;
    quint16 m_port = 0;
    std::atomic<qint64> m_received{0};
    std::atomic<int> m_accepted{0};
};

// Collects what a client socket receives; driven by the test thread's event loop.
class Client
{
public:
    explicit Client(quint16 port)
    {
        QObject::connect(&socket, &QIODevice::readyRead, &socket, [this] { received += socket.readAll(); });
        socket.connectToHost(QHostAddress::LocalHost, port);
    }
    QTcpSocket socket;
    QByteArray received;
};

} // namespace

class tst_FaultProxy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void passEchoes();
    void forwardsWhileCallerBlocks();
    void modeChangeNotifies();
    void blackholeHoldsTrafficUntilPass();
    void resetAbortsOpenAndNewConnections();
    void delayAppliesEachWay();
    void jitterVariesDelaysButKeepsOrder();
    void refusedUpstreamClosesClient();
    void startFailsOnTakenPort();
};

void tst_FaultProxy::passEchoes()
{
    EchoServer echo;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), echo.port());
    QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
    QVERIFY(proxy.port() != 0);
    QCOMPARE(proxy.url(), QStringLiteral("http://127.0.0.1:%1").arg(proxy.port()));
    QCOMPARE(proxy.mode(), FaultProxy::Mode::Pass);

    Client client(proxy.port());
    client.socket.write("hello");
    QTRY_COMPARE(client.received, QByteArray("hello"));
    QCOMPARE(proxy.connectionCount(), 1);
    QCOMPARE(proxy.bytesForwarded(), quint64(10));

    client.socket.disconnectFromHost();
    QTRY_COMPARE(proxy.connectionCount(), 0);
}

void tst_FaultProxy::forwardsWhileCallerBlocks()
{
    EchoServer echo;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), echo.port());
    QVERIFY(proxy.start());

    // Only blocking calls: this thread never returns to its event loop.
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, proxy.port());
    QVERIFY(socket.waitForConnected(scaledMs(5000)));
    socket.write("blocking");
    QVERIFY(socket.waitForBytesWritten(scaledMs(5000)));
    QByteArray received;
    while (received.size() < 8 && socket.waitForReadyRead(scaledMs(5000)))
        received += socket.readAll();
    QCOMPARE(received, QByteArray("blocking"));
}

void tst_FaultProxy::modeChangeNotifies()
{
    const QEtcd::Testing::ClosedPort upstream;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), upstream.port());
    QSignalSpy spy(&proxy, &FaultProxy::modeChanged);
    // Before start() the mode is only recorded; start() must pick it up.
    proxy.setMode(FaultProxy::Mode::Blackhole);
    QVERIFY(proxy.start());
    proxy.setMode(FaultProxy::Mode::Blackhole);
    proxy.setProperty("mode", QVariant::fromValue(FaultProxy::Mode::Delay));
    QCOMPARE(proxy.mode(), FaultProxy::Mode::Delay);
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(0).at(0).value<FaultProxy::Mode>(), FaultProxy::Mode::Blackhole);
    QCOMPARE(spy.at(1).at(0).value<FaultProxy::Mode>(), FaultProxy::Mode::Delay);

    proxy.setDelay(250ms);
    QCOMPARE(proxy.delay(), 250ms);
}

void tst_FaultProxy::blackholeHoldsTrafficUntilPass()
{
    EchoServer echo;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), echo.port());
    QVERIFY(proxy.start());

    Client early(proxy.port());
    early.socket.write("before");
    QTRY_COMPARE(early.received, QByteArray("before"));

    proxy.setMode(FaultProxy::Mode::Blackhole);
    // Bigger than every socket buffer on the way, so held bytes must survive back-pressure.
    QByteArray bulk(4 * 1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < bulk.size(); ++i)
        bulk[i] = char('a' + i % 23);
    early.socket.write(bulk);
    Client late(proxy.port());
    late.socket.write("late");
    QTRY_COMPARE(proxy.connectionCount(), 2);

    // The one negative wait of this test: nothing may cross the partition in that time.
    QTest::qWait(scaledMs(500));
    QCOMPARE(early.received, QByteArray("before"));
    QCOMPARE(late.received, QByteArray());
    QCOMPARE(echo.received(), qint64(6));
    QCOMPARE(echo.accepted(), 1); // the late connection is held, not connected upstream
    QCOMPARE(early.socket.state(), QAbstractSocket::ConnectedState);
    QCOMPARE(late.socket.state(), QAbstractSocket::ConnectedState);

    proxy.setMode(FaultProxy::Mode::Pass);
    QTRY_COMPARE_WITH_TIMEOUT(late.received, QByteArray("late"), scaledMs(5000));
    QTRY_COMPARE_WITH_TIMEOUT(early.received.size(), bulk.size() + 6, scaledMs(20000));
    QVERIFY(early.received == "before" + bulk);
    QCOMPARE(echo.accepted(), 2);
}

void tst_FaultProxy::resetAbortsOpenAndNewConnections()
{
    EchoServer echo;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), echo.port());
    QVERIFY(proxy.start());

    Client open(proxy.port());
    open.socket.write("x");
    QTRY_COMPARE(open.received, QByteArray("x"));

    proxy.setMode(FaultProxy::Mode::Reset);
    QTRY_COMPARE(open.socket.state(), QAbstractSocket::UnconnectedState);
    QCOMPARE(open.socket.error(), QAbstractSocket::RemoteHostClosedError);
    QTRY_COMPARE(proxy.connectionCount(), 0);

    Client fresh(proxy.port());
    fresh.socket.write("y");
    QTRY_COMPARE(fresh.socket.state(), QAbstractSocket::UnconnectedState);
    QVERIFY2(fresh.socket.error() == QAbstractSocket::RemoteHostClosedError
                     || fresh.socket.error() == QAbstractSocket::ConnectionRefusedError,
             qPrintable(fresh.socket.errorString()));
    QCOMPARE(fresh.received, QByteArray());
    QCOMPARE(echo.accepted(), 1);

    proxy.setMode(FaultProxy::Mode::Pass);
    Client healed(proxy.port());
    healed.socket.write("z");
    QTRY_COMPARE(healed.received, QByteArray("z"));
}

void tst_FaultProxy::delayAppliesEachWay()
{
    EchoServer echo;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), echo.port());
    QVERIFY(proxy.start());
    proxy.setDelay(200ms);
    proxy.setMode(FaultProxy::Mode::Delay);

    Client client(proxy.port());
    QTRY_COMPARE(client.socket.state(), QAbstractSocket::ConnectedState);
    QElapsedTimer roundTrip;
    roundTrip.start();
    client.socket.write("one,");
    client.socket.flush();
    client.socket.write("two,");
    client.socket.flush();
    client.socket.write("three");
    QTRY_COMPARE_WITH_TIMEOUT(client.received, QByteArray("one,two,three"), scaledMs(5000));
    const qint64 elapsed = roundTrip.elapsed();
    QVERIFY2(elapsed >= 400, qPrintable(QString::number(elapsed)));
    QVERIFY2(elapsed < scaledMs(3000), qPrintable(QString::number(elapsed)));
}

void tst_FaultProxy::jitterVariesDelaysButKeepsOrder()
{
    EchoServer echo;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), echo.port());
    QVERIFY(proxy.start());
    proxy.setDelay(10ms);
    proxy.setJitter(150ms);
    QCOMPARE(proxy.jitter(), 150ms);
    proxy.setMode(FaultProxy::Mode::Delay);

    Client client(proxy.port());
    QTRY_COMPARE(client.socket.state(), QAbstractSocket::ConnectedState);
    QByteArray expected;
    QElapsedTimer sent;
    qint64 answeredAfterMs = -1;
    // Connected after Client's own slot, so it sees what that one appended.
    QObject::connect(&client.socket, &QIODevice::readyRead, &client.socket, [&] {
        if (client.received == expected)
            answeredAfterMs = sent.elapsed();
    });
    // One message at a time: each crosses alone, so its round trip is its own two draws.
    QList<qint64> roundTripsMs;
    for (int i = 0; i < 16; ++i) {
        expected += QByteArray::number(i) + ',';
        answeredAfterMs = -1;
        sent.start();
        client.socket.write(QByteArray::number(i) + ',');
        QTRY_VERIFY_WITH_TIMEOUT(answeredAfterMs >= 0, scaledMs(5000));
        roundTripsMs.append(answeredAfterMs);
    }
    const auto [shortest, longest] = std::minmax_element(roundTripsMs.cbegin(), roundTripsMs.cend());
    QVERIFY2(*shortest >= 20, qPrintable(QString::number(*shortest)));
    // Up to 150 ms drawn each way: sixteen round trips within 75 ms of one another would mean
    // the same delay every time (by chance, about one run in a million).
    QVERIFY2(*longest - *shortest > 75, qPrintable(QStringLiteral("%1..%2").arg(*shortest).arg(*longest)));

    // A burst, whatever each chunk drew, arrives in the order it was sent.
    for (int i = 0; i < 200; ++i) {
        const QByteArray message = QByteArray::number(i) + ';';
        expected += message;
        client.socket.write(message);
        client.socket.flush();
    }
    QTRY_COMPARE_WITH_TIMEOUT(client.received, expected, scaledMs(10000));
}

void tst_FaultProxy::refusedUpstreamClosesClient()
{
    const QEtcd::Testing::ClosedPort upstream;
    FaultProxy proxy(QStringLiteral("127.0.0.1"), upstream.port());
    QVERIFY(proxy.start());
    Client client(proxy.port());
    client.socket.write("anyone?");
    QTRY_COMPARE(client.socket.state(), QAbstractSocket::UnconnectedState);
    QCOMPARE(client.received, QByteArray());
    QTRY_COMPARE(proxy.connectionCount(), 0);
    QCOMPARE(proxy.bytesForwarded(), quint64(0));
}

void tst_FaultProxy::startFailsOnTakenPort()
{
    const QEtcd::Testing::ClosedPort upstream;
    FaultProxy first(QStringLiteral("127.0.0.1"), upstream.port());
    QVERIFY(first.start());
    FaultProxy second(QStringLiteral("127.0.0.1"), upstream.port());
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("cannot listen")));
    QVERIFY(!second.start(first.port()));
    QVERIFY(second.errorString().contains(QString::number(first.port())));
    // A failed start leaves the proxy startable.
    QVERIFY2(second.start(), qPrintable(second.errorString()));
}

QTEST_GUILESS_MAIN(tst_FaultProxy)
#include "tst_faultproxy.moc"
