// SPDX-License-Identifier: Apache-2.0
// The maintenance commands against real etcd: `check consistency`, `move-leader`, `defrag` and
// `snapshot save` on three members, and a NOSPACE alarm raised for real on a member with a tiny quota, refused
// under --read-only, then disarmed once space was freed. Each through the qetcd binary.
#include "../common/awaitfuture.h"
#include "../common/fillquota.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CliMaintenance : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_three;

    static std::unique_ptr<Qetcd> qetcd(const QStringList &endpoints, const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(endpoints.join(QLatin1Char(',')), arguments);
    }

    // A finished run's JSON lines; empty (and a warning) when it did not exit as expected.
    static QList<QJsonObject> run(const QStringList &endpoints, const QStringList &arguments, int expectedExit = 0)
    {
        auto process = qetcd(endpoints, QStringList{QStringLiteral("--json")} + arguments);
        if (const int exit = process->waitForExit(); exit != expectedExit) {
            qWarning() << arguments << "exited" << exit << process->standardError();
            return {};
        }
        return process->events();
    }

    // Which member leads, as every member of the client says; 0 while they disagree.
    static quint64 leaderOf(Client &client)
    {
        quint64 agreed = 0;
        for (const QString &endpoint : client.endpoints()) {
            const QFuture<EndpointStatusResult> status = client.endpointStatus(endpoint);
            if (!awaitFuture(status) || !status.result().status)
                return 0;
            if (agreed != 0 && agreed != status.result().leader)
                return 0;
            agreed = status.result().leader;
        }
        return agreed;
    }

private Q_SLOTS:
    void initTestCase()
    {
        EtcdCluster::Options three;
        three.members = 3;
        m_three = std::make_unique<EtcdCluster>(three);
        QVERIFY2(m_three->start(), qPrintable(m_three->errorString()));
    }

    void cleanupTestCase() { m_three.reset(); }

    void consistencyHashesEveryMemberAtOneRevision()
    {
        Client client(ClientOptions::fromEndpoints(m_three->clientUrls()));
        QVERIFY(awaitFuture(client.put("/m/a", "1")));
        const QList<QJsonObject> hashes = run(m_three->clientUrls(), {"check", "consistency"});
        QCOMPARE(hashes.size(), 3);
        QSet<QString> members;
        for (const QJsonObject &member : hashes) {
            QCOMPARE(member.value("hash"), hashes.first().value("hash"));
            QCOMPARE(member.value("revision"), hashes.first().value("revision"));
            members.insert(text(member, "member_id"));
        }
        QCOMPARE(members.size(), 3);
    }

    void moveLeaderHandsOverAndDefragGoesLeaderLast()
    {
        Client client(ClientOptions::fromEndpoints(m_three->clientUrls()));
        quint64 leader = 0;
        QTRY_VERIFY_WITH_TIMEOUT((leader = leaderOf(client)) != 0, scaledMs(10000));
        const QFuture<MemberListResult> listed = client.memberList();
        QVERIFY(awaitFuture(listed) && listed.result().status);
        quint64 target = 0;
        for (const Member &member : listed.result().members) {
            if (member.id != leader)
                target = member.id;
        }
        QVERIFY(target != 0);

        auto unconfirmed = qetcd(m_three->clientUrls(), {"move-leader", QString::number(target, 16)});
        QCOMPARE(unconfirmed->waitForExit(), 128);
        QVERIFY2(unconfirmed->standardError().contains("--yes"), unconfirmed->standardError().constData());
        QCOMPARE(leaderOf(client), leader);

        const QList<QJsonObject> moved = run(m_three->clientUrls(), {"move-leader", QString::number(target, 16), "--yes"});
        QCOMPARE(moved.size(), 1);
        QCOMPARE(text(moved.first(), "previous"), QString::number(leader, 16));
        QTRY_COMPARE_WITH_TIMEOUT(leaderOf(client), target, scaledMs(10000));

        const QList<QJsonObject> defragmented = run(m_three->clientUrls(), {"defrag", "--yes"});
        QCOMPARE(defragmented.size(), 3);
        for (const QJsonObject &member : defragmented)
            QVERIFY(member.value("defragmented").toBool() && integer(member, "db_size_after") > 0);
        // The leader last: its endpoint is the one whose member leads.
        const QFuture<EndpointStatusResult> last = client.endpointStatus(text(defragmented.last(), "endpoint"));
        QVERIFY(awaitFuture(last) && last.result().status);
        QCOMPARE(last.result().header.memberId, target);
    }

    // --cluster, given one member: endpoint status, health and hashkv, check consistency and
    // defrag reach all three, as the member list names them.
    void clusterOptionReachesEveryMember()
    {
        const QStringList one{m_three->clientUrls().first()};
        QSet<QString> all;
        for (const QString &url : m_three->clientUrls())
            all.insert(url);
        const auto endpointsOf = [](const QList<QJsonObject> &lines) {
            QSet<QString> endpoints;
            for (const QJsonObject &line : lines)
                endpoints.insert(text(line, "endpoint"));
            return endpoints;
        };
        QCOMPARE(endpointsOf(run(one, {"endpoint", "status", "--cluster"})), all);
        QCOMPARE(endpointsOf(run(one, {"endpoint", "health", "--cluster"})), all);
        QCOMPARE(endpointsOf(run(one, {"endpoint", "hashkv", "--cluster"})), all);
        QCOMPARE(endpointsOf(run(one, {"check", "consistency", "--cluster"})), all);
        QCOMPARE(endpointsOf(run(one, {"defrag", "--cluster", "--yes"})), all);
        QCOMPARE(run(one, {"endpoint", "status"}).size(), 1);

        auto misplaced = qetcd(one, {"check", "perf", "--cluster", "--yes"});
        QCOMPARE(misplaced->waitForExit(), 128);
        QVERIFY2(misplaced->standardError().contains("--cluster does not apply to perf"), misplaced->standardError().constData());
        auto unreachable = qetcd({"127.0.0.1:9"}, {"endpoint", "status", "--cluster", "--dial-timeout", "1s",
                                                   "--command-timeout", "2s"});
        QCOMPARE(unreachable->waitForExit(), 2);
        QVERIFY2(unreachable->standardError().contains("member list"), unreachable->standardError().constData());
    }

    // check perf: refused before it writes (unconfirmed, read-only, a prefix that holds keys);
    // otherwise it keeps to its rate, judges as etcdctl judges, and leaves no key behind, an
    // interrupted run included; --auto-compact and --auto-defrag free what it wrote.
    void perfCheckKeepsItsRateAndLeavesNothingBehind()
    {
        const QStringList urls = m_three->clientUrls();
        Client client(ClientOptions::fromEndpoints(urls));
        const QByteArray prefix = "/perf-check/";
        const auto keysUnder = [&client, &prefix] {
            RangeOptions counted;
            counted.range = KeyRange::prefix();
            counted.countOnly = true;
            const QFuture<RangeResult> future = client.get(prefix, counted);
            return awaitFuture(future) && future.result().status ? future.result().count : qint64(-1);
        };
        const QStringList check{"check", "perf", "--prefix", QString::fromUtf8(prefix), "--duration", "2s"};

        auto unconfirmed = qetcd(urls, check);
        QCOMPARE(unconfirmed->waitForExit(), 128);
        QVERIFY2(unconfirmed->standardError().contains("--yes")
                     && unconfirmed->standardError().contains("at most 150 puts a second, 50 at a time")
                     && unconfirmed->standardError().contains("delete every key under \"/perf-check/\""),
                 unconfirmed->standardError().constData());
        auto readOnly = qetcd(urls, QStringList{"--read-only"} + check + QStringList{"--yes"});
        QCOMPARE(readOnly->waitForExit(), 1);
        QVERIFY2(readOnly->standardError().contains("read-only"), readOnly->standardError().constData());
        QCOMPARE(keysUnder(), 0);
        QVERIFY(awaitFuture(client.put(prefix + "theirs", "kept")));
        auto occupied = qetcd(urls, check + QStringList{"--yes"});
        QCOMPARE(occupied->waitForExit(), 3);
        QVERIFY2(occupied->standardError().contains("has keys"), occupied->standardError().constData());
        QCOMPARE(keysUnder(), 1);
        QVERIFY(awaitFuture(client.remove(prefix + "theirs")));

        // etcdctl's lines; whether this machine passes is not the test's business, but the exit
        // status must say what the last line says.
        auto plain = qetcd(urls, check + QStringList{"--yes"});
        const int plainExit = plain->waitForExit();
        const QList<QByteArray> lines = plain->standardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        const QRegularExpression throughput("^(PASS: Throughput is|FAIL: Throughput too low:) \\d+ writes/s$");
        const QRegularExpression slowest("^(PASS: Slowest request took|FAIL: Slowest request took too long:) \\d+\\.\\d{6}s$");
        const QRegularExpression stddev("^(PASS: Stddev is|FAIL: Stddev too high:) \\d+\\.\\d{6}s$");
        QVERIFY2(throughput.match(QString::fromUtf8(lines[0])).hasMatch(), lines[0].constData());
        QVERIFY2(slowest.match(QString::fromUtf8(lines[1])).hasMatch(), lines[1].constData());
        QVERIFY2(stddev.match(QString::fromUtf8(lines[2])).hasMatch(), lines[2].constData());
        QCOMPARE(plainExit, lines[3] == "PASS" ? 0 : 1);
        QCOMPARE(keysUnder(), 0);

        auto json = qetcd(urls, QStringList{"--json"} + check + QStringList{"--yes", "--auto-compact", "--auto-defrag"});
        const int jsonExit = json->waitForExit();
        const QList<QJsonObject> events = json->events();
        QCOMPARE(events.size(), 5);  // compacted, a defragmented member each, the verdict
        const qint64 compacted = integer(events[0], "compacted_revision");
        QVERIFY(compacted > 0);
        for (int member = 1; member <= 3; ++member)
            QVERIFY(events[member].value("defragmented").toBool());
        const QJsonObject verdict = events[4];
        QCOMPARE(jsonExit, verdict.value("pass").toBool() ? 0 : 1);
        // 150 a second for 2 s, the first at once: never more.
        QVERIFY2(integer(verdict, "puts") > 0 && integer(verdict, "puts") <= 301, json->transcript().constData());
        QCOMPARE(keysUnder(), 0);
        RangeOptions before;
        before.revision = compacted - 1;
        const QFuture<RangeResult> history = client.get(prefix, before);
        QVERIFY(awaitFuture(history));
        QCOMPARE(history.result().status.code(), StatusCode::OutOfRange);

        // Interrupted: its keys go all the same.
        auto interrupted = qetcd(urls, {"check", "perf", "--prefix", QString::fromUtf8(prefix), "--duration", "60s", "--yes"});
        QTRY_VERIFY_WITH_TIMEOUT(keysUnder() > 0, scaledMs(10000));
        interrupted->signal(SIGINT);
        QCOMPARE(interrupted->waitForExit(), 5);
        QVERIFY2(interrupted->standardError().contains("were deleted"), interrupted->standardError().constData());
        QCOMPARE(keysUnder(), 0);
    }

    // check datascale: etcdctl's two lines, the memory read from the first member's metrics
    // page, every key written (none failed) and gone afterwards.
    void datascaleCheckReportsMemoryAndLeavesNothingBehind()
    {
        const QStringList urls = m_three->clientUrls();
        Client client(ClientOptions::fromEndpoints(urls));
        const QStringList check{"check", "datascale", "--prefix", "/datascale-check/", "--yes"};
        auto plain = qetcd(urls, check);
        QCOMPARE(plain->waitForExit(scaledMs(120000)), 0);
        const QList<QByteArray> lines = plain->standardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0], QByteArray("Start data scale check for work load [10000 key-value pairs, 1024 bytes per key-value, "
                                      "50 concurrent clients]."));
        QVERIFY2(QRegularExpression("^PASS: Approximate system memory used : -?\\d+\\.\\d\\d MB\\.$")
                     .match(QString::fromUtf8(lines[1]))
                     .hasMatch(),
                 lines[1].constData());

        auto json = qetcd(urls, QStringList{"--json"} + check);
        QCOMPARE(json->waitForExit(scaledMs(120000)), 0);
        const QJsonObject measured = json->events().value(0);
        QCOMPARE(integer(measured, "puts"), 10000);
        QVERIFY(measured.value("resident_bytes_before").toDouble() > 0);
        QCOMPARE(text(measured, "endpoint"), urls.first());
        QVERIFY(measured.value("pass").toBool());
        RangeOptions counted;
        counted.range = KeyRange::prefix();
        counted.countOnly = true;
        const QFuture<RangeResult> left = client.get("/datascale-check/", counted);
        QVERIFY(awaitFuture(left) && left.result().status);
        QCOMPARE(left.result().count, 0);
    }

    // What a check would write must fit in etcd's quota: refused before anything is written,
    // where etcdctl would run the cluster into NOSPACE.
    void loadChecksThatWouldNotFitTheQuotaAreRefused()
    {
        EtcdCluster::Options small;
        small.extraArgs = {QStringLiteral("--quota-backend-bytes=8388608")};
        EtcdCluster cluster(small);
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        const QFuture<RangeResult> before = client.get("/");
        QVERIFY(awaitFuture(before) && before.result().status);
        for (const QStringList &check : {QStringList{"check", "datascale", "--yes"},
                                         QStringList{"check", "perf", "--duration", "60s", "--yes"}}) {
            auto refused = qetcd(cluster.clientUrls(), check);
            QCOMPARE(refused->waitForExit(), 1);
            QVERIFY2(refused->standardError().contains("past its quota")
                         && refused->standardError().contains("of 8.0 MiB"),
                     refused->standardError().constData());
        }
        const QFuture<RangeResult> after = client.get("/");
        QVERIFY(awaitFuture(after) && after.result().status);
        QCOMPARE(after.result().header.revision, before.result().header.revision);
        // A short one fits.
        auto fits = qetcd(cluster.clientUrls(), {"check", "perf", "--duration", "1s", "--yes"});
        QVERIFY(fits->waitForExit() == 0 || fits->standardOutput().endsWith("FAIL\n"));
    }

    // It finds how far etcd compacted before, says which revisions go, keeps the newest N with
    // --keep, and refuses what would discard nothing or is refused under --read-only.
    void compactionSaysWhatGoes()
    {
        EtcdCluster single;
        QVERIFY2(single.start(), qPrintable(single.errorString()));
        const QStringList endpoints = single.clientUrls();
        Client client(ClientOptions::fromEndpoints(endpoints));
        qint64 current = 0;
        for (int i = 0; i < 10; ++i) {
            const QFuture<PutResult> put = client.put("/compaction/k", QByteArray::number(i));
            QVERIFY(awaitFuture(put) && put.result().status);
            current = put.result().header.revision;
        }

        auto unconfirmed = qetcd(endpoints, {"compaction", "--keep", "3"});
        QCOMPARE(unconfirmed->waitForExit(), 128);
        QVERIFY2(unconfirmed->standardError().contains(QStringLiteral("revisions 1 to %1 (%1 of them)").arg(current - 3).toUtf8()),
                 unconfirmed->standardError().constData());
        auto readOnly = qetcd(endpoints, {"--read-only", "compaction", "--keep", "3", "--yes"});
        QCOMPARE(readOnly->waitForExit(), 1);
        QVERIFY2(readOnly->standardError().contains("read-only"), readOnly->standardError().constData());

        const QList<QJsonObject> compacted = run(endpoints, {"compaction", "--keep", "3", "--yes", "--physical"});
        QCOMPARE(compacted.size(), 1);
        QCOMPARE(integer(compacted.first(), "compacted_revision"), current - 2);
        QCOMPARE(integer(compacted.first(), "discarded_revisions"), current - 3);
        RangeOptions older;
        older.revision = current - 3;
        const QFuture<RangeResult> gone = client.get("/compaction/k", older);
        QVERIFY(awaitFuture(gone));
        QCOMPARE(gone.result().status.code(), StatusCode::OutOfRange);

        // The second time, from what etcd keeps now: nothing before it to discard.
        auto nothing = qetcd(endpoints, {"compaction", QString::number(current - 2), "--yes"});
        QCOMPARE(nothing->waitForExit(), 3);
        QVERIFY2(nothing->standardError().contains(QStringLiteral("keeps the history from revision %1").arg(current - 2).toUtf8()),
                 nothing->standardError().constData());
        auto future = qetcd(endpoints, {"compaction", QString::number(current + 5), "--yes"});
        QCOMPARE(future->waitForExit(), 3);
        auto both = qetcd(endpoints, {"compaction", "7", "--keep", "3", "--yes"});
        QCOMPARE(both->waitForExit(), 128);
        QCOMPARE(run(endpoints, {"compaction", QString::number(current), "--yes"}).value(0).value("discarded_revisions").toInt(), 2);
    }

    // The file saved is one etcdctl reads, with the size and SHA-256 printed; it is kept
    // unless --force.
    void snapshotSaveWritesWhatEtcdctlReads()
    {
        QTemporaryDir directory;
        QVERIFY(directory.isValid());
        const QString file = directory.filePath("backup.db");
        const QList<QJsonObject> saved = run(m_three->clientUrls(), {"snapshot", "save", file});
        QCOMPARE(saved.size(), 1);
        QCOMPARE(text(saved.first(), "file"), file);
        QCOMPARE(integer(saved.first(), "size"), QFileInfo(file).size());
        QFile written(file);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hash.addData(&written);
        QCOMPARE(text(saved.first(), "sha256"), QString::fromLatin1(hash.result().toHex()));
        int exitCode = -1;
        QByteArray error;
        m_three->etcdctl({"snapshot", "status", file, "-w", "json"}, &exitCode, &error);
        QVERIFY2(exitCode == 0, error.constData());

        auto again = qetcd(m_three->clientUrls(), {"snapshot", "save", file});
        QCOMPARE(again->waitForExit(), 1);
        QVERIFY2(again->standardError().contains("exists"), again->standardError().constData());
        QCOMPARE(QFileInfo(file).size(), integer(saved.first(), "size"));
        QCOMPARE(run(m_three->clientUrls(), {"snapshot", "save", file, "--force"}).size(), 1);
        QVERIFY(!QFile::exists(file + ".part"));
    }

    // A member with a 1 MiB quota fills up for real: NOSPACE is listed, writes are refused,
    // disarming is refused under --read-only, and once space is freed it is disarmed and
    // writes go through again.
    void noSpaceAlarmIsRaisedAndDisarmedAfterFreeingSpace()
    {
        EtcdCluster::Options tiny;
        tiny.extraArgs = {QStringLiteral("--quota-backend-bytes=1048576")};
        EtcdCluster small(tiny);
        QVERIFY2(small.start(), qPrintable(small.errorString()));
        const QStringList endpoints = small.clientUrls();
        Client client(ClientOptions::fromEndpoints(endpoints));
        const Status refused = fillUntilRefused(client);
        QVERIFY2(refused.message().contains("database space exceeded"), qPrintable(refused.toString()));

        const QList<QJsonObject> alarms = run(endpoints, {"alarm", "list"});
        QCOMPARE(alarms.size(), 1);
        QCOMPARE(text(alarms.first(), "alarm"), QStringLiteral("NOSPACE"));

        auto readOnly = qetcd(endpoints, {"--read-only", "alarm", "disarm", "--yes"});
        QCOMPARE(readOnly->waitForExit(), 1);
        QVERIFY2(readOnly->standardError().contains("read-only"), readOnly->standardError().constData());
        QCOMPARE(run(endpoints, {"alarm", "list"}).size(), 1);

        // Free the space: compact the history away, then give it back to the file system.
        const QFuture<RangeResult> now = client.get("/full/0");
        QVERIFY(awaitFuture(now) && now.result().status);
        QVERIFY(awaitFuture(client.compact(now.result().header.revision, true)));
        QCOMPARE(run(endpoints, {"defrag", "--yes"}).size(), 1);
        // Compacted up to the current revision: etcd hashes nothing at it, the check still answers.
        QCOMPARE(run(endpoints, {"check", "consistency"}).size(), 1);
        const QList<QJsonObject> disarmed = run(endpoints, {"alarm", "disarm", "--yes"});
        QCOMPARE(disarmed.size(), 1);
        QVERIFY(disarmed.first().value("disarmed").toBool());
        QVERIFY(run(endpoints, {"alarm", "list"}).isEmpty());
        const QFuture<PutResult> again = client.put("/full/after", "small");
        QVERIFY(awaitFuture(again));
        QCOMPARE(again.result().status, Status());
    }
};

QTEST_GUILESS_MAIN(tst_CliMaintenance)
#include "tst_cli_maintenance.moc"
