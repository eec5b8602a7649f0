// SPDX-License-Identifier: Apache-2.0
// The recogniser against layouts written by the real tools: etcdctl lock and elect, and the
// qetcd CLI for every recipe it offers (the read/write lock and the work queue, which the CLI
// does not offer, through the library). Each fixture starts the processes one at a time,
// notes which key each one added, and asserts the recognised object exactly: holder, waiters
// in order, leader, candidates, counts. `qetcd inspect --json` is run as a real process.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationmonitor.h>
#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/distributedreadwritelock.h>
#include <QEtcd/distributedworkqueue.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtCore/QSet>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <memory>
#include <tuple>

using namespace QEtcd;
using namespace QEtcd::Testing;
using Kind = CoordinationObject::Kind;

namespace {
// etcdctl, with the v3 API, its output collected as it comes.
class Etcdctl
{
public:
    Etcdctl(const QString &endpoint, const QStringList &arguments)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const QString &name : environment.keys()) {
            if (name.startsWith(QLatin1String("ETCDCTL_")))
                environment.remove(name);
        }
        environment.insert(QStringLiteral("ETCDCTL_API"), QStringLiteral("3"));
        m_process.setProcessEnvironment(environment);
        m_process.start(QStringLiteral("etcdctl"), QStringList{QStringLiteral("--endpoints"), endpoint} + arguments);
    }
    ~Etcdctl()
    {
        m_process.kill();
        m_process.waitForFinished();
    }
    Q_DISABLE_COPY_MOVE(Etcdctl)
    QByteArray output() { return m_out += m_process.readAllStandardOutput(); }

private:
    QProcess m_process;
    QByteArray m_out;
};

QStringList keysOf(const QList<CoordinationEntry> &entries)
{
    QStringList keys;
    for (const CoordinationEntry &entry : entries)
        keys.append(QString::fromUtf8(entry.key));
    return keys;
}

QStringList valuesOf(const QList<CoordinationEntry> &entries)
{
    QStringList values;
    for (const CoordinationEntry &entry : entries)
        values.append(QString::fromUtf8(entry.value));
    return values;
}

QStringList namesOf(const QList<CoordinationEntry> &entries)
{
    QStringList names;
    for (const CoordinationEntry &entry : entries)
        names.append(entry.name);
    return names;
}
} // namespace

class tst_CoordinationFixtures : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }
    std::unique_ptr<Etcdctl> etcdctl(const QStringList &arguments)
    {
        return std::make_unique<Etcdctl>(m_cluster.clientUrl(0), arguments);
    }

    QList<KeyValue> read(const QByteArray &prefix) { return keysWithPrefix(m_client.get(), prefix); }
    QSet<QByteArray> keys(const QByteArray &prefix)
    {
        QSet<QByteArray> set;
        for (const KeyValue &kv : read(prefix))
            set.insert(kv.key);
        return set;
    }
    QList<CoordinationObject> recognise(const QByteArray &prefix)
    {
        return CoordinationRecogniser::recognise(read(prefix));
    }
    // Runs start(), waits until one more key is under prefix than before, and returns it.
    QByteArray keyAddedBy(const QByteArray &prefix, const std::function<void()> &start)
    {
        const QSet<QByteArray> before = keys(prefix);
        start();
        QSet<QByteArray> after;
        const bool grew = QTest::qWaitFor([&] {
            after = keys(prefix);
            return after.size() > before.size();
        }, int(scaledMs(15000)));
        after.subtract(before);
        if (!grew)
            qWarning() << "no new key under" << prefix << "within the wait";
        if (after.size() != 1) {
            qWarning() << "expected one new key under" << prefix << "got" << after;
            return {};
        }
        return *after.begin();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    void etcdctlLock()
    {
        std::vector<std::unique_ptr<Etcdctl>> tools;
        QList<QByteArray> order;
        for (int i = 0; i < 3; ++i) {
            order.append(keyAddedBy("/fx/lock/", [&] { tools.push_back(etcdctl({"lock", "/fx/lock"})); }));
            QVERIFY(!order.last().isEmpty());
        }
        // The first prints its key once it holds the lock.
        QTRY_VERIFY_WITH_TIMEOUT(tools[0]->output().startsWith(order[0]), scaledMs(15000));

        const QList<CoordinationObject> objects = recognise("/fx/lock");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &lock = objects.first();
        QCOMPARE(lock.kind, Kind::Lock);
        QCOMPARE(lock.path, QByteArray("/fx/lock"));
        QCOMPARE(keysOf(lock.holders), QStringList{QString::fromUtf8(order[0])});
        QCOMPARE(keysOf(lock.waiters), (QStringList{QString::fromUtf8(order[1]), QString::fromUtf8(order[2])}));
        // etcdctl names nobody: each entry is known by its lease, and the key ends in it.
        QVERIFY(lock.holders.first().name.isEmpty());
        QVERIFY(lock.holders.first().displayName().startsWith(QLatin1String("lease ")));
        QVERIFY(order[0].endsWith(QByteArray::number(lock.holders.first().lease, 16)));
        QCOMPARE(lock.toJson(0).value("fencing_token").toInteger(), lock.holders.first().createRevision);
    }

    void etcdctlElect()
    {
        std::vector<std::unique_ptr<Etcdctl>> tools;
        for (const char *proposal : {"alpha", "beta", "gamma"}) {
            QVERIFY(!keyAddedBy("/fx/elect/", [&] { tools.push_back(etcdctl({"elect", "/fx/elect", proposal})); })
                         .isEmpty());
        }
        QTRY_VERIFY_WITH_TIMEOUT(tools[0]->output().contains("alpha"), scaledMs(15000));

        const QList<CoordinationObject> objects = recognise("/fx/elect");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &election = objects.first();
        QCOMPARE(election.kind, Kind::Election);
        QCOMPARE(valuesOf(election.holders), QStringList{"alpha"});
        QCOMPARE(valuesOf(election.waiters), (QStringList{"beta", "gamma"}));
        const QJsonObject json = election.toJson(0);
        QCOMPARE(json.value("proclamation").toString(), QStringLiteral("alpha"));
        QCOMPARE(json.value("candidates").toArray().size(), 2);
    }

    // etcd's server-side recipes, the v3lock and v3election gRPC services, through the JSON
    // gateway etcd serves beside them: a holder and two waiters, a leader and two candidates.
    // Waiting requests stay open in etcd until their lease is revoked at the end.
    void v3lockAndV3electionServices()
    {
        QNetworkAccessManager http;
        std::vector<std::unique_ptr<QNetworkReply>> calls;
        QList<qint64> leases;
        const auto call = [&](const QString &service, QJsonObject body) {
            LeaseGrantResult lease;
            QETCD_AWAIT(m_client->leaseGrant(60), lease);
            leases.append(lease.id);
            body.insert(QStringLiteral("lease"), QString::number(lease.id));
            QNetworkRequest request(QUrl(m_cluster.clientUrl(0) + QStringLiteral("/v3/") + service));
            request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
            calls.emplace_back(http.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact)));
        };
        const auto base64 = [](const QByteArray &bytes) { return QString::fromLatin1(bytes.toBase64()); };
        QList<QByteArray> lockOrder;
        for (int i = 0; i < 3; ++i) {
            lockOrder.append(keyAddedBy("/fx/v3lock/", [&] {
                call(QStringLiteral("lock/lock"), {{QStringLiteral("name"), base64("/fx/v3lock")}});
            }));
            QVERIFY(!lockOrder.last().isEmpty());
        }
        for (const char *proposal : {"alpha", "beta", "gamma"}) {
            QVERIFY(!keyAddedBy("/fx/v3elect/", [&] {
                         call(QStringLiteral("election/campaign"),
                              {{QStringLiteral("name"), base64("/fx/v3elect")}, {QStringLiteral("value"), base64(proposal)}});
                     }).isEmpty());
        }
        // The holder's and the leader's calls are answered; the others wait inside etcd.
        QTRY_VERIFY_WITH_TIMEOUT(calls[0]->isFinished() && calls[3]->isFinished(), scaledMs(15000));
        QCOMPARE(calls[0]->error(), QNetworkReply::NoError);
        QCOMPARE(QJsonDocument::fromJson(calls[0]->readAll()).object().value("key").toString(), base64(lockOrder[0]));
        QVERIFY(!calls[1]->isFinished());

        const QList<CoordinationObject> locks = recognise("/fx/v3lock");
        QCOMPARE(locks.size(), 1);
        QCOMPARE(locks[0].kind, Kind::Lock);
        QCOMPARE(keysOf(locks[0].holders), QStringList{QString::fromUtf8(lockOrder[0])});
        QCOMPARE(keysOf(locks[0].waiters), (QStringList{QString::fromUtf8(lockOrder[1]), QString::fromUtf8(lockOrder[2])}));
        QCOMPARE(locks[0].holders.first().lease, leases[0]);

        const QList<CoordinationObject> elections = recognise("/fx/v3elect");
        QCOMPARE(elections.size(), 1);
        QCOMPARE(elections[0].kind, Kind::Election);
        QCOMPARE(valuesOf(elections[0].holders), QStringList{"alpha"});
        QCOMPARE(valuesOf(elections[0].waiters), (QStringList{"beta", "gamma"}));

        for (qint64 lease : std::as_const(leases)) {
            Result revoked;
            QETCD_AWAIT(m_client->leaseRevoke(lease), revoked);
        }
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(calls.cbegin(), calls.cend(), [](const auto &reply) { return reply->isFinished(); }),
                                 scaledMs(15000));
    }

    // qetcd's lock names its holder and waiters, and etcdctl queues in the same line.
    void qetcdLockWithEtcdctlWaiter()
    {
        auto holder = qetcd({"lock", "/fx/ql", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("acquired"), holder->transcript().constData(), scaledMs(15000));
        std::unique_ptr<Etcdctl> theirs;
        const QByteArray theirKey = keyAddedBy("/fx/ql/", [&] { theirs = etcdctl({"lock", "/fx/ql"}); });
        std::unique_ptr<Qetcd> waiter;
        const QByteArray waiterKey = keyAddedBy("/fx/ql/", [&] { waiter = qetcd({"lock", "/fx/ql"}); });

        const QList<CoordinationObject> objects = recognise("/fx/ql");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &lock = objects.first();
        QCOMPARE(lock.kind, Kind::Lock);
        const QJsonObject acquired = holder->event("acquired");
        QCOMPARE(keysOf(lock.holders), QStringList{acquired.value("key").toString()});
        const CoordinationEntry &held = lock.holders.first();
        QCOMPARE(held.createRevision, acquired.value("fencing_token").toInteger());
        QCOMPARE(held.pid, holder->pid());
        QCOMPARE(held.host, QSysInfo::machineHostName());
        QVERIFY(held.name.contains(QString::number(holder->pid())));
        QVERIFY(held.sinceMs > 0);
        QCOMPARE(keysOf(lock.waiters), (QStringList{QString::fromUtf8(theirKey), QString::fromUtf8(waiterKey)}));
        QVERIFY(lock.waiters[0].name.isEmpty());
        QCOMPARE(lock.waiters[1].pid, waiter->pid());
    }

    void qetcdSemaphore()
    {
        std::vector<std::unique_ptr<Qetcd>> tools;
        QList<QByteArray> order;
        for (int i = 0; i < 4; ++i) {
            order.append(keyAddedBy("/fx/sem/holders/", [&] {
                tools.push_back(qetcd({"semaphore", "/fx/sem", "--permits", "2", "--hold", "60s"}));
            }));
            QVERIFY(!order.last().isEmpty());
        }
        QTRY_VERIFY_WITH_TIMEOUT(tools[1]->has("acquired"), scaledMs(15000));

        const QList<CoordinationObject> objects = recognise("/fx/sem");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &semaphore = objects.first();
        QCOMPARE(semaphore.kind, Kind::Semaphore);
        QCOMPARE(semaphore.permits, 2);
        QCOMPARE(keysOf(semaphore.holders), (QStringList{QString::fromUtf8(order[0]), QString::fromUtf8(order[1])}));
        QCOMPARE(keysOf(semaphore.waiters), (QStringList{QString::fromUtf8(order[2]), QString::fromUtf8(order[3])}));
        for (int i = 0; i < 4; ++i)
            QVERIFY(namesOf(semaphore.holders + semaphore.waiters)[i].contains(QString::number(tools[i]->pid())));
    }

    void qetcdElect()
    {
        std::vector<std::unique_ptr<Qetcd>> tools;
        for (const char *proposal : {"10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80"}) {
            tools.push_back(qetcd({"elect", "/fx/qe", proposal, "--hold", "60s"}));
            QTRY_VERIFY2_WITH_TIMEOUT(tools.back()->has("campaigning"), tools.back()->transcript().constData(),
                                      scaledMs(15000));
        }
        QTRY_VERIFY_WITH_TIMEOUT(tools[0]->has("elected"), scaledMs(15000));

        const QList<CoordinationObject> objects = recognise("/fx/qe");
        QCOMPARE(objects.size(), 1);
        const CoordinationObject &election = objects.first();
        QCOMPARE(election.kind, Kind::Election);
        QCOMPARE(valuesOf(election.holders), QStringList{"10.0.0.1:80"});
        QCOMPARE(election.holders.first().createRevision, tools[0]->event("elected").value("fencing_token").toInteger());
        QCOMPARE(valuesOf(election.waiters), (QStringList{"10.0.0.2:80", "10.0.0.3:80"}));
    }

    void qetcdBarriers()
    {
        auto owner = qetcd({"barrier", "hold", "/fb/gate", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(owner->has("barrierSet"), owner->transcript().constData(), scaledMs(15000));
        std::vector<std::unique_ptr<Qetcd>> counted;
        for (int i = 0; i < 2; ++i) {
            counted.push_back(qetcd({"barrier", "count", "/fb/meet", "--members", "3"}));
            QTRY_VERIFY_WITH_TIMEOUT(keys("/fb/meet/waiting/").size() == i + 1, scaledMs(15000));
        }
        std::vector<std::unique_ptr<Qetcd>> entering;
        for (int i = 0; i < 2; ++i) {
            entering.push_back(qetcd({"double-barrier", "/fb/dbl", "--members", "3"}));
            QTRY_VERIFY_WITH_TIMEOUT(keys("/fb/dbl/enter/waiting/").size() == i + 1, scaledMs(15000));
        }

        const QList<CoordinationObject> objects = recognise("/fb/");
        QCOMPARE(objects.size(), 3);
        const CoordinationObject &doubleBarrier = objects[0];
        QCOMPARE(doubleBarrier.kind, Kind::DoubleBarrier);
        QCOMPARE(doubleBarrier.path, QByteArray("/fb/dbl"));
        QCOMPARE(doubleBarrier.members.size(), 2);
        QCOMPARE(doubleBarrier.leaving.size(), 0);
        const CoordinationObject &gate = objects[1];
        QCOMPARE(gate.kind, Kind::Barrier);
        QCOMPARE(gate.path, QByteArray("/fb/gate"));
        QVERIFY(gate.set);
        QCOMPARE(gate.holders.size(), 1);
        QVERIFY(gate.holders.first().name.contains(QString::number(owner->pid())));
        // The owner's lease, alive.
        LeaseTimeToLiveResult ownerLease;
        QETCD_AWAIT(m_client->leaseTimeToLive(gate.holders.first().lease), ownerLease);
        QVERIFY(ownerLease.ttl > 0);
        const CoordinationObject &meet = objects[2];
        QCOMPARE(meet.kind, Kind::CountedBarrier);
        QCOMPARE(meet.path, QByteArray("/fb/meet"));
        QVERIFY(meet.set);
        QCOMPARE(meet.members.size(), 2);
        QVERIFY(meet.members[0].name.contains(QString::number(counted[0]->pid())));
        QVERIFY(meet.members[1].name.contains(QString::number(counted[1]->pid())));
    }

    void qetcdServiceCounterQueues()
    {
        std::vector<std::unique_ptr<Qetcd>> instances;
        for (const char *port : {"8080", "8081"}) {
            instances.push_back(qetcd({"service", "register", "web", "--service-path", "/fr/svc", "--address",
                                       "10.0.0.7", "--port", port, "--hold", "60s"}));
            QTRY_VERIFY2_WITH_TIMEOUT(instances.back()->has("registered"), instances.back()->transcript().constData(),
                                      scaledMs(15000));
        }
        auto counter = qetcd({"counter", "/fr/count", "add", "42"});
        QCOMPARE(counter->waitForExit(), 0);
        for (const char *value : {"one", "two", "three"}) {
            auto put = qetcd({"queue", "put", "/fr/q", value});
            QCOMPARE(put->waitForExit(), 0);
        }
        for (const char *priority : {"1", "1", "7"}) {
            auto put = qetcd({"queue", "put", "/fr/pq", "job", "--priority", priority});
            QCOMPARE(put->waitForExit(), 0);
        }
        // A transient key is no coordination object.
        auto transient = qetcd({"lease", "keep", "/fr/plain", "v", "--hold", "60s"});
        QTRY_VERIFY_WITH_TIMEOUT(transient->has("established"), scaledMs(15000));

        const QList<CoordinationObject> objects = recognise("/fr/");
        QCOMPARE(objects.size(), 4);
        QCOMPARE(objects[0].kind, Kind::Counter);
        QCOMPARE(objects[0].value, 42);
        QCOMPARE(objects[1].kind, Kind::PriorityQueue);
        QCOMPARE(objects[1].path, QByteArray("/fr/pq"));
        QCOMPARE(objects[1].depth, 3);
        QCOMPARE(objects[1].depthByPriority, (QMap<int, qint64>{{1, 2}, {7, 1}}));
        QCOMPARE(objects[2].kind, Kind::Queue);
        QCOMPARE(objects[2].path, QByteArray("/fr/q"));
        QCOMPARE(objects[2].depth, 3);
        QVERIFY(objects[2].oldestMs > 0 && objects[2].oldestMs <= QDateTime::currentMSecsSinceEpoch());
        const CoordinationObject &service = objects[3];
        QCOMPARE(service.kind, Kind::Service);
        QCOMPARE(service.path, QByteArray("/fr/svc/names/web"));
        QCOMPARE(service.members.size(), 2);
        QSet<int> ports;
        for (const CoordinationEntry &instance : service.members)
            ports.insert(instance.toJson(0).value("value").toObject().value("port").toInt());
        QCOMPARE(ports, (QSet<int>{8080, 8081}));
    }

    // The two layouts the CLI does not offer, written by the library.
    void libraryReadWriteLockAndWorkQueue()
    {
        LockOptions options;
        options.clientId = QStringLiteral("writer");
        DistributedReadWriteLock writer(m_client.get(), "/fl/rw", options);
        QVERIFY(writer.writeLock().tryLock(std::chrono::seconds(10)));
        options.clientId = QStringLiteral("reader");
        DistributedReadWriteLock reader(m_client.get(), "/fl/rw", options);
        auto waiting = reader.readLock().lockAsync();
        QTRY_COMPARE_WITH_TIMEOUT(keys("/fl/rw/").size(), 2, scaledMs(15000));

        DistributedWorkQueue queue(m_client.get(), "/fl/wq");
        for (const char *value : {"a", "b", "c"})
            QVERIFY(awaitFuture(queue.enqueue(value)));
        WorkItem item;
        QETCD_AWAIT(queue.tryReceive(), item);
        QVERIFY2(item.status, qPrintable(item.status.message()));

        const QList<CoordinationObject> objects = recognise("/fl/");
        QCOMPARE(objects.size(), 2);
        const CoordinationObject &rw = objects[0];
        QCOMPARE(rw.kind, Kind::ReadWriteLock);
        QCOMPARE(namesOf(rw.holders), QStringList{"writer"});
        QCOMPARE(namesOf(rw.waiters), QStringList{"reader"});
        const CoordinationObject &work = objects[1];
        QCOMPARE(work.kind, Kind::WorkQueue);
        QCOMPARE(work.depth, 2);
        QCOMPARE(work.inFlight, 1);
        QCOMPARE(work.orphans, 0);
        QCOMPARE(work.deadLetters, 0);
        QCOMPARE(work.holders.size(), 1);
        QCOMPARE(work.holders.first().name, queue.clientId());
        writer.writeLock().unlock();
        QVERIFY(awaitFuture(waiting));
        reader.readLock().unlock();
    }

    void inspectJsonAsAProcess()
    {
        auto holder = qetcd({"lock", "/fx/in/lock", "--hold", "60s"});
        QTRY_VERIFY_WITH_TIMEOUT(holder->has("acquired"), scaledMs(15000));
        std::unique_ptr<Etcdctl> theirs;
        const QByteArray theirKey = keyAddedBy("/fx/in/lock/", [&] { theirs = etcdctl({"lock", "/fx/in/lock"}); });
        auto counter = qetcd({"counter", "/fx/in/count", "add", "7"});
        QCOMPARE(counter->waitForExit(), 0);

        auto inspect = qetcd({"inspect", "/fx/in/", "--json"});
        QCOMPARE(inspect->waitForExit(), 0);
        const QList<QJsonObject> lines = inspect->events();
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0].value("kind").toString(), QStringLiteral("counter"));
        QCOMPARE(lines[0].value("name").toString(), QStringLiteral("/fx/in/count"));
        QCOMPARE(lines[0].value("value").toInteger(), 7);
        const QJsonObject lock = lines[1];
        QCOMPARE(lock.value("kind").toString(), QStringLiteral("lock"));
        QCOMPARE(lock.value("name").toString(), QStringLiteral("/fx/in/lock"));
        const QJsonArray holders = lock.value("holders").toArray();
        QCOMPARE(holders.size(), 1);
        QCOMPARE(holders[0].toObject().value("key").toString(), holder->event("acquired").value("key").toString());
        QCOMPARE(holders[0].toObject().value("pid").toInteger(), holder->pid());
        QCOMPARE(lock.value("fencing_token").toInteger(), holder->event("acquired").value("fencing_token").toInteger());
        const QJsonArray waiters = lock.value("waiters").toArray();
        QCOMPARE(waiters.size(), 1);
        QCOMPARE(waiters[0].toObject().value("key").toString(), QString::fromUtf8(theirKey));

        // The table names the same objects.
        auto table = qetcd({"inspect", "/fx/in/"});
        QCOMPARE(table->waitForExit(), 0);
        const QList<QByteArray> rows = table->standardOutput().trimmed().split('\n');
        QCOMPARE(rows.size(), 3);
        QVERIFY(rows[0].startsWith("KIND"));
        QVERIFY2(rows[1].startsWith("counter") && rows[1].contains("value 7"), rows[1].constData());
        QVERIFY2(rows[2].startsWith("lock") && rows[2].contains(QByteArray::number(holder->pid())), rows[2].constData());
    }

    // Patroni's layout, written by this test through QEtcd::Client as Patroni 3's etcd3 backend
    // writes it (its keys, values and one lease per member): running Patroni itself needs
    // PostgreSQL, which the test machines do not have, so this is a fixture of the layout's facts.
    void patroniLayoutAsAPostgresCluster()
    {
        LeaseGrantResult lease0, lease1;
        QETCD_AWAIT(m_client->leaseGrant(30), lease0);
        QETCD_AWAIT(m_client->leaseGrant(30), lease1);
        QVERIFY(lease0.status && lease1.status);
        const QList<std::tuple<QByteArray, QByteArray, qint64>> written{
            {"/service/fxpg/config", R"({"ttl":30,"loop_wait":10,"retry_timeout":10})", 0},
            {"/service/fxpg/initialize", "7180215863218329633", 0},
            {"/service/fxpg/members/pg-0",
             R"({"conn_url":"postgres://10.0.0.1:5432/postgres","api_url":"http://10.0.0.1:8008/patroni","state":"running","role":"primary","version":"3.0.2","xlog_location":67108960,"timeline":1})",
             lease0.id},
            {"/service/fxpg/members/pg-1",
             R"({"conn_url":"postgres://10.0.0.2:5432/postgres","api_url":"http://10.0.0.2:8008/patroni","state":"streaming","role":"replica","version":"3.0.2","timeline":1})",
             lease1.id},
            {"/service/fxpg/leader", "pg-0", lease0.id},
            {"/service/fxpg/optime/leader", "67108960", 0},
            {"/service/fxpg/status", R"({"optime":67108960,"slots":{"pg_1":67108960}})", 0},
            {"/service/fxpg/history", "[[1,67108960,\"no recovery target specified\"]]", 0},
        };
        for (const auto &[key, value, lease] : written) {
            PutOptions options;
            options.lease = lease;
            PutResult put;
            QETCD_AWAIT(m_client->put(key, value, options), put);
            QVERIFY2(put.status, qPrintable(put.status.toString()));
        }

        auto inspect = qetcd({"inspect", "/service/fxpg/", "--json"});
        QCOMPARE(inspect->waitForExit(), 0);
        const QList<QJsonObject> lines = inspect->events();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0].value("kind").toString(), QStringLiteral("postgresCluster"));
        QCOMPARE(lines[0].value("name").toString(), QStringLiteral("/service/fxpg"));
        QCOMPARE(lines[0].value("rule").toString(), QStringLiteral("Patroni"));
        const QJsonObject leader = lines[0].value("leader").toObject();
        QCOMPARE(leader.value("name").toString(), QStringLiteral("pg-0"));
        QCOMPARE(leader.value("key").toString(), QStringLiteral("/service/fxpg/leader"));
        QCOMPARE(leader.value("lease_id").toString(), QString::number(quint64(lease0.id), 16).rightJustified(16, '0'));
        const QJsonArray members = lines[0].value("members").toArray();
        QCOMPARE(members.size(), 2);
        QCOMPARE(members[0].toObject().value("name").toString(), QStringLiteral("pg-0"));
        QCOMPARE(members[0].toObject().value("role").toString(), QStringLiteral("primary"));
        QCOMPARE(members[0].toObject().value("state").toString(), QStringLiteral("running"));
        QCOMPARE(members[1].toObject().value("name").toString(), QStringLiteral("pg-1"));
        QCOMPARE(members[1].toObject().value("role").toString(), QStringLiteral("replica"));
        QCOMPARE(members[1].toObject().value("state").toString(), QStringLiteral("streaming"));

        auto table = qetcd({"inspect", "/service/fxpg/"});
        QCOMPARE(table->waitForExit(), 0);
        const QList<QByteArray> rows = table->standardOutput().trimmed().split('\n');
        QCOMPARE(rows.size(), 2);
        QVERIFY2(rows[1].startsWith("postgresCluster") && rows[1].contains("pg-0")
                     && rows[1].contains("2 members: pg-0 (primary, running), pg-1 (replica, streaming)"),
                 rows[1].constData());

        // The leader's lease ends (Patroni's primary is gone): its leader key and member go.
        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease0.id), revoked);
        QVERIFY(revoked.status);
        const QList<CoordinationObject> after = recognise("/service/fxpg/");
        QCOMPARE(after.size(), 1);
        QCOMPARE(after[0].kind, Kind::PostgresCluster);
        QVERIFY(after[0].holders.isEmpty());
        QCOMPARE(namesOf(after[0].members), QStringList{"pg-1"});
        QETCD_AWAIT(m_client->leaseRevoke(lease1.id), revoked);
    }

    // An operator's layouts through `qetcd inspect --layouts FILE`: its rules come before the
    // built-in ones and name the objects they make; a wrong file is refused, saying where.
    void inspectWithDeclaredLayouts()
    {
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(60), lease);
        QVERIFY(lease.status);
        for (const auto &[key, value, leaseId] : QList<std::tuple<QByteArray, QByteArray, qint64>>{
                 {"/fx/dl/jobs/nightly", R"({"owner":"cron-2","pid":7})", lease.id},
                 {"/fx/dl/jobs/report/w1", R"({"owner":"worker-1"})", 0},
                 {"/fx/dl/jobs/report/w2", R"({"owner":"worker-2"})", 0},
                 {"/fx/dl/app/leader", "node-3", lease.id},
             }) {
            PutOptions options;
            options.lease = leaseId;
            PutResult put;
            QETCD_AWAIT(m_client->put(key, value, options), put);
            QVERIFY2(put.status, qPrintable(put.status.toString()));
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("layouts.json"));
        const auto writeFile = [&path](const QByteArray &contents) {
            QFile file(path);
            return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(contents) == contents.size();
        };
        QVERIFY(writeFile(QByteArrayList{
            R"({"layouts": [)",
            R"(  {"name": "cron jobs", "prefix": "/fx/dl/jobs/", "kind": "lock", "identity": "json", "field": "owner"},)",
            R"(  {"name": "app leader", "glob": "/fx/dl/app/leader", "kind": "leader-key", "identity": "value"})",
            R"(]})"}.join('\n')));

        auto inspect = qetcd({"inspect", "/fx/dl/", "--layouts", path, "--json"});
        QCOMPARE(inspect->waitForExit(), 0);
        const QList<QJsonObject> lines = inspect->events();
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0].value("kind").toString(), QStringLiteral("election"));
        QCOMPARE(lines[0].value("name").toString(), QStringLiteral("/fx/dl/app/leader"));
        QCOMPARE(lines[0].value("rule").toString(), QStringLiteral("app leader"));
        QCOMPARE(lines[0].value("leader").toObject().value("name").toString(), QStringLiteral("node-3"));
        QCOMPARE(lines[1].value("kind").toString(), QStringLiteral("lock"));
        QCOMPARE(lines[1].value("name").toString(), QStringLiteral("/fx/dl/jobs/nightly"));
        QCOMPARE(lines[1].value("rule").toString(), QStringLiteral("cron jobs"));
        QCOMPARE(lines[1].value("holders").toArray().at(0).toObject().value("name").toString(), QStringLiteral("cron-2"));
        QCOMPARE(lines[2].value("name").toString(), QStringLiteral("/fx/dl/jobs/report"));
        QCOMPARE(lines[2].value("holders").toArray().at(0).toObject().value("name").toString(), QStringLiteral("worker-1"));
        QCOMPARE(lines[2].value("waiters").toArray().at(0).toObject().value("name").toString(), QStringLiteral("worker-2"));

        // A file named but not there is an error, not a quiet fall back to the built-in layouts.
        auto builtIn = qetcd({"inspect", "/fx/dl/", "--layouts", dir.filePath(QStringLiteral("none.json")), "--json"});
        QCOMPARE(builtIn->waitForExit(), 128);
        QVERIFY2(builtIn->standardError().contains("none.json: cannot read the layouts: "),
                 builtIn->standardError().constData());

        QVERIFY(writeFile(QByteArrayList{
            R"({"layouts": [)",
            R"(  {"name": "cron jobs", "prefix": "/fx/dl/jobs/", "kind": "lock"},)",
            R"(  {"name": "app leader", "glob": "/fx/dl/app/leader", "kind": "mutex"})",
            R"(]})"}.join('\n')));
        auto refused = qetcd({"inspect", "/fx/dl/", "--layouts", path, "--json"});
        QCOMPARE(refused->waitForExit(), 128);
        const QString expected = QStringLiteral("qetcd inspect: %1: rule 2 (line 3): \"kind\": \"mutex\" is not one of lock, "
                                                "election, semaphore, barrier, service, queue, leader-key")
                                     .arg(path);
        QVERIFY2(QString::fromUtf8(refused->standardError()).contains(expected), refused->standardError().constData());
        QVERIFY(refused->events().isEmpty());

        Result revoked;
        QETCD_AWAIT(m_client->leaseRevoke(lease.id), revoked);
    }

    // 34 MB of plain values beside one counter: more than the client's 32 MiB receive limit in
    // one answer, so inspect must read in pages.
    void inspectListsAPrefixLargerThanTheReceiveLimit()
    {
        const QByteArray big(1000 * 1000, 'x');
        for (int i = 0; i < 34; ++i)
            QVERIFY(awaitFuture(m_client->put("/fx/big/plain/" + QByteArray::number(i), big)));
        auto counter = qetcd({"counter", "/fx/big/count", "add", "3"});
        QCOMPARE(counter->waitForExit(), 0);
        // Pages etcd's answer does not fit are asked again smaller: more than the default 5 s
        // when the machine is busy.
        auto inspect = qetcd({"inspect", "/fx/big/", "--json", "--command-timeout", "60s"});
        QVERIFY2(inspect->waitForExit() == 0, inspect->transcript().constData());
        const QList<QJsonObject> lines = inspect->events();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(lines[0].value("name").toString(), QStringLiteral("/fx/big/count"));
        QCOMPARE(lines[0].value("value").toInteger(), 3);
        DeleteOptions everything;
        everything.range = KeyRange::prefix();
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/fx/big/", everything), removed);
    }

    void inspectWatchFollowsChanges()
    {
        auto watch = qetcd({"inspect", "/fx/iw/", "--watch"});
        QTRY_VERIFY2_WITH_TIMEOUT(watch->has("established"), watch->transcript().constData(), scaledMs(15000));
        QCOMPARE(watch->event("established").value("count").toInt(), 0);

        auto holder = qetcd({"lock", "/fx/iw/l", "--hold", "60s"});
        QTRY_VERIFY2_WITH_TIMEOUT(watch->has("added"), watch->transcript().constData(), scaledMs(15000));
        QCOMPARE(watch->event("added").value("kind").toString(), QStringLiteral("lock"));
        std::unique_ptr<Etcdctl> theirs;
        const QByteArray theirKey = keyAddedBy("/fx/iw/l/", [&] { theirs = etcdctl({"lock", "/fx/iw/l"}); });
        QTRY_VERIFY2_WITH_TIMEOUT(watch->has("changed"), watch->transcript().constData(), scaledMs(15000));
        const QJsonArray waiters = watch->event("changed").value("waiters").toArray();
        QCOMPARE(waiters.size(), 1);
        // Seen arriving, so its wait time is known although etcdctl wrote none.
        QVERIFY(waiters[0].toObject().contains("since_ms"));

        holder->terminate();
        QCOMPARE(holder->waitForExit(), 0);
        theirs.reset();  // killed: its lease outlives it, so revoke by deleting the key
        QVERIFY(awaitFuture(m_client->remove(theirKey)));
        QTRY_VERIFY2_WITH_TIMEOUT(watch->has("removed"), watch->transcript().constData(), scaledMs(15000));
        watch->terminate();
        QCOMPARE(watch->waitForExit(), 0);
        QCOMPARE(watch->names().last(), QStringLiteral("closed"));
    }

    // The monitor the console's model stands on: one burst of changes, one notification.
    void monitorCoalescesABurst()
    {
        CoordinationMonitor monitor(m_client.get(), "/fx/burst/");
        monitor.setInterval(std::chrono::milliseconds(200));
        Status started;
        QETCD_AWAIT(monitor.start(), started);
        QVERIFY2(started, qPrintable(started.message()));
        QVERIFY(monitor.objects().isEmpty());
        QSignalSpy changed(&monitor, &CoordinationMonitor::objectsChanged);
        QByteArray eight(8, '\0');
        Txn burst;
        for (int i = 0; i < 50; ++i) {
            eight[7] = char(i + 1);
            burst.success.append(TxnOp::put("/fx/burst/c" + QByteArray::number(i), eight));
        }
        TxnResult written;
        QETCD_AWAIT(m_client->txn(burst), written);
        QVERIFY(written.succeeded);
        QTRY_COMPARE_WITH_TIMEOUT(monitor.objects().size(), 50, scaledMs(15000));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().first().value<QList<CoordinationObjectChange>>().size(), 50);
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationFixtures)
#include "tst_coordinationfixtures.moc"
