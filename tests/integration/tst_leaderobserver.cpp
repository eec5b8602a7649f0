// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/leaderlatch.h>
#include <QEtcd/leaderobserver.h>
#include <QEtcd/leaderselector.h>

#include <QtCore/QMutex>
#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
// Every leaderChanged() as the leader's value ("-" for nobody), recorded in emission order.
class LeaderLog : public QObject
{
public:
    explicit LeaderLog(LeaderObserver *observer)
    {
        connect(
            observer, &LeaderObserver::leaderChanged, this,
            [this](const std::optional<Participant> &leader) {
                QMutexLocker locker(&m_mutex);
                m_values.append(leader ? QString::fromUtf8(leader->value) : QStringLiteral("-"));
            },
            Qt::DirectConnection);
    }
    QStringList values() const
    {
        QMutexLocker locker(&m_mutex);
        return m_values;
    }

private:
    mutable QMutex m_mutex;
    QStringList m_values;
};
} // namespace

class tst_LeaderObserver : public QObject, protected RecipeFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    void followsEveryChangeOfLeader()
    {
        LeaderObserver observer(m_other.get(), "/observe/changes");
        LeaderLog log(&observer);
        Status status;
        QETCD_AWAIT(observer.start(), status);
        QVERIFY2(status.isOk(), qPrintable(status.toString()));
        QVERIFY(!observer.currentLeader().has_value());

        ElectionOptions tenSeconds;
        tenSeconds.ttlSeconds = 10;
        std::atomic<bool> leading{false};
        LeaderSelector a(m_client.get(), "/observe/changes", "a",
                         [&](const StopToken &stop) {
                             leading = true;
                             while (!stop.stopRequested())
                                 QThread::msleep(10);
                         },
                         {}, tenSeconds);
        QETCD_AWAIT(a.start(), status);
        QTRY_COMPARE_WITH_TIMEOUT(log.values(), QStringList{"a"}, scaledMs(5000));
        QTRY_VERIFY_WITH_TIMEOUT(leading.load(), scaledMs(5000));
        const std::optional<Participant> first = observer.currentLeader();
        QVERIFY(first.has_value());
        QCOMPARE(first->key, a.key());
        QCOMPARE(first->createRevision, a.fencingToken());
        QVERIFY(first->isLeader);
        QVERIFY(first->leaseId > 0);

        // A candidate behind the leader changes nothing; a new proclamation does.
        LeaderLatch b(m_other.get(), "/observe/changes", "b", withTtl(10));
        QETCD_AWAIT(b.start(), status);
        QVERIFY(status.isOk());
        QETCD_AWAIT(a.proclaim("a2"), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(log.values(), (QStringList{"a", "a2"}), scaledMs(5000));

        a.close();
        QTRY_COMPARE_WITH_TIMEOUT(log.values(), (QStringList{"a", "a2", "b"}), scaledMs(5000));
        QCOMPARE(observer.currentLeader()->key, b.key());
        b.close();
        QTRY_COMPARE_WITH_TIMEOUT(log.values(), (QStringList{"a", "a2", "b", "-"}), scaledMs(5000));
        QVERIFY(!observer.currentLeader().has_value());
        QCOMPARE(observer.connectionState(), ConnectionState::Connected);
    }

    void startReportsTheLeaderAlreadyInPlace()
    {
        LeaderLatch latch(m_client.get(), "/observe/initial", {}, withTtl(10));
        Status status;
        QETCD_AWAIT(latch.start(), status);
        QCOMPARE(latch.await(scaled(10s)), Status());

        LeaderObserver observer(m_other.get(), "/observe/initial");
        QSignalSpy changed(&observer, &LeaderObserver::leaderChanged);
        QETCD_AWAIT(observer.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, scaledMs(5000));
        const std::optional<Participant> leader = observer.currentLeader();
        QVERIFY(leader.has_value());
        QCOMPARE(leader->key, latch.key());
        QCOMPARE(leader->createRevision, latch.fencingToken());
        QCOMPARE(leader->clientId, latch.clientId());  // decoded from qetcd's identity value
        QCOMPARE(changed[0][0].value<std::optional<Participant>>(), leader);

        ParticipantsResult participants;
        QETCD_AWAIT(observer.participants(), participants);
        QVERIFY(participants.status.isOk());
        QCOMPARE(participants.participants.size(), 1);
        QCOMPARE(participants.participants[0], *leader);

        QETCD_AWAIT(observer.start(), status);
        QCOMPARE(status.code(), StatusCode::AlreadyStarted);
        // A second observer on the same client, so on the same watch stream: once it has
        // reported the leader's departure and a successor, a closed observer still listening
        // would have reported the departure too.
        LeaderObserver control(m_other.get(), "/observe/initial");
        LeaderLog controlLog(&control);
        QETCD_AWAIT(control.start(), status);
        QCOMPARE(status, Status());
        QTRY_COMPARE_WITH_TIMEOUT(controlLog.values().size(), 1, scaledMs(5000));
        observer.close();
        latch.close();
        QTRY_COMPARE_WITH_TIMEOUT(controlLog.values().mid(1), QStringList{"-"}, scaledMs(5000));
        LeaderLatch successor(m_client.get(), "/observe/initial", "successor", withTtl(10));
        QETCD_AWAIT(successor.start(), status);
        QTRY_COMPARE_WITH_TIMEOUT(controlLog.values().mid(1), (QStringList{"-", "successor"}), scaledMs(5000));
        QCOMPARE(changed.size(), 1);
    }

    void anExpiredLeaderIsReplacedByTheNextKey()
    {
        // Keys written by hand, as another tool would: the lowest create revision leads.
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(30), lease);
        QVERIFY(lease.status.isOk());
        PutOptions onLease;
        onLease.lease = lease.id;
        PutResult put;
        QETCD_AWAIT(m_client->put("/observe/foreign/" + QByteArray::number(lease.id, 16), "first", onLease), put);
        QVERIFY(put.status.isOk());
        QETCD_AWAIT(m_client->put("/observe/foreign/zz-second", "second"), put);
        QVERIFY(put.status.isOk());

        LeaderObserver observer(m_other.get(), "/observe/foreign");
        LeaderLog log(&observer);
        Status status;
        QETCD_AWAIT(observer.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(log.values(), QStringList{"first"}, scaledMs(5000));
        QCOMPARE(observer.currentLeader()->leaseId, lease.id);
        QVERIFY(observer.currentLeader()->clientId.isEmpty());

        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease.id), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(log.values(), (QStringList{"first", "second"}), scaledMs(5000));
        QCOMPARE(observer.currentLeader()->leaseId, qint64(0));
    }
};

QTEST_GUILESS_MAIN(tst_LeaderObserver)
#include "tst_leaderobserver.moc"
