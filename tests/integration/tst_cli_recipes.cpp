// SPDX-License-Identifier: Apache-2.0
// The recipe commands of qetcd (barrier, double-barrier, service, counter, queue) against a
// real etcd member: the binary runs as an operator would run it, several at once where the
// recipe is a meeting, its JSON lines are read as they arrive, and long-running ones are
// stopped with real signals.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"
#include "../common/recipefixture.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedqueue.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>

#include <tuple>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {
// How many processes meet at a barrier in the tests below.
constexpr int members = 5;

qint64 monoMs(const QJsonObject &object)
{
    return object.value(QLatin1String("mono_ms")).toInteger();
}
} // namespace

class tst_CliRecipes : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }
    std::vector<std::unique_ptr<Qetcd>> qetcds(int count, const QStringList &arguments)
    {
        std::vector<std::unique_ptr<Qetcd>> all;
        for (int i = 0; i < count; ++i)
            all.push_back(qetcd(arguments));
        return all;
    }
    // How many keys are under prefix; -1 when the read failed.
    qint64 keysUnder(const QByteArray &prefix)
    {
        RangeOptions options;
        options.range = KeyRange::prefix();
        options.countOnly = true;
        const auto future = m_client->get(prefix, options);
        return awaitFuture(future) && future.result().status ? future.result().count : -1;
    }
    // Runs a short command to its end: its exit code, stdout in *out.
    int runToEnd(const QStringList &arguments, QByteArray *out = nullptr, QByteArray *err = nullptr)
    {
        Qetcd run(m_cluster.clientUrl(0), arguments);
        const int code = run.waitForExit();
        if (out)
            *out = run.standardOutput();
        if (err)
            *err = run.standardError();
        return code;
    }

    // Another client deletes key, which run keeps: run prints told (OwnershipLost, naming the
    // delete) within milliseconds, not at its next renewal (--ttl 60: 20 s away), closes as
    // failed and exits 1, with the lines names; and nothing puts the key back.
    void expectRemovalToldAtOnce(Qetcd &run, const QByteArray &key, const QString &told, const QStringList &names)
    {
        const qint64 deletedAt = QDateTime::currentMSecsSinceEpoch();
        DeleteResult deleted;
        QETCD_AWAIT(m_client->remove(key), deleted);
        QCOMPARE(deleted.deleted, 1);
        QTRY_VERIFY2_WITH_TIMEOUT(run.has(told) || !run.isRunning(), run.transcript(), scaledMs(15000));
        const qint64 toldAfterMs = QDateTime::currentMSecsSinceEpoch() - deletedAt;
        QCOMPARE(run.waitForExit(), 1);
        QCOMPARE(run.names(), names);
        const QJsonObject event = run.event(told);
        QCOMPARE(event.value("revision").toInteger(), deleted.header.revision);
        QCOMPARE(text(event, "cause_code"), QStringLiteral("OwnershipLost"));
        QVERIFY2(text(event, "cause").contains("\"" + QString::fromUtf8(key) + "\" was deleted by another client"),
                 run.transcript());
        QCOMPARE(text(run.event("closed"), "reason"), QStringLiteral("failed"));
        QVERIFY2(run.standardError().startsWith("qetcd: "), run.standardError().constData());
        QVERIFY2(toldAfterMs < scaledMs(3000), qPrintable(QString::number(toldAfterMs)));
        QCOMPARE(keysUnder(key), 0);
        QVERIFY(!putWithin(m_client.get(), key, deleted.header.revision, scaledMs(2000)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void barrierWaitersLiftWhenTheHolderStops()
    {
        auto hold = qetcd({"barrier", "hold", "/cr/b1", "--ttl", "5"});
        QTRY_VERIFY_WITH_TIMEOUT(hold->has("barrierSet") || !hold->isRunning(), scaledMs(15000));
        QVERIFY2(hold->has("barrierSet"), hold->transcript());

        const auto waiters = qetcds(members, {"barrier", "wait", "/cr/b1"});
        for (const auto &waiter : waiters) {
            QTRY_VERIFY_WITH_TIMEOUT(waiter->has("waiting") || !waiter->isRunning(), scaledMs(15000));
            QCOMPARE(waiter->event("waiting").value("barrier_set").toBool(), true);
        }
        for (const auto &waiter : waiters)
            QVERIFY2(waiter->isRunning(), waiter->transcript());

        hold->terminate();
        QCOMPARE(hold->waitForExit(), 0);
        QCOMPARE(hold->names(), (QStringList{"barrierSet", "closed"}));
        QCOMPARE(text(hold->event("closed"), "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(hold->event("closed").value("removed").toBool(), true);

        for (const auto &waiter : waiters) {
            QCOMPARE(waiter->waitForExit(), 0);
            QCOMPARE(waiter->names(), (QStringList{"waiting", "barrierLifted"}));
            QCOMPARE(text(waiter->event("barrierLifted"), "reason"), QStringLiteral("removed"));
            QCOMPARE(text(waiter->event("barrierLifted"), "path"), QStringLiteral("/cr/b1"));
        }
    }

    void barrierWaitTimesOutOnAHeldBarrier()
    {
        auto hold = qetcd({"barrier", "hold", "/cr/b2"});
        QTRY_VERIFY_WITH_TIMEOUT(hold->has("barrierSet") || !hold->isRunning(), scaledMs(15000));
        QVERIFY2(hold->has("barrierSet"), hold->transcript());

        QElapsedTimer timer;
        timer.start();
        Qetcd wait(m_cluster.clientUrl(0), {"barrier", "wait", "/cr/b2", "--timeout", "1s"});
        QCOMPARE(wait.waitForExit(), 1);
        QVERIFY2(timer.elapsed() >= 1000 && timer.elapsed() < scaledMs(1000) + 3000,
                 qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(wait.names(), (QStringList{"waiting", "timedOut"}));
        QVERIFY2(wait.standardError().startsWith("qetcd: "), wait.transcript());
        QCOMPARE(wait.standardError().count('\n'), 1);

        hold->terminate();
        QCOMPARE(hold->waitForExit(), 0);
    }

    void barrierWaitEndsOnSigterm()
    {
        auto wait = qetcd({"barrier", "wait", "/cr/b3"});
        QTRY_VERIFY_WITH_TIMEOUT(wait->has("waiting") || !wait->isRunning(), scaledMs(15000));
        QCOMPARE(wait->event("waiting").value("barrier_set").toBool(), false);
        wait->terminate();
        QCOMPARE(wait->waitForExit(), 5);
        QCOMPARE(wait->names(), (QStringList{"waiting", "closed"}));
        QCOMPARE(text(wait->event("closed"), "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(wait->standardError(), QByteArray("qetcd: interrupted by SIGTERM\n"));
    }

    void barrierWaitPassesAnUnsetBarrierWithNoWaitMissing()
    {
        QElapsedTimer timer;
        timer.start();
        QByteArray out;
        QCOMPARE(runToEnd({"barrier", "wait", "/cr/never-set", "--no-wait-missing"}, &out), 0);
        QVERIFY(timer.elapsed() < scaledMs(5000));
        const QList<QByteArray> lines = out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(QJsonDocument::fromJson(lines[1]).object().value("reason").toString(), QStringLiteral("not_set"));
    }

    void barrierCountReleasesAllMembers()
    {
        const auto all = qetcds(members, {"barrier", "count", "/cr/c1", "--members", QString::number(members),
                                          "--timeout", "30s"});
        for (const auto &member : all) {
            QCOMPARE(member->waitForExit(), 0);
            QCOMPARE(member->names(), (QStringList{"waiting", "arrived", "released"}));
            QCOMPARE(member->event("released").value("members").toInteger(), members);
        }
        // Nobody was released before the last one had arrived.
        qint64 lastArrival = 0;
        for (const auto &member : all)
            lastArrival = std::max(lastArrival, monoMs(member->event("waiting")));
        for (const auto &member : all)
            QVERIFY(monoMs(member->event("released")) >= lastArrival);
        QCOMPARE(keysUnder("/cr/c1/waiting/"), 0);
    }

    // A member's key is on a lease of --ttl, or of the CLI's default (10 s, as hold's), not the
    // library's 2 s: what the console's lease rings then show for a waiting member.
    void barrierCountMemberLeaseTakesTheTtl()
    {
        for (const auto &[path, ttl, expected] :
             {std::tuple{QByteArray("/cr/c3"), QStringList{"--ttl", "15"}, qint64(15)},
              std::tuple{QByteArray("/cr/c4"), QStringList(), qint64(10)}}) {
            Qetcd member(m_cluster.clientUrl(0),
                         QStringList{"barrier", "count", QString::fromUtf8(path), "--members", "2", "--timeout", "30s"} + ttl);
            QTRY_VERIFY_WITH_TIMEOUT(member.has("arrived"), scaledMs(15000));
            RangeOptions under;
            under.range = KeyRange::prefix();
            const auto waiting = m_client->get(path + "/waiting/", under);
            QVERIFY(awaitFuture(waiting));
            QCOMPARE(waiting.result().kvs.size(), 1);
            const auto lease = m_client->leaseTimeToLive(waiting.result().kvs.constFirst().lease);
            QVERIFY(awaitFuture(lease));
            QCOMPARE(lease.result().grantedTtl, expected);
            member.terminate();
            QCOMPARE(member.waitForExit(), 5);
        }
    }

    // A member ended by a signal takes its key with it before it exits, not when its lease
    // (a minute here) runs out: the next round must not count it.
    void barrierCountMemberEndedBySigtermLeavesNoKey()
    {
        for (int run = 0; run < 3; ++run) {
            const QString path = QStringLiteral("/cr/c5-%1").arg(run);
            Qetcd member(m_cluster.clientUrl(0), {"barrier", "count", path, "--members", "2", "--ttl", "60"});
            QTRY_VERIFY_WITH_TIMEOUT(member.has("arrived") || !member.isRunning(), scaledMs(15000));
            QVERIFY2(member.has("arrived"), member.transcript());
            QCOMPARE(keysUnder((path + QStringLiteral("/waiting/")).toUtf8()), 1);
            member.terminate();
            QCOMPARE(member.waitForExit(), 5);
            QCOMPARE(text(member.event("closed"), "reason"), QStringLiteral("SIGTERM"));
            QCOMPARE(keysUnder((path + QStringLiteral("/waiting/")).toUtf8()), 0);
        }
    }

    void barrierCountMemberThatTimedOutNoLongerCounts()
    {
        const QStringList count{"barrier", "count", "/cr/c2", "--members", QString::number(members)};
        Qetcd lone(m_cluster.clientUrl(0), count + QStringList{"--timeout", "1s"});
        QCOMPARE(lone.waitForExit(), 1);
        QCOMPARE(lone.names(), (QStringList{"waiting", "arrived", "timedOut"}));
        QCOMPARE(keysUnder("/cr/c2/waiting/"), 0);

        // One short of the count even though the lone member came before them.
        const auto early = qetcds(members - 1, count + QStringList{"--timeout", "30s"});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder("/cr/c2/waiting/"), members - 1, scaledMs(15000));
        for (const auto &member : early)
            QVERIFY2(member->isRunning() && !member->has("released"), member->transcript());

        auto last = qetcd(count + QStringList{"--timeout", "30s"});
        QCOMPARE(last->waitForExit(), 0);
        for (const auto &member : early) {
            QCOMPARE(member->waitForExit(), 0);
            QCOMPARE(member->names(), (QStringList{"waiting", "arrived", "released"}));
        }
        QCOMPARE(keysUnder("/cr/c2/waiting/"), 0);
    }

    void doubleBarrierRunsBothPhases()
    {
        const QStringList arguments{"double-barrier", "/cr/d1", "--members", QString::number(members), "--timeout", "30s"};
        auto worker = qetcd(arguments + QStringList{"--work", "200ms"});
        const auto others = qetcds(members - 1, arguments);
        std::vector<Qetcd *> all{worker.get()};
        for (const auto &other : others)
            all.push_back(other.get());
        for (Qetcd *member : all) {
            QCOMPARE(member->waitForExit(), 0);
            QCOMPARE(member->names(), (QStringList{"entering", "entered", "leaving", "left"}));
        }
        // Nobody entered before everyone was entering, nor left before everyone was leaving.
        qint64 lastEntering = 0;
        qint64 lastLeaving = 0;
        for (Qetcd *member : all) {
            lastEntering = std::max(lastEntering, monoMs(member->event("entering")));
            lastLeaving = std::max(lastLeaving, monoMs(member->event("leaving")));
        }
        for (Qetcd *member : all) {
            QVERIFY(monoMs(member->event("entered")) >= lastEntering);
            QVERIFY(monoMs(member->event("left")) >= lastLeaving);
            // The worker stayed 200 ms after entering; nobody left before it did.
            QVERIFY(monoMs(member->event("left")) >= monoMs(worker->event("entered")) + 200);
        }
    }

    void serviceRegisterShowsInList()
    {
        auto watch = qetcd({"service", "list", "web", "--watch", "--service-path", "/cr/svc"});
        QTRY_VERIFY_WITH_TIMEOUT(watch->has("established") || !watch->isRunning(), scaledMs(15000));
        QVERIFY2(watch->has("established"), watch->transcript());
        QCOMPARE(watch->event("established").value("count").toInt(), 0);

        auto reg = qetcd({"service", "register", "web", "--address", "10.0.0.7", "--port", "8080", "--service-path",
                          "/cr/svc"});
        QTRY_VERIFY_WITH_TIMEOUT(reg->has("registered") || !reg->isRunning(), scaledMs(15000));
        QVERIFY2(reg->has("registered"), reg->transcript());
        const QString id = text(reg->event("registered"), "id");
        QCOMPARE(id.size(), 7);
        QCOMPARE(text(reg->event("registered"), "key"), QStringLiteral("/cr/svc/names/web/") + id);

        QByteArray out;
        QCOMPARE(runToEnd({"service", "list", "web", "--service-path", "/cr/svc"}, &out), 0);
        const QList<QByteArray> lines = out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1);
        const QJsonObject listed = QJsonDocument::fromJson(lines[0]).object();
        QCOMPARE(text(listed, "id"), id);
        QCOMPARE(text(listed, "name"), QStringLiteral("web"));
        QCOMPARE(text(listed, "address"), QStringLiteral("10.0.0.7"));
        QCOMPARE(listed.value("port").toInt(), 8080);
        QCOMPARE(runToEnd({"service", "list", "--service-path", "/cr/svc"}, &out), 0);
        QCOMPARE(out, QByteArray("{\"name\":\"web\"}\n"));

        QTRY_VERIFY_WITH_TIMEOUT(watch->has("instanceAdded"), scaledMs(15000));
        QCOMPARE(text(watch->event("instanceAdded"), "id"), id);

        reg->terminate();
        QCOMPARE(reg->waitForExit(), 0);
        QCOMPARE(reg->names(), (QStringList{"registered", "closed"}));
        QCOMPARE(reg->event("closed").value("unregistered").toBool(), true);
        QTRY_VERIFY_WITH_TIMEOUT(watch->has("instanceRemoved"), scaledMs(15000));
        QCOMPARE(text(watch->event("instanceRemoved"), "key"), QStringLiteral("web/") + id);
        QCOMPARE(runToEnd({"service", "list", "web", "--service-path", "/cr/svc"}, &out), 0);
        QCOMPARE(out, QByteArray());

        watch->terminate();
        QCOMPARE(watch->waitForExit(), 0);
        QCOMPARE(watch->names(), (QStringList{"established", "instanceAdded", "instanceRemoved", "closed"}));
    }

    void counterAddsAndReads()
    {
        QByteArray out;
        QCOMPARE(runToEnd({"counter", "/cr/n", "add", "5"}, &out), 0);
        QCOMPARE(out, QByteArray("5\n"));
        QCOMPARE(runToEnd({"counter", "/cr/n", "add", "5"}, &out), 0);
        QCOMPARE(out, QByteArray("10\n"));
        QCOMPARE(runToEnd({"counter", "/cr/n", "get"}, &out), 0);
        QCOMPARE(out, QByteArray("10\n"));
        QCOMPARE(runToEnd({"--json", "counter", "/cr/n"}, &out), 0);
        QCOMPARE(out, QByteArray("{\"path\":\"/cr/n\",\"value\":10}\n"));
    }

    void counterPastSixtyFourBitsExits3AndWritesNothing()
    {
        QByteArray out;
        QByteArray err;
        QCOMPARE(runToEnd({"counter", "/cr/max", "set", "9223372036854775807", "--yes"}, &out), 0);
        QCOMPARE(runToEnd({"counter", "/cr/max", "add", "1"}, &out, &err), 3);
        QCOMPARE(out, QByteArray());
        QVERIFY2(err.startsWith("qetcd: ") && err.contains("adding 1 to 9223372036854775807") && err.contains("64-bit"),
                 err.constData());
        QCOMPARE(runToEnd({"counter", "/cr/max", "get"}, &out), 0);
        QCOMPARE(out, QByteArray("9223372036854775807\n"));
    }

    void counterRepeatPrintsEachCommittedValue()
    {
        QByteArray out;
        QCOMPARE(runToEnd({"counter", "/cr/r", "add", "3", "--repeat", "4"}, &out), 0);
        QCOMPARE(out, QByteArray("3\n6\n9\n12\n"));
        QCOMPARE(runToEnd({"--json", "counter", "/cr/r", "--repeat", "2", "add", "--", "-2"}, &out), 0);
        QCOMPARE(out, QByteArray("{\"path\":\"/cr/r\",\"value\":10}\n{\"path\":\"/cr/r\",\"value\":8}\n"));
    }

    void counterOnACorruptValueExits1()
    {
        PutResult corrupted;
        QETCD_AWAIT(m_client->put("/cr/corrupt", "abc"), corrupted);
        QCOMPARE(corrupted.status, Status());
        QByteArray out;
        QByteArray err;
        QCOMPARE(runToEnd({"counter", "/cr/corrupt", "add", "1"}, &out, &err), 1);
        QCOMPARE(out, QByteArray());
        QVERIFY2(err.startsWith("qetcd: ") && err.contains("3 bytes") && err.contains("8-byte"), err.constData());
        RangeResult untouched;
        QETCD_AWAIT(m_client->get("/cr/corrupt"), untouched);
        QCOMPARE(untouched.kvs.value(0).value, QByteArray("abc"));
    }

    // Someone moves the registration onto a lease of their own: that is theirs now, so the
    // command says so at once and exits 1 without deleting what is not its own.
    void serviceRegistrationTakenBySomeoneElseExits1()
    {
        auto reg = qetcd({"service", "register", "web", "--address", "10.0.0.8", "--port", "80", "--ttl", "2",
                          "--service-path", "/cr/taken"});
        QTRY_VERIFY_WITH_TIMEOUT(reg->has("registered") || !reg->isRunning(), scaledMs(15000));
        QVERIFY2(reg->has("registered"), reg->transcript());
        const QByteArray key = text(reg->event("registered"), "key").toUtf8();

        LeaseGrantResult theirs;
        QETCD_AWAIT(m_client->leaseGrant(60), theirs);
        QCOMPARE(theirs.status, Status());
        PutOptions onTheirLease;
        onTheirLease.lease = theirs.id;
        PutResult taken;
        QETCD_AWAIT(m_client->put(key, "someone else", onTheirLease), taken);
        QCOMPARE(taken.status, Status());

        QCOMPARE(reg->waitForExit(), 1);
        QCOMPARE(reg->names(), (QStringList{"registered", "registrationRemoved", "closed"}));
        QVERIFY2(text(reg->event("registrationRemoved"), "cause")
                     .contains(QStringLiteral("was moved to lease %1").arg(theirs.id, 0, 16)),
                 reg->transcript());
        QCOMPARE(text(reg->event("closed"), "reason"), QStringLiteral("failed"));
        QCOMPARE(reg->event("closed").value("unregistered").toBool(), false);
        QVERIFY2(reg->standardError().startsWith("qetcd: "), reg->standardError().constData());
        RangeResult left;
        QETCD_AWAIT(m_client->get(key), left);
        QCOMPARE(left.kvs.value(0).value, QByteArray("someone else"));
        Result cleaned;
        QETCD_AWAIT(m_client->leaseRevoke(theirs.id), cleaned);
    }

    // An operator deregisters an instance by deleting its key: "registrationRemoved" as the
    // delete lands, exit 1, and the instance is not registered again.
    void serviceDeregisteredByDeletingItsKeyExits1()
    {
        auto reg = qetcd({"service", "register", "web", "--address", "10.0.0.9", "--port", "80", "--ttl", "60",
                          "--hold", "60s", "--service-path", "/cr/deregistered"});
        QTRY_VERIFY_WITH_TIMEOUT(reg->has("registered") || !reg->isRunning(), scaledMs(15000));
        QVERIFY2(reg->has("registered"), reg->transcript());
        const QByteArray key = text(reg->event("registered"), "key").toUtf8();
        expectRemovalToldAtOnce(*reg, key, "registrationRemoved", {"registered", "registrationRemoved", "closed"});
        QCOMPARE(text(reg->event("registrationRemoved"), "key").toUtf8(), key);
        QCOMPARE(reg->event("closed").value("unregistered").toBool(), false);
    }

    // An operator lifts a held barrier by deleting its key: the holder says so as the delete
    // lands, exits 1, and does not set the barrier again.
    void barrierHoldLiftedByAnotherClientExits1()
    {
        auto hold = qetcd({"barrier", "hold", "/cr/lifted", "--ttl", "60", "--hold", "60s"});
        QTRY_VERIFY_WITH_TIMEOUT(hold->has("barrierSet") || !hold->isRunning(), scaledMs(15000));
        QVERIFY2(hold->has("barrierSet"), hold->transcript());
        expectRemovalToldAtOnce(*hold, "/cr/lifted", "liftedByOther", {"barrierSet", "liftedByOther", "closed"});
        QCOMPARE(text(hold->event("liftedByOther"), "path"), QStringLiteral("/cr/lifted"));
        QCOMPARE(hold->event("closed").value("removed").toBool(), false);
    }

    // The same for a key kept by lease keep.
    void leaseKeepWhoseKeyIsDeletedExits1()
    {
        auto keep = qetcd({"lease", "keep", "/cr/kept", "here", "--ttl", "60", "--hold", "60s"});
        QTRY_VERIFY_WITH_TIMEOUT(keep->has("established") || !keep->isRunning(), scaledMs(15000));
        QVERIFY2(keep->has("established"), keep->transcript());
        // Its one key gone for good, it is Lost.
        expectRemovalToldAtOnce(*keep, "/cr/kept", "removedByOther",
                                {"established", "removedByOther", "connectionState", "closed"});
        QCOMPARE(text(keep->event("connectionState"), "state"), QStringLiteral("Lost"));
        QCOMPARE(text(keep->event("removedByOther"), "key"), QStringLiteral("/cr/kept"));
        QCOMPARE(keep->event("closed").value("revoked").toBool(), false);
    }

    // The barrier's lease is revoked behind its holder's back: the hold heals onto a new
    // lease and the barrier is up again; stopped, it exits 0 and takes it down.
    void barrierHoldWhoseLeaseExpiresHeals()
    {
        auto hold = qetcd({"barrier", "hold", "/cr/healing", "--ttl", "2"});
        QTRY_VERIFY_WITH_TIMEOUT(hold->has("barrierSet") || !hold->isRunning(), scaledMs(15000));
        QVERIFY2(hold->has("barrierSet"), hold->transcript());
        RangeResult before;
        QETCD_AWAIT(m_client->get("/cr/healing"), before);
        QCOMPARE(before.kvs.size(), 1);
        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(before.kvs[0].lease), revoked);
        QCOMPARE(revoked.status, Status());

        const auto kinds = [&] {
            QStringList list;
            for (const QJsonObject &event : hold->events()) {
                if (text(event, "event") == "leaseEvent")
                    list.append(text(event, "kind"));
            }
            return list;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(kinds().contains("Restored") || !hold->isRunning(), hold->transcript(),
                                  scaledMs(15000));
        QCOMPARE(kinds(), (QStringList{"Expired", "Restored"}));
        RangeResult after;
        QETCD_AWAIT(m_client->get("/cr/healing"), after);
        QCOMPARE(after.kvs.size(), 1);
        QVERIFY(after.kvs[0].lease != before.kvs[0].lease);

        hold->terminate();
        QCOMPARE(hold->waitForExit(), 0);
        QCOMPARE(hold->event("closed").value("removed").toBool(), true);
        QCOMPARE(keysUnder("/cr/healing"), 0);
    }

    void queueTakesInPutOrder()
    {
        for (const char *value : {"first", "zweite", "тре́тий"}) {
            auto put = qetcd({"queue", "put", "/cr/q1", value});
            QCOMPARE(put->waitForExit(), 0);
            QCOMPARE(put->names(), QStringList{"put"});
            QCOMPARE(text(put->event("put"), "value"), QString::fromUtf8(value));
            QCOMPARE(text(put->event("put"), "path"), QStringLiteral("/cr/q1"));
        }
        auto take = qetcd({"queue", "take", "/cr/q1", "--count", "3"});
        QCOMPARE(take->waitForExit(), 0);
        QCOMPARE(take->names(), (QStringList{"waiting", "taken", "taken", "taken"}));
        QCOMPARE(take->event("waiting").value("count").toInteger(), 3);
        QStringList values;
        for (int nth = 0; nth < 3; ++nth) {
            const QJsonObject taken = take->event("taken", nth);
            values.append(text(taken, "value"));
            QVERIFY2(text(taken, "key").startsWith(QLatin1String("/cr/q1/")), take->transcript());
        }
        QCOMPARE(values, (QStringList{"first", "zweite", QString::fromUtf8("тре́тий")}));
        QCOMPARE(keysUnder("/cr/q1/"), 0);
    }

    void queueTakeWaitsForAPut()
    {
        auto take = qetcd({"queue", "take", "/cr/q2"});
        QTRY_VERIFY_WITH_TIMEOUT(take->has("waiting") || !take->isRunning(), scaledMs(15000));
        QVERIFY2(take->isRunning(), take->transcript());
        QCOMPARE(runToEnd({"queue", "put", "/cr/q2", "late"}), 0);
        QCOMPARE(take->waitForExit(), 0);
        QCOMPARE(take->names(), (QStringList{"waiting", "taken"}));
        QCOMPARE(text(take->event("taken"), "value"), QStringLiteral("late"));
    }

    void queueShowsBytesThatAreNotUtf8AsBase64()
    {
        DistributedQueue queue(m_client.get(), "/cr/q3");
        Status status;
        QETCD_AWAIT(queue.enqueue(QByteArray("\xff\x00\x01", 3)), status);
        QCOMPARE(status, Status());
        auto take = qetcd({"queue", "take", "/cr/q3"});
        QCOMPARE(take->waitForExit(), 0);
        const QJsonObject taken = take->event("taken");
        QVERIFY2(!taken.contains("value"), take->transcript());
        QCOMPARE(text(taken, "value_base64"), QStringLiteral("/wAB"));
    }

    void queueTakeTimesOutShortOfItsCount()
    {
        QCOMPARE(runToEnd({"queue", "put", "/cr/q4", "only"}), 0);
        QElapsedTimer timer;
        timer.start();
        auto take = qetcd({"queue", "take", "/cr/q4", "--count", "2", "--timeout", "1s"});
        QCOMPARE(take->waitForExit(), 1);
        QVERIFY2(timer.elapsed() >= 1000 && timer.elapsed() < scaledMs(1000) + 3000,
                 qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(take->names(), (QStringList{"waiting", "taken", "timedOut"}));
        QCOMPARE(take->event("timedOut").value("taken").toInteger(), 1);
        QCOMPARE(take->event("timedOut").value("count").toInteger(), 2);
        QCOMPARE(take->standardError(), QByteArray("qetcd: queue take \"/cr/q4\": took 1 of 2 before --timeout ran out\n"));
    }

    void queueTakeEndsOnSigterm()
    {
        auto take = qetcd({"queue", "take", "/cr/q5", "--count", "2"});
        QTRY_VERIFY_WITH_TIMEOUT(take->has("waiting") || !take->isRunning(), scaledMs(15000));
        QCOMPARE(runToEnd({"queue", "put", "/cr/q5", "one"}), 0);
        QTRY_VERIFY_WITH_TIMEOUT(take->has("taken") || !take->isRunning(), scaledMs(15000));
        QVERIFY2(take->isRunning(), take->transcript());
        take->terminate();
        QCOMPARE(take->waitForExit(), 5);
        QCOMPARE(take->names(), (QStringList{"waiting", "taken", "closed"}));
        QCOMPARE(text(take->event("closed"), "reason"), QStringLiteral("SIGTERM"));
        QCOMPARE(take->event("closed").value("taken").toInteger(), 1);
        QCOMPARE(take->standardError(), QByteArray("qetcd: interrupted by SIGTERM\n"));
        // The woken take left nothing behind that could swallow the next item.
        QCOMPARE(runToEnd({"queue", "put", "/cr/q5", "two"}), 0);
        QCOMPARE(keysUnder("/cr/q5/"), 1);
    }

    void queueByPriorityTakesTheLowestNumberFirst()
    {
        const QList<std::pair<const char *, const char *>> puts{{"7", "later"}, {"1", "urgent"}, {"7", "latest"}, {"3", "soon"}};
        for (const auto &[priority, value] : puts) {
            auto put = qetcd({"queue", "put", "/cr/pq", value, "--priority", priority});
            QCOMPARE(put->waitForExit(), 0);
            QCOMPARE(put->event("put").value("priority").toInteger(), QByteArray(priority).toInt());
        }
        auto take = qetcd({"queue", "take", "/cr/pq", "--by-priority", "--count", "4"});
        QCOMPARE(take->waitForExit(), 0);
        QStringList values;
        for (int nth = 0; nth < 4; ++nth)
            values.append(text(take->event("taken", nth), "value"));
        QCOMPARE(values, (QStringList{"urgent", "soon", "later", "latest"}));
        QVERIFY2(text(take->event("taken"), "key").startsWith(QLatin1String("/cr/pq/00001/")), take->transcript());
    }

    void helpNamesEachRecipeCommandsOptions_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("mentions");
        QTest::newRow("queue") << QStringList{"queue", "--help"}
                               << QStringList{"put NAME VALUE", "take NAME", "--priority", "--by-priority", "--count",
                                              "--timeout", "\"taken\"", "\"value_base64\"", "timedOut", "closed",
                                              "at most", "SIGTERM"};
        QTest::newRow("counter") << QStringList{"counter", "--help"} << QStringList{"--repeat", "compare-and-set"};
        QTest::newRow("overview") << QStringList{"--help"} << QStringList{"queue", "counter"};
        QTest::newRow("lock") << QStringList{"lock", "--help"}
                              << QStringList{"--ttl", "--hold", "COMMAND", "QETCD_FENCING_TOKEN", "\"acquired\"",
                                             "lockLost", "released", "closed", "exit 1"};
        QTest::newRow("semaphore") << QStringList{"semaphore", "--help"}
                                   << QStringList{"--permits", "--ttl", "--hold", "\"acquired\"", "permitLost",
                                                  "released", "closed"};
        QTest::newRow("elect") << QStringList{"elect", "--help"}
                               << QStringList{"PROPOSAL", "--observe", "--ttl", "campaigning", "elected",
                                              "leadershipLost", "resigned", "leaderChanged", "exit 1"};
        QTest::newRow("barrier") << QStringList{"barrier", "--help"}
                                 << QStringList{"hold NAME", "wait NAME", "count NAME", "--members", "--timeout",
                                                "--no-wait-missing", "barrierSet", "barrierLifted", "leaseEvent",
                                                "timedOut", "released", "liftedByOther"};
        QTest::newRow("double-barrier") << QStringList{"double-barrier", "--help"}
                                        << QStringList{"--members", "--work", "--timeout", "entering", "entered",
                                                       "leaving", "left", "timedOut"};
        QTest::newRow("service") << QStringList{"service", "--help"}
                                 << QStringList{"register NAME", "list [NAME]", "--address", "--port", "--watch",
                                                "registered", "leaseEvent", "watchRecovery", "instanceAdded",
                                                "someone took the key", "registrationRemoved"};
        QTest::newRow("overview of the coordination commands")
            << QStringList{"--help"}
            << QStringList{"lock", "semaphore", "elect", "barrier", "double-barrier", "service"};
    }

    void helpNamesEachRecipeCommandsOptions()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, mentions);
        QByteArray out;
        QCOMPARE(runToEnd(arguments, &out), 0);
        for (const QString &mention : mentions)
            QVERIFY2(out.contains(mention.toUtf8()), qPrintable(mention + QStringLiteral(" missing in:\n") + out));
    }

    void usageErrorsExit128_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("barrier unknown action") << QStringList{"barrier", "jump", "/x"};
        QTest::newRow("barrier no name") << QStringList{"barrier", "wait"};
        QTest::newRow("barrier count without members") << QStringList{"barrier", "count", "/x"};
        QTest::newRow("barrier bad timeout") << QStringList{"barrier", "wait", "/x", "--timeout", "soon"};
        QTest::newRow("barrier option of another action") << QStringList{"barrier", "wait", "/x", "--ttl", "5"};
        QTest::newRow("barrier bad ttl") << QStringList{"barrier", "hold", "/x", "--ttl", "0"};
        QTest::newRow("double-barrier bad members") << QStringList{"double-barrier", "/x", "--members", "0"};
        QTest::newRow("service register without port") << QStringList{"service", "register", "web", "--address", "a"};
        QTest::newRow("service bad port") << QStringList{"service", "register", "web", "--address", "a", "--port", "x"};
        QTest::newRow("service list --watch without name") << QStringList{"service", "list", "--watch"};
        QTest::newRow("counter unknown action") << QStringList{"counter", "/n", "sub", "1"};
        QTest::newRow("counter add without number") << QStringList{"counter", "/n", "add"};
        QTest::newRow("counter repeat on get") << QStringList{"counter", "/n", "get", "--repeat", "2"};
        QTest::newRow("counter bad repeat") << QStringList{"counter", "/n", "add", "1", "--repeat", "0"};
        QTest::newRow("queue unknown action") << QStringList{"queue", "peek", "/q"};
        QTest::newRow("queue put without value") << QStringList{"queue", "put", "/q"};
        QTest::newRow("queue take with value") << QStringList{"queue", "take", "/q", "v"};
        QTest::newRow("queue empty name") << QStringList{"queue", "take", ""};
        QTest::newRow("queue priority out of range") << QStringList{"queue", "put", "/q", "v", "--priority", "65536"};
        QTest::newRow("queue priority on take") << QStringList{"queue", "take", "/q", "--priority", "1"};
        QTest::newRow("queue by-priority on put") << QStringList{"queue", "put", "/q", "v", "--by-priority"};
        QTest::newRow("queue bad count") << QStringList{"queue", "take", "/q", "--count", "0"};
        QTest::newRow("queue bad timeout") << QStringList{"queue", "take", "/q", "--timeout", "soon"};
    }

    void usageErrorsExit128()
    {
        QFETCH(QStringList, arguments);
        QByteArray out;
        QByteArray err;
        QCOMPARE(runToEnd(arguments, &out, &err), 128);
        QCOMPARE(out, QByteArray());
        QVERIFY2(err.startsWith("qetcd ") && err.count('\n') == 1, err.constData());
    }
};

QTEST_MAIN(tst_CliRecipes)
#include "tst_cli_recipes.moc"
