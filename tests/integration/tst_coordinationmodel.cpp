// SPDX-License-Identifier: Apache-2.0
// CoordinationModel against a real etcd member under QAbstractItemModelTester: objects appear,
// change and disappear as etcd changes, rows keep their place, and a burst is one update.
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedmutex.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/serviceinstance.h>
#include <QEtcd/testtimeouts.h>

#include "coordinationmodel.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CoordinationModel : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    // model set to watch prefix, and PutOptions on a new lease of 60 s (its ID in *lease) to
    // write what it should see.
    PutOptions watchedOnNewLease(CoordinationModel &model, const QString &prefix, qint64 *lease)
    {
        model.setPrefix(prefix);
        model.setClient(m_client.get());
        const LeaseGrantResult granted = awaited(m_client->leaseGrant(60));
        *lease = granted.id;
        PutOptions options;
        options.lease = granted.id;
        return options;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    // What etcd marshalled for its clients so far; an answer the client refused as too large
    // counts whole.
    double sentBytes() { return m_cluster.metric(0, QStringLiteral("etcd_network_client_grpc_sent_bytes_total")); }

    void followsALockAndACounter()
    {
        CoordinationModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.status(), ModelStatus::Null);
        model.setPrefix(QStringLiteral("/cm/"));
        model.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(10000));
        QCOMPARE(model.rowCount(), 0);

        LockOptions options;
        options.clientId = QStringLiteral("holder-1");
        DistributedMutex holder(m_client.get(), "/cm/lock", options);
        QVERIFY(holder.tryLock(std::chrono::seconds(10)));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
        QModelIndex lock = model.index(0);
        QCOMPARE(lock.data(CoordinationModel::KindRole).toString(), QStringLiteral("lock"));
        QCOMPARE(lock.data(CoordinationModel::NameRole).toString(), QStringLiteral("/cm/lock"));
        QCOMPARE(lock.data(CoordinationModel::RuleRole).toString(), QString());  // etcd's layout says it
        const QVariantList holders = lock.data(CoordinationModel::HoldersRole).toList();
        QCOMPARE(holders.size(), 1);
        QCOMPARE(holders.first().toMap().value("clientId").toString(), QStringLiteral("holder-1"));
        QCOMPARE(holders.first().toMap().value("createRevision").toLongLong(), holder.fencingToken());

        options.clientId = QStringLiteral("waiter-1");
        DistributedMutex waiter(m_client.get(), "/cm/lock", options);
        QFuture<Status> waiting = waiter.lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(model.index(0).data(CoordinationModel::WaitersRole).toList().size(), 1, scaledMs(10000));
        QCOMPARE(model.index(0).data(CoordinationModel::WaitersRole).toList().first().toMap().value("clientId").toString(),
                 QStringLiteral("waiter-1"));

        // A counter sorts before the lock; the lock's row moves down, keeping its data.
        QByteArray eight(8, '\0');
        eight[7] = 9;
        QVERIFY(awaitFuture(m_client->put("/cm/count", eight)));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, scaledMs(10000));
        QCOMPARE(model.index(0).data(CoordinationModel::KindRole).toString(), QStringLiteral("counter"));
        QCOMPARE(model.index(0).data(CoordinationModel::ValueRole).toLongLong(), 9);

        // Hand-over: the waiter holds, nobody waits.
        QVERIFY(holder.unlock());
        QVERIFY(awaitFuture(waiting));
        QTRY_COMPARE_WITH_TIMEOUT(
            model.index(1).data(CoordinationModel::HoldersRole).toList().value(0).toMap().value("clientId").toString(),
            QStringLiteral("waiter-1"), scaledMs(10000));
        QCOMPARE(model.index(1).data(CoordinationModel::WaitersRole).toList().size(), 0);
        // The card says how it changed hands, newest first, whoever's hands they were.
        const auto recent = [&model] { return model.index(1).data(CoordinationModel::RecentRole).toList(); };
        QTRY_COMPARE_WITH_TIMEOUT(recent().value(0).toMap().value("event").toString(), QStringLiteral("handedOn"),
                                  scaledMs(10000));
        QVERIFY2(recent().value(0).toMap().value("text").toString().startsWith(QLatin1String("handed on from holder-1")),
                 qPrintable(recent().value(0).toMap().value("text").toString()));
        QVERIFY(recent().value(0).toMap().value("timeMs").toLongLong() > 0);
        QCOMPARE(recent().value(1).toMap().value("event").toString(), QStringLiteral("waiterJoined"));
        QCOMPARE(recent().size(), CoordinationModel::RecentEvents);
        waiter.unlock();
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
    }

    // python3-etcd3's lock, as it writes it: the card names the rule and shows the UUID in hex
    // (tst_coordinationclients runs the client itself).
    void namesTheRuleAndShowsABinaryValueInHex()
    {
        CoordinationModel model;
        qint64 lease = 0;
        const PutOptions onLease = watchedOnNewLease(model, QStringLiteral("/locks/cm-"), &lease);
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(10000));
        QVERIFY(awaitFuture(
            m_client->put("/locks/cm-job", QByteArray::fromHex("d056cd98f0a211f1bddb02fc00000001"), onLease)));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
        const QModelIndex lock = model.index(0);
        QCOMPARE(lock.data(CoordinationModel::RuleRole).toString(), QStringLiteral("python3-etcd3 lock"));
        const QVariantMap holder = lock.data(CoordinationModel::HoldersRole).toList().value(0).toMap();
        QCOMPARE(holder.value("value").toString(), QStringLiteral("d056cd98f0a211f1bddb02fc00000001"));
        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease), revoked);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 0, scaledMs(10000));
    }

    // A registered instance says where to reach it and what it offers, under its name.
    void aServiceInstanceShowsItsAddressAndPayload()
    {
        CoordinationModel model;
        qint64 lease = 0;
        const PutOptions onLease = watchedOnNewLease(model, QStringLiteral("/cm-services/"), &lease);
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(10000));
        ServiceInstance api(QStringLiteral("api"), QStringLiteral(R"({"zone": "eu-1",   "weight": 3})"));
        api.setAddress(QStringLiteral("10.0.0.7"));
        api.setPort(8443);
        QVERIFY(awaitFuture(m_client->put("/cm-services/names/api/" + api.id().toUtf8(), api.toJson(), onLease)));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
        const QModelIndex service = model.index(0);
        QCOMPARE(service.data(CoordinationModel::KindRole).toString(), QStringLiteral("service"));
        const QVariantMap instance = service.data(CoordinationModel::MembersRole).toList().value(0).toMap();
        QCOMPARE(instance.value(QStringLiteral("name")).toString(), api.id());
        QCOMPARE(instance.value(QStringLiteral("detail")).toString(), QStringLiteral(R"(10.0.0.7:8443 · {"zone": "eu-1", "weight": 3})"));
        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease), revoked);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 0, scaledMs(10000));
    }

    // Everything under the prefix is larger than the client may receive at once: the model
    // reads it in pages and still shows every object.
    // Issue 44 M2: a value larger than any the recogniser reads is not held (a keyspace of large
    // values would otherwise be mirrored whole), and its entry says how large it was; an
    // inactive model mirrors nothing at all.
    void largeValuesAreNotHeldAndInactiveMirrorsNothing()
    {
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(60), lease);
        QVERIFY(lease.status);
        PutOptions onLease;
        onLease.lease = lease.id;
        const QByteArray key = "/cmv/vote/" + QByteArray::number(lease.id, 16);
        QVERIFY(awaitFuture(m_client->put(key, QByteArray(200 * 1000, 'p'), onLease)));

        CoordinationModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPrefix(QStringLiteral("/cmv/"));
        model.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
        const auto holder = [&model] {
            return model.index(0).data(CoordinationModel::HoldersRole).toList().value(0).toMap();
        };
        QCOMPARE(holder().value("key").toString(), QString::fromUtf8(key));
        QCOMPARE(holder().value("value").toString(), QString());
        QCOMPARE(holder().value("valueTooLarge").toLongLong(), 200 * 1000);
        // etcd's lock and election share the layout <name>/<lease>, and a lock's value is empty
        // or a small identity: a value too large to read is a proposal, so this is an election
        // whose leader's proposal could not be read, not a lock (as the first read sees it).
        const auto kind = [&model] { return model.index(0).data(CoordinationModel::KindRole).toString(); };
        QCOMPARE(kind(), QStringLiteral("election"));

        // Rewritten small, it is read.
        QVERIFY(awaitFuture(m_client->put(key, "candidate-a", onLease)));
        QTRY_COMPARE_WITH_TIMEOUT(holder().value("value").toString(), QStringLiteral("candidate-a"), scaledMs(10000));
        QCOMPARE(holder().value("valueTooLarge").toLongLong(), 0);
        QCOMPARE(kind(), QStringLiteral("election"));
        // And large again, as the watch tells it.
        QVERIFY(awaitFuture(m_client->put(key, QByteArray(100 * 1000, 'q'), onLease)));
        QTRY_COMPARE_WITH_TIMEOUT(holder().value("valueTooLarge").toLongLong(), 100 * 1000, scaledMs(10000));
        QCOMPARE(kind(), QStringLiteral("election"));

        QVERIFY(model.isActive());
        model.setActive(false);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.status(), ModelStatus::Null);
        model.setActive(true);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
        QCOMPARE(model.status(), ModelStatus::Ready);
        QVERIFY(awaitFuture(m_client->leaseRevoke(lease.id)));
    }

    void prefixLargerThanTheReceiveLimitLoads()
    {
        ClientOptions options = ClientOptions::fromEndpoints(m_cluster.clientUrls());
        options.maxReceiveMessageSize = 4 * 1024 * 1024;
        Client limited(options);
        const QByteArray big(1000 * 1000, 'x');
        for (int i = 0; i < 6; ++i)
            QVERIFY(awaitFuture(m_client->put("/cm-big/plain/" + QByteArray::number(i), big)));
        QByteArray eight(8, '\0');
        eight[7] = 3;
        for (int batch = 0; batch < 15; ++batch) {  // more than one page of keys as well
            Txn txn;
            for (int i = batch * 100; i < (batch + 1) * 100; ++i)
                txn.success.append(TxnOp::put("/cm-big/count/" + QByteArray::number(i).rightJustified(4, '0'), eight));
            TxnResult written;
            QETCD_AWAIT(m_client->txn(txn), written);
            QVERIFY2(written.succeeded, qPrintable(written.status.toString()));
        }

        const double sentBefore = sentBytes();
        CoordinationModel model;
        model.setPrefix(QStringLiteral("/cm-big/"));
        model.setClient(&limited);
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(30000));
        QCOMPARE(model.rowCount(), 1500);
        QCOMPARE(model.index(1499).data(CoordinationModel::NameRole).toString(), QStringLiteral("/cm-big/count/1499"));
        // Issue 44 M2: the large values come after 1,500 small ones, so one page that grew on the
        // small ones is refused (etcd marshals it whole) and read again at the count that fits;
        // halving through refusals made etcd send some 54 MB here.
        const double sent = sentBytes() - sentBefore;
        qInfo("etcd sent %.1f MB for %.1f MB of values", sent / 1e6, 6.0);
        QVERIFY2(sent < 2.5 * 6e6, qPrintable(QString::number(sent)));
    }

    // Issue 44 M2: a prefix of values close to etcd's largest, read through a client whose
    // receive limit holds only a few: no page is refused, so etcd sends the values once (pages
    // of 1,000 keys halved after each refusal made it send 9 refused pages of 8 MB first).
    void largeValuesAreReadOnce()
    {
        ClientOptions options = ClientOptions::fromEndpoints(m_cluster.clientUrls());
        options.maxReceiveMessageSize = 4 * 1024 * 1024;
        Client limited(options);
        const QByteArray big(1000 * 1000, 'y');
        for (int i = 0; i < 8; ++i)
            QVERIFY(awaitFuture(m_client->put("/cm-huge/" + QByteArray::number(i), big)));
        const double sentBefore = sentBytes();
        CoordinationModel model;
        model.setPrefix(QStringLiteral("/cm-huge/"));
        model.setClient(&limited);
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(30000));
        const double sent = sentBytes() - sentBefore;
        qInfo("etcd sent %.1f MB for %.1f MB of values", sent / 1e6, 8.0);
        QVERIFY2(sent > 8e6 && sent < 1.2 * 8e6, qPrintable(QString::number(sent)));
    }

    // The console restarts its model as the page shows, the prefix changes or the connection is
    // made again, often before the first read is answered. A start's answer is for its own
    // monitor only: the next monitor is often allocated at the address of the one it replaces,
    // and taking the replaced one's "closed" (or "ready") for it showed an error, or "ready"
    // with no objects, on a page whose read was still under way.
    void answersOfReplacedMonitorsDoNotCount()
    {
        QVERIFY(awaitFuture(m_client->put("/cm-restart/a/count", QByteArray(8, '\0'))));
        CoordinationModel model;
        QList<std::pair<ModelStatus::Status, int>> seen;
        connect(&model, &CoordinationModel::statusChanged, this,
                [&] { seen.append({model.status(), model.rowCount()}); });
        model.setClient(m_client.get());
        for (int restart = 0; restart < 10; ++restart)
            model.setPrefix(restart % 2 ? QStringLiteral("/cm-restart/a/") : QStringLiteral("/cm-restart/b/"));
        // The replaced monitors are closed at once, so their answers come before the last
        // monitor's read is answered.
        QTRY_COMPARE_WITH_TIMEOUT(model.status(), ModelStatus::Ready, scaledMs(10000));
        QCOMPARE(model.rowCount(), 1);
        for (const auto &[status, rows] : std::as_const(seen)) {
            QVERIFY2(status != ModelStatus::Error, qPrintable(model.errorString()));
            if (status == ModelStatus::Ready)
                QCOMPARE(rows, 1);
        }
    }

    // QML destroys siblings in no particular order: an EtcdClient, and its Client with it, may go
    // before the model bound to it, which then closes its watch on a client that is gone.
    void outlivesItsClient()
    {
        auto client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        auto model = std::make_unique<CoordinationModel>();
        model->setPrefix(QStringLiteral("/cm-outlive/"));
        model->setClient(client.get());
        QTRY_COMPARE_WITH_TIMEOUT(model->status(), ModelStatus::Ready, scaledMs(10000));

        client.reset();
        QCOMPARE(model->client(), nullptr);
        model.reset();
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationModel)
#include "tst_coordinationmodel.moc"
