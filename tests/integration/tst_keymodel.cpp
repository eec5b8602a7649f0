// SPDX-License-Identifier: Apache-2.0
// KeyModel and KeyTreeModel against a real etcd member, each under QAbstractItemModelTester:
// paging with a continuation key, the watch (puts, changes, deletions, also beyond the pages
// loaded so far), the selected key's value, and the tree by '/'.
#include "../common/awaitfuture.h"
#include "../common/readallkeys.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include "keyindex_p.h"
#include "keymodel.h"
#include "keytreemodel.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_KeyModel : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    void put(const QByteArray &key, const QByteArray &value = "v")
    {
        PutResult result;
        QETCD_AWAIT(m_client->put(key, value), result);
        QVERIFY2(result.status, qPrintable(result.status.message()));
    }
    void putMany(const QByteArray &prefix, int count)
    {
        Txn txn;
        for (int i = 0; i < count; ++i) {
            txn.success.append(TxnOp::put(prefix + QByteArray::number(i).rightJustified(4, '0'), "v"));
            if (txn.success.size() == 100 || i + 1 == count) {
                TxnResult result;
                QETCD_AWAIT(m_client->txn(txn), result);
                QVERIFY(result.succeeded);
                txn.success.clear();
            }
        }
    }
    static QStringList keysOf(const KeyModel &model)
    {
        QStringList keys;
        for (int row = 0; row < model.rowCount(); ++row)
            keys.append(model.index(row).data(KeyModel::KeyRole).toString());
        return keys;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    // A view pages by asking; QAbstractItemModelTester asks after every change, so under it the
    // model loads everything, and the model checked page by page runs without it.
    void pagesUntilEverythingIsIn()
    {
        putMany("/km/p/", 350);
        put("/km/q", "outside");
        KeyModel paged;
        QCOMPARE(paged.status(), ModelStatus::Null);
        paged.setPageSize(100);
        paged.setPrefix(QStringLiteral("/km/p/"));
        paged.setClient(m_client.get());
        QCOMPARE(paged.status(), ModelStatus::Loading);
        QTRY_COMPARE_WITH_TIMEOUT(paged.rowCount(), 100, scaledMs(10000));
        QCOMPARE(paged.status(), ModelStatus::Ready);
        QCOMPARE(paged.total(), 350);  // the first page's count
        QCOMPARE(paged.progress(), 100.0 / 350.0);
        QVERIFY(paged.canFetchMore({}));
        paged.fetchMore({});
        // Each next page is twice the last: etcd 3.4 walks the rest of the range for every page.
        QTRY_COMPARE_WITH_TIMEOUT(paged.rowCount(), 300, scaledMs(10000));
        QVERIFY(readAllKeys(paged));
        QCOMPARE(paged.rowCount(), 350);
        QCOMPARE(paged.progress(), 1.0);
        QVERIFY(!paged.canFetchMore({}));
        const QStringList keys = keysOf(paged);
        QCOMPARE(keys.first(), QStringLiteral("/km/p/0000"));
        QCOMPARE(keys.last(), QStringLiteral("/km/p/0349"));
        QVERIFY(std::is_sorted(keys.cbegin(), keys.cend()));
        QCOMPARE(paged.index(5).data(KeyModel::NameRole).toString(), QStringLiteral("0005"));

        KeyModel tested;
        QAbstractItemModelTester tester(&tested, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tested.setPageSize(100);
        tested.setPrefix(QStringLiteral("/km/p/"));
        tested.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(tested.progress(), 1.0, scaledMs(10000));
        QCOMPARE(keysOf(tested), keys);
    }

    void watchKeepsLoadedRowsCurrent()
    {
        putMany("/km/w/", 30);
        KeyModel paged;
        paged.setPageSize(10);
        paged.setPrefix(QStringLiteral("/km/w/"));
        paged.setClient(m_client.get());
        KeyModel tested;
        QAbstractItemModelTester tester(&tested, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tested.setPageSize(10);
        tested.setPrefix(QStringLiteral("/km/w/"));
        tested.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(paged.rowCount(), 10, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(tested.rowCount(), 30, scaledMs(10000));
        // Within the loaded rows: a new key, a change and a deletion show up.
        put("/km/w/0003a");
        put("/km/w/0005a");
        put("/km/w/0004", "changed");
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/km/w/0001"), removed);
        QTRY_VERIFY_WITH_TIMEOUT(keysOf(paged).contains(QStringLiteral("/km/w/0003a")), scaledMs(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!keysOf(paged).contains(QStringLiteral("/km/w/0001")), scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(paged.rowCount(), 11, scaledMs(10000));
        QCOMPARE(paged.total(), 31);  // two keys came and one went where the rows are loaded
        const int changed = paged.indexOf(QStringLiteral("/km/w/0004"));
        QTRY_VERIFY_WITH_TIMEOUT(paged.index(changed).data(KeyModel::ChangedAtRole).toLongLong() > 0, scaledMs(10000));
        QCOMPARE(paged.index(changed).data(KeyModel::VersionRole).toLongLong(), 2);
        // Beyond them: the page that reaches the key has it, and not the deleted one.
        put("/km/w/0020a");
        QETCD_AWAIT(m_client->remove("/km/w/0025"), removed);
        QVERIFY(readAllKeys(paged));
        const QStringList keys = keysOf(paged);
        QVERIFY(keys.contains(QStringLiteral("/km/w/0020a")));
        QVERIFY(!keys.contains(QStringLiteral("/km/w/0025")));
        QCOMPARE(paged.rowCount(), 31);
        QCOMPARE(paged.total(), 31);
        QVERIFY(std::is_sorted(keys.cbegin(), keys.cend()));
        QTRY_COMPARE_WITH_TIMEOUT(keysOf(tested), keys, scaledMs(10000));
    }

    // A key is flashed when the watch changes it, not when a page loads it, and a paused list's
    // frozen rows do not flash for what they do not show yet.
    void changedAtIsTheWatchsNews()
    {
        putMany("/km/c/", 5);
        KeyModel model;
        model.setPrefix(QStringLiteral("/km/c/"));
        model.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 5, scaledMs(10000));
        QCOMPARE(model.index(2).data(KeyModel::ChangedAtRole).toLongLong(), 0);
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        put("/km/c/0002", "changed");
        QTRY_VERIFY_WITH_TIMEOUT(model.index(2).data(KeyModel::ChangedAtRole).toLongLong() > 0, scaledMs(10000));
        const qint64 changedAt = model.index(2).data(KeyModel::ChangedAtRole).toLongLong();
        QVERIFY(changedAt >= before && changedAt <= QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(model.index(3).data(KeyModel::ChangedAtRole).toLongLong(), 0);

        model.setPaused(true);
        put("/km/c/0003", "changed while paused");
        QTRY_COMPARE_WITH_TIMEOUT(model.heldChanges(), 1, scaledMs(10000));
        QCOMPARE(model.index(3).data(KeyModel::ChangedAtRole).toLongLong(), 0);
        QCOMPARE(model.index(2).data(KeyModel::ChangedAtRole).toLongLong(), changedAt);
        model.setPaused(false);
        QVERIFY(model.index(3).data(KeyModel::ChangedAtRole).toLongLong() > 0);
    }

    // The index keeps keys in shared blocks: each is a QByteArray like any other, which ends in
    // '\0', keeps its block alive after the index let go of it, and detaches when written.
    void keptKeysAreOrdinaryByteArrays()
    {
        QList<QByteArray> kept;
        {
            Internal::KeyBlocks blocks;
            for (int i = 0; i < 20000; ++i)  // some blocks' worth
                kept.append(blocks.keep("/blocks/" + QByteArray::number(i)));
            kept.append(blocks.keep(QByteArray(5000, 'L')));  // a long key keeps a block of its own
            blocks.startAfresh();
            kept.append(blocks.keep("/after"));
        }
        for (int i = 0; i < 20000; ++i) {
            QCOMPARE(kept.at(i), "/blocks/" + QByteArray::number(i));
            QCOMPARE(kept.at(i).constData()[kept.at(i).size()], '\0');
        }
        QCOMPARE(kept.at(20000), QByteArray(5000, 'L'));
        QCOMPARE(kept.at(20001), QByteArrayLiteral("/after"));
        QByteArray written = kept.at(7);
        written.append("-more");
        QCOMPARE(written, QByteArrayLiteral("/blocks/7-more"));
        QCOMPARE(kept.at(7), QByteArrayLiteral("/blocks/7"));
        QCOMPARE(kept.at(8), QByteArrayLiteral("/blocks/8"));
    }

    // Marks are keys, not rows: they follow their keys through inserts, leave with a deleted
    // key (a key written again is not the one marked) and with every row on a new prefix.
    void marksFollowTheirKeys()
    {
        putMany("/km/m/", 10);
        KeyModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPrefix(QStringLiteral("/km/m/"));
        model.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 10, scaledMs(10000));
        QSignalSpy markedChanged(&model, &KeyModel::markedChanged);
        QSignalSpy dataChanged(&model, &KeyModel::dataChanged);

        model.markRows(5, 3);
        model.setMarked(QStringLiteral("/km/m/0008"), true);
        model.setMarked(QStringLiteral("/km/m/0004"), false);
        model.setMarked(QStringLiteral("/km/m/0004"), false);  // nothing to tell
        QCOMPARE(markedChanged.size(), 3);
        QCOMPARE(model.markedKeys(), QStringList({QStringLiteral("/km/m/0003"), QStringLiteral("/km/m/0005"), QStringLiteral("/km/m/0008")}));
        QCOMPARE(model.markedCount(), 3);
        QCOMPARE(dataChanged.last().at(0).toModelIndex().row(), 4);
        QCOMPARE(dataChanged.last().at(2).value<QList<int>>(), QList<int>{KeyModel::MarkedRole});
        QVERIFY(model.index(3).data(KeyModel::MarkedRole).toBool());
        QVERIFY(!model.index(4).data(KeyModel::MarkedRole).toBool());
        model.markRows(-4, 1000);  // clamped to the rows there are
        QCOMPARE(model.markedCount(), 10);
        model.clearMarks();
        QCOMPARE(model.markedCount(), 0);
        QVERIFY(!model.index(3).data(KeyModel::MarkedRole).toBool());

        model.markRows(3, 3);
        model.setMarked(QStringLiteral("/km/m/0005"), true);
        put("/km/m/0003a");  // a row before a marked one
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 11, scaledMs(10000));
        QVERIFY(model.index(model.indexOf(QStringLiteral("/km/m/0005"))).data(KeyModel::MarkedRole).toBool());
        QVERIFY(!model.index(model.indexOf(QStringLiteral("/km/m/0003a"))).data(KeyModel::MarkedRole).toBool());
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/km/m/0005"), removed);
        QTRY_COMPARE_WITH_TIMEOUT(model.markedKeys(), QStringList{QStringLiteral("/km/m/0003")}, scaledMs(10000));
        put("/km/m/0005");
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 11, scaledMs(10000));
        QVERIFY(!model.index(model.indexOf(QStringLiteral("/km/m/0005"))).data(KeyModel::MarkedRole).toBool());

        model.setPrefix(QStringLiteral("/km/"));
        QCOMPARE(model.markedCount(), 0);
    }

    void selectedKeyReadsItsValue()
    {
        put("/km/s/a", "first");
        KeyModel model;
        model.setPrefix(QStringLiteral("/km/s/"));
        model.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
        model.setSelectedKey(QStringLiteral("/km/s/a"));
        QTRY_COMPARE_WITH_TIMEOUT(model.selected().value("value").toString(), QStringLiteral("first"), scaledMs(10000));
        put("/km/s/a", "second");
        QTRY_COMPARE_WITH_TIMEOUT(model.selected().value("value").toString(), QStringLiteral("second"), scaledMs(10000));
        QCOMPARE(model.selected().value("version").toLongLong(), 2);
    }

    // A selected key rewritten many times costs etcd no read per write: the watch's events carry
    // the value (issue 44 M1: 20,000 puts made 20,000 Ranges and froze the console). Each
    // revision is described once, however often selected() is read.
    void rewritingTheSelectedKeyReadsNothingMore()
    {
        put("/km/r/a", "0");
        KeyModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPrefix(QStringLiteral("/km/r/"));
        model.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, scaledMs(10000));
        model.setSelectedKey(QStringLiteral("/km/r/a"));
        QTRY_COMPARE_WITH_TIMEOUT(model.selected().value("value").toString(), QStringLiteral("0"), scaledMs(10000));

        const QString ranges = QStringLiteral("grpc_server_started_total{grpc_method=\"Range\"");
        const double rangesBefore = m_cluster.metric(0, ranges);
        QVERIFY(rangesBefore > 0);
        constexpr int puts = 200;
        for (int i = 1; i <= puts; ++i)
            put("/km/r/a", QByteArray::number(i));
        QTRY_COMPARE_WITH_TIMEOUT(model.selected().value("value").toString(), QString::number(puts), scaledMs(10000));
        QCOMPARE(model.selected().value("version").toLongLong(), puts + 1);
        QCOMPARE(model.selected().value("views").toMap().value("text").toString(), QString::number(puts));
        QCOMPARE(m_cluster.metric(0, ranges), rangesBefore);
        // Described once: two reads hand out the same map, not two descriptions of one value.
        QVERIFY(model.selected().isSharedWith(model.selected()));

        // Deleted, then written again: told by the watch alone as well.
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/km/r/a"), removed);
        QCOMPARE(removed.deleted, 1);
        QTRY_COMPARE_WITH_TIMEOUT(model.selected().value("error").toString(), QStringLiteral("the key no longer exists"),
                                  scaledMs(10000));
        put("/km/r/a", "again");
        QTRY_COMPARE_WITH_TIMEOUT(model.selected().value("value").toString(), QStringLiteral("again"), scaledMs(10000));
        QCOMPARE(model.selected().value("version").toLongLong(), 1);
        QCOMPARE(m_cluster.metric(0, ranges), rangesBefore);
    }

    // A prefix whose values together exceed the receive limit lists and reads fine through the
    // model (keys only, one value at a time), while one range over all of it is refused with
    // a message that says which limit and what to do.
    void prefixLargerThanTheReceiveLimitStillLists()
    {
        QCOMPARE(ClientOptions().maxReceiveMessageSize, 32 * 1024 * 1024);
        ClientOptions options = ClientOptions::fromEndpoints(m_cluster.clientUrls());
        options.maxReceiveMessageSize = 4 * 1024 * 1024;
        Client limited(options);
        const QByteArray big(1000 * 1000, 'x');
        for (int i = 0; i < 6; ++i)
            put("/km/big/" + QByteArray::number(i), big);

        RangeOptions everything;
        everything.range = KeyRange::prefix();
        RangeResult whole;
        QETCD_AWAIT(limited.get("/km/big/", everything), whole);
        QCOMPARE(whole.status.code(), StatusCode::ResourceExhausted);
        QVERIFY2(whole.status.message().contains(QStringLiteral("maxReceiveMessageSize")),
                 qPrintable(whole.status.message()));

        KeyModel model;
        model.setPrefix(QStringLiteral("/km/big/"));
        model.setClient(&limited);
        QTRY_COMPARE_WITH_TIMEOUT(model.progress(), 1.0, scaledMs(10000));
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.status(), ModelStatus::Ready);
        model.setSelectedKey(QStringLiteral("/km/big/5"));
        QTRY_COMPARE_WITH_TIMEOUT(model.selected().value("size").toLongLong(), qint64(big.size()), scaledMs(10000));
    }

    // The top level is listed at once; a folder when fetchMore() (a view's unfolding) asks.
    void treeBySlash()
    {
        for (const char *key : {"/kt/app/locks/a", "/kt/app/locks/b", "/kt/app/leader", "/kt/top"})
            put(key);
        KeyModel keys;
        KeyTreeModel tree;
        QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tree.setSource(&keys);
        keys.setPrefix(QStringLiteral("/kt"));
        keys.setClient(m_client.get());
        QTRY_COMPARE_WITH_TIMEOUT(tree.rowCount(), 2, scaledMs(10000));  // /app, /top
        QTRY_VERIFY_WITH_TIMEOUT(!tree.isListing(), scaledMs(10000));
        const QModelIndex app = tree.index(0, 0);
        QCOMPARE(app.data(KeyTreeModel::NameRole).toString(), QStringLiteral("/app"));
        QCOMPARE(app.data(KeyTreeModel::IsKeyRole).toBool(), false);
        QVERIFY(tree.hasChildren(app));
        QTRY_COMPARE_WITH_TIMEOUT(app.data(KeyTreeModel::KeyCountRole).toInt(), 3, scaledMs(10000));  // counted once read
        const QModelIndex top = tree.index(1, 0);
        QCOMPARE(top.data(KeyTreeModel::IsKeyRole).toBool(), true);
        QVERIFY(!tree.hasChildren(top));
        QVERIFY(top.data(KeyTreeModel::CreateRevisionRole).toLongLong() > 0);

        if (tree.canFetchMore(app))
            tree.fetchMore(app);
        QTRY_COMPARE_WITH_TIMEOUT(tree.rowCount(app), 2, scaledMs(10000));  // /leader, /locks
        const QModelIndex locks = tree.index(1, 0, app);
        QCOMPARE(locks.data(KeyTreeModel::KeyRole).toString(), QStringLiteral("/kt/app/locks"));
        if (tree.canFetchMore(locks))
            tree.fetchMore(locks);
        QTRY_COMPARE_WITH_TIMEOUT(tree.rowCount(locks), 2, scaledMs(10000));
        QCOMPARE(tree.index(0, 0, locks).data(KeyTreeModel::IsKeyRole).toBool(), true);

        // Live: a deletion prunes the branch it empties; a put grows one, listed or not.
        DeleteResult removed;
        QETCD_AWAIT(m_client->remove("/kt/app/locks/", DeleteOptions{KeyRange::prefix(), false}), removed);
        QTRY_COMPARE_WITH_TIMEOUT(tree.rowCount(app), 1, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(tree.index(0, 0).data(KeyTreeModel::KeyCountRole).toInt(), 1, scaledMs(10000));
        put("/kt/new/x");
        QTRY_COMPARE_WITH_TIMEOUT(tree.rowCount(), 3, scaledMs(10000));
        const QModelIndex created = tree.index(1, 0);
        QCOMPARE(created.data(KeyTreeModel::NameRole).toString(), QStringLiteral("/new"));
        QVERIFY(tree.hasChildren(created));
        if (tree.canFetchMore(created))
            tree.fetchMore(created);
        QTRY_COMPARE_WITH_TIMEOUT(tree.rowCount(created), 1, scaledMs(10000));
        QCOMPARE(tree.index(0, 0, created).data(KeyTreeModel::KeyRole).toString(), QStringLiteral("/kt/new/x"));
    }

    // Folders of many keys: each shows once, in order, over pages that skip a folder's own keys
    // (the first page holds 4,096 keys, forty folders' worth here).
    void treeListsFoldersWithoutReadingTheirKeys()
    {
        constexpr int folders = 80;
        constexpr int keysEach = 100;
        for (int folder = 0; folder < folders; ++folder)
            putMany("/kf/f" + QByteArray::number(folder).rightJustified(2, '0') + "/k", keysEach);
        put("/kf/f07");   // a key and a folder at once,
        put("/kf/f07!");  // with a key between the two in etcd's order
        put("/kf/zz");
        // Without QAbstractItemModelTester, which lists every folder it walks and checks the
        // whole tree after each change: the small trees here run under it.
        KeyModel keys;
        KeyTreeModel tree;
        keys.setPrefix(QStringLiteral("/kf/"));
        keys.setClient(m_client.get());
        tree.setSource(&keys);
        QStringList expected;
        for (int folder = 0; folder < folders; ++folder) {
            expected.append(QStringLiteral("f%1").arg(folder, 2, 10, QLatin1Char('0')));
            if (folder == 7)
                expected.append(QStringLiteral("f07!"));
        }
        expected.append(QStringLiteral("zz"));
        QTRY_VERIFY_WITH_TIMEOUT(!tree.isListing() && tree.rowCount() == int(expected.size()), scaledMs(20000));
        for (int row = 0; row < tree.rowCount(); ++row) {
            const QModelIndex node = tree.index(row, 0);
            QCOMPARE(node.data(KeyTreeModel::NameRole).toString(), expected.at(row));
            const bool folder = expected.at(row).size() == 3;
            QCOMPARE(tree.hasChildren(node), folder);
            QCOMPARE(node.data(KeyTreeModel::IsKeyRole).toBool(), !folder || row == 7);
        }
        QTRY_COMPARE_WITH_TIMEOUT(tree.index(7, 0).data(KeyTreeModel::KeyCountRole).toInt(), keysEach + 1, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(tree.index(folders - 1, 0).data(KeyTreeModel::KeyCountRole).toInt(), keysEach, scaledMs(10000));
        QVERIFY(tree.errorString().isEmpty());
    }

    // A past revision is listed as it was, and nothing later shows.
    void treeAsOfARevision()
    {
        put("/ka/old/a");
        RangeResult now;
        QETCD_AWAIT(m_client->get("/ka/old/a"), now);
        put("/ka/new/b");
        KeyModel keys;
        KeyTreeModel tree;
        QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        keys.setPrefix(QStringLiteral("/ka"));
        keys.setAsOfRevision(now.header.revision);
        keys.setClient(m_client.get());
        tree.setSource(&keys);
        QTRY_VERIFY_WITH_TIMEOUT(!tree.isListing() && tree.rowCount() == 1, scaledMs(10000));
        QCOMPARE(tree.index(0, 0).data(KeyTreeModel::NameRole).toString(), QStringLiteral("/old"));
        QTRY_COMPARE_WITH_TIMEOUT(tree.index(0, 0).data(KeyTreeModel::KeyCountRole).toInt(), 1, scaledMs(10000));
        put("/ka/later/c");
        put("/ka/old/d");
        // No watch on the past: another listing of the same revision still shows one folder.
        keys.reload();
        QTRY_VERIFY_WITH_TIMEOUT(!tree.isListing() && tree.rowCount() == 1, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(tree.index(0, 0).data(KeyTreeModel::KeyCountRole).toInt(), 1, scaledMs(10000));
    }

    // Stopped, a listing keeps what it found and goes on when asked.
    void treeListingStopsAndGoesOn()
    {
        putMany("/ks/k", 50);
        KeyModel keys;
        KeyTreeModel tree;
        keys.setPrefix(QStringLiteral("/ks/"));
        keys.setClient(m_client.get());
        tree.setSource(&keys);
        QVERIFY(tree.isListing());
        tree.stopListing();
        QVERIFY(!tree.isListing());
        QVERIFY(tree.canFetchMore({}));
        tree.fetchMore({});
        QVERIFY(tree.isListing());
        QTRY_VERIFY_WITH_TIMEOUT(!tree.isListing(), scaledMs(10000));
        QCOMPARE(tree.rowCount(), 50);
        QVERIFY(!tree.canFetchMore({}));
    }
};

QTEST_GUILESS_MAIN(tst_KeyModel)
#include "tst_keymodel.moc"
