// SPDX-License-Identifier: Apache-2.0
// DistributedQueue and DistributedPriorityQueue with their takers cut off at random. A producer
// on a direct connection enqueues numbered items while two takers, each behind its own
// FaultProxy, take them in a loop, working 30 ms on each; until the queue is empty a seeded
// driver blackholes one taker at a time for 0.5–3 s (their calls give up after 1 s, unrepeated), its held
// traffic delivered when the partition ends. Pass: no item is taken twice; each taker gets the
// items in the queue's order; every item is taken, except at most one per take that failed in
// a partition (the queue is at most once: an item whose claim's answer was lost left etcd with
// that take); nothing is left in the queue.

#include "../common/awaitfuture.h"
#include "checkerrun.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedpriorityqueue.h>
#include <QEtcd/distributedqueue.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtCore/QMutex>
#include <QtCore/QRandomGenerator>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
constexpr int itemCount = 300;
constexpr int priorities = 3;

template <class Queue>
struct Taker
{
    FaultProxy proxy;
    std::unique_ptr<Client> client;
    std::unique_ptr<Queue> queue;
    std::unique_ptr<QThread> thread;
    std::atomic<bool> stop{false};
    std::atomic<int> failedTakes{0};  // a take that ended in an error other than "nothing yet"
    QMutex mutex;
    QList<int> taken;  // in the order this taker got them
    bool faulted = false;  // the driver's

    Taker(quint16 etcdPort, const QByteArray &path) : proxy(QStringLiteral("127.0.0.1"), etcdPort)
    {
        if (!proxy.start())
            return;
        ClientOptions options = ClientOptions::fromEndpoints({proxy.url()});
        options.rpc = RpcResilience{RetryPolicy::never(), 1s};  // a partition fails the take it meets
        client = std::make_unique<Client>(options);
        queue = std::make_unique<Queue>(client.get(), path);
        thread.reset(QThread::create([this] {
            // The take's own timeout is longer than any partition, so a take that fails says
            // why itself (a timeout that lands while its claim is in flight would not).
            while (!stop) {
                const QueueItem item = queue->take(30s);
                if (item.status) {
                    QMutexLocker locker(&mutex);
                    taken.append(item.value.toInt());
                    locker.unlock();
                    QThread::msleep(30);  // the work: the queue stays full, so partitions meet takes
                } else if (item.status.code() != StatusCode::Cancelled) {
                    ++failedTakes;
                }
            }
        }));
        thread->start();
    }

    ~Taker()
    {
        stop = true;
        if (queue)
            queue->close();
        if (thread)
            thread->wait();
    }

    QList<int> items()
    {
        QMutexLocker locker(&mutex);
        return taken;
    }
};
} // namespace

class tst_QueuePartitions : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_producerClient;

    template <class Queue, class Enqueue>
    void takeUnderPartitions(const QByteArray &path, Enqueue enqueue, bool (*inOrder)(int, int))
    {
        const quint32 seed = checkerSeed();
        QRandomGenerator random(seed);

        Queue producer(m_producerClient.get(), path);
        std::array<std::unique_ptr<Taker<Queue>>, 2> takers;
        for (auto &taker : takers) {
            taker = std::make_unique<Taker<Queue>>(m_cluster.clientPort(0), path);
            QVERIFY(taker->thread);
        }

        QTimer driver;
        int partitions = 0;
        connect(&driver, &QTimer::timeout, this, [&] {
            Taker<Queue> &taker = *takers[random.bounded(int(takers.size()))];
            if (taker.faulted)
                return;
            taker.faulted = true;
            ++partitions;
            taker.proxy.setMode(FaultProxy::Mode::Blackhole);
            QTimer::singleShot(random.bounded(500, 3000), &taker.proxy, [&taker] {
                taker.proxy.setMode(FaultProxy::Mode::Pass);
                taker.faulted = false;
            });
        });
        driver.start(500);
        for (int i = 0; i < itemCount; ++i) {
            const auto enqueued = enqueue(producer, i);
            QVERIFY(awaitFuture(enqueued));
            QCOMPARE(enqueued.result(), Status());
        }
        const auto left = [&] {
            const auto size = producer.size();
            return awaitFuture(size) ? size.result() : qint64(-1);
        };
        // Partitions go on until the queue is empty.
        QTRY_COMPARE_WITH_TIMEOUT(left(), qint64(0), scaledMs(60000));
        driver.stop();
        for (auto &taker : takers)
            taker->proxy.setMode(FaultProxy::Mode::Pass);
        for (auto &taker : takers) {
            taker->stop = true;
            taker->queue->close();  // wakes its waiting take
            QVERIFY(taker->thread->wait(scaledMs(20000)));
        }

        QSet<int> all;
        int failedTakes = 0;
        for (auto &taker : takers) {
            const QList<int> items = taker->items();
            QVERIFY2(!items.isEmpty(), "a taker took nothing");
            for (qsizetype i = 0; i < items.size(); ++i) {
                QVERIFY2(!all.contains(items[i]), qPrintable(QStringLiteral("item %1 was taken twice").arg(items[i])));
                all.insert(items[i]);
                if (i > 0)
                    QVERIFY2(inOrder(items[i - 1], items[i]),
                             qPrintable(QStringLiteral("a taker got item %1 after item %2").arg(items[i]).arg(items[i - 1])));
            }
            failedTakes += taker->failedTakes;
        }
        const int lost = itemCount - int(all.size());
        qInfo("%d partitions, %lld items taken, %d takes failed in a partition, %d items left etcd with one of them",
              partitions, qint64(all.size()), failedTakes, lost);
        QVERIFY2(lost <= failedTakes, "an item vanished without a failed take to account for it");
        QVERIFY2(failedTakes >= 1, "no take ever met a partition");
        QVERIFY(partitions >= 5);
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<Status>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_producerClient = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void fifoQueueTakersUnderPartitions()
    {
        takeUnderPartitions<DistributedQueue>(
            "/partitions/fifo",
            [](DistributedQueue &queue, int i) { return queue.enqueue(QByteArray::number(i)); },
            [](int before, int after) { return before < after; });
    }

    void priorityQueueTakersUnderPartitions()
    {
        // Items of one priority leave in the order they came; across priorities a later,
        // more urgent item may overtake.
        takeUnderPartitions<DistributedPriorityQueue>(
            "/partitions/priority",
            [](DistributedPriorityQueue &queue, int i) { return queue.enqueue(QByteArray::number(i), i % priorities); },
            [](int before, int after) { return before % priorities != after % priorities || before < after; });
    }
};

QTEST_GUILESS_MAIN(tst_QueuePartitions)
#include "tst_queuepartitions.moc"
