// SPDX-License-Identifier: Apache-2.0
// ClusterModel against a real three-member cluster under QAbstractItemModelTester: every
// member, one leader, raft term and index, revision, db size, version, health with its round
// trip, and a member that stops answering.
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "clustermodel.h"
#include "eventlogmodel.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_ClusterModel : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_cluster;
    std::unique_ptr<Client> m_client;

private Q_SLOTS:
    void initTestCase()
    {
        EtcdCluster::Options options;
        options.members = 3;
        m_cluster = std::make_unique<EtcdCluster>(options);
        QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster->clientUrls()));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_cluster.reset();
    }

    void membersLeaderAndHealth()
    {
        ClusterModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRefreshInterval(0);
        QSignalSpy refreshed(&model, &ClusterModel::refreshed);
        model.setClient(m_client.get());
        QVERIFY(refreshed.wait(scaledMs(15000)));
        QCOMPARE(model.status(), ModelStatus::Ready);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.healthyCount(), 3);
        QVERIFY(!model.leaderId().isEmpty());
        QVERIFY(model.revision() > 0);
        QVERIFY(model.alarms().isEmpty());
        int leaders = 0;
        QStringList names;
        for (int row = 0; row < model.rowCount(); ++row) {
            const QModelIndex member = model.index(row);
            names.append(member.data(ClusterModel::NameRole).toString());
            leaders += member.data(ClusterModel::IsLeaderRole).toBool();
            QVERIFY(member.data(ClusterModel::HealthyRole).toBool());
            QVERIFY(member.data(ClusterModel::RoundTripRole).toLongLong() >= 0);
            QVERIFY(member.data(ClusterModel::RaftTermRole).toLongLong() > 0);
            QVERIFY(member.data(ClusterModel::RaftIndexRole).toLongLong() > 0);
            QVERIFY(member.data(ClusterModel::DbSizeRole).toLongLong() > 0);
            QVERIFY(!member.data(ClusterModel::VersionRole).toString().isEmpty());
        }
        QCOMPARE(leaders, 1);
        names.sort();
        QCOMPARE(names, (QStringList{"m0", "m1", "m2"}));

        // A stopped member stays listed, unhealthy, with the reason.
        QVERIFY2(m_cluster->stopMember(2), qPrintable(m_cluster->errorString()));
        refreshed.clear();
        model.refresh();
        QVERIFY(refreshed.wait(scaledMs(60000)));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.healthyCount(), 2);
        for (int row = 0; row < model.rowCount(); ++row) {
            const QModelIndex member = model.index(row);
            if (member.data(ClusterModel::NameRole).toString() == QLatin1String("m2")) {
                QVERIFY(!member.data(ClusterModel::HealthyRole).toBool());
                QVERIFY(!member.data(ClusterModel::ErrorRole).toString().isEmpty());
                QCOMPARE(member.data(ClusterModel::RoundTripRole).toLongLong(), -1);
            }
        }
        QVERIFY2(m_cluster->restartMember(2), qPrintable(m_cluster->errorString()));
    }

    // The status bar's figures: the leader's database size, keys and leases counted, and
    // counted again as they change.
    void sizesAndCounts()
    {
        QVERIFY(awaited(m_client->put("/cm/a", "1")).status);
        QVERIFY(awaited(m_client->put("/cm/b", "2")).status);
        const LeaseGrantResult lease = awaited(m_client->leaseGrant(600));
        QVERIFY(lease.status);
        const RangeResult everyKey = [&] {
            RangeOptions options;
            options.range = KeyRange::fromKey();
            options.countOnly = true;
            return awaited(m_client->get(QByteArray(1, '\0'), options));
        }();
        QVERIFY(everyKey.status);

        ClusterModel model;
        model.setRefreshInterval(0);
        QCOMPARE(model.keyCount(), -1);
        QCOMPARE(model.leaseCount(), -1);
        QSignalSpy refreshed(&model, &ClusterModel::refreshed);
        model.setClient(m_client.get());
        QVERIFY(refreshed.wait(scaledMs(15000)));
        QVERIFY(model.dbSize() > 0);
        QTRY_COMPARE_WITH_TIMEOUT(model.keyCount(), everyKey.count, scaledMs(10000));
        QTRY_VERIFY_WITH_TIMEOUT(model.leaseCount() >= 1, scaledMs(10000));
        const qint64 leases = model.leaseCount();

        // A keyspace this small costs etcd next to nothing to count: the counts follow a change
        // within seconds (a sandbox seeded after its first count showed "0 keys" for 30 s).
        QVERIFY(awaited(m_client->put("/cm/c", "3")).status);
        QVERIFY(awaited(m_client->leaseRevoke(lease.id)).status);
        model.setRefreshInterval(500);
        QTRY_COMPARE_WITH_TIMEOUT(model.keyCount(), everyKey.count + 1, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(model.leaseCount(), leases - 1, scaledMs(10000));
    }

    // The leader it first sees, and each new one, is told to the event log under its own name.
    void aNewLeaderIsLogged()
    {
        ClusterModel model;
        EventLogModel log;
        model.setEventLog(&log);
        model.setRefreshInterval(200);
        model.setClient(m_client.get());
        QTRY_VERIFY_WITH_TIMEOUT(!model.leaderName().isEmpty(), scaledMs(15000));
        const QString first = model.leaderName();
        QTRY_COMPARE_WITH_TIMEOUT(log.rowCount(), 1, scaledMs(5000));
        QCOMPARE(log.index(0).data(EventLogModel::ParticipantRole).toString(), first);
        QCOMPARE(log.index(0).data(EventLogModel::KindRole).toString(), QStringLiteral("leaderChanged"));

        const int member = first.mid(1).toInt();  // "m1"
        QVERIFY2(m_cluster->killMember(member), qPrintable(m_cluster->errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(!model.leaderName().isEmpty() && model.leaderName() != first, scaledMs(30000));
        QTRY_COMPARE_WITH_TIMEOUT(log.rowCount(), 2, scaledMs(5000));
        QCOMPARE(log.index(1).data(EventLogModel::ParticipantRole).toString(), model.leaderName());
        QVERIFY2(m_cluster->restartMember(member), qPrintable(m_cluster->errorString()));
    }
};

QTEST_GUILESS_MAIN(tst_ClusterModel)
#include "tst_clustermodel.moc"
