// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/leaderobserver.h>
#include <QEtcd/leaderselector.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtTest/QtTest>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
qint64 stamp()
{
    return steady_clock::now().time_since_epoch().count();
}

// A takeLeadership that parks until the test lets it go or the term's stop token is set, and
// what it saw; written on the term thread, read by the test.
class Term
{
public:
    // what runs inside takeLeadership before parking; may be empty
    std::function<void()> onEntry;
    milliseconds lingerAfterStop{0};

    LeaderSelector::TakeLeadership take()
    {
        return [this](const StopToken &stop) {
            if (onEntry)
                onEntry();
            StopCallback wake(stop, [this] {
                std::lock_guard lock(m_mutex);
                m_changed.notify_all();
            });
            std::unique_lock lock(m_mutex);
            ++m_takes;
            m_tookAt = stamp();
            m_changed.wait(lock, [&] { return m_letGo || stop.stopRequested(); });
            m_letGo = false;
            m_sawStop = stop.stopRequested();
            m_interrupted = QThread::currentThread()->isInterruptionRequested();
            lock.unlock();
            std::this_thread::sleep_for(lingerAfterStop);  // work that finishes after the stop
            m_returnedAt = stamp();
        };
    }
    LeaderSelector::Relinquish relinquish()
    {
        return [this] {
            m_relinquishedAt = stamp();
            ++m_relinquishes;
        };
    }

    void letGo()
    {
        std::lock_guard lock(m_mutex);
        m_letGo = true;
        m_changed.notify_all();
    }

    int takes() const
    {
        std::lock_guard lock(m_mutex);
        return m_takes;
    }
    int relinquishes() const { return m_relinquishes; }
    bool sawStop() const
    {
        std::lock_guard lock(m_mutex);
        return m_sawStop;
    }
    bool interrupted() const
    {
        std::lock_guard lock(m_mutex);
        return m_interrupted;
    }
    qint64 tookAt() const { return m_tookAt; }
    qint64 returnedAt() const { return m_returnedAt; }
    qint64 relinquishedAt() const { return m_relinquishedAt; }

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_takes = 0;
    bool m_letGo = false;
    bool m_sawStop = false;
    bool m_interrupted = false;
    std::atomic<int> m_relinquishes{0};
    std::atomic<qint64> m_tookAt{0};
    std::atomic<qint64> m_returnedAt{0};
    std::atomic<qint64> m_relinquishedAt{0};
};

ElectionOptions options(qint64 ttlSeconds, bool autoRequeue = true)
{
    ElectionOptions result;
    result.ttlSeconds = ttlSeconds;
    result.autoRequeue = autoRequeue;
    return result;
}

} // namespace

class tst_LeaderSelector : public QObject, protected RecipeFixture
{
    Q_OBJECT

private:
    void startProcess(QProcess &process, const QStringList &arguments)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("ETCDCTL_API", "3");
        process.setProcessEnvironment(environment);
        process.start("etcdctl", QStringList{"--endpoints", m_cluster.clientUrls().join(',')} + arguments);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString()));
    }

    void leadsOnEtcdsLayoutAndEndsTheTermWhenTakeReturns()
    {
        Term term;
        LeaderSelector *self = nullptr;
        std::atomic<bool> leaderInside{false};
        std::atomic<qint64> tokenInside{0};
        term.onEntry = [&] {
            leaderInside = self->isLeader();
            tokenInside = self->fencingToken();
        };
        LeaderSelector selector(m_client.get(), "/elect/basic", "alpha", term.take(), term.relinquish(),
                                options(10, false));
        self = &selector;
        QSignalSpy elected(&selector, &LeaderSelector::elected);
        QSignalSpy ended(&selector, &LeaderSelector::termEnded);
        Status status;
        QETCD_AWAIT(selector.start(), status);
        QVERIFY2(status.isOk(), qPrintable(status.toString()));
        QTRY_COMPARE_WITH_TIMEOUT(term.takes(), 1, scaledMs(5000));
        QCOMPARE(elected.size(), 1);

        const QList<KeyValue> keys = queue("/elect/basic");
        QCOMPARE(keys.size(), 1);
        QCOMPARE(keys[0].key, "/elect/basic/" + QByteArray::number(keys[0].lease, 16));
        QCOMPARE(keys[0].value, QByteArray("alpha"));
        QCOMPARE(elected[0][0].toLongLong(), keys[0].createRevision);
        QVERIFY(leaderInside);
        QCOMPARE(tokenInside.load(), keys[0].createRevision);
        QVERIFY(selector.isLeader());
        QCOMPARE(selector.key(), keys[0].key);
        QCOMPARE(selector.fencingToken(), keys[0].createRevision);
        ParticipantsResult participants;
        QETCD_AWAIT(selector.participants(), participants);
        QVERIFY(participants.status.isOk());
        QCOMPARE(participants.participants.size(), 1);
        QVERIFY(participants.participants[0].isLeader);
        QCOMPARE(participants.participants[0].value, QByteArray("alpha"));
        QCOMPARE(participants.participants[0].leaseId, keys[0].lease);
        QVERIFY(participants.participants[0].clientId.isEmpty());  // "alpha" is no identity

        term.letGo();
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, scaledMs(5000));
        QCOMPARE(term.relinquishes(), 1);
        QVERIFY(!term.sawStop());
        QVERIFY(term.relinquishedAt() >= term.returnedAt());
        QVERIFY(!selector.isLeader());
        QCOMPARE(selector.fencingToken(), qint64(0));
        QTRY_VERIFY_WITH_TIMEOUT(queue("/elect/basic").isEmpty(), scaledMs(5000));
        QCOMPARE(elected.size(), 1);  // no autoRequeue: idle until asked

        QETCD_AWAIT(selector.start(), status);
        QCOMPARE(status.code(), StatusCode::AlreadyStarted);
        QETCD_AWAIT(selector.requeue(), status);
        QVERIFY2(status.isOk(), qPrintable(status.toString()));
        QTRY_COMPARE_WITH_TIMEOUT(term.takes(), 2, scaledMs(5000));
        QVERIFY(elected[1][0].toLongLong() > elected[0][0].toLongLong());
        term.letGo();
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 2, scaledMs(5000));
        QCOMPARE(term.relinquishes(), 2);
    }

    void autoRequeueKeepsItACandidate()
    {
        std::atomic<int> terms{0};
        LeaderSelector selector(m_client.get(), "/elect/requeue", "solo", [&](const StopToken &) { ++terms; }, {},
                                options(10));
        QSignalSpy elected(&selector, &LeaderSelector::elected);
        Status status;
        QETCD_AWAIT(selector.start(), status);
        QVERIFY(status.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(terms.load() >= 3, scaledMs(10000));
        selector.close();
        const int after = terms.load();
        QVERIFY(elected.size() >= 3);
        for (int i = 1; i < elected.size(); ++i)
            QVERIFY(elected[i][0].toLongLong() > elected[i - 1][0].toLongLong());
        QTRY_VERIFY_WITH_TIMEOUT(queue("/elect/requeue").isEmpty(), scaledMs(5000));
        QCOMPARE(terms.load(), after);
    }

    void candidatesQueueAndTheNextLeadsOnlyAfterTheTermEnded()
    {
        Term first;
        LeaderSelector a(m_client.get(), "/elect/order", {}, first.take(), first.relinquish(), options(10));
        std::atomic<qint64> aEndedAt{0};
        connect(&a, &LeaderSelector::termEnded, this, [&] { aEndedAt = stamp(); }, Qt::DirectConnection);
        Status status;
        QETCD_AWAIT(a.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(first.takes(), 1, scaledMs(5000));

        Term second;
        LeaderSelector b(m_other.get(), "/elect/order", {}, second.take(), second.relinquish(), options(10));
        std::atomic<qint64> bElectedAt{0};
        connect(&b, &LeaderSelector::elected, this, [&] { bElectedAt = stamp(); }, Qt::DirectConnection);
        QETCD_AWAIT(b.start(), status);
        QVERIFY(status.isOk());
        ParticipantsResult participants;
        QETCD_AWAIT(b.participants(), participants);
        QCOMPARE(participants.participants.size(), 2);
        QVERIFY(participants.participants[0].isLeader);
        QVERIFY(!participants.participants[1].isLeader);
        // An empty proclamation proclaims qetcd's identity, so a console can name candidates.
        QCOMPARE(participants.participants[0].clientId, a.clientId());
        QCOMPARE(participants.participants[1].clientId, b.clientId());
        QCOMPARE(participants.participants[1].key, b.key());
        QCOMPARE(QJsonDocument::fromJson(participants.participants[1].value).object().value("pid").toInteger(),
                 QCoreApplication::applicationPid());
        QVERIFY(!b.isLeader());
        QCOMPARE(second.takes(), 0);

        first.lingerAfterStop = 300ms;  // close() must wait for the term to finish
        a.close();
        QCOMPARE(first.relinquishes(), 1);
        QVERIFY(first.sawStop());
        QVERIFY(first.interrupted());
        QVERIFY(!a.isLeader());
        QTRY_COMPARE_WITH_TIMEOUT(second.takes(), 1, scaledMs(5000));
        QVERIFY(b.isLeader());
        QVERIFY(aEndedAt.load() > 0 && aEndedAt.load() < bElectedAt.load());
        QVERIFY(first.relinquishedAt() < bElectedAt.load());
        QCOMPARE(queue("/elect/order").size(), 1);

        // A queued candidate that closes takes its key with it and never leads.
        Term third;
        LeaderSelector c(m_client.get(), "/elect/order", {}, third.take(), third.relinquish(), options(10));
        QETCD_AWAIT(c.start(), status);
        QVERIFY(status.isOk());
        QCOMPARE(queue("/elect/order").size(), 2);
        c.close();
        QTRY_COMPARE_WITH_TIMEOUT(queue("/elect/order").size(), 1, scaledMs(5000));
        QCOMPARE(third.takes(), 0);
        QCOMPARE(third.relinquishes(), 0);
        QETCD_AWAIT(c.requeue(), status);
        QCOMPARE(status.code(), StatusCode::Closed);
        b.close();
        QTRY_VERIFY_WITH_TIMEOUT(queue("/elect/order").isEmpty(), scaledMs(5000));
    }

    void interoperatesWithEtcdctlElect()
    {
        Term ours;
        LeaderSelector a(m_client.get(), "/elect/interop", "qetcd-a", ours.take(), ours.relinquish(), options(10));
        Status status;
        QETCD_AWAIT(a.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(ours.takes(), 1, scaledMs(5000));

        // etcdctl queues behind our leader and says nothing while we lead.
        QProcess etcdctl;
        startProcess(etcdctl, {"elect", "/elect/interop", "ctl-proposal"});
        QVERIFY(etcdctl.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(queue("/elect/interop").size(), 2, scaledMs(10000));
        ParticipantsResult participants;
        QETCD_AWAIT(a.participants(), participants);
        QCOMPARE(participants.participants[0].value, QByteArray("qetcd-a"));
        QCOMPARE(participants.participants[1].value, QByteArray("ctl-proposal"));
        QVERIFY(participants.participants[1].clientId.isEmpty());
        QCOMPARE(etcdctl.bytesAvailable(), 0);

        // Once we resign, etcdctl is elected: it prints its key and proclamation.
        a.close();
        QByteArray printed;
        QTRY_VERIFY_WITH_TIMEOUT((printed += etcdctl.readAllStandardOutput()).contains("ctl-proposal"),
                                 scaledMs(10000));
        QVERIFY(printed.contains("/elect/interop/"));

        // With etcdctl leading, an observer sees its proclamation and our candidate waits.
        LeaderObserver observer(m_other.get(), "/elect/interop");
        QETCD_AWAIT(observer.start(), status);
        QVERIFY(status.isOk());
        QVERIFY(observer.currentLeader().has_value());
        QCOMPARE(observer.currentLeader()->value, QByteArray("ctl-proposal"));
        QVERIFY(observer.currentLeader()->clientId.isEmpty());

        Term waiting;
        LeaderSelector b(m_other.get(), "/elect/interop", "qetcd-b", waiting.take(), waiting.relinquish(),
                         options(10));
        QETCD_AWAIT(b.start(), status);
        QVERIFY(status.isOk());
        QCOMPARE(queue("/elect/interop").size(), 2);
        QTest::qWait(700);  // time enough to be (wrongly) elected
        QCOMPARE(waiting.takes(), 0);
        QVERIFY(!b.isLeader());

        etcdctl.terminate();  // etcdctl resigns on SIGTERM
        QVERIFY(etcdctl.waitForFinished(scaledMs(10000)));
        QTRY_COMPARE_WITH_TIMEOUT(waiting.takes(), 1, scaledMs(10000));
        QVERIFY(b.isLeader());
        QTRY_VERIFY_WITH_TIMEOUT(observer.currentLeader().has_value()
                                     && observer.currentLeader()->value == QByteArray("qetcd-b"),
                                 scaledMs(5000));
        b.close();
    }

    void lossEndsTheTermBeforeAnyoneElseIsElected()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        Client cutOff(ClientOptions::fromEndpoints({proxy.url()}));
        Term doomed;
        LeaderSelector a(&cutOff, "/elect/loss", "a", doomed.take(), doomed.relinquish(), options(2));
        QSignalSpy lost(&a, &LeaderSelector::leadershipLost);
        QSignalSpy states(&a, &Recipe::connectionStateChanged);
        std::atomic<qint64> lostAt{0};
        connect(&a, &LeaderSelector::leadershipLost, this, [&] { lostAt = stamp(); }, Qt::DirectConnection);
        Status status;
        QETCD_AWAIT(a.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(doomed.takes(), 1, scaledMs(5000));
        const qint64 token = a.fencingToken();
        const QByteArray oldKey = a.key();

        Term next;
        LeaderSelector b(m_other.get(), "/elect/loss", "b", next.take(), next.relinquish(), options(10));
        std::atomic<qint64> bElectedAt{0};
        connect(&b, &LeaderSelector::elected, this, [&] { bElectedAt = stamp(); }, Qt::DirectConnection);
        QETCD_AWAIT(b.start(), status);
        QVERIFY(status.isOk());

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(next.takes(), 1, scaledMs(15000));
        QCOMPARE(lost.size(), 1);
        QVERIFY(lostAt.load() > 0 && lostAt.load() < bElectedAt.load());
        // The parked takeLeadership was woken by the stop token and the interruption.
        QTRY_COMPARE_WITH_TIMEOUT(doomed.relinquishes(), 1, scaledMs(5000));
        QVERIFY(doomed.sawStop());
        QVERIFY(doomed.interrupted());
        QVERIFY(doomed.relinquishedAt() >= lostAt.load());
        QVERIFY(!a.isLeader());
        QCOMPARE(a.connectionState(), ConnectionState::Lost);
        QCOMPARE(stateChanges(states), (QList<StateChange>{{ConnectionState::Suspended, ConnectionState::Connected},
                                                      {ConnectionState::Lost, ConnectionState::Suspended}}));

        // Back on the network it queues again, as a new candidate behind the new leader, and
        // heals its connection state; leadership itself never comes back by itself.
        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_VERIFY_WITH_TIMEOUT(!a.key().isEmpty() && a.key() != oldKey, scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(a.connectionState(), ConnectionState::Reconnected, scaledMs(5000));
        const QList<KeyValue> keys = queue("/elect/loss");
        QCOMPARE(keys.size(), 2);
        QCOMPARE(keys[0].key, b.key());
        QCOMPARE(keys[1].key, a.key());
        QVERIFY(!a.isLeader());
        QCOMPARE(doomed.takes(), 1);
        QCOMPARE(doomed.relinquishes(), 1);
        QCOMPARE(lost.size(), 1);
        QVERIFY(keys[1].createRevision > token);

        // A write guarded by the old term's ownership is refused; the new leader's lands.
        Txn write;
        write.success = {TxnOp::put("/elect/loss-data", "written")};
        TxnResult written;
        QETCD_AWAIT(b.guardedTxn(write), written);
        QVERIFY2(written.status.isOk(), qPrintable(written.status.toString()));
        QETCD_AWAIT(a.guardedTxn(write), written);
        QCOMPARE(written.status.code(), StatusCode::OwnershipLost);

        b.close();
        QTRY_COMPARE_WITH_TIMEOUT(doomed.takes(), 2, scaledMs(5000));
        QVERIFY(a.isLeader());
        a.close();
        QCOMPARE(doomed.relinquishes(), 2);
    }

    void withoutInterruptionTheTermChecksForItself()
    {
        LeaderSelector *self = nullptr;
        std::atomic<bool> sawStop{true};
        std::atomic<bool> interrupted{true};
        std::atomic<int> relinquished{0};
        ElectionOptions quiet = options(3, false);
        quiet.interruptOnLeaseLoss = false;
        LeaderSelector a(m_client.get(), "/elect/quiet", "q",
                         [&](const StopToken &stop) {
                             while (self->isLeader())
                                 QThread::msleep(20);
                             sawStop = stop.stopRequested();
                             interrupted = QThread::currentThread()->isInterruptionRequested();
                         },
                         [&] { ++relinquished; }, quiet);
        self = &a;
        QSignalSpy elected(&a, &LeaderSelector::elected);
        QSignalSpy lost(&a, &LeaderSelector::leadershipLost);
        QSignalSpy ended(&a, &LeaderSelector::termEnded);
        Status status;
        QETCD_AWAIT(a.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(elected.size(), 1, scaledMs(5000));

        // An out-of-band revoke: etcd says the lease is gone at the next renewal.
        const QList<KeyValue> keys = queue("/elect/quiet");
        QCOMPARE(keys.size(), 1);
        Result revoked;
        QETCD_AWAIT(m_other->leaseRevoke(keys[0].lease), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, scaledMs(10000));
        QCOMPARE(lost.size(), 1);
        QVERIFY(!sawStop);
        QVERIFY(!interrupted);
        QCOMPARE(relinquished.load(), 1);
    }

    void aQueuedCandidateWhoseLeaseDiesRequeuesWithAFreshLease()
    {
        Term leading;
        LeaderSelector a(m_client.get(), "/elect/requeue-loss", {}, leading.take(), leading.relinquish(),
                         options(10));
        Status status;
        QETCD_AWAIT(a.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(leading.takes(), 1, scaledMs(5000));

        Term waiting;
        LeaderSelector b(m_other.get(), "/elect/requeue-loss", {}, waiting.take(), waiting.relinquish(), options(3));
        QSignalSpy states(&b, &Recipe::connectionStateChanged);
        QETCD_AWAIT(b.start(), status);
        QVERIFY(status.isOk());
        const QByteArray firstKey = b.key();
        const QList<KeyValue> before = queue("/elect/requeue-loss");
        QCOMPARE(before.size(), 2);
        QCOMPARE(before[1].key, firstKey);

        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(before[1].lease), revoked);
        QVERIFY(revoked.status.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(!b.key().isEmpty() && b.key() != firstKey, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(queue("/elect/requeue-loss").size(), 2, scaledMs(5000));
        QCOMPARE(queue("/elect/requeue-loss")[1].key, b.key());
        QVERIFY(saidInHistory(b, "re-queues with a fresh lease"));
        // Lost, then Reconnected; told from two threads, they may reach the spy in either order.
        QTRY_COMPARE_WITH_TIMEOUT(sortedStateChanges(states),
                                  sorted({{ConnectionState::Lost, ConnectionState::Connected},
                                          {ConnectionState::Reconnected, ConnectionState::Lost}}),
                                  scaledMs(5000));
        QCOMPARE(b.connectionState(), ConnectionState::Reconnected);
        QCOMPARE(waiting.takes(), 0);

        a.close();
        QTRY_COMPARE_WITH_TIMEOUT(waiting.takes(), 1, scaledMs(5000));
        b.close();
    }

    // An operator deletes the leader's key: the next candidate is elected, so the term ends
    // with leadershipLost, at once rather than at the lease's end.
    void aLeaderWhoseKeyIsDeletedLosesTheTerm()
    {
        Term doomed;
        LeaderSelector a(m_client.get(), "/elect/taken", "a", doomed.take(), doomed.relinquish(), options(60, false));
        QSignalSpy lost(&a, &LeaderSelector::leadershipLost);
        Status status;
        QETCD_AWAIT(a.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(doomed.takes(), 1, scaledMs(5000));
        const QByteArray key = a.key();
        Term next;
        LeaderSelector b(m_other.get(), "/elect/taken", "b", next.take(), next.relinquish(), options(60));
        QETCD_AWAIT(b.start(), status);
        QVERIFY(status.isOk());

        DeleteResult removed;
        QETCD_AWAIT(m_other->remove(key), removed);
        QCOMPARE(removed.deleted, 1);
        QTRY_COMPARE_WITH_TIMEOUT(lost.size(), 1, scaledMs(5000));
        const Status cause = lost.at(0).at(0).value<Status>();
        QCOMPARE(cause.code(), StatusCode::OwnershipLost);
        QVERIFY2(cause.message().contains(QString::fromUtf8(key) + QStringLiteral(" was deleted by another client")),
                 qPrintable(cause.toString()));
        QTRY_COMPARE_WITH_TIMEOUT(doomed.relinquishes(), 1, scaledMs(5000));
        QVERIFY(doomed.sawStop());
        QVERIFY(!a.isLeader());
        QCOMPARE(a.connectionState(), ConnectionState::Lost);
        QTRY_COMPARE_WITH_TIMEOUT(next.takes(), 1, scaledMs(5000));
        QCOMPARE(lost.size(), 1);
        b.close();
        a.close();
    }

    void proclaimRewritesOurValueOnly()
    {
        Term leading;
        LeaderSelector a(m_client.get(), "/elect/proclaim", "v1", leading.take(), leading.relinquish(), options(10));
        Status status;
        QETCD_AWAIT(a.start(), status);
        QVERIFY(status.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(leading.takes(), 1, scaledMs(5000));
        const QList<KeyValue> before = queue("/elect/proclaim");
        QETCD_AWAIT(a.proclaim("v2"), status);
        QVERIFY2(status.isOk(), qPrintable(status.toString()));
        const QList<KeyValue> after = queue("/elect/proclaim");
        QCOMPARE(after.size(), 1);
        QCOMPARE(after[0].value, QByteArray("v2"));
        QCOMPARE(after[0].lease, before[0].lease);  // still on our lease
        QCOMPARE(after[0].createRevision, before[0].createRevision);
        // Our own rewrite, on our lease, is no takeover.
        QVERIFY(!QTest::qWaitFor([&] { return !a.isLeader(); }, 500));
        QCOMPARE(a.connectionState(), ConnectionState::Connected);
        a.close();
    }
};

QTEST_GUILESS_MAIN(tst_LeaderSelector)
#include "tst_leaderselector.moc"
