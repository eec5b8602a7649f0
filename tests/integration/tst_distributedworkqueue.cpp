// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedworkqueue.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include "queuekeys_p.h"
#include "testhooks_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QElapsedTimer>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>
#include <mutex>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

class tst_DistributedWorkQueue : public QObject, protected RecipeFixture
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

    std::optional<KeyValue> at(const QByteArray &key)
    {
        const auto future = m_client->get(key);
        if (!awaitFuture(future) || future.result().kvs.isEmpty())
            return std::nullopt;
        return future.result().kvs.first();
    }

    static WorkQueueOptions fast(int maxDeliveries = 5)
    {
        WorkQueueOptions options;
        options.visibilityTimeoutSeconds = 2;
        options.maxDeliveries = maxDeliveries;
        options.sweepInterval = 300ms;
        return options;
    }

    bool revoke(qint64 leaseId)
    {
        const auto future = m_other->leaseRevoke(leaseId);
        return awaitFuture(future) && future.result().status.isOk();
    }

    static WorkItem awaitItem(const QFuture<WorkItem> &future)
    {
        return awaitFuture(future) ? future.result()
                                   : WorkItem{Status(StatusCode::DeadlineExceeded, "test: not finished"), {}, {}, 0};
    }

    // From the first claim under path on, the proxy delays everything by oneWay each way.
    static void delayFromTheClaim(Client *client, FaultProxy *proxy, const QByteArray &path,
                                  milliseconds oneWay, std::atomic<bool> *claimed)
    {
        const QString claim = QStringLiteral("txn comparing \"%1/items/").arg(QString::fromUtf8(path));
        Internal::setBeforeSend(client, [=](const QString &what) {
            if (what.startsWith(claim) && !claimed->exchange(true)) {
                proxy->setDelay(oneWay);
                proxy->setMode(FaultProxy::Mode::Delay);
            }
            return Internal::SendFault::None;
        });
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    void claimLayoutAndAck()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/layout", fast());
        Status status;
        QETCD_AWAIT(queue.enqueue("payload"), status);
        QCOMPARE(status, Status());
        const QList<KeyValue> queued = under("/wq/layout/items/");
        QCOMPARE(queued.size(), 1);
        QVERIFY2(QRegularExpression("^/wq/layout/items/\\d{19}-[0-9A-Za-z]{3}$").match(QString::fromUtf8(queued[0].key)).hasMatch(),
                 queued[0].key.constData());
        QCOMPARE(queue.consumerLeaseId(), -1);  // producers own no lease

        const WorkItem item = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(item.status, Status());
        QCOMPARE(item.id, queued[0].key.mid(QByteArray("/wq/layout/items/").size()));
        QCOMPARE(item.value, QByteArray("payload"));
        QCOMPARE(item.attempt, 1);
        QVERIFY(under("/wq/layout/items/").isEmpty());
        QCOMPARE(at("/wq/layout/claimed/" + item.id)->value, QByteArray("payload"));
        QCOMPARE(at("/wq/layout/claimed/" + item.id)->lease, 0);
        const auto claim = at("/wq/layout/claims/" + item.id);
        QVERIFY(claim);
        QCOMPARE(claim->value, queue.clientId().toUtf8());
        QVERIFY(queue.consumerLeaseId() > 0);
        QCOMPARE(claim->lease, queue.consumerLeaseId());
        QCOMPARE(at("/wq/layout/attempts/" + item.id)->value, QByteArray("\x00\x00\x00\x01", 4));

        QETCD_AWAIT(queue.ack(item), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/layout/").isEmpty());
        QETCD_AWAIT(queue.ack(item), status);
        QCOMPARE(status.code(), StatusCode::OwnershipLost);
        QCOMPARE(awaitItem(queue.tryReceive()).status.code(), StatusCode::NotFound);
    }

    void requeueKeepsPlaceAndCount()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/requeue", fast());
        Status status;
        QETCD_AWAIT(queue.enqueueAll({"one", "two"}), status);
        QCOMPARE(status, Status());
        const QList<KeyValue> queued = under("/wq/requeue/items/");
        QCOMPARE(queued.size(), 2);
        QVERIFY(QRegularExpression("^/wq/requeue/items/\\d{19}-00000-[0-9A-Za-z]{3}$").match(QString::fromUtf8(queued[0].key)).hasMatch());
        QCOMPARE(queued[0].value, QByteArray("one"));

        WorkItem first = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(first.value, QByteArray("one"));
        QETCD_AWAIT(queue.requeue(first), status);
        QCOMPARE(status, Status());
        QCOMPARE(at(queued[0].key)->value, QByteArray("one"));  // same key: back at the head
        const WorkItem again = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(again.id, first.id);
        QCOMPARE(again.attempt, 2);
        QCOMPARE(at("/wq/requeue/attempts/" + again.id)->value, QByteArray("\x00\x00\x00\x02", 4));
        QETCD_AWAIT(queue.ack(again), status);
        QCOMPARE(status, Status());
        const WorkItem second = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(second.value, QByteArray("two"));
        QCOMPARE(second.attempt, 1);
        QETCD_AWAIT(queue.ack(second), status);
        QCOMPARE(status, Status());
    }

    void delayedItemMatures()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/delayed", fast());
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        Status status;
        QETCD_AWAIT(queue.enqueue("later", 800ms), status);
        QCOMPARE(status, Status());
        const QList<KeyValue> parked = under("/wq/delayed/delayed/");
        QCOMPARE(parked.size(), 1);
        const qint64 readyAt = parked[0].key.mid(QByteArray("/wq/delayed/delayed/").size(), 19).toLongLong();
        QVERIFY(readyAt >= now + 800 && readyAt < now + 800 + scaledMs(2000));
        QCOMPARE(awaitItem(queue.tryReceive()).status.code(), StatusCode::NotFound);
        const WorkItem item = queue.receive(milliseconds(scaledMs(10000)));
        QCOMPARE(item.status, Status());
        QCOMPARE(item.value, QByteArray("later"));
        QVERIFY(QDateTime::currentMSecsSinceEpoch() >= readyAt);
        QCOMPARE(item.id, parked[0].key.mid(QByteArray("/wq/delayed/delayed/").size()));
        QETCD_AWAIT(queue.ack(item), status);
        QCOMPARE(status, Status());
    }

    void orphanedClaimIsRedelivered()
    {
        DistributedWorkQueue victim(m_client.get(), "/wq/orphan", fast());
        DistributedWorkQueue rescuer(m_other.get(), "/wq/orphan", fast());
        Status status;
        QETCD_AWAIT(victim.enqueue("job"), status);
        const WorkItem lost = victim.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(lost.status, Status());
        QCOMPARE(awaitItem(rescuer.tryReceive()).status.code(), StatusCode::NotFound);
        // The victim "dies": its consumer lease goes, out of band.
        QVERIFY(revoke(victim.consumerLeaseId()));
        const WorkItem found = rescuer.receive(milliseconds(scaledMs(10000)));
        QCOMPARE(found.status, Status());
        QCOMPARE(found.id, lost.id);
        QCOMPARE(found.attempt, 2);
        QETCD_AWAIT(victim.ack(lost), status);
        QCOMPARE(status.code(), StatusCode::OwnershipLost);
        QETCD_AWAIT(rescuer.ack(found), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/orphan/").isEmpty());
    }

    // Without any receive pending, a consumer's own timer sweeps: an orphaned claim goes back
    // to the items. (The sweeper timer once stayed on the creating thread and never fired.)
    void idleConsumerSweepsOrphansOnItsTimer()
    {
        QTest::failOnWarning(QRegularExpression(QStringLiteral("Timers cannot be")));
        DistributedWorkQueue victim(m_client.get(), "/wq/idle", fast());
        DistributedWorkQueue sweeper(m_other.get(), "/wq/idle", fast());
        Status status;
        QETCD_AWAIT(sweeper.enqueue("warm-up"), status);
        const WorkItem warmUp = sweeper.receive(milliseconds(scaledMs(5000)));  // starts its lease and timer
        QCOMPARE(warmUp.status, Status());
        QETCD_AWAIT(sweeper.ack(warmUp), status);
        QCOMPARE(status, Status());

        QETCD_AWAIT(victim.enqueue("job"), status);
        const WorkItem lost = victim.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(lost.status, Status());
        QVERIFY(under("/wq/idle/items/").isEmpty());
        QVERIFY(revoke(victim.consumerLeaseId()));
        QTRY_COMPARE_WITH_TIMEOUT(under("/wq/idle/items/").size(), 1, scaledMs(10000));
        QCOMPARE(under("/wq/idle/items/").first().key, "/wq/idle/items/" + lost.id);
    }

    void maxDeliveriesDeadLetters()
    {
        DistributedWorkQueue victim(m_client.get(), "/wq/dlq", fast(1));
        DistributedWorkQueue sweeper(m_other.get(), "/wq/dlq", fast(1));
        Status status;
        QETCD_AWAIT(victim.enqueue("poison"), status);
        const WorkItem item = victim.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(item.attempt, 1);
        QVERIFY(revoke(victim.consumerLeaseId()));
        QETCD_AWAIT(sweeper.sweep(), status);
        QCOMPARE(status, Status());
        QCOMPARE(at("/wq/dlq/dlq/" + item.id)->value, QByteArray("poison"));
        QVERIFY(under("/wq/dlq/items/").isEmpty());
        QVERIFY(under("/wq/dlq/claimed/").isEmpty());
        DeadLetters dead;
        QETCD_AWAIT(sweeper.deadLetters(), dead);
        QCOMPARE(dead.status, Status());
        QCOMPARE(dead.letters.size(), 1);
        QCOMPARE(dead.letters[0].id, item.id);
        QCOMPARE(dead.letters[0].value, QByteArray("poison"));
        QCOMPARE(dead.letters[0].attempts, 1);

        QETCD_AWAIT(sweeper.requeueDeadLetter(item.id), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/dlq/dlq/").isEmpty());
        QCOMPARE(at("/wq/dlq/items/" + item.id)->value, QByteArray("poison"));
        const WorkItem fresh = sweeper.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(fresh.id, item.id);
        QCOMPARE(fresh.attempt, 1);  // a fresh count

        QVERIFY(revoke(sweeper.consumerLeaseId()));
        QETCD_AWAIT(victim.sweep(), status);
        QCOMPARE(status, Status());
        QVERIFY(at("/wq/dlq/dlq/" + item.id));
        QETCD_AWAIT(victim.purgeDeadLetter(item.id), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/dlq/").isEmpty());
        QETCD_AWAIT(victim.requeueDeadLetter(item.id), status);
        QCOMPARE(status.code(), StatusCode::NotFound);
    }

    // A look at the first few dead letters (what the console's card shows) reads just those,
    // each with its own delivery count, in id order.
    void firstDeadLettersComeWithTheirCounts()
    {
        const QByteArray ids[] = {"a1", "b2", "c3"};
        for (int i = 0; i < 3; ++i) {
            QByteArray count(4, '\0');
            count[3] = char(5 + i);
            QVERIFY(awaitFuture(m_client->put("/wq/first/dlq/" + ids[i], "letter " + ids[i])));
            QVERIFY(awaitFuture(m_client->put("/wq/first/attempts/" + ids[i], count)));
        }
        QVERIFY(awaitFuture(m_client->put("/wq/first/attempts/zz-in-flight", QByteArray("\0\0\0\2", 4))));
        DistributedWorkQueue queue(m_client.get(), "/wq/first");
        DeadLetters first;
        QETCD_AWAIT(queue.deadLetters(2), first);
        QCOMPARE(first.status, Status());
        QCOMPARE(first.letters.size(), 2);
        QCOMPARE(first.letters[0].id, QByteArray("a1"));
        QCOMPARE(first.letters[0].attempts, 5);
        QCOMPARE(first.letters[1].id, QByteArray("b2"));
        QCOMPARE(first.letters[1].value, QByteArray("letter b2"));
        QCOMPARE(first.letters[1].attempts, 6);
        DeadLetters every;
        QETCD_AWAIT(queue.deadLetters(), every);
        QCOMPARE(every.letters.size(), 3);
        QCOMPARE(every.letters[2].attempts, 7);
        DeadLetters none;
        DistributedWorkQueue empty(m_client.get(), "/wq/none");
        QETCD_AWAIT(empty.deadLetters(2), none);
        QCOMPARE(none.status, Status());
        QVERIFY(none.letters.isEmpty());
    }

    // Two producers may draw the same millisecond and three characters: the second must not
    // overwrite the first and still report Ok.
    void collidingItemNamesKeepBothItems()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/collide", fast());
        auto draws = std::make_shared<std::atomic<int>>(0);
        // The first four names drawn are one and the same; every later one is fresh.
        Internal::setItemNameSource([draws](qint64 millis, int index) {
            if (++*draws <= 4)
                return QByteArray("0000000000000000001-dup");
            return QByteArray::number(millis).rightJustified(19, '0') + '-'
                + (index >= 0 ? QByteArray::number(index).rightJustified(5, '0') + '-' : QByteArray())
                + QByteArray::number(*draws);
        });
        Status status;
        QETCD_AWAIT(queue.enqueue("first"), status);
        QCOMPARE(status, Status());
        QETCD_AWAIT(queue.enqueue("second"), status);
        QCOMPARE(status, Status());
        QETCD_AWAIT(queue.enqueue("third", 1ms), status);
        QCOMPARE(status, Status());
        QETCD_AWAIT(queue.enqueueAll({"fourth", "fifth"}), status);
        QCOMPARE(status, Status());
        Internal::setItemNameSource({});
        QVERIFY(*draws > 5);

        QSet<QByteArray> values;
        for (const KeyValue &kv : under("/wq/collide/items/") + under("/wq/collide/delayed/"))
            values.insert(kv.value);
        QCOMPARE(values, (QSet<QByteArray>{"first", "second", "third", "fourth", "fifth"}));
    }

    // An id still in use under claimed/ (or dlq/) is not free: an item enqueued under it would
    // overwrite the payload being worked on and inherit its delivery count.
    void idInFlightIsNotReused()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/reuse", fast());
        const QByteArray id("0000000000000000001-use");
        auto draws = std::make_shared<std::atomic<int>>(0);
        // The first enqueue's name and the second's first draw are one and the same.
        Internal::setItemNameSource([draws, id](qint64 millis, int) {
            if (++*draws <= 2)
                return id;
            return QByteArray::number(millis).rightJustified(19, '0') + '-' + QByteArray::number(*draws);
        });
        Status status;
        QETCD_AWAIT(queue.enqueue("first"), status);
        QCOMPARE(status, Status());
        const WorkItem first = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(first.status, Status());
        QCOMPARE(first.id, id);
        QETCD_AWAIT(queue.enqueue("second"), status);
        Internal::setItemNameSource({});
        QCOMPARE(status, Status());
        QVERIFY(*draws > 2);
        QCOMPARE(at("/wq/reuse/claimed/" + id)->value, QByteArray("first"));
        const QList<KeyValue> waiting = under("/wq/reuse/items/");
        QCOMPARE(waiting.size(), 1);
        QVERIFY2(waiting.first().key != "/wq/reuse/items/" + id, waiting.first().key.constData());

        const WorkItem second = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(second.status, Status());
        QCOMPARE(second.value, QByteArray("second"));
        QCOMPARE(second.attempt, 1);
        QETCD_AWAIT(queue.ack(first), status);
        QCOMPARE(status, Status());
        QETCD_AWAIT(queue.ack(second), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/reuse/").isEmpty());
    }

    // A delayed item matures where someone who did not check wrote its id meanwhile: it moves
    // under a fresh name, at the same place, instead of overwriting what is there.
    void maturingItemDoesNotOverwriteTheItemsKey()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/mature", fast());
        const QByteArray id("0000000000000000001-dly");
        Internal::setItemNameSource([id](qint64, int) { return id; });
        Status status;
        QETCD_AWAIT(queue.enqueue("late", 1ms), status);
        Internal::setItemNameSource({});
        QCOMPARE(status, Status());
        PutResult put;
        QETCD_AWAIT(m_client->put("/wq/mature/items/" + id, "there"), put);
        QVERIFY(put.status);
        QSet<QByteArray> received;
        for (int i = 0; i < 2; ++i) {
            const WorkItem item = queue.receive(milliseconds(scaledMs(5000)));
            QCOMPARE(item.status, Status());
            received.insert(item.value);
            QETCD_AWAIT(queue.ack(item), status);
            QCOMPARE(status, Status());
        }
        QCOMPARE(received, (QSet<QByteArray>{"late", "there"}));
        QVERIFY(under("/wq/mature/").isEmpty());
    }

    // A claim whose answer was lost, on a receive that gave up before it could find out: the
    // item goes back, and so does its delivery count, since nobody received it. The count used
    // to stay raised, bringing the item nearer the dead letters for nothing.
    void itemGivenBackKeepsItsDeliveryCount()
    {
        Client client(direct());
        DistributedWorkQueue queue(&client, "/wq/giveback", fast());
        Status status;
        QETCD_AWAIT(queue.enqueue("job"), status);
        QCOMPARE(under("/wq/giveback/items/").size(), 1);
        const QByteArray id = under("/wq/giveback/items/").first().key.mid(QByteArray("/wq/giveback/items/").size());
        std::atomic<bool> claimAnswerLost{false};
        std::atomic<bool> receiveOver{false};
        Internal::setBeforeSend(&client, [&](const QString &what) {
            if (what.startsWith("txn comparing \"/wq/giveback/items/") && !claimAnswerLost.exchange(true))
                return Internal::SendFault::LoseAnswer;
            // Nothing about the claim can be learnt (nor undone) until the receive is over.
            if (claimAnswerLost && !receiveOver && what.contains("/wq/giveback/claims/"))
                return Internal::SendFault::Refuse;
            return Internal::SendFault::None;
        });
        const WorkItem gaveUp = queue.receive(500ms);
        receiveOver = true;
        QCOMPARE(gaveUp.status.code(), StatusCode::DeadlineExceeded);
        QVERIFY(claimAnswerLost);
        QTRY_VERIFY_WITH_TIMEOUT(at("/wq/giveback/items/" + id).has_value(), scaledMs(5000));
        QTRY_VERIFY_WITH_TIMEOUT(under("/wq/giveback/claims/").isEmpty(), scaledMs(5000));
        QVERIFY(!at("/wq/giveback/attempts/" + id).has_value());
        Internal::setBeforeSend(&client, {});

        const WorkItem item = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(item.status, Status());
        QCOMPARE(item.attempt, 1);
        QETCD_AWAIT(queue.ack(item), status);
        QCOMPARE(status, Status());
    }

    // Healing the consumer lease gave up (a policy that never retries): the next claim cannot
    // be made on that lease ever again, and a receive that waits must still get the item, on a
    // fresh lease. It used to retry the claim every 250 ms for as long as it waited.
    void receiveAfterTheConsumerLeaseFailedTakesAFreshLease()
    {
        WorkQueueOptions options = fast();
        options.resilience.lease = LeaseResilience{RetryPolicy::never(), 1s};
        DistributedWorkQueue queue(m_client.get(), "/wq/failedlease", options);
        QSignalSpy leaseEvents(&queue, &Recipe::leaseEventOccurred);
        const WorkItem nothing = awaitItem(queue.tryReceive());  // makes the consumer lease
        QCOMPARE(nothing.status.code(), StatusCode::NotFound);
        const qint64 first = queue.consumerLeaseId();
        QVERIFY(first > 0);
        QVERIFY(revoke(first));
        QTRY_VERIFY_WITH_TIMEOUT(!leaseEvents.isEmpty()
                                     && leaseEvents.last().at(1).value<LeaseEvent>().kind == LeaseEventKind::Failed,
                                 scaledMs(10000));
        Status status;
        QETCD_AWAIT(queue.enqueue("job"), status);
        QCOMPARE(status, Status());
        const WorkItem item = awaitItem(queue.receiveAsync());
        QCOMPARE(item.status, Status());
        QCOMPARE(item.value, QByteArray("job"));
        QVERIFY(queue.consumerLeaseId() != first);
        QCOMPARE(at("/wq/failedlease/claims/" + item.id)->lease, queue.consumerLeaseId());
        QETCD_AWAIT(queue.ack(item), status);
        QCOMPARE(status, Status());
    }

    // The same consumer can hold a stale delivery and a redelivery of one item: acknowledging
    // the stale one must not settle the claim it no longer owns.
    void staleDeliveryCannotAckTheRedelivery()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/stale", fast());
        Status status;
        QETCD_AWAIT(queue.enqueue("job"), status);
        const WorkItem first = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(first.status, Status());
        const qint64 lease = queue.consumerLeaseId();
        QVERIFY(revoke(lease));  // the claim is orphaned; the consumer heals forward
        QTRY_VERIFY_WITH_TIMEOUT(queue.consumerLeaseId() > 0 && queue.consumerLeaseId() != lease, scaledMs(10000));
        const WorkItem again = queue.receive(milliseconds(scaledMs(10000)));
        QCOMPARE(again.status, Status());
        QCOMPARE(again.id, first.id);
        QCOMPARE(again.attempt, 2);

        QETCD_AWAIT(queue.ack(first), status);
        QCOMPARE(status.code(), StatusCode::OwnershipLost);
        QETCD_AWAIT(queue.requeue(first), status);
        QCOMPARE(status.code(), StatusCode::OwnershipLost);
        QVERIFY(at("/wq/stale/claims/" + again.id));
        QETCD_AWAIT(queue.ack(again), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/stale/").isEmpty());
    }

    // The claim commits but its answer never arrives in time: the item must still reach a
    // consumer, not stay claimed on a healthy lease for ever.
    void claimWhoseAnswerWasLostIsNotStranded()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        ClientOptions options = ClientOptions::fromEndpoints({proxy.url()});
        options.rpc.operationTimeout = 1s;
        Client slow(options);
        WorkQueueOptions roomy = fast();
        roomy.visibilityTimeoutSeconds = 10;  // renewals answered 1.2 s late still keep the lease
        DistributedWorkQueue queue(&slow, "/wq/lostclaim", roomy);
        Status status;
        QETCD_AWAIT(queue.enqueue("job"), status);

        // From the claim on, requests reach etcd well within the timeout but every answer comes
        // back after it.
        std::atomic<bool> delayed{false};
        delayFromTheClaim(&slow, &proxy, "/wq/lostclaim", 600ms, &delayed);
        const QFuture<WorkItem> receiving = queue.receiveAsync(milliseconds(scaledMs(30000)));
        QTRY_VERIFY_WITH_TIMEOUT(!under("/wq/lostclaim/claims/").isEmpty(), scaledMs(5000));
        // Nothing can be answered meanwhile, so the receive must not have given up on the item.
        QVERIFY(!awaitFuture(receiving, 3000ms));
        proxy.setMode(FaultProxy::Mode::Pass);
        Internal::setBeforeSend(&slow, {});

        const WorkItem item = awaitItem(receiving);
        QCOMPARE(item.status, Status());
        QCOMPARE(item.value, QByteArray("job"));
        QCOMPARE(item.attempt, 1);
        QETCD_AWAIT(queue.ack(item), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/lostclaim/").isEmpty());
    }

    // An enqueue commits but its answer is lost. It used to report DeadlineExceeded, and the
    // producer's retry of a transient failure then put the item in twice; the enqueue now sends
    // its names again, finds its own item there, and reports Ok once.
    void enqueueWhoseAnswerWasLostLandsOnce_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<int>("form");  // 0: enqueue, 1: delayed, 2: enqueueAll
        QTest::newRow("enqueue") << QByteArray("/wq/lostenqueue") << 0;
        QTest::newRow("delayed") << QByteArray("/wq/lostdelayed") << 1;
        QTest::newRow("enqueueAll") << QByteArray("/wq/lostbatch") << 2;
    }

    void enqueueWhoseAnswerWasLostLandsOnce()
    {
        QFETCH(QByteArray, path);
        QFETCH(int, form);
        Client client(direct());
        DistributedWorkQueue queue(&client, path, fast());
        const QString put = QStringLiteral("txn comparing \"%1/").arg(QString::fromUtf8(path));
        std::atomic<int> lost{0};
        Internal::setBeforeSend(&client, [&](const QString &what) {
            return what.startsWith(put) && lost++ == 0 ? Internal::SendFault::LoseAnswer : Internal::SendFault::None;
        });
        const auto enqueue = [&] {
            return form == 0 ? queue.enqueue("job") : form == 1 ? queue.enqueue("job", 1ms) : queue.enqueueAll({"job", "two"});
        };
        Status first;
        QETCD_AWAIT(enqueue(), first);
        Status retried = first;
        if (first.isTransient())  // what a producer does with a transient failure
            QETCD_AWAIT(enqueue(), retried);
        Internal::setBeforeSend(&client, {});
        QVERIFY(lost >= 1);
        QCOMPARE(retried, Status());

        const QList<KeyValue> landed = under(path + "/items/") + under(path + "/delayed/");
        QCOMPARE(landed.size(), form == 2 ? 2 : 1);
        QCOMPARE(first, Status());
        QSet<QByteArray> received;
        for (int i = 0; i < landed.size(); ++i) {
            const WorkItem item = queue.receive(milliseconds(scaledMs(5000)));
            QCOMPARE(item.status, Status());
            QCOMPARE(item.attempt, 1);
            received.insert(item.value);
            Status acked;
            QETCD_AWAIT(queue.ack(item), acked);
            QCOMPARE(acked, Status());
        }
        QCOMPARE(received, (form == 2 ? QSet<QByteArray>{"job", "two"} : QSet<QByteArray>{"job"}));
        QVERIFY(under(path + '/').isEmpty());
    }

    // An ack commits but its answer is lost: the item is settled all the same. Its claim is
    // gone with its in-flight copy, so neither the consumer's end (its lease revoked, its claims
    // orphaned) nor a sweep brings it back, and the ack owns up to not knowing instead of
    // claiming a loss.
    void ackWhoseAnswerWasLostIsNotRedelivered()
    {
        Client client(direct());
        DistributedWorkQueue queue(&client, "/wq/lostack", fast());
        DistributedWorkQueue other(m_other.get(), "/wq/lostack", fast());
        Status status;
        QETCD_AWAIT(queue.enqueue("job"), status);
        QCOMPARE(status, Status());
        const WorkItem item = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(item.status, Status());
        std::atomic<bool> lost{false};
        Internal::setBeforeSend(&client, [&](const QString &what) {
            return what.startsWith("txn comparing \"/wq/lostack/claims/") && !lost.exchange(true)
                ? Internal::SendFault::LoseAnswer
                : Internal::SendFault::None;
        });
        QETCD_AWAIT(queue.ack(item), status);
        Internal::setBeforeSend(&client, {});
        QVERIFY(lost);
        QVERIFY2(status.isOk() || status.isTransient(), qPrintable(status.toString()));
        QVERIFY(under("/wq/lostack/").isEmpty());

        QVERIFY(revoke(queue.consumerLeaseId()));
        QETCD_AWAIT(other.sweep(), status);
        QCOMPARE(status, Status());
        QCOMPARE(awaitItem(other.tryReceive()).status.code(), StatusCode::NotFound);
        QCOMPARE(awaitItem(queue.receiveAsync(500ms)).status.code(), StatusCode::DeadlineExceeded);
        QVERIFY(under("/wq/lostack/").isEmpty());
    }

    // The claim commits but its answer is lost: the receive reads back what etcd holds and
    // delivers that very claim, standing under our lease and counted once.
    void claimWhoseAnswerWasLostIsReadBack()
    {
        Client client(direct());
        DistributedWorkQueue queue(&client, "/wq/lostclaimread", fast());
        Status status;
        QETCD_AWAIT(queue.enqueue("job"), status);
        QCOMPARE(status, Status());
        std::atomic<bool> lost{false};
        Internal::setBeforeSend(&client, [&](const QString &what) {
            return what.startsWith("txn comparing \"/wq/lostclaimread/items/") && !lost.exchange(true)
                ? Internal::SendFault::LoseAnswer
                : Internal::SendFault::None;
        });
        const WorkItem item = queue.receive(milliseconds(scaledMs(5000)));
        Internal::setBeforeSend(&client, {});
        QVERIFY(lost);
        QCOMPARE(item.status, Status());
        QCOMPARE(item.value, QByteArray("job"));
        QCOMPARE(item.attempt, 1);
        const auto claim = at("/wq/lostclaimread/claims/" + item.id);
        QVERIFY(claim);
        QCOMPARE(claim->createRevision, item.claimRevision);
        QCOMPARE(claim->lease, queue.consumerLeaseId());
        QCOMPARE(at("/wq/lostclaimread/attempts/" + item.id)->value, QByteArray("\x00\x00\x00\x01", 4));
        QVERIFY(under("/wq/lostclaimread/items/").isEmpty());
        QETCD_AWAIT(queue.ack(item), status);
        QCOMPARE(status, Status());
        QVERIFY(under("/wq/lostclaimread/").isEmpty());
    }

    // Destroyed while a claim is in flight: the answer arrives after the queue is gone, and the
    // receive is still owed one.
    void queueDestroyedMidClaimStillAnswersTheReceive()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        Client slow(ClientOptions::fromEndpoints({proxy.url()}));
        auto queue = std::make_unique<DistributedWorkQueue>(&slow, "/wq/gone", fast());
        Status status;
        QETCD_AWAIT(queue->enqueue("job"), status);
        std::atomic<bool> claiming{false};
        delayFromTheClaim(&slow, &proxy, "/wq/gone", 500ms, &claiming);
        const QFuture<WorkItem> receiving = queue->receiveAsync(milliseconds(scaledMs(30000)));
        QTRY_VERIFY_WITH_TIMEOUT(claiming, scaledMs(5000));
        queue.reset();
        QVERIFY(awaitFuture(receiving));
        QVERIFY(!receiving.isCanceled());
        QCOMPARE(receiving.result().status.code(), StatusCode::Cancelled);
        Internal::setBeforeSend(&slow, {});
    }

    void closeWakesReceiversAndReleasesClaims()
    {
        DistributedWorkQueue queue(m_client.get(), "/wq/close", fast());
        DistributedWorkQueue other(m_other.get(), "/wq/close", fast());
        Status status;
        QETCD_AWAIT(queue.enqueue("held"), status);
        const WorkItem held = queue.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(held.status, Status());
        const QFuture<WorkItem> parked = queue.receiveAsync();
        WorkItem blocked;
        std::atomic<bool> entered{false};
        QThread *worker = QThread::create([&] {
            entered = true;
            blocked = queue.receive();
        });
        worker->start();
        QTRY_VERIFY_WITH_TIMEOUT(entered, scaledMs(5000));
        QVERIFY(!awaitFuture(parked, 300ms));
        queue.close();
        QCOMPARE(awaitItem(parked).status.code(), StatusCode::Cancelled);
        QVERIFY(worker->wait(scaledMs(5000)));
        delete worker;
        QCOMPARE(blocked.status.code(), StatusCode::Cancelled);
        QCOMPARE(awaitItem(queue.receiveAsync()).status.code(), StatusCode::Closed);
        // close() revoked the consumer lease: the claim is at once an orphan for the others.
        QTRY_VERIFY_WITH_TIMEOUT(!at("/wq/close/claims/" + held.id), scaledMs(5000));
        const WorkItem rescued = other.receive(milliseconds(scaledMs(5000)));
        QCOMPARE(rescued.id, held.id);
        QCOMPARE(rescued.attempt, 2);
    }

    void fiveConsumersTwoHundredItemsEachWithAKilledConsumer()
    {
        constexpr int Producers = 5;
        constexpr int Consumers = 5;
        constexpr int PerProducer = 200;
        constexpr int Total = Producers * PerProducer;
        constexpr int Stolen = 20;
        const QByteArray path = "/wq/load";

        QElapsedTimer clock;
        clock.start();
        {
            QList<QThread *> producers;
            std::vector<Status> failures(Producers);
            for (int p = 0; p < Producers; ++p) {
                producers.append(QThread::create([&, p] {
                    DistributedWorkQueue producer(m_other.get(), path, fast());
                    for (int n = 0; n < PerProducer; ++n) {
                        const Status status = producer.enqueue(QByteArray::number(p) + ':' + QByteArray::number(n)).result();
                        if (!status) {
                            failures[p] = status;
                            return;
                        }
                    }
                }));
                producers.last()->start();
            }
            for (QThread *thread : producers) {
                QVERIFY(thread->wait(scaledMs(60000)));
                delete thread;
            }
            for (const Status &status : failures)
                QCOMPARE(status, Status());
        }
        const qint64 produced = clock.restart();

        // A consumer claims some items and is then "killed": its lease revoked out of band.
        QSet<QByteArray> stolen;
        Client victimClient(direct());
        DistributedWorkQueue victim(&victimClient, path, fast());
        for (int i = 0; i < Stolen; ++i) {
            const WorkItem item = victim.receive(milliseconds(scaledMs(5000)));
            QCOMPARE(item.status, Status());
            stolen.insert(item.value);
        }
        QVERIFY(revoke(victim.consumerLeaseId()));

        std::vector<std::unique_ptr<Client>> clients;
        std::vector<std::unique_ptr<DistributedWorkQueue>> consumers;
        for (int c = 0; c < Consumers; ++c) {
            clients.push_back(std::make_unique<Client>(direct()));
            consumers.push_back(std::make_unique<DistributedWorkQueue>(clients.back().get(), path, fast()));
        }
        std::mutex lock;
        QList<QByteArray> delivered;
        QHash<QByteArray, int> attemptOf;
        std::atomic<int> acked{0};
        std::vector<Status> failures(Consumers);
        QList<QThread *> threads;
        for (int c = 0; c < Consumers; ++c) {
            threads.append(QThread::create([&, c] {
                QElapsedTimer running;
                running.start();
                while (acked < Total && running.elapsed() < scaledMs(90000)) {
                    const WorkItem item = consumers[c]->receive(milliseconds(scaledMs(300)));
                    if (item.status.code() == StatusCode::DeadlineExceeded)
                        continue;
                    if (!item.status) {
                        failures[c] = item.status;
                        return;
                    }
                    {
                        std::lock_guard guard(lock);
                        delivered.append(item.value);
                        attemptOf.insert(item.value, item.attempt);
                    }
                    const Status ack = consumers[c]->ack(item).result();
                    if (!ack) {
                        failures[c] = ack;
                        return;
                    }
                    ++acked;
                }
            }));
            threads.last()->start();
        }
        for (QThread *thread : threads) {
            QVERIFY(thread->wait(scaledMs(120000)));
            delete thread;
        }
        qInfo() << "produced 1000 items in" << produced << "ms; delivered and acked in" << clock.elapsed() << "ms";
        for (const Status &status : failures)
            QCOMPARE(status, Status());
        // No live consumer died: every item reached exactly one of them, the stolen ones on
        // their second delivery.
        QCOMPARE(delivered.size(), Total);
        QCOMPARE(QSet<QByteArray>(delivered.begin(), delivered.end()).size(), Total);
        for (auto it = attemptOf.cbegin(); it != attemptOf.cend(); ++it)
            QCOMPARE(it.value(), stolen.contains(it.key()) ? 2 : 1);
        QVERIFY(under(path + '/').isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_DistributedWorkQueue)
#include "tst_distributedworkqueue.moc"
