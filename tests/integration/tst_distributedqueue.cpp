// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedpriorityqueue.h>
#include <QEtcd/distributedqueue.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include "testhooks_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QElapsedTimer>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

class tst_DistributedQueue : public QObject, protected RecipeFixture
{
    Q_OBJECT

private:
    QList<KeyValue> under(const QByteArray &prefix)
    {
        RangeOptions options;
        options.range = KeyRange::prefix();
        const auto future = m_client->get(prefix, options);
        return awaitFuture(future) ? future.result().kvs : QList<KeyValue>();
    }

    static QueueItem awaitItem(const QFuture<QueueItem> &future)
    {
        return awaitFuture(future) ? future.result()
                                   : QueueItem{Status(StatusCode::DeadlineExceeded, "test: not finished"), {}, {}};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    void queueDestroyedWhileTheTakesDeleteIsInFlight_data()
    {
        QTest::addColumn<bool>("priority");
        QTest::newRow("fifo") << false;
        QTest::newRow("priority") << true;
    }

    // The queue is destroyed while a take's delete is on its way: the take still ends, with
    // the item, since the delete took it out of etcd. It used to end without an answer (its
    // promise dropped with the continuation), the item gone.
    void queueDestroyedWhileTheTakesDeleteIsInFlight()
    {
        QFETCH(bool, priority);
        const QByteArray path = priority ? "/q/gone-p" : "/q/gone";
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        Client client(ClientOptions::fromEndpoints({proxy.url()}));
        std::unique_ptr<DistributedQueue> fifo;
        std::unique_ptr<DistributedPriorityQueue> byPriority;
        Status enqueued;
        if (priority) {
            byPriority = std::make_unique<DistributedPriorityQueue>(&client, path);
            QETCD_AWAIT(byPriority->enqueue("job", 1), enqueued);
        } else {
            fifo = std::make_unique<DistributedQueue>(&client, path);
            QETCD_AWAIT(fifo->enqueue("job"), enqueued);
        }
        QCOMPARE(enqueued, Status());
        // The take's delete (a txn comparing the head's key) and its answer each take a second.
        std::atomic<bool> deleting{false};
        const QString deleteOfTheHead = QStringLiteral("txn comparing \"%1/").arg(QString::fromUtf8(path));
        Internal::setBeforeSend(&client, [&](const QString &what) {
            if (what.startsWith(deleteOfTheHead) && !deleting.exchange(true)) {
                proxy.setDelay(1s);
                proxy.setMode(FaultProxy::Mode::Delay);
            }
            return Internal::SendFault::None;
        });
        const QFuture<QueueItem> taking = priority ? byPriority->takeAsync() : fifo->takeAsync();
        QTRY_VERIFY_WITH_TIMEOUT(deleting, scaledMs(5000));
        fifo.reset();
        byPriority.reset();
        QVERIFY2(awaitFuture(taking, 10s), "the take never ended");
        // Its promise dropped unanswered, the future would end cancelled, without a result.
        QVERIFY2(!taking.isCanceled() && taking.resultCount() == 1, "the take ended without an answer");
        const QueueItem item = taking.result();
        QCOMPARE(item.status, Status());
        QCOMPARE(item.value, QByteArray("job"));
        QVERIFY(under(path + '/').isEmpty());
        Internal::setBeforeSend(&client, {});
    }

    void fifoKeysValuesAndOrder()
    {
        DistributedQueue queue(m_client.get(), "/q/layout");
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        Status status;
        QETCD_AWAIT(queue.enqueue("first"), status);
        QCOMPARE(status, Status());
        QETCD_AWAIT(queue.enqueue("second"), status);
        QCOMPARE(status, Status());
        QETCD_AWAIT(queue.enqueueAll({"a", "b", "c"}), status);
        QCOMPARE(status, Status());
        const qint64 after = QDateTime::currentMSecsSinceEpoch();

        const QList<KeyValue> keys = under("/q/layout/");
        QCOMPARE(keys.size(), 5);
        const QRegularExpression single("^/q/layout/(\\d{19})-[0-9A-Za-z]{3}$");
        const QRegularExpression batch("^/q/layout/(\\d{19})-(\\d{5})-[0-9A-Za-z]{3}$");
        QMap<QByteArray, QByteArray> byValue;
        for (const KeyValue &kv : keys)
            byValue.insert(kv.value, kv.key);
        QCOMPARE(byValue.keys(), (QList<QByteArray>{"a", "b", "c", "first", "second"}));
        for (const char *value : {"first", "second"}) {
            const auto match = single.match(QString::fromUtf8(byValue[value]));
            QVERIFY2(match.hasMatch(), byValue[value].constData());
            QVERIFY(match.captured(1).toLongLong() >= before && match.captured(1).toLongLong() <= after);
            QCOMPARE(byValue[value].size(), qsizetype(QByteArray("/q/layout/").size() + 19 + 1 + 3));
        }
        int index = 0;
        for (const char *value : {"a", "b", "c"}) {
            const auto match = batch.match(QString::fromUtf8(byValue[value]));
            QVERIFY2(match.hasMatch(), byValue[value].constData());
            QCOMPARE(match.captured(2), QString::number(index++).rightJustified(5, '0'));
        }
        qint64 size = 0;
        QETCD_AWAIT(queue.size(), size);
        QCOMPARE(size, 5);

        QList<QByteArray> taken;
        for (int i = 0; i < 5; ++i) {
            const QueueItem item = queue.take(milliseconds(scaledMs(5000)));
            QCOMPARE(item.status, Status());
            QCOMPARE(item.key, byValue[item.value]);
            taken.append(item.value);
        }
        QCOMPARE(taken, (QList<QByteArray>{"first", "second", "a", "b", "c"}));
        QCOMPARE(awaitItem(queue.tryTake()).status.code(), StatusCode::NotFound);
        QVERIFY(under("/q/layout/").isEmpty());
    }

    // A batch commits in one revision, and etcd promises no order among equal revisions when
    // it has real sorting to do (here: producers whose clocks ran ahead wrote first, so key
    // order is far from commit order): takes still follow the batch's own order.
    void aBatchIsTakenInItsOwnOrder()
    {
        DistributedQueue queue(m_client.get(), "/q/batch");
        QList<QByteArray> ahead;
        for (int i = 0; i < 200; ++i) {
            ahead.append("ahead" + QByteArray::number(i));
            const QByteArray key = "/q/batch/9999999999999" + QByteArray::number(i).rightJustified(6, '0') + "-fut";
            Status put;
            QETCD_AWAIT(mapped(m_client->put(key, ahead.last()), [](const PutResult &r) { return r.status; }), put);
            QCOMPARE(put, Status());
        }
        QList<QByteArray> values;
        for (int i = 0; i < 60; ++i)
            values.append(QByteArray::number(i));
        Status status;
        QETCD_AWAIT(queue.enqueueAll(values), status);
        QCOMPARE(status, Status());
        QList<QByteArray> taken;
        for (int i = 0; i < ahead.size() + values.size(); ++i) {
            const QueueItem item = queue.take(milliseconds(scaledMs(5000)));
            QCOMPARE(item.status, Status());
            taken.append(item.value);
        }
        QCOMPARE(taken, ahead + values);
    }

    void prefixIsTerminated()
    {
        Status status;
        QETCD_AWAIT(mapped(m_client->put("/q/iso2/x", "not ours"), [](const PutResult &r) { return r.status; }), status);
        QCOMPARE(status, Status());
        DistributedQueue queue(m_client.get(), "/q/iso");
        QCOMPARE(awaitItem(queue.tryTake()).status.code(), StatusCode::NotFound);
        QCOMPARE(queue.take(0ms).status.code(), StatusCode::NotFound);
        QCOMPARE(under("/q/iso2/").size(), 1);
    }

    void parkedTakeWakesOnEnqueueFromAnotherClient()
    {
        DistributedQueue consumer(m_client.get(), "/q/wake");
        DistributedQueue producer(m_other.get(), "/q/wake");
        const QFuture<QueueItem> parked = consumer.takeAsync();
        QVERIFY(!awaitFuture(parked, 300ms));
        Status status;
        QETCD_AWAIT(producer.enqueue("hello"), status);
        QCOMPARE(status, Status());
        const QueueItem item = awaitItem(parked);
        QCOMPARE(item.status, Status());
        QCOMPARE(item.value, QByteArray("hello"));
        QVERIFY(under("/q/wake/").isEmpty());
    }

    void takeTimesOut()
    {
        DistributedQueue queue(m_client.get(), "/q/timeout");
        QElapsedTimer clock;
        clock.start();
        const QueueItem item = queue.take(300ms);
        QCOMPARE(item.status.code(), StatusCode::DeadlineExceeded);
        QVERIFY2(clock.elapsed() >= 290, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(clock.elapsed() < scaledMs(3000), qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(awaitItem(queue.takeAsync(200ms)).status.code(), StatusCode::DeadlineExceeded);
    }

    void closeWakesEveryParkedTake()
    {
        DistributedQueue queue(m_client.get(), "/q/close");
        const QFuture<QueueItem> parked = queue.takeAsync();
        QueueItem blocked;
        std::atomic<bool> entered{false};
        QThread *worker = QThread::create([&] {
            entered = true;
            blocked = queue.take();
        });
        worker->start();
        QTRY_VERIFY_WITH_TIMEOUT(entered, scaledMs(5000));
        QVERIFY(!awaitFuture(parked, 300ms));
        queue.close();
        QCOMPARE(awaitItem(parked).status.code(), StatusCode::Cancelled);
        QVERIFY(worker->wait(scaledMs(5000)));
        delete worker;
        QCOMPARE(blocked.status.code(), StatusCode::Cancelled);
        QCOMPARE(awaitItem(queue.takeAsync()).status.code(), StatusCode::Closed);
        Status status;
        QETCD_AWAIT(queue.enqueue("late"), status);
        QCOMPARE(status.code(), StatusCode::Closed);
    }

    void fiveConsumersTwoHundredItemsEach()
    {
        constexpr int Producers = 5;
        constexpr int Consumers = 5;
        constexpr int PerProducer = 200;
        constexpr int Total = Producers * PerProducer;
        const QByteArray path = "/q/load";

        std::vector<std::unique_ptr<Client>> clients;
        std::vector<std::unique_ptr<DistributedQueue>> consumers;
        for (int i = 0; i < Consumers; ++i) {
            clients.push_back(std::make_unique<Client>(direct()));
            consumers.push_back(std::make_unique<DistributedQueue>(clients.back().get(), path));
        }
        std::atomic<int> takenTotal{0};
        std::vector<QList<QByteArray>> taken(Consumers);
        std::vector<Status> failures(Consumers);
        QList<QThread *> threads;
        for (int c = 0; c < Consumers; ++c) {
            threads.append(QThread::create([&, c] {
                QElapsedTimer clock;
                clock.start();
                while (takenTotal < Total && clock.elapsed() < scaledMs(60000)) {
                    const QueueItem item = consumers[c]->take(milliseconds(scaledMs(200)));
                    if (item.status) {
                        taken[c].append(item.value);
                        ++takenTotal;
                    } else if (item.status.code() != StatusCode::DeadlineExceeded) {
                        failures[c] = item.status;
                        return;
                    }
                }
            }));
        }
        std::vector<Status> produceFailures(Producers);
        for (int p = 0; p < Producers; ++p) {
            threads.append(QThread::create([&, p] {
                DistributedQueue producer(m_other.get(), path);
                for (int n = 0; n < PerProducer; ++n) {
                    const Status status = producer.enqueue(QByteArray::number(p) + ':' + QByteArray::number(n)).result();
                    if (!status) {
                        produceFailures[p] = status;
                        return;
                    }
                }
            }));
        }
        QElapsedTimer clock;
        clock.start();
        for (QThread *thread : threads)
            thread->start();
        for (QThread *thread : threads) {
            QVERIFY(thread->wait(scaledMs(90000)));
            delete thread;
        }
        qInfo() << "1000 items through 5 consumers in" << clock.elapsed() << "ms";
        for (const Status &status : produceFailures)
            QCOMPARE(status, Status());
        for (const Status &status : failures)
            QCOMPARE(status, Status());

        QSet<QByteArray> all;
        int count = 0;
        for (int c = 0; c < Consumers; ++c) {
            QVERIFY2(!taken[c].isEmpty(), qPrintable(QStringLiteral("consumer %1 took nothing").arg(c)));
            // Each consumer sees every producer's items in the order they were produced.
            QList<int> lastOf(Producers, -1);
            for (const QByteArray &value : taken[c]) {
                const QList<QByteArray> parts = value.split(':');
                const int producer = parts[0].toInt();
                const int n = parts[1].toInt();
                QVERIFY2(n > lastOf[producer], value.constData());
                lastOf[producer] = n;
                all.insert(value);
                ++count;
            }
        }
        QCOMPARE(count, Total);
        QCOMPARE(all.size(), Total);  // no item delivered twice
        QVERIFY(under(path + '/').isEmpty());
    }

    void priorityKeysSentinelAndOrder()
    {
        DistributedPriorityQueue queue(m_client.get(), "/pq/basic");
        Status status;
        for (const auto &[value, priority] : QList<QPair<QByteArray, int>>{{"c", 5}, {"a", 1}, {"b", 3}, {"a2", 1}, {"z", 0}}) {
            QETCD_AWAIT(queue.enqueue(value, priority), status);
            QCOMPARE(status, Status());
        }
        QETCD_AWAIT(queue.enqueue("bad", -1), status);
        QCOMPARE(status.code(), StatusCode::InvalidArgument);
        QETCD_AWAIT(queue.enqueue("bad", 65536), status);
        QCOMPARE(status.code(), StatusCode::InvalidArgument);

        QMap<QByteArray, QByteArray> stored;
        for (const KeyValue &kv : under("/pq/basic/"))
            stored.insert(kv.key, kv.value);
        const QMap<QByteArray, QByteArray> expected{
            {"/pq/basic/00000/0000000000000000", "z"},  {"/pq/basic/00001/0000000000000000", "a"},
            {"/pq/basic/00001/0000000000000001", "a2"}, {"/pq/basic/00003/0000000000000000", "b"},
            {"/pq/basic/00005/0000000000000000", "c"},
        };
        QCOMPARE(stored, expected);
        QMap<QByteArray, QByteArray> sentinels;
        for (const KeyValue &kv : under("__/pq/basic/"))
            sentinels.insert(kv.key, kv.value);
        QCOMPARE(sentinels.keys(), (QList<QByteArray>{"__/pq/basic/00000", "__/pq/basic/00001", "__/pq/basic/00003",
                                                      "__/pq/basic/00005"}));
        for (const QByteArray &value : sentinels)
            QCOMPARE(value, QByteArray());

        QList<QByteArray> order;
        for (int i = 0; i < 5; ++i) {
            const QueueItem item = queue.take(milliseconds(scaledMs(5000)));
            QCOMPARE(item.status, Status());
            order.append(item.value);
        }
        QCOMPARE(order, (QList<QByteArray>{"z", "a", "a2", "b", "c"}));
        QCOMPARE(awaitItem(queue.tryTake()).status.code(), StatusCode::NotFound);
    }

    void priorityProducersRaceForSequences()
    {
        DistributedPriorityQueue one(m_client.get(), "/pq/race");
        DistributedPriorityQueue two(m_other.get(), "/pq/race");
        QList<QFuture<Status>> writes;
        for (int i = 0; i < 20; ++i) {
            writes.append(one.enqueue("one:" + QByteArray::number(i), 7));
            writes.append(two.enqueue("two:" + QByteArray::number(i), 7));
        }
        for (const auto &write : writes) {
            Status status;
            QETCD_AWAIT(write, status);
            QCOMPARE(status, Status());
        }
        QList<QByteArray> keys;
        for (const KeyValue &kv : under("/pq/race/"))
            keys.append(kv.key);
        QCOMPARE(keys.size(), 40);
        for (int i = 0; i < 40; ++i)
            QCOMPARE(keys[i], "/pq/race/00007/" + QByteArray::number(i).rightJustified(16, '0'));
    }

    void priorityTakeWaitsForAHigherPriorityArrival()
    {
        DistributedPriorityQueue consumer(m_client.get(), "/pq/wake");
        DistributedPriorityQueue producer(m_other.get(), "/pq/wake");
        const QFuture<QueueItem> parked = consumer.takeAsync(milliseconds(scaledMs(10000)));
        QVERIFY(!awaitFuture(parked, 300ms));
        Status status;
        QETCD_AWAIT(producer.enqueue("urgent", 2), status);
        const QueueItem item = awaitItem(parked);
        QCOMPARE(item.status, Status());
        QCOMPARE(item.key, QByteArray("/pq/wake/00002/0000000000000000"));
        QCOMPARE(item.value, QByteArray("urgent"));
        consumer.close();
        QCOMPARE(awaitItem(consumer.takeAsync()).status.code(), StatusCode::Closed);
    }
};

QTEST_GUILESS_MAIN(tst_DistributedQueue)
#include "tst_distributedqueue.moc"
