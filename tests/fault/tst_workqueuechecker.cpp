// SPDX-License-Identifier: Apache-2.0
// DistributedWorkQueue with its consumers cut off at random. A producer on a direct connection
// enqueues numbered items for the run's length while three consumers, each behind its own
// FaultProxy, receive them, work 50 ms on each and acknowledge; a seeded driver blackholes one
// consumer at a time for 0.5–4 s, often past the 2 s visibility timeout, so that claims are
// lost with their consumer's lease and swept back for another delivery. An observer on a direct
// connection records etcd's history of the queue's keys. Pass (workqueueverdict.h): every
// enqueued item acknowledged exactly once or dead-lettered, every redelivery the attempt after a
// claim that was really lost, and each consumer's beliefs (received, acknowledged, told its claim
// was lost) what etcd did with its very claim. Floors: enough items acknowledged, partitions
// injected, claims lost and redelivered, work done by every consumer.
// The self-check runs the same checker against consumers that acknowledge with a plain
// transaction, never asking whether their claim still stands, and passes only when it catches
// them.

#include "../common/awaitfuture.h"
#include "checkerrun.h"
#include "workqueueverdict.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedworkqueue.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/watcher.h>

#include <QtCore/QMutex>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtTest/QtTest>

#include <array>
#include <atomic>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
constexpr int consumerCount = 3;
constexpr int visibilityTimeoutSeconds = 2;

WorkQueueOptions consumerOptions()
{
    WorkQueueOptions options;
    options.visibilityTimeoutSeconds = visibilityTimeoutSeconds;
    options.maxDeliveries = 3;
    options.sweepInterval = 300ms;
    return options;
}

struct Consumer
{
    FaultProxy proxy;
    std::unique_ptr<Client> client;
    std::unique_ptr<DistributedWorkQueue> queue;
    std::unique_ptr<QThread> thread;
    std::atomic<bool> stop{false};
    QMutex mutex;
    QList<WorkDelivery> deliveries;
    bool faulted = false;  // the driver's

    Consumer(const QString &name, quint16 etcdPort, const QByteArray &path, bool sabotaged)
        : proxy(QStringLiteral("127.0.0.1"), etcdPort)
    {
        if (!proxy.start())
            return;
        ClientOptions options = ClientOptions::fromEndpoints({proxy.url()});
        options.rpc = RpcResilience{RetryPolicy::never(), 1s};  // a partition fails the call it meets
        client = std::make_unique<Client>(options);
        queue = std::make_unique<DistributedWorkQueue>(client.get(), path, consumerOptions());
        thread.reset(QThread::create([this, name, path, sabotaged] {
            const QByteArray owner = queue->clientId().toUtf8();
            while (!stop) {
                const WorkItem item = queue->receive(2s);
                if (!item.status)
                    continue;  // nothing yet, cut off, or closed
                QThread::msleep(50);  // the work: partitions meet consumers holding claims
                const WorkDelivery::Ack ack = sabotaged ? ackBlindly(path, item) : acknowledge(item);
                QMutexLocker locker(&mutex);
                deliveries.append(WorkDelivery{name, owner, item.id, item.value, item.attempt, item.claimRevision, ack});
            }
        }));
        thread->start();
    }

    ~Consumer()
    {
        stop = true;
        if (queue)
            queue->close();
        if (thread)
            thread->wait();
    }

    // Tried again while unanswered: a claim left standing on a live lease would strand its item.
    WorkDelivery::Ack acknowledge(const WorkItem &item)
    {
        Status acked = queue->ack(item).result();
        bool unanswered = false;
        for (int tries = 0; acked.isTransient() && tries < 30; ++tries) {
            unanswered = true;
            acked = queue->ack(item).result();
        }
        if (acked.isOk())
            return WorkDelivery::Ack::Done;
        // After an unanswered try, "lost" may be our own ack having landed.
        return acked.code() == StatusCode::OwnershipLost && !unanswered ? WorkDelivery::Ack::Lost
                                                                        : WorkDelivery::Ack::Unknown;
    }

    // The saboteur: settles the item whether or not its claim still stands.
    WorkDelivery::Ack ackBlindly(const QByteArray &path, const WorkItem &item)
    {
        Txn blind;
        blind.success = {TxnOp::remove(path + "/claims/" + item.id), TxnOp::remove(path + "/claimed/" + item.id),
                         TxnOp::remove(path + "/attempts/" + item.id)};
        Status done = client->txn(blind).result().status;
        for (int tries = 0; done.isTransient() && tries < 30; ++tries)
            done = client->txn(blind).result().status;
        return done.isOk() ? WorkDelivery::Ack::Done : WorkDelivery::Ack::Unknown;
    }

    QList<WorkDelivery> received()
    {
        QMutexLocker locker(&mutex);
        return deliveries;
    }
};

// Every event under path/ from a revision on, in etcd's order.
class QueueHistory
{
public:
    QueueHistory(Client *observer, const QByteArray &path, qint64 fromRevision) : m_path(path)
    {
        WatchOptions everything;
        everything.range = KeyRange::prefix();
        everything.startRevision = fromRevision;
        m_watcher = std::make_unique<Watcher>(observer, path + '/', everything);
        QObject::connect(
            m_watcher.get(), &Watcher::eventsReceived, m_watcher.get(),
            [this](const QList<WatchEvent> &events) {
                QMutexLocker locker(&m_mutex);
                m_events.append(events);
            },
            Qt::DirectConnection);
    }

    bool start()
    {
        const auto started = m_watcher->start();
        return awaitFuture(started) && started.result().isOk();
    }

    // Every event up to a marker written now, so nothing in flight is missed; empty if the
    // watch did not catch up.
    QList<WatchEvent> soFar(Client *observer)
    {
        const auto marked = observer->put(m_path + "/end", "");
        if (!awaitFuture(marked) || !marked.result().status)
            return {};
        const qint64 markRevision = marked.result().header.revision;
        const bool caughtUp = QTest::qWaitFor([&] {
            QMutexLocker locker(&m_mutex);
            return !m_events.isEmpty() && m_events.last().kv.modRevision >= markRevision;
        }, int(scaled(20s).count()));
        QMutexLocker locker(&m_mutex);
        return caughtUp ? m_events : QList<WatchEvent>{};
    }

private:
    const QByteArray m_path;
    std::unique_ptr<Watcher> m_watcher;
    QMutex m_mutex;
    QList<WatchEvent> m_events;
};

struct RunResult
{
    QString verdict;
    WorkQueueFigures figures;
    int enqueued = 0;
    int partitions = 0;
    int pastVisibility = 0;  // partitions longer than the visibility timeout
    QList<int> perConsumer;
};
} // namespace

class tst_WorkQueueChecker : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_direct;

    qint64 currentRevision()
    {
        const auto read = m_direct->get("/");
        return awaitFuture(read) && read.result().status ? read.result().header.revision : -1;
    }

    void run(const QByteArray &path, CheckerRun &checker, bool sabotaged, RunResult *result)
    {
        const qint64 from = currentRevision();
        QVERIFY(from > 0);
        QueueHistory history(m_direct.get(), path, from + 1);
        QVERIFY(history.start());

        std::array<std::unique_ptr<Consumer>, consumerCount> consumers;
        for (int i = 0; i < consumerCount; ++i) {
            consumers[i] = std::make_unique<Consumer>(QStringLiteral("consumer %1").arg(i), m_cluster.clientPort(0), path,
                                                      sabotaged);
            QVERIFY(consumers[i]->thread);
        }

        std::atomic<bool> producing{true};
        QMutex enqueuedMutex;
        QList<QByteArray> enqueued;
        Status producerFailure;
        std::unique_ptr<QThread> producer(QThread::create([&] {
            DistributedWorkQueue queue(m_direct.get(), path);
            for (int n = 0; producing; ++n) {
                const QByteArray value = QByteArray::number(n);
                const Status status = queue.enqueue(value).result();
                if (!status) {
                    producerFailure = status;
                    return;
                }
                QMutexLocker locker(&enqueuedMutex);
                enqueued.append(value);
                locker.unlock();
                QThread::msleep(40);
            }
        }));
        producer->start();

        QTimer driver;
        connect(&driver, &QTimer::timeout, this, [&] {
            Consumer &consumer = *consumers[checker.random.bounded(consumerCount)];
            if (consumer.faulted)
                return;
            const int length = checker.random.bounded(500, 4000);
            consumer.faulted = true;
            ++result->partitions;
            result->pastVisibility += length > visibilityTimeoutSeconds * 1000 ? 1 : 0;
            consumer.proxy.setMode(FaultProxy::Mode::Blackhole);
            QTimer::singleShot(length, &consumer.proxy, [&consumer] {
                consumer.proxy.setMode(FaultProxy::Mode::Pass);
                consumer.faulted = false;
            });
        });
        driver.start(700);
        QEventLoop running;  // the run's length, not a wait for anything
        QTimer::singleShot(seconds(checker.seconds), &running, &QEventLoop::quit);
        running.exec();
        producing = false;
        QVERIFY(producer->wait(scaledMs(20000)));
        QCOMPARE(producerFailure, Status());
        driver.stop();
        for (auto &consumer : consumers)
            consumer->proxy.setMode(FaultProxy::Mode::Pass);

        // Lost claims come back once their lease expires, and get delivered again.
        const auto inQueue = [&] {
            RangeOptions counted;
            counted.range = KeyRange::prefix();
            counted.countOnly = true;
            qint64 left = 0;
            for (const char *place : {"/items/", "/claimed/", "/delayed/"}) {
                const auto read = m_direct->get(path + place, counted);
                if (!awaitFuture(read) || !read.result().status)
                    return qint64(-1);
                left += read.result().count;
            }
            return left;
        };
        QTRY_COMPARE_WITH_TIMEOUT(inQueue(), qint64(0), scaledMs(60000));
        QList<WorkDelivery> deliveries;
        for (auto &consumer : consumers) {
            consumer->stop = true;
            consumer->queue->close();  // wakes its waiting receive
            QVERIFY(consumer->thread->wait(scaledMs(20000)));
            const QList<WorkDelivery> received = consumer->received();
            result->perConsumer.append(int(received.size()));
            deliveries += received;
        }

        const QList<WatchEvent> events = history.soFar(m_direct.get());
        QVERIFY2(!events.isEmpty(), "the observer's watch did not catch up");
        result->enqueued = int(enqueued.size());
        result->verdict = workQueueViolation(path, enqueued, events, deliveries, &result->figures);
        const WorkQueueFigures &f = result->figures;
        qInfo("%d values enqueued, %d items: %d acknowledged, %d dead-lettered; %d claims: %d lost with their "
              "lease, %d redelivered, %d given back; %d partitions (%d past the visibility timeout); deliveries "
              "per consumer %d/%d/%d",
              result->enqueued, f.items, f.acknowledged, f.deadLettered, f.claims, f.claimsLost, f.redeliveries,
              f.givenBack, result->partitions, result->pastVisibility, result->perConsumer.value(0),
              result->perConsumer.value(1), result->perConsumer.value(2));
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<Status>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_direct = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void everyItemAcknowledgedOnceOrDeadLettered()
    {
        CheckerRun checker(20);
        RunResult result;
        run("/checker/workqueue", checker, false, &result);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(result.verdict.isEmpty(), qPrintable(result.verdict));
        const WorkQueueFigures &f = result.figures;
        QVERIFY2(f.acknowledged >= 100, "too few items were acknowledged");
        QVERIFY2(result.partitions >= 5 && result.pastVisibility >= 1, "too few partitions, or none past the visibility timeout");
        QVERIFY2(f.claimsLost >= 1 && f.redeliveries >= 1, "no claim was lost and delivered again");
        for (int delivered : result.perConsumer)
            QVERIFY2(delivered >= 10, "a consumer did too little work");
    }

    void selfCheckCatchesAConsumerAckingWhatItNoLongerHolds()
    {
        CheckerRun checker(20);
        RunResult result;
        run("/checker/workqueue-sabotaged", checker, true, &result);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(result.figures.claimsLost >= 1, "no claim was lost: the saboteur was never tested");
        QVERIFY2(!result.verdict.isEmpty(), "the checker did not catch consumers acknowledging lost claims");
        qInfo("caught: %s", qPrintable(result.verdict));
        QVERIFY2(result.verdict.contains(QLatin1String("acknowledged")), qPrintable(result.verdict));
    }
};

QTEST_GUILESS_MAIN(tst_WorkQueueChecker)
#include "tst_workqueuechecker.moc"
