// SPDX-License-Identifier: Apache-2.0
// KeyWatchModel against a real etcd member under QAbstractItemModelTester: the changes of a
// prefix in order with who made them, held while paused, filtered, bounded, exported as JSON
// lines, replayed from a past revision, and from a compacted one where etcd's history begins,
// saying so.
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "keywatchmodel.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_KeyWatchModel : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    qint64 put(const QByteArray &key, const QByteArray &value, qint64 lease = 0)
    {
        PutOptions options;
        options.lease = lease;
        const QFuture<PutResult> written = m_client->put(key, value, options);
        return awaitFuture(written) && written.result().status ? written.result().header.revision : -1;
    }
    static QVariant at(const KeyWatchModel &model, int row, KeyWatchModel::Role role)
    {
        return model.data(model.index(row), role);
    }
    std::unique_ptr<KeyWatchModel> watching(const QString &prefix, qint64 fromRevision = 0)
    {
        auto model = std::make_unique<KeyWatchModel>();
        model->setClient(m_client.get());
        model->setPrefix(true);
        model->setFromRevision(fromRevision);
        model->setKey(prefix);
        return model;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    // Puts and deletes in etcd's order, each with its revision, value, lease and writer; a
    // delete names whose value it took away.
    void changesInOrderWithTheirWriter()
    {
        auto model = watching(QStringLiteral("/kw/order/"));
        QAbstractItemModelTester tester(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE_WITH_TIMEOUT(model->status(), ModelStatus::Ready, scaledMs(10000));
        LeaseGrantResult lease;
        QETCD_AWAIT(m_client->leaseGrant(60), lease);
        const QByteArray lockKey = "/kw/order/locks/l/" + QByteArray::number(lease.id, 16);
        const qint64 first = put("/kw/order/a", "one");
        const qint64 held = put(lockKey, R"({"clientId":"alice","host":"h1","pid":7})", lease.id);
        QVERIFY(awaitFuture(m_client->remove(lockKey)));
        QTRY_COMPARE_WITH_TIMEOUT(model->count(), 3, scaledMs(10000));
        QCOMPARE(model->received(), 3);
        QCOMPARE(at(*model, 0, KeyWatchModel::RevisionRole).toLongLong(), first);
        QCOMPARE(at(*model, 0, KeyWatchModel::TypeRole).toString(), QStringLiteral("PUT"));
        QCOMPARE(at(*model, 0, KeyWatchModel::ValueRole).toString(), QStringLiteral("one"));
        QCOMPARE(at(*model, 0, KeyWatchModel::SizeRole).toInt(), 3);
        QCOMPARE(at(*model, 0, KeyWatchModel::WriterRole).toString(), QString());
        QCOMPARE(at(*model, 1, KeyWatchModel::RevisionRole).toLongLong(), held);
        QCOMPARE(at(*model, 1, KeyWatchModel::LeaseRole).toString(), QString::number(lease.id, 16));
        QCOMPARE(at(*model, 1, KeyWatchModel::WriterRole).toString(), QStringLiteral("alice"));
        QCOMPARE(at(*model, 2, KeyWatchModel::TypeRole).toString(), QStringLiteral("DELETE"));
        QCOMPARE(at(*model, 2, KeyWatchModel::WriterRole).toString(), QStringLiteral("alice"));
        QCOMPARE(at(*model, 2, KeyWatchModel::VersionRole).toLongLong(), 0);
    }

    // Paused, what arrives is held and shown on resume; a filter shows what mentions it; past
    // capacity the oldest go.
    void pausedFilteredAndBounded()
    {
        auto model = watching(QStringLiteral("/kw/pause/"));
        QAbstractItemModelTester tester(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE_WITH_TIMEOUT(model->status(), ModelStatus::Ready, scaledMs(10000));
        put("/kw/pause/a", "apple");
        QTRY_COMPARE_WITH_TIMEOUT(model->count(), 1, scaledMs(10000));
        model->setPaused(true);
        put("/kw/pause/b", "banana");
        QTRY_COMPARE_WITH_TIMEOUT(model->held(), 1, scaledMs(10000));
        QCOMPARE(model->count(), 1);
        model->setPaused(false);
        QCOMPARE(model->held(), 0);
        QCOMPARE(model->count(), 2);

        model->setFilter(QStringLiteral("BANAN"));
        QCOMPARE(model->count(), 1);
        QCOMPARE(at(*model, 0, KeyWatchModel::KeyRole).toString(), QStringLiteral("/kw/pause/b"));
        put("/kw/pause/c", "cherry");
        put("/kw/pause/d", "banana split");
        QTRY_COMPARE_WITH_TIMEOUT(model->received(), 4, scaledMs(10000));
        QCOMPARE(model->count(), 2);
        model->setFilter(QString());
        QCOMPARE(model->count(), 4);

        model->setCapacity(3);
        QCOMPARE(model->count(), 3);
        QCOMPARE(at(*model, 0, KeyWatchModel::KeyRole).toString(), QStringLiteral("/kw/pause/b"));
        put("/kw/pause/e", "elderberry");
        QTRY_COMPARE_WITH_TIMEOUT(model->received(), 5, scaledMs(10000));
        QCOMPARE(model->count(), 3);
        QCOMPARE(at(*model, 0, KeyWatchModel::KeyRole).toString(), QStringLiteral("/kw/pause/c"));
        QCOMPARE(at(*model, 2, KeyWatchModel::KeyRole).toString(), QStringLiteral("/kw/pause/e"));
    }

    // The rows shown, one JSON object a line, with the bytes in base64.
    void exportedAsJsonLines()
    {
        auto model = watching(QStringLiteral("/kw/export/"));
        QTRY_COMPARE_WITH_TIMEOUT(model->status(), ModelStatus::Ready, scaledMs(10000));
        put("/kw/export/a", QByteArray("bin\x01\xff", 5));
        QVERIFY(awaitFuture(m_client->remove("/kw/export/a")));
        QTRY_COMPARE_WITH_TIMEOUT(model->count(), 2, scaledMs(10000));
        QTemporaryDir directory;
        const QString path = directory.filePath("watch.jsonl");
        QCOMPARE(model->exportJsonLines(QUrl::fromLocalFile(path).toString()), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QJsonObject put = QJsonDocument::fromJson(lines[0]).object();
        QCOMPARE(put.value("type").toString(), QStringLiteral("PUT"));
        QCOMPARE(QByteArray::fromBase64(put.value("value_base64").toString().toLatin1()), QByteArray("bin\x01\xff", 5));
        QCOMPARE(QByteArray::fromBase64(put.value("key_base64").toString().toLatin1()), QByteArray("/kw/export/a"));
        const QJsonObject deleted = QJsonDocument::fromJson(lines[1]).object();
        QCOMPARE(deleted.value("type").toString(), QStringLiteral("DELETE"));
        QVERIFY(!deleted.contains("value_base64"));
        QVERIFY(deleted.value("revision").toInteger() > put.value("revision").toInteger());
        QVERIFY(!model->exportJsonLines(directory.filePath("missing/dir/watch.jsonl")).isEmpty());
    }

    // From a past revision the history etcd keeps comes first; a compacted revision is an
    // error naming it.
    void fromAPastRevisionWhileHistoryLasts()
    {
        const qint64 first = put("/kw/past/a", "1");
        put("/kw/past/a", "2");
        put("/kw/past/b", "3");
        auto model = watching(QStringLiteral("/kw/past/"), first);
        QTRY_COMPARE_WITH_TIMEOUT(model->count(), 3, scaledMs(10000));
        QCOMPARE(at(*model, 0, KeyWatchModel::RevisionRole).toLongLong(), first);
        QCOMPARE(at(*model, 1, KeyWatchModel::ValueRole).toString(), QStringLiteral("2"));

        const qint64 now = put("/kw/past/c", "4");
        Result compacted;
        QETCD_AWAIT(m_client->compact(now), compacted);
        QVERIFY(compacted.status.isOk());
        auto late = watching(QStringLiteral("/kw/past/"), first);
        QTRY_VERIFY2_WITH_TIMEOUT(late->errorString().contains(QStringLiteral("compacted revision %1").arg(first)),
                                  qPrintable(late->errorString()), scaledMs(10000));
        QVERIFY2(late->errorString().contains(QStringLiteral("shown from revision %1").arg(now + 1)), qPrintable(late->errorString()));
        QCOMPARE(late->status(), ModelStatus::Ready);
        const qint64 after = put("/kw/past/d", "5");
        QTRY_COMPARE_WITH_TIMEOUT(late->count(), 1, scaledMs(10000));
        QCOMPARE(at(*late, 0, KeyWatchModel::RevisionRole).toLongLong(), after);
        late->setFromRevision(now);
        QTRY_COMPARE_WITH_TIMEOUT(late->count(), 2, scaledMs(10000));
        QCOMPARE(at(*late, 0, KeyWatchModel::RevisionRole).toLongLong(), now);
    }
};

QTEST_GUILESS_MAIN(tst_KeyWatchModel)
#include "tst_keywatchmodel.moc"
