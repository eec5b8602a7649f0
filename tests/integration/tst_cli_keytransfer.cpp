// SPDX-License-Identifier: Apache-2.0
// qetcd export, import, diff and del --dry-run against real etcd, through the binary: a round
// trip into another prefix, the dry run's plan, refusals (bad file, --read-only, existing file)
// with etcdctl's exit codes, and JSON-aware diffs of a key's revisions.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>

#include <QtCore/QJsonArray>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CliKeyTransfer : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_cluster;
    std::unique_ptr<Client> m_client;
    QTemporaryDir m_dir;

    QString endpoint() const { return m_cluster->clientUrls().join(QLatin1Char(',')); }
    QString path(const QString &name) const { return m_dir.filePath(name); }

    // Runs qetcd to its exit; its exit code, stdout JSON lines in *events, stderr in *error.
    int run(const QStringList &arguments, QList<QJsonObject> *events = nullptr, QByteArray *error = nullptr,
            Printed printed = Printed::JsonLines)
    {
        Qetcd process(endpoint(), arguments, {}, printed);
        const int exit = process.waitForExit();
        if (events)
            *events = process.events();
        if (error)
            *error = process.standardError();
        return exit;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_cluster = std::make_unique<EtcdCluster>();
        QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster->clientUrls()));
        for (int i = 0; i < 150; ++i)
            QVERIFY(awaited(m_client->put("/c/" + QByteArray::number(i), "value " + QByteArray::number(i))).status);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_cluster.reset();
    }

    void exportThenImportIntoAnotherPrefix_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("etcdctl") << QStringLiteral("etcdctl");
        QTest::newRow("jsonl") << QStringLiteral("jsonl");
    }
    void exportThenImportIntoAnotherPrefix()
    {
        QFETCH(QString, format);
        const QString file = path(QStringLiteral("c.") + format);
        const QString target = QStringLiteral("/copy-%1/").arg(format);
        QList<QJsonObject> events;
        QCOMPARE(run({"--json", "export", "/c/", "-o", file, "--format", format}, &events), 0);
        QCOMPARE(events.size(), 1);
        QCOMPARE(integer(events.first(), "keys"), 150);
        QVERIFY(integer(events.first(), "revision") > 0);

        QCOMPARE(run({"--json", "import", file, "--dry-run", "--prefix-rewrite", "/c/=" + target}, &events), 0);
        QCOMPARE(events.size(), 1);
        QCOMPARE(integer(events.first(), "creates"), 150);
        QCOMPARE(integer(events.first(), "overwrites"), 0);
        QCOMPARE(events.first().value("create_sample").toArray().size(), 10);
        QCOMPARE(keysUnder(m_client.get(), target.toUtf8()), 0);

        QCOMPARE(run({"--json", "import", file, "--prefix-rewrite", "/c/=" + target}, &events), 0);
        QCOMPARE(events.size(), 2);
        QCOMPARE(integer(events.last(), "written"), 150);
        QCOMPARE(integer(events.last(), "transactions"), 2);
        QCOMPARE(awaited(m_client->get(target.toUtf8() + "42")).kvs.value(0).value, QByteArray("value 42"));
        QCOMPARE(keysUnder(m_client.get(), target.toUtf8()), 150);

        // Again: nothing left to write.
        QCOMPARE(run({"--json", "import", file, "--prefix-rewrite", "/c/=" + target}, &events), 0);
        QCOMPARE(integer(events.first(), "unchanged"), 150);
        QCOMPARE(integer(events.last(), "written"), 0);
    }

    // --rev: the keys as they were then, every page at that revision.
    void exportAtAnEarlierRevision()
    {
        const PutResult then = awaited(m_client->put("/rev/a", "then"));
        QVERIFY(then.status);
        QVERIFY(awaited(m_client->put("/rev/a", "now")).status);
        QVERIFY(awaited(m_client->put("/rev/b", "later")).status);
        QList<QJsonObject> events;
        QCOMPARE(run({"--json", "export", "/rev/", "-o", path("rev.jsonl"), "--format", "jsonl", "--rev",
                      QString::number(then.header.revision)},
                     &events),
                 0);
        QCOMPARE(integer(events.value(0), "keys"), 1);
        QCOMPARE(integer(events.value(0), "revision"), then.header.revision);
        QFile file(path("rev.jsonl"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines[1].contains("\"value\":\"" + QByteArray("then").toBase64() + "\""), lines[1].constData());
    }

    void textOutputSaysWhatItDid()
    {
        Qetcd exported(endpoint(), {"export", "/c/1", "-o", path("text.json")}, {}, Printed::JsonAndPlainLines);
        QCOMPARE(exported.waitForExit(), 0);
        QVERIFY2(exported.plainLines().value(0).startsWith("Exported 61 keys under \"/c/1\" at revision "),
                 exported.transcript().constData());
        Qetcd imported(endpoint(), {"import", path("text.json"), "--dry-run"}, {}, Printed::JsonAndPlainLines);
        QCOMPARE(imported.waitForExit(), 0);
        QCOMPARE(imported.plainLines().value(0), QByteArray("0 to create, 0 to overwrite, 61 unchanged"));
        QCOMPARE(imported.plainLines().value(1), QByteArray("  unchanged /c/1"));
        QCOMPARE(imported.plainLines().last(), QByteArray("  ... and 51 more"));
    }

    void badFileIsRefusedNamingTheLine()
    {
        QFile file(path("bad.jsonl"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"header":{"revision":1},"prefix":"","revision":1})" "\n"
                   R"({"key":"L2JhZC8x","value":"MQ=="})" "\n"
                   R"({"key":"L2JhZC8y","value":"%%"})" "\n");
        file.close();
        QByteArray error;
        QCOMPARE(run({"import", file.fileName()}, nullptr, &error), 3);
        QVERIFY2(error.contains("line 3, entry 2: \"value\" is not base64"), error.constData());
        QCOMPARE(keysUnder(m_client.get(), "/bad/"), 0);
    }

    void readOnlyRefusesTheImportButNotItsDryRun()
    {
        QCOMPARE(run({"export", "/c/", "-o", path("ro.json")}), 0);
        QByteArray error;
        QCOMPARE(run({"--read-only", "import", path("ro.json"), "--prefix-rewrite", "/c/=/ro/"}, nullptr, &error), 1);
        QVERIFY2(error.contains("read-only"), error.constData());
        QCOMPARE(run({"--read-only", "import", path("ro.json"), "--prefix-rewrite", "/c/=/ro/", "--dry-run"}), 0);
        QCOMPARE(keysUnder(m_client.get(), "/ro/"), 0);
    }

    void exportRefusesAnExistingFileAndBadArguments()
    {
        QCOMPARE(run({"export", "/c/", "-o", path("twice.json")}), 0);
        QByteArray error;
        QCOMPARE(run({"export", "/c/", "-o", path("twice.json")}, nullptr, &error), 1);
        QVERIFY2(error.contains("exists"), error.constData());
        QCOMPARE(run({"export", "/c/", "-o", path("twice.json"), "--force"}), 0);
        QCOMPARE(run({"export", "/c/"}, nullptr, &error), 128);
        QVERIFY2(error.contains("-o FILE"), error.constData());
        QCOMPARE(run({"export", "/c/", "-o", path("x"), "--format", "xml"}, nullptr, &error), 128);
        QVERIFY2(error.contains("--format is etcdctl or jsonl"), error.constData());
        QCOMPARE(run({"import", path("x"), "--prefix-rewrite", "nothing"}, nullptr, &error), 128);
        QVERIFY2(error.contains("OLD=NEW"), error.constData());
    }

    void deleteDryRunCountsAndNamesWithoutDeleting()
    {
        QList<QJsonObject> events;
        QCOMPARE(run({"--json", "--read-only", "del", "/c/", "--prefix", "--dry-run"}, &events), 0);
        QCOMPARE(events.size(), 1);
        QCOMPARE(integer(events.first(), "would_delete"), 150);
        QCOMPARE(events.first().value("sample").toArray().first().toString(), QStringLiteral("/c/0"));
        QCOMPARE(events.first().value("sample").toArray().size(), 10);
        QCOMPARE(keysUnder(m_client.get(), "/c/"), 150);
    }

    // 300 keys in three transactions, each its own revision; refused without a prefix and
    // under --read-only.
    void deleteInBatchesUsesTransactionsOf128()
    {
        for (int first = 0; first < 300; first += 100) {  // etcd's --max-txn-ops is 128
            Txn txn;
            for (int i = first; i < first + 100; ++i)
                txn.success.append(TxnOp::put("/batch/" + QByteArray::number(i), "v"));
            QVERIFY(awaited(m_client->txn(txn)).succeeded);
        }
        const qint64 before = awaited(m_client->get("/batch/0")).header.revision;

        QByteArray error;
        QCOMPARE(run({"del", "/batch/", "--in-batches"}, nullptr, &error), 128);
        QVERIFY2(error.contains("--in-batches deletes the keys under a --prefix"), error.constData());
        QCOMPARE(run({"del", "/batch/", "--prefix", "--in-batches", "--prev-kv"}, nullptr, &error), 128);
        QVERIFY2(error.contains("leave out --prev-kv"), error.constData());
        QCOMPARE(run({"--read-only", "del", "/batch/", "--prefix", "--in-batches"}, nullptr, &error), 1);
        QVERIFY2(error.contains("read-only"), error.constData());
        QCOMPARE(keysUnder(m_client.get(), "/batch/"), 300);

        QList<QJsonObject> events;
        QCOMPARE(run({"--json", "del", "/batch/", "--prefix", "--in-batches"}, &events), 0);
        QCOMPARE(events.size(), 1);
        QCOMPARE(integer(events.first(), "deleted"), 300);
        QCOMPARE(integer(events.first(), "transactions"), 3);
        QCOMPARE(integer(events.first(), "revision"), before + 3);
        QCOMPARE(keysUnder(m_client.get(), "/batch/"), 0);
        QCOMPARE(keysUnder(m_client.get(), "/c/"), 150);
    }

    // Reordered keys are no change; the changed member is the one line marked.
    void diffComparesJsonByMember()
    {
        const PutResult first = awaited(m_client->put("/svc/a", R"({"host":"a","port":1,"ttl":5})"));
        QVERIFY(awaited(m_client->put("/svc/a", R"({"ttl":5,"port":1,"host":"b"})")).status);
        const QString revision = QString::number(first.header.revision);
        QList<QJsonObject> events;
        QCOMPARE(run({"--json", "diff", "/svc/a", revision}, &events), 0);
        QCOMPARE(events.size(), 1);
        QVERIFY(events.first().value("changed").toBool());
        QStringList changed;
        for (const QJsonValue &line : events.first().value("lines").toArray()) {
            if (line.toObject().value("kind").toString() != QLatin1String("same"))
                changed.append(line.toObject().value("kind").toString() + QLatin1Char(' ') + line.toObject().value("text").toString());
        }
        QCOMPARE(changed, (QStringList{"removed     \"host\": \"a\",", "added     \"host\": \"b\","}));

        Qetcd unified(endpoint(), {"diff", "/svc/a", revision}, {}, Printed::JsonAndPlainLines);
        QCOMPARE(unified.waitForExit(), 0);
        const QList<QByteArray> lines = unified.plainLines();
        QVERIFY2(lines.value(0).startsWith("--- /svc/a@" + revision.toUtf8() + " (mod_revision "), unified.transcript().constData());
        QVERIFY(lines.contains("-    \"host\": \"a\","));
        QVERIFY(lines.contains("+    \"host\": \"b\","));

        Qetcd sideBySide(endpoint(), {"diff", "/svc/a", revision, "--side-by-side", "--width", "60"}, {}, Printed::JsonAndPlainLines);
        QCOMPARE(sideBySide.waitForExit(), 0);
        bool marked = false;
        for (const QByteArray &line : sideBySide.plainLines())
            marked = marked || (line.contains("\"a\"") && line.contains(" | ") && line.contains("\"b\""));
        QVERIFY2(marked, sideBySide.transcript().constData());

        QByteArray error;
        QCOMPARE(run({"diff", "/svc/a", "zero"}, nullptr, &error), 128);
        QVERIFY2(error.contains("REV1 must be a revision > 0"), error.constData());
    }
};

QTEST_MAIN(tst_CliKeyTransfer)
#include "tst_cli_keytransfer.moc"
