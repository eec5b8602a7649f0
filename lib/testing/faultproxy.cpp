// SPDX-License-Identifier: Apache-2.0
#include "faultproxy.h"

#include "testinglogging_p.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QMutex>
#include <QtCore/QRandomGenerator>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtNetwork/QNetworkProxy>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>

#include <sys/socket.h>

#include <atomic>
#include <deque>

namespace QEtcd::Testing {

using Mode = FaultProxy::Mode;

namespace {

// Bounds what a socket buffers while nothing is read from it, so a blackholed sender feels TCP
// back-pressure as it would behind a real partition.
constexpr qint64 ReadBufferSize = 1024 * 1024;

// State the public object reads from any thread while the worker changes it.
struct SharedState
{
    std::atomic<Mode> mode{Mode::Pass};
    std::atomic<qint64> delayMs{0};
    std::atomic<qint64> jitterMs{0};
    std::atomic<int> connections{0};
    std::atomic<quint64> bytesForwarded{0};
};

// A zero linger time makes close() send RST instead of FIN, which is what a peer sees when a
// middlebox or a crashed host drops the connection.
void resetSocket(QAbstractSocket *socket)
{
    const qintptr fd = socket->socketDescriptor();
    if (fd != -1) {
        const linger hard{1, 0};
        ::setsockopt(int(fd), SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    }
    socket->abort();
}

void prepareSocket(QTcpSocket *socket)
{
    socket->setReadBufferSize(ReadBufferSize);
    // Without it Nagle's algorithm adds its own delay to small writes and skews Delay mode.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
}

class ProxyConnection;

// Lives on the proxy's thread; owns the listening socket and every connection.
class ProxyWorker : public QObject
{
public:
    ProxyWorker(SharedState *shared, QString targetHost, quint16 targetPort)
        : m_shared(shared), m_targetHost(std::move(targetHost)), m_targetPort(targetPort),
          m_mode(shared->mode.load())
    {
    }

    bool listen(quint16 port, QString *errorString, quint16 *boundPort);
    void applyMode(Mode mode);
    void shutdown();

    Mode mode() const { return m_mode; }
    SharedState *shared() const { return m_shared; }
    const QString &targetHost() const { return m_targetHost; }
    quint16 targetPort() const { return m_targetPort; }
    void forget(ProxyConnection *connection) { m_connections.removeOne(connection); }

private:
    void acceptPending();

    SharedState *const m_shared;
    const QString m_targetHost;
    const quint16 m_targetPort;
    Mode m_mode;
    QTcpServer *m_server = nullptr;
    QList<ProxyConnection *> m_connections;
};

// One accepted client and its upstream socket. Each direction queues chunks with the time they
// are due, so Pass, Delay and Blackhole share one path and order is always preserved.
class ProxyConnection : public QObject
{
public:
    ProxyConnection(ProxyWorker *worker, QTcpSocket *client);
    ~ProxyConnection() override;

    void modeChanged();
    void reset();

private:
    struct Chunk
    {
        QDeadlineTimer due;
        QByteArray data;
        bool endOfStream = false;
    };
    struct Direction
    {
        QTcpSocket *source = nullptr;
        QTcpSocket *sink = nullptr;
        QTimer *timer = nullptr;
        std::deque<Chunk> queue;
        bool sourceEnded = false;
        bool endQueued = false;
    };

    void initDirection(Direction &direction, QTcpSocket *source, QTcpSocket *sink);
    void connectUpstream();
    void upstreamFailed(QAbstractSocket::SocketError socketError);
    void pull(Direction &direction);
    void enqueue(Direction &direction, QByteArray data, bool endOfStream);
    void push(Direction &direction);
    void finishIfClosed();

    ProxyWorker *const m_worker;
    QTcpSocket *const m_client;
    QTcpSocket *const m_upstream;
    bool m_upstreamStarted = false;
    bool m_upstreamConnected = false;
    Direction m_toUpstream;
    Direction m_toClient;
};

bool ProxyWorker::listen(quint16 port, QString *errorString, quint16 *boundPort)
{
    m_server = new QTcpServer(this);
    QObject::connect(m_server, &QTcpServer::newConnection, this, [this] { acceptPending(); });
    if (!m_server->listen(QHostAddress::LocalHost, port)) {
        *errorString = QStringLiteral("FaultProxy cannot listen on 127.0.0.1:%1: %2")
                               .arg(port)
                               .arg(m_server->errorString());
        delete m_server;
        m_server = nullptr;
        return false;
    }
    *boundPort = m_server->serverPort();
    return true;
}

void ProxyWorker::acceptPending()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        if (m_mode == Mode::Reset) {
            resetSocket(socket);
            socket->deleteLater();
            continue;
        }
        m_connections.append(new ProxyConnection(this, socket));
    }
}

void ProxyWorker::applyMode(Mode mode)
{
    m_mode = mode;
    // A copy: reset() makes connections remove themselves from the list.
    const QList<ProxyConnection *> connections = m_connections;
    for (ProxyConnection *connection : connections) {
        if (mode == Mode::Reset)
            connection->reset();
        else
            connection->modeChanged();
    }
}

void ProxyWorker::shutdown()
{
    const QList<ProxyConnection *> connections = std::exchange(m_connections, {});
    qDeleteAll(connections);
    delete m_server;
    m_server = nullptr;
}

ProxyConnection::ProxyConnection(ProxyWorker *worker, QTcpSocket *client)
    : QObject(worker), m_worker(worker), m_client(client), m_upstream(new QTcpSocket(this))
{
    m_worker->shared()->connections.fetch_add(1);
    m_client->setParent(this);
    prepareSocket(m_client);
    // The proxy stands in for a network path to a fixed address: an application-wide proxy
    // setting must not divert it.
    m_upstream->setProxy(QNetworkProxy::NoProxy);
    initDirection(m_toUpstream, m_client, m_upstream);
    initDirection(m_toClient, m_upstream, m_client);

    connect(m_upstream, &QAbstractSocket::connected, this, [this] {
        m_upstreamConnected = true;
        prepareSocket(m_upstream);
        pull(m_toUpstream);
    });
    connect(m_upstream, &QAbstractSocket::errorOccurred, this, &ProxyConnection::upstreamFailed);

    if (m_worker->mode() != Mode::Blackhole)
        connectUpstream();
}

ProxyConnection::~ProxyConnection()
{
    m_worker->forget(this);
    m_worker->shared()->connections.fetch_sub(1);
}

void ProxyConnection::initDirection(Direction &direction, QTcpSocket *source, QTcpSocket *sink)
{
    direction.source = source;
    direction.sink = sink;
    direction.timer = new QTimer(this);
    direction.timer->setSingleShot(true);
    direction.timer->setTimerType(Qt::PreciseTimer);
    connect(direction.timer, &QTimer::timeout, this, [this, &direction] { push(direction); });
    connect(source, &QIODevice::readyRead, this, [this, &direction] { pull(direction); });
    connect(source, &QAbstractSocket::disconnected, this, [this, &direction] {
        direction.sourceEnded = true;
        pull(direction);
        finishIfClosed();
    });
}

void ProxyConnection::connectUpstream()
{
    m_upstreamStarted = true;
    m_upstream->connectToHost(m_worker->targetHost(), m_worker->targetPort());
}

void ProxyConnection::upstreamFailed(QAbstractSocket::SocketError socketError)
{
    if (m_upstreamConnected)
        return; // a failure after connecting ends in disconnected(), handled per direction
    qCDebug(lcTesting) << "FaultProxy: upstream" << m_worker->targetHost() << m_worker->targetPort()
                       << "unreachable:" << socketError << "- resetting the client";
    reset();
}

void ProxyConnection::modeChanged()
{
    const Mode mode = m_worker->mode();
    if (mode == Mode::Blackhole) {
        m_toUpstream.timer->stop();
        m_toClient.timer->stop();
        return;
    }
    if (mode == Mode::Pass) {
        // Chunks still waiting out a delay are due now: Pass means no added latency.
        for (Direction *direction : {&m_toUpstream, &m_toClient}) {
            for (Chunk &chunk : direction->queue)
                chunk.due = QDeadlineTimer(0);
        }
    }
    if (!m_upstreamStarted)
        connectUpstream();
    pull(m_toUpstream);
    pull(m_toClient);
}

void ProxyConnection::reset()
{
    // Aborting emits disconnected() synchronously; nothing must be forwarded past this point.
    m_client->disconnect(this);
    m_upstream->disconnect(this);
    resetSocket(m_client);
    resetSocket(m_upstream);
    deleteLater();
}

void ProxyConnection::pull(Direction &direction)
{
    if (m_worker->mode() == Mode::Blackhole)
        return;
    if (direction.source->bytesAvailable() > 0)
        enqueue(direction, direction.source->readAll(), false);
    if (direction.sourceEnded && !direction.endQueued && direction.source->bytesAvailable() == 0) {
        direction.endQueued = true;
        enqueue(direction, {}, true);
    }
    push(direction);
}

void ProxyConnection::enqueue(Direction &direction, QByteArray data, bool endOfStream)
{
    qint64 delayMs = 0;
    if (m_worker->mode() == Mode::Delay) {
        const SharedState *shared = m_worker->shared();
        delayMs = shared->delayMs.load();
        if (const qint64 jitterMs = shared->jitterMs.load(); jitterMs > 0)
            delayMs += qint64(QRandomGenerator::global()->bounded(quint64(jitterMs) + 1));
    }
    QDeadlineTimer due(delayMs, Qt::PreciseTimer);
    // Neither a delay shortened mid-stream nor a smaller draw of jitter may let a later chunk
    // overtake an earlier one.
    if (!direction.queue.empty() && direction.queue.back().due.deadlineNSecs() > due.deadlineNSecs())
        due = direction.queue.back().due;
    direction.queue.push_back({due, std::move(data), endOfStream});
}

void ProxyConnection::push(Direction &direction)
{
    if (m_worker->mode() == Mode::Blackhole)
        return;
    // Until the upstream connects, its direction waits; the connected() handler pushes again.
    if (direction.sink->state() != QAbstractSocket::ConnectedState)
        return;
    while (!direction.queue.empty()) {
        Chunk &chunk = direction.queue.front();
        if (!chunk.due.hasExpired()) {
            direction.timer->start(std::max<qint64>(1, chunk.due.remainingTime()));
            return;
        }
        if (chunk.endOfStream) {
            direction.queue.clear();
            direction.sink->disconnectFromHost(); // flushes what was written first
            return;
        }
        direction.sink->write(chunk.data);
        m_worker->shared()->bytesForwarded.fetch_add(quint64(chunk.data.size()));
        direction.queue.pop_front();
    }
}

void ProxyConnection::finishIfClosed()
{
    // An upstream never started (the client left during a blackhole) counts as closed.
    if (m_client->state() == QAbstractSocket::UnconnectedState
        && m_upstream->state() == QAbstractSocket::UnconnectedState)
        deleteLater();
}

} // namespace

class FaultProxyPrivate
{
public:
    FaultProxyPrivate(const QString &host, quint16 port) : targetHost(host), targetPort(port) { }

    void stopWorker()
    {
        QMetaObject::invokeMethod(worker, [this] { worker->shutdown(); }, Qt::BlockingQueuedConnection);
        thread.quit();
        thread.wait();
        delete worker;
        worker = nullptr;
    }

    const QString targetHost;
    const quint16 targetPort;
    SharedState shared;
    QThread thread;
    ProxyWorker *worker = nullptr; // on `thread`; deleted here once the thread has stopped
    // Serialises mode changes (and the worker's creation) so modeChanged() follows the order
    // in which modes were applied.
    QMutex modeMutex;
    QString errorString;
    quint16 port = 0;
};

FaultProxy::FaultProxy(const QString &targetHost, quint16 targetPort, QObject *parent)
    : QObject(parent), d(std::make_unique<FaultProxyPrivate>(targetHost, targetPort))
{
    d->thread.setObjectName(QStringLiteral("FaultProxy"));
}

FaultProxy::~FaultProxy()
{
    if (d->worker)
        d->stopWorker();
}

bool FaultProxy::start(quint16 listenPort)
{
    QMutexLocker lock(&d->modeMutex);
    if (d->worker) {
        d->errorString = QStringLiteral("FaultProxy already listens on port %1").arg(d->port);
        return false;
    }
    d->worker = new ProxyWorker(&d->shared, d->targetHost, d->targetPort);
    d->thread.start();
    d->worker->moveToThread(&d->thread);

    bool listening = false;
    QMetaObject::invokeMethod(
            d->worker, [&] { listening = d->worker->listen(listenPort, &d->errorString, &d->port); },
            Qt::BlockingQueuedConnection);
    if (!listening) {
        d->stopWorker();
        qCWarning(lcTesting).noquote() << d->errorString;
        return false;
    }
    d->errorString.clear();
    qCDebug(lcTesting) << "FaultProxy on port" << d->port << "forwards to" << d->targetHost
                       << d->targetPort;
    return true;
}

QString FaultProxy::errorString() const
{
    return d->errorString;
}

quint16 FaultProxy::port() const
{
    return d->port;
}

QString FaultProxy::url(const QString &scheme) const
{
    return QStringLiteral("%1://127.0.0.1:%2").arg(scheme).arg(d->port);
}

FaultProxy::Mode FaultProxy::mode() const
{
    return d->shared.mode.load();
}

void FaultProxy::setMode(Mode mode)
{
    {
        QMutexLocker lock(&d->modeMutex);
        if (d->shared.mode.load() == mode)
            return;
        d->shared.mode.store(mode);
        if (d->worker) {
            QMetaObject::invokeMethod(d->worker, [this, mode] { d->worker->applyMode(mode); },
                                      Qt::BlockingQueuedConnection);
        }
    }
    qCDebug(lcTesting) << "FaultProxy on port" << d->port << "now" << mode;
    emit modeChanged(mode);
}

std::chrono::milliseconds FaultProxy::delay() const
{
    return std::chrono::milliseconds(d->shared.delayMs.load());
}

void FaultProxy::setDelay(std::chrono::milliseconds oneWay)
{
    d->shared.delayMs.store(std::max<qint64>(0, oneWay.count()));
}

std::chrono::milliseconds FaultProxy::jitter() const
{
    return std::chrono::milliseconds(d->shared.jitterMs.load());
}

void FaultProxy::setJitter(std::chrono::milliseconds maxExtraOneWay)
{
    d->shared.jitterMs.store(std::max<qint64>(0, maxExtraOneWay.count()));
}

int FaultProxy::connectionCount() const
{
    return d->shared.connections.load();
}

quint64 FaultProxy::bytesForwarded() const
{
    return d->shared.bytesForwarded.load();
}

} // namespace QEtcd::Testing
