// SPDX-License-Identifier: Apache-2.0
// qetcd lock, elect and semaphore against a real etcd member: the binary is run as an operator
// would run it, next to etcdctl on the same names, its JSON lines are read as they arrive, and
// it is stopped with real signals.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtTest/QtTest>

#include <csignal>
#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CliLocks : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    // A lock's command prints its own lines between qetcd's.
    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments, QList<std::pair<QString, QString>>{},
                                       Printed::JsonAndPlainLines);
    }
    std::unique_ptr<ToolProcess> etcdctl(const QStringList &arguments)
    {
        const QStringList onOurMember{QStringLiteral("--endpoints"), m_cluster.clientUrl(0)};
        const QList<std::pair<QString, QString>> version3{{QStringLiteral("ETCDCTL_API"), QStringLiteral("3")}};
        return std::make_unique<ToolProcess>(QStringLiteral("etcdctl"), onOurMember + arguments, version3,
                                             Printed::JsonAndPlainLines);
    }

    // How many keys start with prefix: holders and waiters alike.
    int keysUnder(const QByteArray &prefix) { return Testing::keysUnder(m_client.get(), prefix); }

    // Someone else revokes the lease that `established` names: the command reports `loss`,
    // closes as failed and exits 1, leaving no key under `prefix`.
    void revokeAndExpectExit1(ToolProcess &run, const QString &established, const QString &loss,
                              const QStringList &names, const QByteArray &prefix)
    {
        QTRY_VERIFY2_WITH_TIMEOUT(run.has(established), run.transcript().constData(), scaledMs(15000));
        bool ok = false;
        const qint64 leaseId = text(run.event(established), "lease_id").toLongLong(&ok, 16);
        QVERIFY2(ok, run.transcript().constData());
        const QFuture<Result> revoked = m_client->leaseRevoke(leaseId);
        QVERIFY(awaitFuture(revoked) && revoked.result().status);
        QCOMPARE(run.waitForExit(), 1);
        QCOMPARE(run.outcomes(), names);
        QVERIFY(!text(run.event(loss), "cause_code").isEmpty());
        QCOMPARE(text(run.event("closed"), "reason"), QStringLiteral("failed"));
        QVERIFY2(run.standardError().startsWith("qetcd: "), run.standardError().constData());
        QCOMPARE(keysUnder(prefix), 0);
    }

    // `arguments` twice: the first establishes, the second queues behind it under prefix. An
    // operator then runs etcdctl `change` on the first one's key: the first reports `loss`
    // (its cause naming `what` happened to the key), closes as failed and exits 1, and the
    // second establishes. The loss is told as soon as the change, not left to the next renewal.
    void takeOverAndExpectExit1(const QStringList &arguments, const QString &established, const QString &loss,
                                const QStringList &names, const QByteArray &prefix, const QStringList &change,
                                const QString &what)
    {
        auto first = qetcd(arguments);
        QTRY_VERIFY2_WITH_TIMEOUT(first->has(established), first->transcript().constData(), scaledMs(15000));
        const QString key = text(first->event(established), "key");
        auto second = qetcd(arguments);
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(prefix), 2, scaledMs(15000));
        QVERIFY2(!second->has(established), second->transcript().constData());

        auto operatorsTool = etcdctl(change + QStringList{key} + (change.first() == "put" ? QStringList{"x"} : QStringList{}));
        QCOMPARE(operatorsTool->waitForExit(), 0);
        const qint64 changedAt = QDateTime::currentMSecsSinceEpoch();
        QTRY_VERIFY2_WITH_TIMEOUT(first->has(loss), first->transcript().constData(), scaledMs(15000));
        const qint64 toldAfterMs = QDateTime::currentMSecsSinceEpoch() - changedAt;
        QCOMPARE(first->waitForExit(), 1);
        QCOMPARE(first->outcomes(), names);
        QVERIFY2(text(first->event(loss), "cause").contains(what), first->transcript().constData());
        QCOMPARE(text(first->event(loss), "cause_code"), QStringLiteral("OwnershipLost"));
        QCOMPARE(text(first->event("leaseEvent"), "kind"), QStringLiteral("Failed"));
        QCOMPARE(text(first->event("closed"), "reason"), QStringLiteral("failed"));
        QVERIFY2(first->standardError().startsWith("qetcd: "), first->standardError().constData());
        // Not at the next renewal (--ttl 60: 20 s away), but as the change lands.
        QVERIFY2(toldAfterMs < scaledMs(3000), qPrintable(QString::number(toldAfterMs)));

        if (change.first() == "put") {  // the key stands on, and keeps the second out until it goes
            QVERIFY2(!second->has(established), second->transcript().constData());
            QVERIFY(awaitFuture(m_client->remove(key.toUtf8())));
        }
        QTRY_VERIFY2_WITH_TIMEOUT(second->has(established), second->transcript().constData(), scaledMs(15000));
        second->terminate();
        QCOMPARE(second->waitForExit(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(prefix), 0, scaledMs(5000));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    void secondLockWaitsForTheFirst()
    {
        auto first = qetcd({"lock", "/cl/a", "--hold", "30s"});
        QTRY_VERIFY2_WITH_TIMEOUT(first->has("acquired"), first->transcript().constData(), scaledMs(15000));
        const QJsonObject acquired = first->event("acquired");
        QVERIFY(text(acquired, "key").startsWith(QLatin1String("/cl/a/")));
        QVERIFY(integer(acquired, "fencing_token") > 0);
        QCOMPARE(text(acquired, "lease_id").size(), 16);

        auto second = qetcd({"lock", "/cl/a", "--hold", "1s"});
        // Queued behind the first: its key is there, and it has acquired nothing.
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/cl/a/"), 2, scaledMs(15000));
        QVERIFY2(second->outcomes().isEmpty(), second->transcript().constData());

        first->terminate();
        QCOMPARE(first->waitForExit(), 0);
        QCOMPARE(first->outcomes(), (QStringList{"acquired", "released", "closed"}));
        const QJsonObject released = first->event("released");
        QCOMPARE(integer(released, "fencing_token"), integer(acquired, "fencing_token"));
        QCOMPARE(text(first->event("closed"), "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(first->event("closed").value("revoked").toBool(), true);
        QVERIFY2(first->standardError().isEmpty(), first->standardError().constData());

        QTRY_VERIFY2_WITH_TIMEOUT(second->has("acquired"), second->transcript().constData(), scaledMs(15000));
        const QJsonObject next = second->event("acquired");
        QVERIFY(integer(next, "mono_ms") >= integer(released, "mono_ms"));
        QVERIFY(integer(next, "fencing_token") > integer(acquired, "fencing_token"));
        // --hold 1s then releases by itself.
        QCOMPARE(second->waitForExit(), 0);
        QCOMPARE(second->outcomes(), (QStringList{"acquired", "released", "closed"}));
        QCOMPARE(text(second->event("closed"), "reason"), QStringLiteral("hold"));
        QCOMPARE(keysUnder("/cl/a/"), 0);
    }

    void waiterStoppedBeforeItsTurnLeavesNoKey()
    {
        auto holder = qetcd({"lock", "/cl/w", "--hold", "30s"});
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("acquired"), holder->transcript().constData(), scaledMs(15000));
        auto waiter = qetcd({"lock", "/cl/w"});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/cl/w/"), 2, scaledMs(15000));
        waiter->terminate();
        QCOMPARE(waiter->waitForExit(), 5);  // interrupted: it never had the lock
        QCOMPARE(waiter->outcomes(), QStringList{"closed"});
        QCOMPARE(text(waiter->event("closed"), "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(keysUnder("/cl/w/"), 1);
        holder->terminate();
        QCOMPARE(holder->waitForExit(), 0);
        QCOMPARE(keysUnder("/cl/w/"), 0);
    }

    void lockExcludesEtcdctlLockAndIsExcludedByIt()
    {
        auto ours = qetcd({"lock", "/cl/i", "--hold", "30s"});
        QTRY_VERIFY2_WITH_TIMEOUT(ours->has("acquired"), ours->transcript().constData(), scaledMs(15000));
        auto theirs = etcdctl({"lock", "/cl/i"});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/cl/i/"), 2, scaledMs(15000));
        QVERIFY2(theirs->rawLines().isEmpty(), theirs->transcript().constData());
        ours->terminate();
        QCOMPARE(ours->waitForExit(), 0);
        // etcdctl prints its key once it holds the lock (and an empty line after it).
        QTRY_VERIFY2_WITH_TIMEOUT(!theirs->rawLines().isEmpty(), theirs->transcript().constData(), scaledMs(15000));
        const QByteArray theirKey = theirs->rawLines().first();
        QVERIFY2(theirKey.startsWith("/cl/i/") && theirKey != text(ours->event("acquired"), "key").toUtf8(),
                 theirKey.constData());

        // The other way round: ours queues behind etcdctl's hold.
        auto next = qetcd({"lock", "/cl/i", "--hold", "1s"});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/cl/i/"), 2, scaledMs(15000));
        QVERIFY2(next->outcomes().isEmpty(), next->transcript().constData());
        theirs->terminate();
        QCOMPARE(theirs->waitForExit(), 0);
        QTRY_VERIFY2_WITH_TIMEOUT(next->has("acquired"), next->transcript().constData(), scaledMs(15000));
        QCOMPARE(next->waitForExit(), 0);
        QCOMPARE(next->outcomes(), (QStringList{"acquired", "released", "closed"}));
    }

    void lockRunsACommandWithTheFencingToken()
    {
        auto run = qetcd({"lock", "/cl/c", "--", "sh", "-c", "echo token=$QETCD_FENCING_TOKEN key=$QETCD_LOCK_KEY"});
        QCOMPARE(run->waitForExit(), 0);
        QCOMPARE(run->outcomes(), (QStringList{"acquired", "released", "closed"}));
        const QJsonObject acquired = run->event("acquired");
        // The command's line comes between "acquired" and "released".
        const QList<QByteArray> lines = run->rawLines();
        QCOMPARE(run->plainLines(),
                 QList<QByteArray>{"token=" + QByteArray::number(integer(acquired, "fencing_token")) + " key="
                                   + text(acquired, "key").toUtf8()});
        QVERIFY(lines.indexOf(run->plainLines().first()) > 0);
        QVERIFY(lines.indexOf(run->plainLines().first()) < lines.size() - 2);
        QCOMPARE(text(run->event("closed"), "reason"), QStringLiteral("exited"));
        QCOMPARE(keysUnder("/cl/c/"), 0);

        // Its exit code is ours.
        auto failing = qetcd({"lock", "/cl/c", "--", "sh", "-c", "exit 3"});
        QCOMPARE(failing->waitForExit(), 3);
        QCOMPARE(failing->outcomes(), (QStringList{"acquired", "released", "closed"}));
    }

    void lostLockTerminatesTheCommand()
    {
        // The command prints its pid, then waits far longer than the test.
        auto run = qetcd({"lock", "/cl/l", "--ttl", "2", "--", "sh", "-c", "echo $$; exec sleep 300"});
        QTRY_COMPARE_WITH_TIMEOUT(run->plainLines().size(), 1, scaledMs(15000));
        const pid_t child = pid_t(run->plainLines().first().toLongLong());
        QVERIFY(child > 0);
        QCOMPARE(::kill(child, 0), 0);
        bool ok = false;
        const QString leaseText = text(run->event("acquired"), "lease_id");
        const qint64 leaseId = leaseText.toLongLong(&ok, 16);
        QVERIFY(ok);

        // Someone else revokes the hold's lease: the lock is lost while the command runs.
        const QFuture<Result> revoked = m_client->leaseRevoke(leaseId);
        QVERIFY(awaitFuture(revoked) && revoked.result().status);
        QCOMPARE(run->waitForExit(), 1);
        QCOMPARE(run->outcomes(), (QStringList{"acquired", "lockLost", "closed"}));
        QVERIFY(!text(run->event("lockLost"), "cause_code").isEmpty());
        // The hold's lease says what became of it, by name and kind.
        const QJsonObject expired = run->event("leaseEvent");
        QCOMPARE(text(expired, "kind"), QStringLiteral("Expired"));
        // Printed as "acquired" printed it, zero-padded to 16 digits (etcdctl's form).
        QCOMPARE(text(expired, "lease_id"), leaseText);
        QCOMPARE(text(expired, "lease"), QStringLiteral("hold /cl/l/") + QString::number(leaseId, 16));
        QCOMPARE(text(run->event("closed"), "reason"), QStringLiteral("failed"));
        QVERIFY2(run->standardError().startsWith("qetcd: "), run->standardError().constData());
        // sleep went with SIGTERM, and qetcd waited for it.
        QCOMPARE(::kill(child, 0), -1);
    }

    void secondCandidateWaitsAndTheObserverFollows()
    {
        auto observer = qetcd({"elect", "--observe", "/ce/a"});
        QTRY_VERIFY2_WITH_TIMEOUT(observer->has("established"), observer->transcript().constData(), scaledMs(15000));

        auto p1 = qetcd({"elect", "/ce/a", "p1"});
        QTRY_VERIFY2_WITH_TIMEOUT(p1->has("elected"), p1->transcript().constData(), scaledMs(15000));
        const QJsonObject elected = p1->event("elected");
        QCOMPARE(text(elected, "key"), text(p1->event("campaigning"), "key"));
        QVERIFY(integer(elected, "fencing_token") > 0);

        auto p2 = qetcd({"elect", "/ce/a", "p2"});
        QTRY_VERIFY2_WITH_TIMEOUT(p2->has("campaigning"), p2->transcript().constData(), scaledMs(15000));
        QTRY_VERIFY2_WITH_TIMEOUT(observer->has("leaderChanged"), observer->transcript().constData(), scaledMs(15000));
        QCOMPARE(text(observer->event("leaderChanged"), "value"), QStringLiteral("p1"));
        QCOMPARE(text(observer->event("leaderChanged"), "key"), text(elected, "key"));
        QCOMPARE(p2->outcomes(), QStringList{"campaigning"});

        p1->terminate();
        QCOMPARE(p1->waitForExit(), 0);
        QCOMPARE(p1->outcomes(), (QStringList{"campaigning", "elected", "resigned", "closed"}));
        QCOMPARE(p1->event("closed").value("revoked").toBool(), true);

        QTRY_VERIFY2_WITH_TIMEOUT(p2->has("elected"), p2->transcript().constData(), scaledMs(15000));
        QVERIFY(integer(p2->event("elected"), "mono_ms") >= integer(p1->event("resigned"), "mono_ms"));
        QTRY_VERIFY2_WITH_TIMEOUT(observer->has("leaderChanged", 1), observer->transcript().constData(),
                                  scaledMs(15000));
        QCOMPARE(text(observer->event("leaderChanged", 1), "value"), QStringLiteral("p2"));

        p2->terminate();
        QCOMPARE(p2->waitForExit(), 0);
        QTRY_VERIFY2_WITH_TIMEOUT(observer->has("leaderChanged", 2), observer->transcript().constData(),
                                  scaledMs(15000));
        QCOMPARE(observer->event("leaderChanged", 2).value("vacant").toBool(), true);
        observer->terminate();
        QCOMPARE(observer->waitForExit(), 0);
        QCOMPARE(observer->outcomes(),
                 (QStringList{"established", "leaderChanged", "leaderChanged", "leaderChanged", "closed"}));
    }

    void electionIsSharedWithEtcdctlElect()
    {
        auto theirs = etcdctl({"elect", "/ce/i", "e1"});
        // etcdctl prints the leader's key and value once elected.
        QTRY_COMPARE_WITH_TIMEOUT(theirs->rawLines().size(), 2, scaledMs(15000));
        QCOMPARE(theirs->rawLines().at(1), QByteArray("e1"));

        auto observer = qetcd({"elect", "--observe", "/ce/i"});
        QTRY_VERIFY2_WITH_TIMEOUT(observer->has("leaderChanged"), observer->transcript().constData(), scaledMs(15000));
        QCOMPARE(text(observer->event("leaderChanged"), "value"), QStringLiteral("e1"));
        QCOMPARE(text(observer->event("leaderChanged"), "key").toUtf8(), theirs->rawLines().at(0));

        auto ours = qetcd({"elect", "/ce/i", "q1"});
        QTRY_VERIFY2_WITH_TIMEOUT(ours->has("campaigning"), ours->transcript().constData(), scaledMs(15000));
        QCOMPARE(ours->outcomes(), QStringList{"campaigning"});
        theirs->terminate();
        QCOMPARE(theirs->waitForExit(), 0);
        QTRY_VERIFY2_WITH_TIMEOUT(ours->has("elected"), ours->transcript().constData(), scaledMs(15000));

        // The other way round: etcdctl queues behind our leadership.
        auto next = etcdctl({"elect", "/ce/i", "e2"});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/ce/i/"), 2, scaledMs(15000));
        QVERIFY2(next->rawLines().isEmpty(), next->transcript().constData());
        ours->terminate();
        QCOMPARE(ours->waitForExit(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(next->rawLines().size(), 2, scaledMs(15000));
        QCOMPARE(next->rawLines().at(1), QByteArray("e2"));
        QTRY_VERIFY2_WITH_TIMEOUT(observer->has("leaderChanged", 2), observer->transcript().constData(),
                                  scaledMs(15000));
        QCOMPARE(text(observer->event("leaderChanged", 1), "value"), QStringLiteral("q1"));
        QCOMPARE(text(observer->event("leaderChanged", 2), "value"), QStringLiteral("e2"));
        next->terminate();
        QCOMPARE(next->waitForExit(), 0);
    }

    void semaphoreAdmitsTwoAndQueuesTheThird()
    {
        auto s1 = qetcd({"semaphore", "/cs/s", "--permits", "2"});
        auto s2 = qetcd({"semaphore", "/cs/s", "--permits", "2"});
        QTRY_VERIFY2_WITH_TIMEOUT(s1->has("acquired"), s1->transcript().constData(), scaledMs(15000));
        QTRY_VERIFY2_WITH_TIMEOUT(s2->has("acquired"), s2->transcript().constData(), scaledMs(15000));
        QVERIFY(text(s1->event("acquired"), "key") != text(s2->event("acquired"), "key"));

        auto s3 = qetcd({"semaphore", "/cs/s", "--permits", "2", "--hold", "1s"});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/cs/s/holders/"), 3, scaledMs(15000));
        QVERIFY2(s3->outcomes().isEmpty(), s3->transcript().constData());

        s1->terminate();
        QCOMPARE(s1->waitForExit(), 0);
        QCOMPARE(s1->outcomes(), (QStringList{"acquired", "released", "closed"}));
        QTRY_VERIFY2_WITH_TIMEOUT(s3->has("acquired"), s3->transcript().constData(), scaledMs(15000));
        QVERIFY(integer(s3->event("acquired"), "mono_ms") >= integer(s1->event("released"), "mono_ms"));
        QCOMPARE(s3->waitForExit(), 0);
        QCOMPARE(s3->outcomes(), (QStringList{"acquired", "released", "closed"}));
        QCOMPARE(s2->outcomes(), QStringList{"acquired"});
        s2->terminate();
        QCOMPARE(s2->waitForExit(), 0);
        QCOMPARE(keysUnder("/cs/s/holders/"), 0);
    }

    void lostPermitExits1()
    {
        auto run = qetcd({"semaphore", "/cs/lost", "--permits", "1", "--ttl", "2"});
        revokeAndExpectExit1(*run, "acquired", "permitLost", {"acquired", "permitLost", "closed"}, "/cs/lost/holders/");
    }

    void lostLeadershipExits1()
    {
        auto run = qetcd({"elect", "/ce/lost", "p1", "--ttl", "2"});
        revokeAndExpectExit1(*run, "elected", "leadershipLost", {"campaigning", "elected", "leadershipLost", "closed"},
                             "/ce/lost/");
    }

    // An operator breaks a lock by deleting its key: the holder hears of it, and there are
    // never two believed holders.
    void aLockWhoseKeyIsDeletedIsLost()
    {
        takeOverAndExpectExit1({"lock", "/cl/taken", "--ttl", "60", "--hold", "60s"}, "acquired", "lockLost",
                               {"acquired", "lockLost", "closed"}, "/cl/taken/", {"del"},
                               "was deleted by another client");
    }

    void aLockWhoseKeyIsMovedOffItsLeaseIsLost()
    {
        takeOverAndExpectExit1({"lock", "/cl/moved", "--ttl", "60", "--hold", "60s"}, "acquired", "lockLost",
                               {"acquired", "lockLost", "closed"}, "/cl/moved/", {"put"}, "was moved to no lease");
    }

    void aPermitWhoseKeyIsDeletedIsLost()
    {
        takeOverAndExpectExit1({"semaphore", "/cs/taken", "--permits", "1", "--ttl", "60", "--hold", "60s"},
                               "acquired", "permitLost", {"acquired", "permitLost", "closed"}, "/cs/taken/holders/",
                               {"del"}, "was deleted by another client");
    }

    void aLeaderWhoseKeyIsDeletedLosesTheLeadership()
    {
        takeOverAndExpectExit1({"elect", "/ce/taken", "p1", "--ttl", "60"}, "elected", "leadershipLost",
                               {"campaigning", "elected", "leadershipLost", "closed"}, "/ce/taken/", {"del"},
                               "was deleted by another client");
    }

    void usageErrorsExit128()
    {
        const QList<QStringList> wrong = {
            {"semaphore", "/cs/u"},                                     // --permits missing
            {"semaphore", "/cs/u", "--permits", "0"},
            {"lock", "/cl/u", "--hold", "1s", "--", "true"},            // a hold and a command
            {"lock", "/cl/u", "--ttl", "0"},
            {"elect", "/ce/u"},                                         // PROPOSAL missing
            {"elect", "--observe", "/ce/u", "p"},
        };
        for (const QStringList &arguments : wrong) {
            auto run = qetcd(arguments);
            QCOMPARE(run->waitForExit(), 128);
            QVERIFY2(run->rawLines().isEmpty(), run->transcript().constData());
            const QByteArray err = run->standardError();
            QVERIFY2(err.startsWith("qetcd ") && err.count('\n') == 1, err.constData());
        }
        QCOMPARE(keysUnder("/cs/u"), 0);
        QCOMPARE(keysUnder("/cl/u"), 0);
    }
};

QTEST_GUILESS_MAIN(tst_CliLocks)
#include "tst_cli_locks.moc"
