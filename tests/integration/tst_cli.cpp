// SPDX-License-Identifier: Apache-2.0
// The qetcd CLI against a real etcd member: the binary is run as an operator would run it.
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "../common/qetcdprocess.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtNetwork/QTcpServer>
#include <QtTest/QtTest>

#include <optional>

using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    qint64 elapsedMs = 0;
};

QList<QJsonObject> jsonLines(const QByteArray &out)
{
    QList<QJsonObject> objects;
    for (const QByteArray &line : out.split('\n')) {
        if (line.isEmpty())
            continue;
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject())
            qWarning() << "not a JSON object line:" << line;
        objects.append(document.object());
    }
    return objects;
}

// A failure is reported as exactly one line on stderr.
bool isOneLine(const QByteArray &err)
{
    return err.endsWith('\n') && err.count('\n') == 1 && err.startsWith("qetcd");
}
} // namespace

class tst_Cli : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;

    // Runs qetcd with no ETCDCTL_*, ETCD_* or QETCD_* variables but those given.
    // With input, that is its stdin, and then the end of it.
    Run qetcdWithEnvironment(const QStringList &arguments, const QList<std::pair<QString, QString>> &variables,
                             const std::optional<QByteArray> &input = std::nullopt)
    {
        QProcess process;
        process.setProcessEnvironment(toolEnvironment(variables));
        QElapsedTimer timer;
        timer.start();
        process.start(QStringLiteral(QETCD_CLI_PATH), arguments);
        if (input) {
            process.write(*input);
            process.closeWriteChannel();
        }
        Run run;
        if (!process.waitForFinished(scaledMs(30000))) {
            process.kill();
            process.waitForFinished();
            qWarning() << "qetcd" << arguments << "did not finish";
            return run;
        }
        run.elapsedMs = timer.elapsed();
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        run.out = process.readAllStandardOutput();
        run.err = process.readAllStandardError();
        return run;
    }

    // Runs qetcd against the test member.
    Run qetcd(const QStringList &arguments, const std::optional<QByteArray> &input = std::nullopt)
    {
        return qetcdWithEnvironment(QStringList{QStringLiteral("--endpoints"), m_cluster.clientUrl(0)} + arguments, {}, input);
    }

    QString grantLease()
    {
        int exitCode = -1;
        const QByteArray out = m_cluster.etcdctl({"lease", "grant", "30"}, &exitCode);
        // "lease 694d7b0c0d1e0d0a granted with TTL(30s)"
        const QRegularExpressionMatch match =
            QRegularExpression(QStringLiteral("lease ([0-9a-f]+) granted")).match(QString::fromUtf8(out));
        if (exitCode != 0 || !match.hasMatch()) {
            qWarning() << "etcdctl lease grant failed:" << out;
            return {};
        }
        return match.captured(1);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
    }

    void putGetRoundTrip()
    {
        Run run = qetcd({"put", "/cli/a", "hello world"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("OK\n"));
        QVERIFY(run.err.isEmpty());

        run = qetcd({"get", "/cli/a"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("/cli/a\nhello world\n"));

        run = qetcd({"get", "/cli/a", "--print-value-only"});
        QCOMPARE(run.out, QByteArray("hello world\n"));

        // Global options may also come before the command, and a value may start with "-".
        run = qetcdWithEnvironment({"--endpoints", m_cluster.clientUrl(0), "put", "--prev-kv", "/cli/a", "--", "-1"},
                                   {});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("OK\n/cli/a\nhello world\n"));
        QCOMPARE(qetcd({"get", "/cli/a", "--print-value-only"}).out, QByteArray("-1\n"));

        // etcdctl sees what qetcd wrote.
        QCOMPARE(m_cluster.etcdctl({"get", "/cli/a", "--print-value-only"}), QByteArray("-1\n"));
    }

    // txn reads etcdctl's three parts from stdin; the compares choose the branch, and each answer
    // is printed as its command prints it.
    void txnRunsTheBranchItsComparesChoose()
    {
        m_cluster.etcdctl({"put", "/cli/txn/k", "v1"});
        const QByteArray input = "mod(\"/cli/txn/k\") > \"0\"\n"
                                 "val(\"/cli/txn/k\") = \"v1\"\n"
                                 "\n"
                                 "put /cli/txn/k \"v 2\"\n"
                                 "get /cli/txn/k\n"
                                 "\n"
                                 "del /cli/txn/k --prev-kv\n"
                                 "\n";
        Run run = qetcd({"txn"}, input);
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("SUCCESS\n\nOK\n\n/cli/txn/k\nv 2\n"));
        QVERIFY(run.err.isEmpty());
        // The value is "v 2" now: the same input runs the other branch.
        run = qetcd({"txn", "--json"}, input);
        QCOMPARE(run.exitCode, 0);
        const QJsonObject answer = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(answer.value("succeeded").toBool(true), false);
        const QJsonObject deleted = answer.value("responses").toArray().at(0).toObject().value("del").toObject();
        QCOMPARE(deleted.value("deleted").toInt(), 1);
        QCOMPARE(deleted.value("prev_kvs").toArray().at(0).toObject().value("value").toString(), QStringLiteral("v 2"));
        QCOMPARE(m_cluster.etcdctl({"get", "/cli/txn/k"}), QByteArray());

        // With -i each part is asked for; a missing last blank line ends the input all the same.
        run = qetcd({"txn", "-i"}, "version(\"/cli/txn/k\") = \"0\"\n\nput /cli/txn/k created");
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("compares:\nsuccess requests (get, put, del):\nfailure requests (get, put, del):\n"
                                     "SUCCESS\n\nOK\n"));
        QCOMPARE(m_cluster.etcdctl({"get", "/cli/txn/k", "--print-value-only"}), QByteArray("created\n"));
    }

    // A line that does not read is named, with why, and nothing is sent.
    void txnRefusesALineThatDoesNotRead_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("told");
        QTest::newRow("operator") << QByteArray("mod(\"/cli/txn/r\") >= \"1\"\n\nput /cli/txn/r x\n\n")
                                  << "line 1 (mod(\"/cli/txn/r\") >= \"1\"): the operator is one of = != < >, not \">=\"";
        QTest::newRow("target") << QByteArray("size(\"/cli/txn/r\") = \"1\"\n\n")
                                << "the target is one of ver, c, m, val and lease";
        QTest::newRow("number") << QByteArray("ver(\"/cli/txn/r\") = \"one\"\n\n")
                                << "ver compares with a whole number, not \"one\"";
        QTest::newRow("unclosed") << QByteArray("val(\"/cli/txn/r) = \"1\"\n\n") << "no ) after the key";
        QTest::newRow("request") << QByteArray("\nput /cli/txn/r x\nlock /cli/txn/r\n\n")
                                 << "line 3 (lock /cli/txn/r): a request is get, put or del, not \"lock\"";
        QTest::newRow("arguments") << QByteArray("\nput /cli/txn/r x\n\nput /cli/txn/r\n\n")
                                   << "line 4 (put /cli/txn/r): expects KEY VALUE";
        QTest::newRow("option") << QByteArray("\nput /cli/txn/r x --lease=nope\n\n") << "line 2";
        QTest::newRow("fence") << QByteArray("\nput /cli/txn/r x --fence /l=1\n\n")
                               << "--fence is not for a request inside a txn";
    }

    void txnRefusesALineThatDoesNotRead()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, told);
        const Run run = qetcd({"txn"}, input);
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(isOneLine(run.err) && run.err.contains(told.toUtf8()), run.err.constData());
        QVERIFY(run.out.isEmpty());
        QCOMPARE(m_cluster.etcdctl({"get", "/cli/txn/r"}), QByteArray());
    }

    void txnThatWritesIsRefusedUnderReadOnly()
    {
        const QByteArray writes = "\nput /cli/txn/ro x\n\n";
        Run run = qetcd({"--read-only", "txn"}, writes);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(isOneLine(run.err) && run.err.contains("read-only"), run.err.constData());
        QCOMPARE(m_cluster.etcdctl({"get", "/cli/txn/ro"}), QByteArray());
        // One that only reads is answered.
        run = qetcd({"--read-only", "txn"}, "\nget /cli/txn/ro\n\n");
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("SUCCESS\n\n"));
    }

    void getJson()
    {
        QCOMPARE(qetcd({"put", "/cli/json", "h\xc3\xa9llo"}).exitCode, 0);
        const Run run = qetcd({"get", "/cli/json", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QList<QJsonObject> objects = jsonLines(run.out);
        QCOMPARE(objects.size(), 1);
        const QJsonObject kv = objects.first();
        QCOMPARE(kv.value("key").toString(), QStringLiteral("/cli/json"));
        QCOMPARE(kv.value("value").toString(), QString::fromUtf8("h\xc3\xa9llo"));
        QCOMPARE(kv.value("version").toInteger(), 1);
        QVERIFY(kv.value("create_revision").toInteger() > 0);
        QCOMPARE(kv.value("mod_revision").toInteger(), kv.value("create_revision").toInteger());
        QVERIFY(!kv.contains("lease"));

        const Run put = qetcd({"put", "/cli/json", "v2", "--json", "--prev-kv"});
        QCOMPARE(put.exitCode, 0);
        const QJsonObject written = jsonLines(put.out).value(0);
        QVERIFY(written.value("revision").toInteger() > kv.value("mod_revision").toInteger());
        QCOMPARE(written.value("prev_kv").toObject().value("value").toString(), QString::fromUtf8("h\xc3\xa9llo"));
    }

    void getPrefix()
    {
        for (const char *key : {"/cli/p/2", "/cli/p/1", "/cli/p/3", "/cli/q"})
            QCOMPARE(qetcd({"put", key, QString::fromUtf8(key).toUpper()}).exitCode, 0);

        Run run = qetcd({"get", "/cli/p/", "--prefix"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("/cli/p/1\n/CLI/P/1\n/cli/p/2\n/CLI/P/2\n/cli/p/3\n/CLI/P/3\n"));

        run = qetcd({"get", "/cli/p/", "--prefix", "--keys-only"});
        QCOMPARE(run.out, QByteArray("/cli/p/1\n/cli/p/2\n/cli/p/3\n"));
        run = qetcd({"get", "/cli/p/", "--prefix", "--count-only"});
        QCOMPARE(run.out, QByteArray("3\n"));
        run = qetcd({"get", "/cli/p/", "--prefix", "--limit", "2", "--keys-only"});
        QCOMPARE(run.out, QByteArray("/cli/p/1\n/cli/p/2\n"));
        run = qetcd({"get", "/cli/p/1", "/cli/p/3", "--keys-only"});
        QCOMPARE(run.out, QByteArray("/cli/p/1\n/cli/p/2\n"));

        run = qetcd({"get", "/cli/p/", "--prefix", "--json"});
        const QList<QJsonObject> objects = jsonLines(run.out);
        QCOMPARE(objects.size(), 3);
        QCOMPARE(objects[2].value("key").toString(), QStringLiteral("/cli/p/3"));

        run = qetcd({"get", "/cli/p/", "--prefix", "--from-key"});
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(isOneLine(run.err), run.err.constData());
    }

    // A key moved onto a lease and off it, its value kept; its value changed, its lease kept.
    void putIgnoresValueOrLease()
    {
        const Run granted = qetcd({"lease", "grant", "600", "--json"});
        QCOMPARE(granted.exitCode, 0);
        const QString lease = jsonLines(granted.out).value(0).value("lease_id").toString();
        QVERIFY2(!lease.isEmpty(), granted.out.constData());
        const auto leaseOf = [this] {
            return jsonLines(qetcd({"get", "/cli/iv", "--json"}).out).value(0).value("lease").toString();
        };
        QCOMPARE(qetcd({"put", "/cli/iv", "first"}).exitCode, 0);
        QCOMPARE(qetcd({"put", "/cli/iv", "--ignore-value", "--lease", lease}).exitCode, 0);
        QCOMPARE(qetcd({"get", "/cli/iv", "--print-value-only"}).out, QByteArray("first\n"));
        QCOMPARE(leaseOf(), lease);
        QCOMPARE(qetcd({"put", "/cli/iv", "second", "--ignore-lease"}).exitCode, 0);
        QCOMPARE(qetcd({"get", "/cli/iv", "--print-value-only"}).out, QByteArray("second\n"));
        QCOMPARE(leaseOf(), lease);
        QCOMPARE(qetcd({"put", "/cli/iv", "--ignore-value"}).exitCode, 0);
        QCOMPARE(leaseOf(), QString());

        const Run absent = qetcd({"put", "/cli/iv-none", "--ignore-value"});
        QCOMPARE(absent.exitCode, 3);
        QVERIFY2(isOneLine(absent.err) && absent.err.contains("key not found"), absent.err.constData());
        QCOMPARE(qetcd({"get", "/cli/iv-none", "--count-only"}).out, QByteArray("0\n"));
        for (const QStringList &bad : {QStringList{"put", "/cli/iv", "x", "--ignore-value"},
                                       QStringList{"put", "/cli/iv", "x", "--ignore-lease", "--lease", lease}}) {
            const Run refused = qetcd(bad);
            QCOMPARE(refused.exitCode, 128);
            QVERIFY2(isOneLine(refused.err), refused.err.constData());
        }
        QCOMPARE(qetcd({"get", "/cli/iv", "--print-value-only"}).out, QByteArray("second\n"));
    }

    // A learner at a peer URL nothing listens on: added, moved, refused promotion, removed, each
    // change only with --yes off a terminal and none under --read-only. A voting member that
    // would stop this one-member cluster is refused unconfirmed, the warning saying why.
    void memberChangesAreConfirmedAndTold()
    {
        const auto members = [this] { return qetcd({"member", "list"}).out.count('\n'); };
        QCOMPARE(members(), 1);
        Run run = qetcd({"member", "add", "voter", "--peer-urls", "http://127.0.0.1:9"});
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(run.err.contains("--yes") && run.err.contains("2 voting members, 2 needed to agree")
                     && run.err.contains("stops committing anything"),
                 run.err.constData());
        run = qetcd({"--read-only", "member", "add", "learner", "--peer-urls", "http://127.0.0.1:9", "--learner", "--yes"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("read-only"), run.err.constData());
        QCOMPARE(members(), 1);

        run = qetcd({"member", "add", "learner", "--peer-urls", "http://127.0.0.1:9", "--learner"});
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(run.err.contains("as a learner") && run.err.contains("1 voting member, 1 needed to agree, as now")
                     && !run.err.contains("stops committing"),
                 run.err.constData());
        QCOMPARE(members(), 1);
        run = qetcd({"member", "add", "learner", "--peer-urls", "http://127.0.0.1:9", "--learner", "--yes"});
        QCOMPARE(run.exitCode, 0);
        static const QRegularExpression added(QStringLiteral("^Member +([0-9a-f]+) added to cluster +[0-9a-f]+\n\n"
                                                             "ETCD_NAME=\"learner\"\n"
                                                             "ETCD_INITIAL_CLUSTER=\"([^\"]+)\"\n"
                                                             "ETCD_INITIAL_ADVERTISE_PEER_URLS=\"http://127.0.0.1:9\"\n"
                                                             "ETCD_INITIAL_CLUSTER_STATE=\"existing\"\n$"));
        const QRegularExpressionMatch match = added.match(QString::fromUtf8(run.out));
        QVERIFY2(match.hasMatch(), run.out.toPercentEncoding(" =\"/:,.").constData());
        const QString id = match.captured(1);
        // Every member's name=peer URL, the new one's name as given, in etcd's order of IDs.
        const QStringList initialCluster = match.captured(2).split(',');
        QCOMPARE(initialCluster.size(), 2);
        QVERIFY2(initialCluster.contains("learner=http://127.0.0.1:9"), qPrintable(match.captured(2)));
        QCOMPARE(members(), 2);

        run = qetcd({"member", "update", id, "--peer-urls", "http://127.0.0.1:7", "--yes"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith("Member ") && run.out.contains((id + " updated in cluster").toUtf8()), run.out.constData());
        QVERIFY(qetcd({"member", "list"}).out.contains("http://127.0.0.1:7"));
        run = qetcd({"member", "promote", id, "--yes"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(isOneLine(run.err.mid(run.err.indexOf("qetcd: "))) && run.err.contains("in sync with leader"),
                 run.err.constData());

        run = qetcd({"member", "remove", id, "--yes", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject removed = jsonLines(run.out).value(0);
        QCOMPARE(removed.value("member").toString(), id);
        QCOMPARE(removed.value("members").toArray().size(), 1);
        QCOMPARE(members(), 1);
        run = qetcd({"member", "remove", id, "--yes"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("no member " + id.toUtf8()), run.err.constData());
        for (const QStringList &bad : {QStringList{"member", "remove", "zz"}, QStringList{"member", "add", "x"},
                                       QStringList{"member", "promote", id, "--peer-urls", "http://x:1"}}) {
            run = qetcd(bad);
            QCOMPARE(run.exitCode, 128);
            QVERIFY2(isOneLine(run.err), run.err.constData());
        }
    }

    // etcdctl 3.5's revision bounds (3.4 lacks them, so tst_cli_compat cannot compare them).
    void getBetweenRevisions()
    {
        const auto revisionOf = [this](const char *key, const char *value) {
            return jsonLines(qetcd({"put", key, value, "--json"}).out).value(0).value("revision").toInteger();
        };
        const qint64 first = revisionOf("/cli/b/1", "x");
        const qint64 second = revisionOf("/cli/b/2", "x");
        const qint64 changed = revisionOf("/cli/b/1", "y");
        QVERIFY(first < second && second < changed);
        const auto keys = [this](const QStringList &bounds) {
            return qetcd(QStringList{"get", "/cli/b/", "--prefix", "--keys-only"} + bounds).out;
        };
        QCOMPARE(keys({"--min-mod-revision", QString::number(second)}), QByteArray("/cli/b/1\n/cli/b/2\n"));
        QCOMPARE(keys({"--max-mod-revision", QString::number(second)}), QByteArray("/cli/b/2\n"));
        QCOMPARE(keys({"--min-create-revision", QString::number(second)}), QByteArray("/cli/b/2\n"));
        QCOMPARE(keys({"--max-create-revision", QString::number(first)}), QByteArray("/cli/b/1\n"));
        QCOMPARE(keys({"--min-mod-revision", QString::number(changed + 1)}), QByteArray());

        const Run bad = qetcd({"get", "/cli/b/", "--prefix", "--max-create-revision", "soon"});
        QCOMPARE(bad.exitCode, 128);
        QVERIFY2(isOneLine(bad.err) && bad.err.contains("--max-create-revision"), bad.err.constData());
    }

    void getRefusesAnUnknownOrderSortOrConsistency_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("named");
        QTest::newRow("order") << QStringList{"--order", "up"} << QByteArray("--order must be ASCEND or DESCEND, not \"up\"");
        QTest::newRow("sort-by") << QStringList{"--sort-by", "size"} << QByteArray("--sort-by must be CREATE, KEY, MODIFY");
        QTest::newRow("consistency") << QStringList{"--consistency", "linearizable"}
                                     << QByteArray("--consistency must be l (linearizable) or s (serializable)");
    }

    void getRefusesAnUnknownOrderSortOrConsistency()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, named);
        const Run run = qetcd(QStringList{"get", "/cli/p/", "--prefix"} + arguments);
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(isOneLine(run.err) && run.err.contains(named), run.err.constData());
        QCOMPARE(run.out, QByteArray());
    }

    void getAtRevision()
    {
        const Run first = qetcd({"put", "/cli/rev", "old", "--json"});
        const qint64 revision = jsonLines(first.out).value(0).value("revision").toInteger();
        QVERIFY(revision > 0);
        QCOMPARE(qetcd({"put", "/cli/rev", "new"}).exitCode, 0);
        const Run run = qetcd({"get", "/cli/rev", "--rev", QString::number(revision), "--print-value-only"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("old\n"));
    }

    void deletePrefixCount()
    {
        for (const char *key : {"/cli/d/1", "/cli/d/2", "/cli/d/3", "/cli/e"})
            QCOMPARE(qetcd({"put", key, "x"}).exitCode, 0);
        Run run = qetcd({"del", "/cli/d/", "--prefix"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("3\n"));
        QCOMPARE(qetcd({"get", "/cli/d/", "--prefix", "--count-only"}).out, QByteArray("0\n"));
        QCOMPARE(qetcd({"get", "/cli/e", "--print-value-only"}).out, QByteArray("x\n"));

        run = qetcd({"del", "/cli/d/", "--prefix"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("0\n"));

        run = qetcd({"del", "/cli/e", "--prev-kv", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject deleted = jsonLines(run.out).value(0);
        QCOMPARE(deleted.value("deleted").toInteger(), 1);
        const QJsonObject previous = deleted.value("prev_kvs").toArray().at(0).toObject();
        QCOMPARE(previous.value("key").toString(), QStringLiteral("/cli/e"));
    }

    void putWithLease()
    {
        const QString lease = grantLease();
        QVERIFY(!lease.isEmpty());
        Run run = qetcd({"put", "/cli/leased", "v", "--lease", lease});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("OK\n"));

        run = qetcd({"get", "/cli/leased", "--json"});
        const QJsonObject kv = jsonLines(run.out).value(0);
        QCOMPARE(kv.value("lease").toString(), lease.rightJustified(16, '0'));
        const qint64 decimal = lease.toLongLong(nullptr, 16);
        QCOMPARE(kv.value("lease_dec").toInteger(), decimal);
        QVERIFY(m_cluster.etcdctl({"lease", "timetolive", lease, "--keys"}).contains("/cli/leased"));

        // The decimal spelling names the same lease.
        run = qetcd({"put", "/cli/leased2", "v", "--lease", "dec:" + QString::number(decimal)});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(m_cluster.etcdctl({"lease", "timetolive", lease, "--keys"}).contains("/cli/leased2"));

        // Revoking the lease takes its keys along.
        m_cluster.etcdctl({"lease", "revoke", lease});
        QCOMPARE(qetcd({"get", "/cli/leased", "--count-only"}).out, QByteArray("0\n"));
    }

    void putWithBadLease()
    {
        Run run = qetcd({"put", "/cli/x", "v", "--lease", "nothex"});
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(isOneLine(run.err) && run.err.contains("nothex"), run.err.constData());

        run = qetcd({"put", "/cli/x", "v", "--lease", "123abc"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(isOneLine(run.err) && run.err.contains("lease not found"), run.err.constData());
    }

    void endpointsFromEnvironment()
    {
        QCOMPARE(qetcd({"put", "/cli/env", "from-env"}).exitCode, 0);
        Run run = qetcdWithEnvironment({"get", "/cli/env", "--print-value-only"},
                                       {{"ETCDCTL_ENDPOINTS", m_cluster.clientUrl(0)}});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("from-env\n"));

        // The flag wins over the variable.
        run = qetcdWithEnvironment({"--endpoints", m_cluster.clientUrl(0), "get", "/cli/env", "--print-value-only"},
                                   {{"ETCDCTL_ENDPOINTS", "http://127.0.0.1:1"}});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("from-env\n"));

        // A bare host:port is read as etcdctl reads it.
        const QString bare = m_cluster.clientUrl(0).section(QStringLiteral("://"), 1);
        run = qetcdWithEnvironment({"get", "/cli/env", "--print-value-only"}, {{"ETCDCTL_ENDPOINTS", bare}});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("from-env\n"));
    }

    void statusShowsEndpointAndVersion()
    {
        Run run = qetcd({"status"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(m_cluster.clientUrl(0).toUtf8()), run.out.constData());
        const QRegularExpression version(QStringLiteral("\\b3\\.\\d+\\.\\d+\\b"));
        QVERIFY2(version.match(QString::fromUtf8(run.out)).hasMatch(), run.out.constData());
        QVERIFY2(run.out.contains("yes"), run.out.constData());
        QVERIFY2(run.out.contains(m_cluster.memberName(0).toUtf8()), run.out.constData());

        run = qetcd({"status", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QList<QJsonObject> objects = jsonLines(run.out);
        QCOMPARE(objects.size(), 2);
        const QJsonObject endpoint = objects[0];
        QCOMPARE(endpoint.value("type").toString(), QStringLiteral("endpoint"));
        QCOMPARE(endpoint.value("endpoint").toString(), m_cluster.clientUrl(0));
        QVERIFY(endpoint.value("version").toString().startsWith("3."));
        QCOMPARE(endpoint.value("leader").toBool(), true);
        QCOMPARE(endpoint.value("leader_id").toString(), endpoint.value("id").toString());
        QVERIFY(endpoint.value("raft_term").toInteger() > 0);
        QVERIFY(endpoint.value("raft_index").toInteger() > 0);
        QVERIFY(endpoint.value("db_size").toInteger() > 0);
        const QJsonObject member = objects[1];
        QCOMPARE(member.value("type").toString(), QStringLiteral("member"));
        QCOMPARE(member.value("id").toString(), endpoint.value("id").toString());
        QCOMPARE(member.value("name").toString(), m_cluster.memberName(0));
    }

    void helpOnEveryCommand_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("mentions");
        const QStringList global{"--endpoints", "--cacert", "--cert", "--key", "--user", "--password",
                                 "--command-timeout", "--dial-timeout", "--json", "ETCDCTL_ENDPOINTS"};
        const QStringList commands{"status", "get", "put", "del", "watch", "lease"};
        QTest::newRow("qetcd") << QStringList{} << commands + global;
        QTest::newRow("qetcd --help") << QStringList{"--help"} << commands + global;
        QTest::newRow("status") << QStringList{"status", "--help"} << global;
        QTest::newRow("get") << QStringList{"get", "--help"}
                             << QStringList{"--prefix", "--from-key", "--limit", "--rev", "--keys-only", "--count-only",
                                            "--print-value-only", "KEY", "RANGE_END"} + global;
        QTest::newRow("put") << QStringList{"put", "-h"}
                             << QStringList{"--lease", "--prev-kv", "KEY", "VALUE"} + global;
        QTest::newRow("del") << QStringList{"del", "--help"}
                             << QStringList{"--prefix", "--from-key", "--prev-kv", "KEY"} + global;
    }

    void helpOnEveryCommand()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, mentions);
        const Run run = qetcdWithEnvironment(arguments, {});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        for (const QString &mention : mentions)
            QVERIFY2(run.out.contains(mention.toUtf8()), qPrintable(mention + " missing in:\n" + run.out));
    }

    // Read in an 80-column terminal, a longer line breaks wherever the terminal breaks it.
    void everyHelpFitsEightyColumns()
    {
        const Run overview = qetcdWithEnvironment({"--help"}, {});
        QCOMPARE(overview.exitCode, 0);
        const QString text = QString::fromUtf8(overview.out);
        const QString commandList = text.section(QStringLiteral("Commands:\n"), 1).section(QStringLiteral("\n\n"), 0, 0);
        QStringList commands;
        for (const QString &line : commandList.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String("  ")) && line.at(2) != QLatin1Char(' '))
                commands.append(line.section(QLatin1Char(' '), 2, 2));
        }
        QVERIFY2(commands.size() > 30, qPrintable(commandList));
        QStringList tooWide;
        const auto check = [&](const QString &help, const QString &which) {
            for (const QString &line : help.split(QLatin1Char('\n'))) {
                if (line.size() > 80)
                    tooWide.append(QStringLiteral("%1 (%2): %3").arg(which).arg(line.size()).arg(line));
            }
        };
        check(text, QStringLiteral("qetcd --help"));
        for (const QString &command : commands) {
            const Run run = qetcdWithEnvironment({command, "--help"}, {});
            QVERIFY2(run.exitCode == 0, qPrintable(command));
            check(QString::fromUtf8(run.out), command + QStringLiteral(" --help"));
        }
        QVERIFY2(tooWide.isEmpty(), qPrintable(tooWide.join(QLatin1Char('\n'))));
    }

    void unreachableEndpointFailsWithinTheTimeout()
    {
        const Run run =
            qetcdWithEnvironment({"--endpoints", "http://127.0.0.1:1", "--command-timeout", "2s", "get", "k"}, {});
        QCOMPARE(run.exitCode, 2);  // bad connection
        QVERIFY2(run.elapsedMs < scaledMs(2000) + 3000, qPrintable(QString::number(run.elapsedMs)));
        QVERIFY2(isOneLine(run.err), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }

    void silentEndpointHitsTheCommandTimeout()
    {
        // Accepts connections (the kernel does) but never speaks HTTP/2: only the deadline ends it.
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost));
        const QString endpoint = QStringLiteral("127.0.0.1:%1").arg(silent.serverPort());
        const Run run = qetcdWithEnvironment(
            {"--endpoints", endpoint, "--dial-timeout", "1m", "--command-timeout", "1s", "get", "k"}, {});
        QCOMPARE(run.exitCode, 2);  // bad connection
        QVERIFY2(run.elapsedMs >= 1000, qPrintable(QString::number(run.elapsedMs)));
        QVERIFY2(run.elapsedMs < scaledMs(1000) + 3000, qPrintable(QString::number(run.elapsedMs)));
        QVERIFY2(isOneLine(run.err) && run.err.contains("--command-timeout"), run.err.constData());
    }

    // One member answers, one is silent: the healthy one on stdout, the silent one on stderr,
    // named alone (the other did answer), and the command fails after both are told.
    void endpointHealthTellsEachMemberAndFailsOnASilentOne()
    {
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost));
        const QString live = QString(m_cluster.clientUrl(0)).remove(QLatin1String("http://"));
        const QString dead = QStringLiteral("127.0.0.1:%1").arg(silent.serverPort());
        const Run run = qetcdWithEnvironment(
            {"--endpoints", live + ',' + dead, "--command-timeout", "1s", "endpoint", "health"}, {});
        QCOMPARE(run.exitCode, 1);
        static const QRegularExpression healthy(QStringLiteral("^(\\S+) is healthy: successfully committed proposal: "
                                                               "took = \\d+(\\.\\d+)?(\u00b5s|ms|s)\n$"));
        const QRegularExpressionMatch match = healthy.match(QString::fromUtf8(run.out));
        QVERIFY2(match.hasMatch() && match.captured(1) == live, run.out.constData());
        const QByteArrayList told = run.err.split('\n');
        QCOMPARE(told.size(), 3);
        QVERIFY2(told[0].startsWith((dead + " is unhealthy: failed to commit proposal: ").toUtf8())
                     && told[0].contains("no answer within 1s") && !told[0].contains(live.toUtf8()),
                 run.err.constData());
        QCOMPARE(told[1], QByteArray("qetcd: unhealthy cluster: 1 of 2 endpoints"));

        const Run jsonLines = qetcdWithEnvironment(
            {"--endpoints", live + ',' + dead, "--command-timeout", "1s", "endpoint", "health", "--json"}, {});
        QCOMPARE(jsonLines.exitCode, 1);
        const QList<QJsonObject> objects = ::jsonLines(jsonLines.out);
        QCOMPARE(objects.size(), 2);
        QCOMPARE(objects[0].value("healthy").toBool(), true);
        QCOMPARE(objects[1].value("endpoint").toString(), dead);
        QCOMPARE(objects[1].value("healthy").toBool(), false);
        QVERIFY(objects[1].value("took_ms").toDouble() >= 1000);
    }

    void endpointHashKVRefusesABadRevision()
    {
        const Run run = qetcd({"endpoint", "hashkv", "--rev", "-1"});
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(isOneLine(run.err) && run.err.contains("--rev"), run.err.constData());
        const Run misplaced = qetcd({"endpoint", "health", "--rev", "3"});
        QCOMPARE(misplaced.exitCode, 128);
        QVERIFY2(isOneLine(misplaced.err) && misplaced.err.contains("--rev does not apply to health"), misplaced.err.constData());
    }

    void namespacePrefixesKeys()
    {
        Run run = qetcd({"--namespace", "/cli/ns/", "put", "k", "v"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(m_cluster.etcdctl({"get", "/cli/ns/k", "--print-value-only"}), QByteArray("v\n"));
        run = qetcdWithEnvironment({"get", "k"}, {{"ETCDCTL_ENDPOINTS", m_cluster.clientUrl(0)},
                                                  {"ETCDCTL_NAMESPACE", "/cli/ns/"}});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("k\nv\n"));
    }

    void readOnlyRefusesWritesAndStillReads()
    {
        QCOMPARE(qetcd({"put", "/cli/ro", "before"}).exitCode, 0);
        Run run = qetcd({"--read-only", "put", "/cli/ro", "after"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(isOneLine(run.err) && run.err.contains("read-only") && run.err.contains("/cli/ro"), run.err.constData());
        run = qetcd({"del", "/cli/ro", "--read-only"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(isOneLine(run.err) && run.err.contains("read-only"), run.err.constData());
        run = qetcd({"--read-only", "get", "/cli/ro"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("/cli/ro\nbefore\n"));
    }

    void usageErrorsExit128_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("mentions");
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << QByteArray("frobnicate");
        QTest::newRow("unknown option") << QStringList{"get", "k", "--bogus"} << QByteArray("bogus");
        QTest::newRow("missing argument") << QStringList{"put"} << QByteArray("KEY [VALUE]");
        QTest::newRow("bad duration") << QStringList{"get", "k", "--command-timeout", "5x"}
                                      << QByteArray("--command-timeout");
        QTest::newRow("bad limit") << QStringList{"get", "k", "--limit", "-1"} << QByteArray("--limit");
        QTest::newRow("no command") << QStringList{"--json"} << QByteArray("no command");
    }

    void usageErrorsExit128()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, mentions);
        const Run run = qetcd(arguments);
        QCOMPARE(run.exitCode, 128);
        QVERIFY2(isOneLine(run.err) && run.err.contains(mentions), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }

    void emptyKeyIsRefused()
    {
        const Run run = qetcd({"put", "", "value"});
        QCOMPARE(run.exitCode, 3);  // invalid input
        QVERIFY2(isOneLine(run.err) && run.err.contains("key is empty"), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_Cli)
#include "tst_cli.moc"
