// SPDX-License-Identifier: Apache-2.0
// KeySearchModel against a real etcd member under QAbstractItemModelTester: the keys a page has
// loaded and the ones it has not are searched alike, as text, glob or regular expression, in
// names or values; a bad pattern is an error that says where; a search can be cancelled.
#include "../common/awaitfuture.h"
#include "../common/readallkeys.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "keymodel.h"
#include "keysearchmodel.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_KeySearchModel : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<KeyModel> m_keys;

    QStringList hitsOf(KeySearchModel &search, const QString &pattern, KeySearchModel::Mode mode)
    {
        search.setPattern(pattern);
        search.setMode(mode);
        search.start();
        [&] { QTRY_VERIFY_WITH_TIMEOUT(!search.isRunning(), scaledMs(20000)); }();
        QStringList keys;
        for (int row = 0; row < search.rowCount(); ++row)
            keys.append(search.index(row).data(KeySearchModel::KeyRole).toString());
        return keys;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        // 300 keys: a page of 50 is loaded, the other 250 are not.
        for (int i = 0; i < 300; ++i) {
            const QByteArray name = QByteArray::number(i).rightJustified(3, '0');
            const QByteArray key = i % 3 == 0 ? "/ks/app/" + name + "/config" : "/ks/svc/" + name + "/endpoint";
            const QByteArray value = i % 50 == 7 ? "prefix text then the Needle at the end" : "nothing here";
            QVERIFY(awaitFuture(m_client->put(key, value)));
        }
        QVERIFY(awaitFuture(m_client->put("/outside/config", "needle")));
        m_keys = std::make_unique<KeyModel>();
        m_keys->setPageSize(50);
        m_keys->setPrefix(QStringLiteral("/ks/"));
        m_keys->setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(m_keys->status(), ModelStatus::Ready, scaledMs(10000));
        QCOMPARE(m_keys->count(), 50);
    }

    void cleanupTestCase()
    {
        m_keys.reset();
        m_client.reset();
    }

    // Past what the page loaded, and only under its prefix.
    void textFindsLoadedAndUnloadedKeys()
    {
        KeySearchModel search;
        QAbstractItemModelTester tester(&search, QAbstractItemModelTester::FailureReportingMode::QtTest);
        search.setKeys(m_keys.get());
        const QStringList hits = hitsOf(search, QStringLiteral("CONFIG"), KeySearchModel::Text);
        QCOMPARE(search.status(), ModelStatus::Ready);
        QCOMPARE(hits.size(), 100);
        QCOMPARE(hits.first(), QStringLiteral("/ks/app/000/config"));
        QCOMPARE(hits.last(), QStringLiteral("/ks/app/297/config"));
        QCOMPARE(search.scanned(), 300.0);
        QVERIFY(search.firstHitMs() >= 0 && search.firstHitMs() <= search.elapsedMs());
        QCOMPARE(m_keys->count(), 50);  // the page loaded nothing more for it

        search.setCaseSensitive(true);
        QCOMPARE(hitsOf(search, QStringLiteral("CONFIG"), KeySearchModel::Text).size(), 0);
        QCOMPARE(search.firstHitMs(), -1.0);
    }

    // A glob matches the whole key, `*` within a segment; a regular expression anywhere.
    void globAndRegularExpression()
    {
        KeySearchModel search;
        search.setKeys(m_keys.get());
        QCOMPARE(hitsOf(search, QStringLiteral("/ks/app/*/config"), KeySearchModel::Glob).size(), 100);
        QCOMPARE(hitsOf(search, QStringLiteral("config"), KeySearchModel::Glob).size(), 0);
        QCOMPARE(hitsOf(search, QStringLiteral("/ks/**"), KeySearchModel::Glob).size(), 300);
        QCOMPARE(hitsOf(search, QStringLiteral("/ks/*/config"), KeySearchModel::Glob).size(), 0);
        QCOMPARE(hitsOf(search, QStringLiteral("svc/2[0-4]\\d/"), KeySearchModel::RegularExpression).size(), 33);

        hitsOf(search, QStringLiteral("app/(unclosed"), KeySearchModel::RegularExpression);
        QCOMPARE(search.status(), ModelStatus::Error);
        QVERIFY2(search.errorString().contains(QLatin1String("at character")), qPrintable(search.errorString()));
        QCOMPARE(search.rowCount(), 0);
    }

    // A number that is no mode (a ComboBox's -1 bound from QML) is refused, naming it.
    void aModeThatIsNoneIsRefused()
    {
        KeySearchModel search;
        search.setMode(KeySearchModel::Glob);
        QSignalSpy changed(&search, &KeySearchModel::modeChanged);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("mode -1 is none of .*kept 1")));
        QVERIFY(search.setProperty("mode", -1));
        QCOMPARE(search.mode(), KeySearchModel::Glob);
        QCOMPARE(changed.size(), 0);
    }

    // In values, the first valueLimit bytes of each, with where it matched.
    void valuesUpToTheirLimit()
    {
        KeySearchModel search;
        search.setKeys(m_keys.get());
        search.setInValues(true);
        const QStringList hits = hitsOf(search, QStringLiteral("needle"), KeySearchModel::Text);
        QCOMPARE(hits.size(), 6);  // 7, 57, ..., 257, in key order
        QCOMPARE(hits.first(), QStringLiteral("/ks/app/057/config"));
        QVERIFY(hits.contains(QStringLiteral("/ks/svc/007/endpoint")));
        QVERIFY(search.index(0).data(KeySearchModel::InValueRole).toBool());
        const QString snippet = search.index(0).data(KeySearchModel::SnippetRole).toString();
        QVERIFY2(snippet.contains(QLatin1String("the Needle at the end")), qPrintable(snippet));
        QCOMPARE(search.scanned(), 300.0);

        search.setValueLimit(10);
        QCOMPARE(hitsOf(search, QStringLiteral("needle"), KeySearchModel::Text).size(), 0);
    }

    // More keys loaded than one hand-over slice: each is searched once.
    void manyLoadedKeysAreEachSearchedOnce()
    {
        for (int first = 0; first < 20000; first += 100) {
            Txn txn;
            for (int i = first; i < first + 100; ++i)
                txn.success.append(TxnOp::put("/ksbig/" + QByteArray::number(i).rightJustified(5, '0'), "v"));
            QVERIFY(awaitFuture(m_client->txn(txn)));
        }
        KeyModel keys;
        keys.setPrefix(QStringLiteral("/ksbig/"));
        keys.setClient(m_client.get());
        QVERIFY(readAllKeys(keys));
        QCOMPARE(keys.count(), 20000);
        KeySearchModel search;
        search.setKeys(&keys);
        const QStringList hits = hitsOf(search, QStringLiteral("99"), KeySearchModel::Text);
        QCOMPARE(search.scanned(), 20000.0);
        // Every key with 99 anywhere in its name.
        int expected = 0;
        for (int i = 0; i < 20000; ++i)
            expected += QByteArray::number(i).rightJustified(5, '0').contains("99") ? 1 : 0;
        QCOMPARE(hits.size(), expected);
        QCOMPARE(QSet<QString>(hits.begin(), hits.end()).size(), expected);
        QVERIFY(std::is_sorted(hits.begin(), hits.end()));
    }

    void cancelledKeepsWhatItFound()
    {
        KeySearchModel search;
        search.setKeys(m_keys.get());
        search.setPattern(QStringLiteral("ks"));
        search.start();
        QVERIFY(search.isRunning());
        search.cancel();
        QVERIFY(!search.isRunning());
        QCOMPARE(search.status(), ModelStatus::Ready);
        // Started again, only the new search's hits count.
        QCOMPARE(hitsOf(search, QStringLiteral("/ks/app/000/config"), KeySearchModel::Text).size(), 1);
    }
};

QTEST_MAIN(tst_KeySearchModel)
#include "tst_keysearchmodel.moc"
