// SPDX-License-Identifier: Apache-2.0
// LeaseModel against a real etcd member under QAbstractItemModelTester: granted and remaining
// TTL with the expiry deadline a view counts down to, the attached keys, the coordination object
// they make up, and a key re-put on another lease moving with it.
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "leasemodel.h"

#include <QtCore/QDateTime>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_LeaseModel : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    qint64 grant(qint64 ttl)
    {
        LeaseGrantResult granted;
        const auto future = m_client->leaseGrant(ttl);
        if (!awaitFuture(future) || !future.result().status)
            return 0;
        return future.result().id;
    }
    bool put(const QByteArray &key, const QByteArray &value, qint64 lease)
    {
        PutOptions options;
        options.lease = lease;
        const auto future = m_client->put(key, value, options);
        return awaitFuture(future) && future.result().status;
    }
    static int rowOf(const LeaseModel &model, qint64 lease)
    {
        for (int row = 0; row < model.rowCount(); ++row) {
            if (model.index(row).data(LeaseModel::IdRole).toString() == QString::number(lease, 16))
                return row;
        }
        return -1;
    }
    // Loads model by hand (no refresh timer) and waits for its first rows.
    bool loaded(LeaseModel &model)
    {
        model.setRefreshInterval(0);
        QSignalSpy done(&model, &LeaseModel::refreshed);
        model.setClient(m_client.get());
        return done.wait(scaledMs(10000));
    }
    // Refreshes and waits for the rows.
    static bool refreshed(LeaseModel &model)
    {
        QSignalSpy done(&model, &LeaseModel::refreshed);
        model.refresh();
        return done.wait(scaledMs(10000));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    // A page nobody sees costs etcd nothing (issue 44 M3): inactive, the model reads no lease,
    // neither on its timer nor when asked; active again, it reads at once.
    void anInactiveModelReadsNothing()
    {
        const qint64 lease = grant(60);
        QVERIFY(lease);
        const QString leaseLists = QStringLiteral("grpc_server_started_total{grpc_method=\"LeaseLeases\"");
        LeaseModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.isActive());
        model.setActive(false);
        model.setRefreshInterval(100);
        const double before = m_cluster.metric(0, leaseLists);
        QVERIFY(before >= 0);
        QSignalSpy read(&model, &LeaseModel::refreshed);
        model.setClient(m_client.get());
        model.refresh();
        // Ten refresh intervals and more go by without a read.
        QVERIFY(!read.wait(scaledMs(1000)));
        QCOMPARE(model.status(), ModelStatus::Null);
        QCOMPARE(m_cluster.metric(0, leaseLists), before);

        model.setActive(true);
        QVERIFY(read.wait(scaledMs(10000)));
        QVERIFY(rowOf(model, lease) >= 0);
        QVERIFY(m_cluster.metric(0, leaseLists) > before);
        QVERIFY(awaitFuture(m_client->leaseRevoke(lease)));
    }

    void leasesWithKeysAndOwners()
    {
        const qint64 lockLease = grant(60);
        const qint64 plainLease = grant(30);
        QVERIFY(lockLease && plainLease);
        // etcd's lock layout: the key is named after its lease.
        QVERIFY(put("/lm/lock/" + QByteArray::number(lockLease, 16), {}, lockLease));
        QVERIFY(put("/lm/plain", "x", plainLease));

        LeaseModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        QVERIFY(loaded(model));
        QCOMPARE(model.status(), ModelStatus::Ready);
        QCOMPARE(model.rowCount(), 2);

        const QModelIndex lock = model.index(rowOf(model, lockLease));
        QCOMPARE(lock.data(LeaseModel::GrantedTtlRole).toLongLong(), 60);
        QVERIFY(lock.data(LeaseModel::TtlRole).toLongLong() > 50);
        const qint64 expiresAt = lock.data(LeaseModel::ExpiresAtRole).toLongLong();
        QVERIFY(expiresAt > before + 50000 && expiresAt <= QDateTime::currentMSecsSinceEpoch() + 60000);
        QCOMPARE(lock.data(LeaseModel::KeysRole).toStringList(),
                 QStringList{QStringLiteral("/lm/lock/") + QString::number(lockLease, 16)});
        QCOMPARE(lock.data(LeaseModel::OwnerRole).toString(), QStringLiteral("lock /lm/lock"));
        const QModelIndex plain = model.index(rowOf(model, plainLease));
        QCOMPARE(plain.data(LeaseModel::OwnerRole).toString(), QString());

        // Revoked: the row goes.
        QVERIFY(awaitFuture(m_client->leaseRevoke(plainLease)));
        QVERIFY(refreshed(model));
        QCOMPARE(model.rowCount(), 1);
        QVERIFY(awaitFuture(m_client->leaseRevoke(lockLease)));
    }

    // etcd tells the time left in whole seconds, read at a different moment each refresh: a
    // deadline that did not move leaves its row alone (10,000 idle leases re-sorted on every
    // refresh stalled the Leases page), and one a keep-alive moved changes it.
    void aRefreshChangesOnlyTheRowsWhoseDeadlineMoved()
    {
        const qint64 idle = grant(60);
        const qint64 renewed = grant(60);
        QVERIFY(idle && renewed);
        LeaseModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(loaded(model));
        const qint64 idleDeadline = model.index(rowOf(model, idle)).data(LeaseModel::ExpiresAtRole).toLongLong();
        const qint64 firstTtl = model.index(rowOf(model, renewed)).data(LeaseModel::TtlRole).toLongLong();
        // Two seconds pass on etcd's clock...
        const auto ttlNow = [&] {
            const auto future = m_client->leaseTimeToLive(renewed);
            return awaitFuture(future) ? future.result().ttl : qint64(-1);
        };
        QTRY_VERIFY_WITH_TIMEOUT(ttlNow() <= firstTtl - 2, scaledMs(10000));
        // ...and then one of the leases is renewed.
        int exitCode = -1;
        m_cluster.etcdctl({"lease", "keep-alive", "--once", QString::number(renewed, 16)}, &exitCode);
        QCOMPARE(exitCode, 0);

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(refreshed(model));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), rowOf(model, renewed));
        QCOMPARE(model.index(rowOf(model, idle)).data(LeaseModel::ExpiresAtRole).toLongLong(), idleDeadline);
        QVERIFY(model.index(rowOf(model, renewed)).data(LeaseModel::TtlRole).toLongLong() > firstTtl - 2);
        QVERIFY(awaitFuture(m_client->leaseRevoke(idle)));
        QVERIFY(awaitFuture(m_client->leaseRevoke(renewed)));
    }

    // Other browsers keep the key under the lease they first saw it on.
    void keyRePutOnANewLeaseMovesWithIt()
    {
        const qint64 first = grant(60);
        const qint64 second = grant(60);
        QVERIFY(put("/lm/moving", "a", first));
        LeaseModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(loaded(model));
        QCOMPARE(model.index(rowOf(model, first)).data(LeaseModel::KeysRole).toStringList(), QStringList{"/lm/moving"});

        QVERIFY(put("/lm/moving", "b", second));
        QVERIFY(refreshed(model));
        QCOMPARE(model.index(rowOf(model, first)).data(LeaseModel::KeysRole).toStringList(), QStringList());
        QCOMPARE(model.index(rowOf(model, second)).data(LeaseModel::KeysRole).toStringList(), QStringList{"/lm/moving"});
        QVERIFY(awaitFuture(m_client->leaseRevoke(first)));
        QVERIFY(awaitFuture(m_client->leaseRevoke(second)));
    }
};

QTEST_GUILESS_MAIN(tst_LeaseModel)
#include "tst_leasemodel.moc"
