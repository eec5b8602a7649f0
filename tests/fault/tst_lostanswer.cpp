// SPDX-License-Identifier: Apache-2.0
// A write whose answer is lost is not applied twice. Each case slows its client's proxy so that
// a request reaches etcd well before its answer can come back, blackholes the proxy the moment
// etcd's history shows the write (seen by an observer that bypasses the proxy), and heals it
// after the client's deadline has passed but while a client that repeats itself would still
// be at it; then it counts in etcd's history how often the write landed.

#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedatomiclong.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/watcher.h>

#include <QtCore/QDeadlineTimer>
#include <QtCore/QMutex>
#include <QtCore/QTimer>
#include <QtCore/QtEndian>
#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
constexpr std::chrono::milliseconds oneWayDelay = 400ms;
// Time enough for a request to arrive, too little for its answer to come back through a
// blackhole.
const RpcResilience impatient{RetryPolicy::bounded(4, 100ms), 1500ms};
const QByteArray endMarker = QByteArrayLiteral("/lost/end");

// Long after the 1.5 s deadline of a call whose request took 0.4 s to arrive, well before a
// repeated call (100 ms later, 1.5 s of its own) would have given up.
constexpr std::chrono::milliseconds outage = 1500ms;

// The puts etcd committed under /lost/, from revision 1. The first put of the trap's key at or
// after its armed revision blackholes `proxy` from the dispatcher thread, before the answer
// leaves, and brings it back `outage` later.
class History
{
public:
    History(Client *observer, FaultProxy *proxy) : m_proxy(proxy)
    {
        WatchOptions everything;
        everything.range = KeyRange::prefix();
        everything.startRevision = 1;
        m_watcher = std::make_unique<Watcher>(observer, "/lost/", everything);
        QObject::connect(
            m_watcher.get(), &Watcher::eventsReceived, m_watcher.get(),
            [this](const QList<WatchEvent> &events) {
                QMutexLocker locker(&m_mutex);
                for (const WatchEvent &event : events) {
                    if (event.type != WatchEvent::Type::Put)
                        continue;
                    m_puts.append(event.kv);
                    if (event.kv.key == m_trap && event.kv.modRevision >= m_armedFrom) {
                        m_trap.clear();
                        m_proxy->setMode(FaultProxy::Mode::Blackhole);
                        QTimer::singleShot(outage, m_watcher.get(),
                                           [this] { m_proxy->setMode(FaultProxy::Mode::Pass); });
                    }
                }
            },
            Qt::DirectConnection);
    }

    bool start()
    {
        const auto started = m_watcher->start();
        return awaitFuture(started) && started.result().isOk();
    }

    void armTrap(const QByteArray &key, qint64 fromRevision)
    {
        QMutexLocker locker(&m_mutex);
        m_trap = key;
        m_armedFrom = fromRevision;
    }

    bool trapSprung() const
    {
        QMutexLocker locker(&m_mutex);
        return m_trap.isEmpty();
    }

    // Every put up to a marker written now, so nothing in flight is missed.
    QList<KeyValue> putsSoFar(Client *observer)
    {
        const auto marked = observer->put(endMarker, QByteArray::number(++m_markers));
        if (!awaitFuture(marked) || !marked.result().status)
            return {};
        const qint64 markRevision = marked.result().header.revision;
        const bool caughtUp = QTest::qWaitFor([&] {
            QMutexLocker locker(&m_mutex);
            return !m_puts.isEmpty() && m_puts.last().modRevision >= markRevision;
        }, int(scaled(20s).count()));
        QMutexLocker locker(&m_mutex);
        return caughtUp ? m_puts : decltype(m_puts){};
    }

private:
    FaultProxy *m_proxy;
    std::unique_ptr<Watcher> m_watcher;
    mutable QMutex m_mutex;
    QList<KeyValue> m_puts;
    QByteArray m_trap;
    qint64 m_armedFrom = 0;
    int m_markers = 0;
};

QList<KeyValue> putsOf(const QList<KeyValue> &puts, const QByteArray &key)
{
    QList<KeyValue> matching;
    for (const KeyValue &kv : puts) {
        if (kv.key == key)
            matching.append(kv);
    }
    return matching;
}

qint64 decodeCounter(const QByteArray &bytes)
{
    return bytes.size() == 8 ? qFromBigEndian<qint64>(bytes.constData()) : -1;
}
} // namespace

class tst_LostAnswer : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_cluster;
    std::unique_ptr<Client> m_observer;
    std::unique_ptr<FaultProxy> m_proxy;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<History> m_history;

private Q_SLOTS:
    void initTestCase()
    {
        m_cluster = std::make_unique<EtcdCluster>();
        QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        m_observer = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster->clientUrls()));
    }

    void init()
    {
        m_proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), m_cluster->clientPort(0));
        QVERIFY(m_proxy->start());
        ClientOptions options = ClientOptions::fromEndpoints({m_proxy->url()});
        options.rpc = impatient;
        m_client = std::make_unique<Client>(options);
        // Connected before the slow-down, so no call below waits for a connection.
        const auto pinged = m_client->ping();
        QVERIFY(awaitFuture(pinged));
        QCOMPARE(pinged.result().status, Status());
        m_history = std::make_unique<History>(m_observer.get(), m_proxy.get());
        QVERIFY(m_history->start());
    }

    void cleanup()
    {
        m_history.reset();
        m_client.reset();
        m_proxy.reset();
    }

    void txnWhoseAnswerIsLostIsAppliedOnceAndReportedUnknown()
    {
        const QByteArray key = "/lost/txn";
        m_history->armTrap(key, 0);
        m_proxy->setDelay(oneWayDelay);
        m_proxy->setMode(FaultProxy::Mode::Delay);

        Txn blind;  // no compare: were it sent twice, it would land twice
        blind.success = {TxnOp::put(key, "once")};
        const auto answer = m_client->txn(blind);
        QVERIFY(awaitFuture(answer));
        QVERIFY2(m_history->trapSprung(), "the write never reached etcd while the answer could still be lost");
        // The one code that says "maybe": the call gave up waiting, not etcd refusing it.
        QCOMPARE(answer.result().status.code(), StatusCode::DeadlineExceeded);

        QTRY_COMPARE_WITH_TIMEOUT(m_proxy->mode(), FaultProxy::Mode::Pass, scaledMs(5000));
        const auto afterHeal = m_client->get(key);
        QVERIFY(awaitFuture(afterHeal));
        QCOMPARE(afterHeal.result().status, Status());
        const QList<KeyValue> landed = putsOf(m_history->putsSoFar(m_observer.get()), key);
        QCOMPARE(landed.size(), 1);
        QCOMPARE(landed.first().value, QByteArray("once"));
    }

    void atomicLongNeverCountsAnIncrementWhoseAnswerWasLostTwice()
    {
        const QByteArray path = "/lost/counter";
        AtomicLongOptions options;
        options.resilience.rpc = impatient;
        DistributedAtomicLong counter(m_client.get(), path, options);
        AtomicLongResult first = counter.increment();
        QCOMPARE(first.status, Status());
        QCOMPARE(first.value, qint64(1));

        // The increment reads (a round trip of 800 ms, inside the 1.5 s deadline), then commits;
        // its commit's answer is lost.
        m_history->armTrap(path, first.header.revision + 1);
        m_proxy->setDelay(oneWayDelay);
        m_proxy->setMode(FaultProxy::Mode::Delay);
        const auto lost = counter.incrementAsync();
        QVERIFY(awaitFuture(lost));
        QVERIFY2(m_history->trapSprung(), "the increment never reached etcd while its answer could still be lost");
        QCOMPARE(lost.result().status.code(), StatusCode::DeadlineExceeded);

        QTRY_COMPARE_WITH_TIMEOUT(m_proxy->mode(), FaultProxy::Mode::Pass, scaledMs(5000));
        const AtomicLongResult read = counter.get();
        QCOMPARE(read.status, Status());
        QCOMPARE(read.value, qint64(2));  // applied once, not twice, not never
        const AtomicLongResult next = counter.increment();
        QCOMPARE(next.status, Status());
        QCOMPARE(next.value, qint64(3));

        QList<qint64> steps;
        for (const KeyValue &kv : putsOf(m_history->putsSoFar(m_observer.get()), path))
            steps.append(decodeCounter(kv.value));
        QCOMPARE(steps, (QList<qint64>{0, 1, 2, 3}));  // created at 0, then each increment once
    }
};

QTEST_GUILESS_MAIN(tst_LostAnswer)
#include "tst_lostanswer.moc"
