// SPDX-License-Identifier: Apache-2.0
// KeyExport, KeyImport and BulkDelete against real etcd: etcdctl's own JSON shape, a round trip
// through a file into a second cluster, the dry run's guard on every written key, refusals of
// bad files and under read-only, and deletes in transactions of at most 128 keys.
#include "../common/awaitfuture.h"

#include "testhooks_p.h"

#include <QEtcd/bulkdelete.h>
#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/keyexport.h>
#include <QEtcd/keyimport.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <atomic>
#include <functional>
#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {
// Waits for a job's finished() and returns what it carried.
template <class Job, class Result>
Result finishedOf(Job &job, void (Job::*finished)(const Result &))
{
    QSignalSpy spy(&job, finished);
    if (!spy.wait(scaledMs(60000)) && spy.isEmpty()) {
        Result late;
        late.status = Status(StatusCode::DeadlineExceeded, QStringLiteral("did not finish in time"));
        return late;
    }
    return spy.takeFirst().at(0).template value<Result>();
}

QByteArray readAll(const QString &fileName)
{
    QFile file(fileName);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString &fileName, const QByteArray &content)
{
    QFile file(fileName);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(content), content.size());
}

// A file's lines without the fields that only say when a key was written there.
QByteArrayList withoutRevisions(const QByteArray &content)
{
    static const QRegularExpression revisions(
        QStringLiteral("(\"(create_revision|mod_revision|revision|raft_term|cluster_id|member_id)\":\\d+)"));
    QByteArrayList lines;
    for (const QByteArray &line : content.split('\n'))
        lines.append(QString::fromUtf8(line).replace(revisions, QStringLiteral("\"\\2\":_")).toUtf8());
    return lines;
}
} // namespace

class tst_KeyTransfer : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EtcdCluster> m_cluster;
    std::unique_ptr<Client> m_client;
    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    void putKeys(Client *client, const QByteArray &prefix, int count)
    {
        // One transaction per 100 keys: each key written once, so its version is 1 everywhere.
        for (int first = 0; first < count; first += 100) {
            Txn txn;
            for (int i = first; i < qMin(count, first + 100); ++i) {
                // Values of every kind: text, JSON, binary with NUL and high bytes, empty.
                QByteArray value = i % 4 == 0 ? QByteArray("value ") + QByteArray::number(i)
                    : i % 4 == 1              ? QByteArray(R"({"n":)") + QByteArray::number(i) + "}"
                    : i % 4 == 2              ? QByteArray("\x00\xff\x01 bin", 7) + QByteArray::number(i)
                                              : QByteArray();
                txn.success.append(TxnOp::put(prefix + QByteArray::number(i).rightJustified(4, '0'), value));
            }
            const TxnResult result = awaited(client->txn(txn));
            QVERIFY2(result.status && result.succeeded, qPrintable(result.status.toString()));
        }
    }

    KeyExportResult exportKeys(Client *client, const QByteArray &prefix, const QString &file,
                               KeyExport::Format format = KeyExport::Format::Etcdctl, int pageSize = 0)
    {
        KeyExport job(client);
        if (pageSize > 0)
            job.setPageSize(pageSize);
        job.start(prefix, file, format);
        return finishedOf(job, &KeyExport::finished);
    }

    KeyImportResult importKeys(Client *client, const QString &file, const KeyImportOptions &options = {})
    {
        KeyImport job(client);
        job.start(file, options);
        return finishedOf(job, &KeyImport::finished);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_cluster = std::make_unique<EtcdCluster>();
        QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster->clientUrls()));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_cluster.reset();
    }

    // The etcdctl shape is what etcdctl itself prints: the same document, field for field.
    void exportIsWhatEtcdctlPrints()
    {
        putKeys(m_client.get(), "/shape/", 7);
        const LeaseGrantResult lease = awaited(m_client->leaseGrant(60));
        QVERIFY(lease.status);
        PutOptions withLease;
        withLease.lease = lease.id;
        QVERIFY(awaited(m_client->put("/shape/leased", "v", withLease)).status);

        const KeyExportResult exported = exportKeys(m_client.get(), "/shape/", path("shape.json"), KeyExport::Format::Etcdctl, 3);
        QVERIFY2(exported.status, qPrintable(exported.status.toString()));
        QCOMPARE(exported.keys, 8);
        const QByteArray ours = readAll(path("shape.json"));
        const QByteArray theirs = m_cluster->etcdctl({"get", "/shape/", "--prefix", "-w", "json"});
        const QJsonDocument oursDocument = QJsonDocument::fromJson(ours);
        const QJsonDocument theirsDocument = QJsonDocument::fromJson(theirs);
        QVERIFY2(oursDocument.isObject(), ours.constData());
        QVERIFY2(theirsDocument.isObject(), theirs.constData());
        // Nothing was written in between: the same revision, so the very same document.
        QCOMPARE(oursDocument.object().keys(), theirsDocument.object().keys());
        QCOMPARE(oursDocument.object().value("header").toObject().keys(),
                 theirsDocument.object().value("header").toObject().keys());
        QCOMPARE(oursDocument.object().value("kvs"), theirsDocument.object().value("kvs"));
        QCOMPARE(oursDocument.object().value("count"), theirsDocument.object().value("count"));
        QCOMPARE(exported.revision, theirsDocument.object().value("header").toObject().value("revision").toInteger());
        QVERIFY(!QFile::exists(path("shape.json.part")));
    }

    // Exported from one cluster, imported into a fresh one, exported again: the same file but
    // for the revisions, whichever shape.
    void roundTripIntoAFreshClusterIsByteForByte_data()
    {
        QTest::addColumn<KeyExport::Format>("format");
        QTest::newRow("etcdctl") << KeyExport::Format::Etcdctl;
        QTest::newRow("jsonl") << KeyExport::Format::JsonLines;
    }
    void roundTripIntoAFreshClusterIsByteForByte()
    {
        QFETCH(KeyExport::Format, format);
        const QByteArray prefix = "/trip/" + QByteArray(QTest::currentDataTag()) + "/";
        putKeys(m_client.get(), prefix, 300);
        const QString first = path(QStringLiteral("first-%1").arg(QTest::currentDataTag()));
        const QString second = path(QStringLiteral("second-%1").arg(QTest::currentDataTag()));
        const KeyExportResult exported = exportKeys(m_client.get(), prefix, first, format, 70);
        QVERIFY2(exported.status, qPrintable(exported.status.toString()));
        QCOMPARE(exported.keys, 300);

        EtcdCluster fresh;
        QVERIFY2(fresh.start(), qPrintable(fresh.errorString()));
        Client freshClient(ClientOptions::fromEndpoints(fresh.clientUrls()));
        KeyImport job(&freshClient);
        QSignalSpy planned(&job, &KeyImport::planned);
        QSignalSpy progressed(&job, &KeyImport::progressed);
        job.start(first);
        const KeyImportResult imported = finishedOf(job, &KeyImport::finished);
        QVERIFY2(imported.status, qPrintable(imported.status.toString()));
        QCOMPARE(planned.size(), 1);
        QCOMPARE(imported.plan.creates, 300);
        QCOMPARE(imported.written, 300);
        QCOMPARE(imported.transactions, 3);  // 128 + 128 + 44
        QVERIFY(progressed.size() >= 3);
        QCOMPARE(progressed.last().at(0).toLongLong(), 300);

        const KeyExportResult again = exportKeys(&freshClient, prefix, second, format);
        QVERIFY2(again.status, qPrintable(again.status.toString()));
        QCOMPARE(withoutRevisions(readAll(second)), withoutRevisions(readAll(first)));
        const QList<KeyValue> original = keysWithPrefix(m_client.get(), prefix);
        const QList<KeyValue> copied = keysWithPrefix(&freshClient, prefix);
        QCOMPARE(copied.size(), original.size());
        for (qsizetype i = 0; i < original.size(); ++i) {
            QCOMPARE(copied[i].key, original[i].key);
            QCOMPARE(copied[i].value, original[i].value);
        }
    }

    // A second import of the same file has nothing to write; a changed key is an overwrite.
    void dryRunSortsKeysAndWritesNothing()
    {
        putKeys(m_client.get(), "/plan/", 20);
        QVERIFY(exportKeys(m_client.get(), "/plan/", path("plan.json")).status);
        QVERIFY(awaited(m_client->put("/plan/0001", "changed")).status);
        QVERIFY(awaited(m_client->remove("/plan/0005")).status);
        const qint64 before = awaited(m_client->get("/plan/0000")).header.revision;
        KeyImportOptions dryRun;
        dryRun.dryRun = true;
        const KeyImportResult result = importKeys(m_client.get(), path("plan.json"), dryRun);
        QVERIFY2(result.status, qPrintable(result.status.toString()));
        QCOMPARE(result.plan.creates, 1);
        QCOMPARE(result.plan.overwrites, 1);
        QCOMPARE(result.plan.unchanged, 18);
        QCOMPARE(result.plan.createSample, QList<QByteArray>{"/plan/0005"});
        QCOMPARE(result.plan.overwriteSample, QList<QByteArray>{"/plan/0001"});
        QCOMPARE(result.plan.unchangedSample.size(), KeyImportPlan::sampleSize);
        QCOMPARE(result.written, 0);
        QCOMPARE(awaited(m_client->get("/plan/0000")).header.revision, before);

        const KeyImportResult applied = importKeys(m_client.get(), path("plan.json"));
        QVERIFY2(applied.status, qPrintable(applied.status.toString()));
        QCOMPARE(applied.written, 2);
        QCOMPARE(awaited(m_client->get("/plan/0001")).kvs.value(0).value, QByteArray(R"({"n":1})"));
    }

    // A key of the second transaction changes between the dry run and the write: that whole
    // transaction fails, naming the key; the first one's keys stay written.
    void keyChangedAfterTheDryRunStopsTheImport()
    {
        putKeys(m_client.get(), "/guard/src/", 200);
        QVERIFY(exportKeys(m_client.get(), "/guard/src/", path("guard.json")).status);
        Client meddler(ClientOptions::fromEndpoints(m_cluster->clientUrls()));
        std::atomic<int> writes{0};
        Internal::setBeforeSend(m_client.get(), [&](const QString &what) {
            // The writes are the transactions with compares; the dry run's have none.
            if (what.startsWith(QLatin1String("txn comparing")) && ++writes == 2) {
                QFuture<PutResult> put = meddler.put("/guard/dst/0150", "meddled");
                put.waitForFinished();
            }
            return Internal::SendFault::None;
        });
        KeyImportOptions options;
        options.rewriteFrom = "/guard/src/";
        options.rewriteTo = "/guard/dst/";
        const KeyImportResult result = importKeys(m_client.get(), path("guard.json"), options);
        Internal::setBeforeSend(m_client.get(), {});
        QCOMPARE(result.status.code(), StatusCode::FailedPrecondition);
        QVERIFY2(result.status.message().contains(QLatin1String("\"/guard/dst/0150\" changed since the dry run")),
                 qPrintable(result.status.message()));
        QCOMPARE(result.plan.creates, 200);
        QCOMPARE(result.written, 128);
        QCOMPARE(result.transactions, 1);
        // The first transaction's keys, the meddler's key, and nothing else of the second.
        QCOMPARE(keysUnder(m_client.get(), "/guard/dst/"), 129);
        QCOMPARE(awaited(m_client->get("/guard/dst/0150")).kvs.value(0).value, QByteArray("meddled"));
        QCOMPARE(keysUnder(m_client.get(), "/guard/dst/0149"), 0);
    }

    // Large values: a transaction carries at most maxTransactionBytes, or etcd (whose default
    // --max-request-bytes is 1.5 MiB) would refuse it whole.
    void largeValuesGoInSmallerTransactions()
    {
        const QByteArray value(100 * 1024, 'x');
        for (int i = 0; i < 20; ++i)
            QVERIFY(awaited(m_client->put("/large/" + QByteArray::number(i).rightJustified(2, '0'), value)).status);
        QVERIFY(exportKeys(m_client.get(), "/large/", path("large.json")).status);
        KeyImportOptions options;
        options.rewriteFrom = "/large/";
        options.rewriteTo = "/large-copy/";
        const KeyImportResult result = importKeys(m_client.get(), path("large.json"), options);
        QVERIFY2(result.status, qPrintable(result.status.toString()));
        QCOMPARE(result.written, 20);
        QCOMPARE(result.transactions, 2);  // 10 values of 100 KiB fit a MiB, the 11th does not
        QCOMPARE(awaited(m_client->get("/large-copy/19")).kvs.value(0).value, value);
    }

    // The writes read the file again; one that changed after the dry run is refused there.
    void fileChangedAfterTheDryRunIsRefused()
    {
        putKeys(m_client.get(), "/fc/", 600);
        const QString file = path("fc.jsonl");
        QVERIFY(exportKeys(m_client.get(), "/fc/", file, KeyExport::Format::JsonLines).status);
        // Key 590's binary value, one byte different, the same length: far past what the reader
        // has buffered (16 KiB at a time) when the first transaction is sent.
        const QByteArray was = QByteArray("\x00\xff\x01 bin590", 10).toBase64();
        const QByteArray becomes = QByteArray("\x00\xff\x01 bin591", 10).toBase64();
        const qsizetype at = readAll(file).indexOf(was);
        QVERIFY(at > 40000);
        std::atomic<int> writes{0};
        Internal::setBeforeSend(m_client.get(), [&](const QString &what) {
            if (what.startsWith(QLatin1String("txn comparing")) && ++writes == 1) {
                QFile changed(file);
                if (changed.open(QIODevice::ReadWrite) && changed.seek(at))
                    changed.write(becomes);
            }
            return Internal::SendFault::None;
        });
        KeyImportOptions options;
        options.rewriteFrom = "/fc/";
        options.rewriteTo = "/fc-copy/";
        const KeyImportResult result = importKeys(m_client.get(), file, options);
        Internal::setBeforeSend(m_client.get(), {});
        QCOMPARE(result.status.code(), StatusCode::Aborted);
        QVERIFY2(result.status.message().contains(QLatin1String("the file changed since the dry run")),
                 qPrintable(result.status.message()));
        // Four batches of 128 as the dry run read them; the fifth, holding key 590, not at all.
        QCOMPARE(result.written, 512);
        QCOMPARE(keysUnder(m_client.get(), "/fc-copy/"), 512);
    }

    // Under read-only an import sends nothing at all; its dry run is allowed.
    void readOnlyRefusesBeforeSendingAnything()
    {
        putKeys(m_client.get(), "/ro/", 3);
        QVERIFY(exportKeys(m_client.get(), "/ro/", path("ro.json")).status);
        ClientOptions options = ClientOptions::fromEndpoints(m_cluster->clientUrls());
        options.readOnly = true;
        Client readOnly(options);
        std::atomic<int> sent{0};
        Internal::setBeforeSend(&readOnly, [&](const QString &) {
            ++sent;
            return Internal::SendFault::None;
        });
        KeyImportOptions rewrite;
        rewrite.rewriteFrom = "/ro/";
        rewrite.rewriteTo = "/ro-copy/";
        const KeyImportResult refused = importKeys(&readOnly, path("ro.json"), rewrite);
        QCOMPARE(refused.status.code(), StatusCode::ReadOnly);
        QCOMPARE(sent.load(), 0);

        BulkDelete remove(&readOnly);
        remove.startPrefix("/ro/");
        QCOMPARE(finishedOf(remove, &BulkDelete::finished).status.code(), StatusCode::ReadOnly);
        QCOMPARE(sent.load(), 0);

        rewrite.dryRun = true;
        const KeyImportResult dryRun = importKeys(&readOnly, path("ro.json"), rewrite);
        QVERIFY2(dryRun.status, qPrintable(dryRun.status.toString()));
        QCOMPARE(dryRun.plan.creates, 3);
        QVERIFY(sent.load() > 0);
        Internal::setBeforeSend(&readOnly, {});
        QCOMPARE(keysUnder(m_client.get(), "/ro-copy/"), 0);
    }

    // A bad file is refused naming its line, before any key is written: the good entries
    // before the bad one are not.
    void malformedFileIsRefusedNamingTheLine_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        const QByteArray header = R"({"header":{"revision":5},"prefix":"L2JhZC8=","revision":5})" "\n";
        const QByteArray good = R"({"key":"L2JhZC9h","create_revision":2,"mod_revision":2,"version":1,"value":"MQ=="})" "\n";
        QTest::newRow("not JSON") << header + good + "{\"key\":\n" << "line 3, entry 2: not JSON";
        QTest::newRow("bad base64") << header + good + good + R"({"key":"L2JhZC9i","value":"!!!"})" "\n"
                                    << "line 4, entry 3: \"value\" is not base64";
        QTest::newRow("no key") << header + good + R"({"value":"MQ=="})" "\n" << "line 3, entry 2: no \"key\"";
        QTest::newRow("not an object") << header + good + "[1,2]\n" << "line 3, entry 2: expected an object";
        QTest::newRow("number as text") << header + good + R"({"key":"L2JhZC9i","version":"1"})" "\n"
                                        << "line 3, entry 2: \"version\" is not a whole number";
        QTest::newRow("no header") << good + good << "line 1: expected a header";
        QTest::newRow("etcdctl truncated") << QByteArray(R"({"header":{"revision":5},"kvs":[)" "\n") + good.trimmed() + ",\n"
                                           << "line 3: the file ends in the middle";
        QTest::newRow("etcdctl count") << QByteArray(R"({"header":{"revision":5},"kvs":[)" "\n") + good.trimmed()
                                              + "\n],\"count\":2}\n"
                                       << "says \"count\":2 but holds 1 keys";
        QTest::newRow("etcdctl bad entry") << QByteArray(R"({"header":{"revision":5},"kvs":[)" "\n") + good.trimmed() + ",\n"
                                                  + R"({"key":7})" "\n],\"count\":2}\n"
                                           << "line 3, entry 2: \"key\" is not a string";
    }
    void malformedFileIsRefusedNamingTheLine()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString file = path(QStringLiteral("bad-%1").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
        writeFile(file, content);
        const KeyImportResult result = importKeys(m_client.get(), file);
        QCOMPARE(result.status.code(), StatusCode::InvalidArgument);
        QVERIFY2(result.status.message().contains(expected), qPrintable(result.status.message()));
        QVERIFY2(result.status.message().contains(file), qPrintable(result.status.message()));
        QCOMPARE(result.written, 0);
        QCOMPARE(keysUnder(m_client.get(), "/bad/"), 0);
    }

    // What etcdctl prints is a file import reads, leases left behind unless asked for.
    void etcdctlsOwnJsonIsImported()
    {
        putKeys(m_client.get(), "/theirs/", 9);
        const LeaseGrantResult lease = awaited(m_client->leaseGrant(60));
        PutOptions withLease;
        withLease.lease = lease.id;
        QVERIFY(awaited(m_client->put("/theirs/leased", "v", withLease)).status);
        writeFile(path("theirs.json"), m_cluster->etcdctl({"get", "/theirs/", "--prefix", "-w", "json"}));
        KeyImportOptions options;
        options.rewriteFrom = "/theirs/";
        options.rewriteTo = "/mine/";
        const KeyImportResult result = importKeys(m_client.get(), path("theirs.json"), options);
        QVERIFY2(result.status, qPrintable(result.status.toString()));
        QCOMPARE(result.written, 10);
        const QList<KeyValue> theirs = keysWithPrefix(m_client.get(), "/theirs/");
        const QList<KeyValue> mine = keysWithPrefix(m_client.get(), "/mine/");
        QCOMPARE(mine.size(), theirs.size());
        for (qsizetype i = 0; i < mine.size(); ++i) {
            QCOMPARE(mine[i].key.mid(6), theirs[i].key.mid(8));
            QCOMPARE(mine[i].value, theirs[i].value);
            QCOMPARE(mine[i].lease, 0);
        }

        options.rewriteTo = "/mine-leased/";
        options.keepLeases = true;
        QVERIFY(importKeys(m_client.get(), path("theirs.json"), options).status);
        QCOMPARE(awaited(m_client->get("/mine-leased/leased")).kvs.value(0).lease, lease.id);
    }

    void exportRefusesAnExistingFileAndLeavesNoPartFile()
    {
        writeFile(path("taken.json"), "keep me");
        const KeyExportResult refused = exportKeys(m_client.get(), "/shape/", path("taken.json"));
        QCOMPARE(refused.status.code(), StatusCode::AlreadyExists);
        QCOMPARE(readAll(path("taken.json")), QByteArray("keep me"));
        QVERIFY(!QFile::exists(path("taken.json.part")));

        KeyExport job(m_client.get());
        job.setPageSize(1);
        QSignalSpy progressed(&job, &KeyExport::progressed);
        connect(&job, &KeyExport::progressed, &job, &KeyExport::cancel);
        job.start("/trip/jsonl/", path("cancelled.json"), KeyExport::Format::JsonLines);
        const KeyExportResult cancelled = finishedOf(job, &KeyExport::finished);
        QCOMPARE(cancelled.status.code(), StatusCode::Cancelled);
        QVERIFY(progressed.size() >= 1);
        QVERIFY(!QFile::exists(path("cancelled.json")));
        QVERIFY(!QFile::exists(path("cancelled.json.part")));
    }

    // KJob's contract: nothing reported inside start(), one result, running true then false, a
    // second start() refused; destroyed while running, an export leaves no file behind.
    void jobsReportOnceAndNeverInsideStart()
    {
        KeyImport job(m_client.get());
        QSignalSpy finished(&job, &KeyImport::finished);
        QSignalSpy running(&job, &KeyImport::runningChanged);
        job.start(path("does-not-exist.json"));
        QCOMPARE(finished.size(), 0);
        QVERIFY(job.isRunning());
        QVERIFY(finished.wait(scaledMs(20000)));
        QCOMPARE(finished.first().at(0).value<KeyImportResult>().status.code(), StatusCode::InvalidArgument);
        QCOMPARE(running.size(), 2);
        QCOMPARE(running.at(0).at(0).toBool(), true);
        QCOMPARE(running.at(1).at(0).toBool(), false);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("an import runs once")));
        QVERIFY(!job.start(path("does-not-exist.json")));
        // Another round trip: a second result would have been queued before its answer.
        QVERIFY(awaited(m_client->get("/any")).status);
        QCOMPARE(finished.size(), 1);

        {
            auto exporter = std::make_unique<KeyExport>(m_client.get());
            exporter->setPageSize(1);
            QSignalSpy progressed(exporter.get(), &KeyExport::progressed);
            exporter->start("/trip/etcdctl/", path("destroyed.json"));
            QVERIFY(progressed.wait(scaledMs(20000)));
            exporter.reset();
        }
        QVERIFY(!QFile::exists(path("destroyed.json")));
        QVERIFY(!QFile::exists(path("destroyed.json.part")));
    }

    // Counted with a sample first, then deleted 128 keys per transaction.
    void bulkDeleteCountsThenDeletesInTransactions()
    {
        putKeys(m_client.get(), "/bulk/", 300);
        BulkDelete dry(m_client.get());
        QSignalSpy counted(&dry, &BulkDelete::counted);
        dry.startPrefix("/bulk/", true);
        const BulkDeleteResult dryResult = finishedOf(dry, &BulkDelete::finished);
        QVERIFY2(dryResult.status, qPrintable(dryResult.status.toString()));
        QCOMPARE(counted.size(), 1);
        QCOMPARE(dryResult.counted, 300);
        QCOMPARE(dryResult.sample.size(), BulkDelete::sampleSize);
        QCOMPARE(dryResult.sample.first(), QByteArray("/bulk/0000"));
        QCOMPARE(dryResult.deleted, 0);
        QCOMPARE(keysUnder(m_client.get(), "/bulk/"), 300);

        BulkDelete remove(m_client.get());
        QSignalSpy progressed(&remove, &BulkDelete::progressed);
        remove.startPrefix("/bulk/");
        const BulkDeleteResult result = finishedOf(remove, &BulkDelete::finished);
        QVERIFY2(result.status, qPrintable(result.status.toString()));
        QCOMPARE(result.deleted, 300);
        QCOMPARE(result.transactions, 3);
        QCOMPARE(progressed.size(), 3);
        QCOMPARE(keysUnder(m_client.get(), "/bulk/"), 0);

        putKeys(m_client.get(), "/list/", 3);
        BulkDelete listed(m_client.get());
        listed.startKeys({"/list/0000", "/list/0002", "/list/missing"});
        const BulkDeleteResult listResult = finishedOf(listed, &BulkDelete::finished);
        QVERIFY2(listResult.status, qPrintable(listResult.status.toString()));
        QCOMPARE(listResult.counted, 2);
        QCOMPARE(listResult.deleted, 2);
        QCOMPARE(keysUnder(m_client.get(), "/list/"), 1);

        BulkDelete empty(m_client.get());
        empty.startKeys({"/list/0001", ""});
        const BulkDeleteResult refused = finishedOf(empty, &BulkDelete::finished);
        QCOMPARE(refused.status.code(), StatusCode::InvalidArgument);
        QVERIFY2(refused.status.message().contains(QLatin1String("key 2 of the list is empty")), qPrintable(refused.status.message()));
        QCOMPARE(keysUnder(m_client.get(), "/list/"), 1);
    }

    // Stop (cancel) ends each job between two steps: what an import or a delete wrote stays
    // written and is counted, an export leaves no file.
    void cancelStopsBetweenSteps()
    {
        putKeys(m_client.get(), "/stop/src/", 300);
        std::atomic<int> calls{0};
        const auto cancelAtSecond = [&](const char *verb, const std::function<void()> &cancel) {
            calls = 0;
            Internal::setBeforeSend(m_client.get(), [&calls, verb, cancel](const QString &what) {
                if (what.startsWith(QLatin1String(verb)) && ++calls == 2)
                    cancel();
                return Internal::SendFault::None;
            });
        };

        KeyExport exporter(m_client.get());
        exporter.setPageSize(50);
        cancelAtSecond("get", [&exporter] { exporter.cancel(); });
        exporter.start("/stop/src/", path("stopped.json"));
        const KeyExportResult exported = finishedOf(exporter, &KeyExport::finished);
        QCOMPARE(exported.status.code(), StatusCode::Cancelled);
        QVERIFY(!QFile::exists(path("stopped.json")));
        QVERIFY(!QFile::exists(path("stopped.json.part")));

        QVERIFY(exportKeys(m_client.get(), "/stop/src/", path("stop.json")).status);
        KeyImport importer(m_client.get());
        KeyImportOptions options;
        options.rewriteFrom = "/stop/src/";
        options.rewriteTo = "/stop/dst/";
        cancelAtSecond("txn comparing", [&importer] { importer.cancel(); });
        importer.start(path("stop.json"), options);
        const KeyImportResult imported = finishedOf(importer, &KeyImport::finished);
        QCOMPARE(imported.status.code(), StatusCode::Cancelled);
        QVERIFY2(imported.written >= 128 && imported.written < 300, qPrintable(QString::number(imported.written)));
        QCOMPARE(keysUnder(m_client.get(), "/stop/dst/"), imported.written);

        BulkDelete remover(m_client.get());
        cancelAtSecond("txn", [&remover] { remover.cancel(); });
        remover.startPrefix("/stop/src/");
        const BulkDeleteResult removed = finishedOf(remover, &BulkDelete::finished);
        Internal::setBeforeSend(m_client.get(), {});
        QCOMPARE(removed.status.code(), StatusCode::Cancelled);
        QVERIFY2(removed.deleted >= 128 && removed.deleted < 300, qPrintable(QString::number(removed.deleted)));
        QCOMPARE(keysUnder(m_client.get(), "/stop/src/"), 300 - removed.deleted);
    }
};

QTEST_MAIN(tst_KeyTransfer)
#include "tst_keytransfer.moc"
