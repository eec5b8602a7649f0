// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

class tst_Failover : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void killedMemberFailsOverToAnother()
    {
        EtcdCluster::Options options;
        options.members = 3;
        EtcdCluster cluster(options);
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));

        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        QSignalSpy switched(&client, &Client::activeEndpointChanged);
        PutResult put;
        QETCD_AWAIT(client.put("/failover/k", "before"), put);
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));

        const QString used = client.activeEndpoint();
        const int victim = cluster.clientUrls().indexOf(used);
        QVERIFY(victim >= 0);
        QVERIFY(cluster.killMember(victim));

        QETCD_AWAIT(client.put("/failover/k", "after"), put);
        QVERIFY2(put.status.isOk(), qPrintable(put.status.toString()));
        QVERIFY(client.activeEndpoint() != used);
        QTRY_VERIFY_WITH_TIMEOUT(!switched.isEmpty(), scaledMs(5000));
        QVERIFY(switched.last().at(0).toString() != used);

        RangeResult got;
        QETCD_AWAIT(client.get("/failover/k"), got);
        QCOMPARE(got.kvs.value(0).value, QByteArray("after"));

        // Once it is back, the restarted member serves reads again.
        QVERIFY2(cluster.restartMember(victim), qPrintable(cluster.errorString()));
        EndpointStatusResult status;
        QETCD_AWAIT(client.endpointStatus(used), status);
        QVERIFY2(status.status.isOk(), qPrintable(status.status.toString()));
    }
};

QTEST_GUILESS_MAIN(tst_Failover)
#include "tst_failover.moc"
