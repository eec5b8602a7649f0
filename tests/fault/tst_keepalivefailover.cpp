// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/transientkeyvalue.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

// A client on all three members of a cluster keeps a presence key; the member it talks to is
// killed. Its keep-alives must carry on through another member: no Expired, same lease.
class tst_KeepAliveFailover : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void killedMemberDoesNotExpireTheLease()
    {
        qRegisterMetaType<LeaseEvent>();
        EtcdCluster::Options options;
        options.members = 3;
        EtcdCluster cluster(options);
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));

        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        RecipeOptions recipe;
        recipe.ttlSeconds = 5;
        TransientKeyValue kv(&client, "/failover/presence", "here", recipe);
        QSignalSpy events(&kv, &TransientKeyValue::leaseEvent);
        Status started;
        QETCD_AWAIT(kv.start(), started);
        QVERIFY2(started.isOk(), qPrintable(started.toString()));
        const qint64 lease = kv.currentLeaseId();

        const int victim = cluster.clientUrls().indexOf(client.activeEndpoint());
        QVERIFY(victim >= 0);
        QVERIFY(cluster.killMember(victim));

        // Two full TTLs later the lease is still the one we started with, renewed elsewhere.
        Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));
        QTRY_VERIFY_WITH_TIMEOUT(client.activeEndpoint() != cluster.clientUrl(victim), scaledMs(10000));
        const auto renewedPastTwoTtls = [&] {
            const auto ttl = observer.leaseTimeToLive(lease);
            return awaitFuture(ttl) && ttl.result().ttl > 0;
        };
        QDeadlineTimer twoTtls(10s);
        while (!twoTtls.hasExpired())
            QTRY_VERIFY_WITH_TIMEOUT(renewedPastTwoTtls(), scaledMs(4000));
        for (const QList<QVariant> &arguments : events)
            QVERIFY2(arguments.at(0).value<LeaseEvent>().kind != LeaseEventKind::Expired,
                     qPrintable(arguments.at(0).value<LeaseEvent>().toString()));
        QCOMPARE(kv.currentLeaseId(), lease);
        QVERIFY(kv.connectionState() != ConnectionState::Lost);
        const auto got = observer.get("/failover/presence");
        QVERIFY(awaitFuture(got));
        QCOMPARE(got.result().kvs.value(0).lease, lease);
    }
};

QTEST_GUILESS_MAIN(tst_KeepAliveFailover)
#include "tst_keepalivefailover.moc"
