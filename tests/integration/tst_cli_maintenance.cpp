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
