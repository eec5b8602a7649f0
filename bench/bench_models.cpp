// SPDX-License-Identifier: Apache-2.0
// The console's models at scale, against one local etcd member:
// - KeyModel over N keys under one prefix (default 100,000): time to the first page (and what
//   the same page takes asked of etcd directly), time to the whole index, resident memory it
//   added; then KeySearchModel over the keys loaded: the first of many hits, and a whole scan
//   for the last key (keys searched a second);
// - watch ingest: changes written at a steady rate into a prefix a KeyModel follows, and (as
//   counters, one object each) one a CoordinationModel follows: how long each took from being
//   sent to being a row (p50/p99), and whether any went missing;
// - KeyTreeModel over 100,000 keys in 1,000 folders (--tree-keys, --folder-keys): the top
//   level's first 30 rows and the whole of it, beside etcd's own first page, and one folder;
// - LeaseModel over L leases (default 10,000): CPU it costs per second to keep them current.
//   Countdowns are not part of it: a view counts down to the expiresAt role on its own clock.

#include "benchsupport.h"
#include "fixtures.h"

#include <QEtcd/client.h>

#include "coordinationmodel.h"
#include "keymodel.h"
#include "keysearchmodel.h"
#include "keytreemodel.h"
#include "leasemodel.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QThread>

#include <memory>
#include <thread>

#include <malloc.h>
#include <unistd.h>

using namespace Bench;
using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;

namespace {

QJsonObject keysFigures(Client &client, int keys)
{
    const QByteArray prefix = "/bench/keys/";
    fillKeys(client, prefix, keys);
    RangeOptions keysOnly;
    keysOnly.range = KeyRange::upTo(prefixRangeEnd(prefix));
    keysOnly.keysOnly = true;
    // The reference for the whole index: every key, keys only, a page of 1,000 at a time, each
    // asked when the last is in: etcd's mirror syncer, behind etcdctl make-mirror, the one walk
    // etcdctl pages, reads 1,000 keys a page.
    constexpr int walkPage = 1000;
    const auto walkStart = Clock::now();
    QByteArray from = prefix;
    qint64 walked = 0;
    for (;;) {
        RangeOptions page = keysOnly;
        page.limit = walkPage;
        const RangeResult read = await(client.get(from, page), QStringLiteral("the walk"));
        if (!read.status)
            fail(QStringLiteral("the walk failed: ") + read.status.toString());
        walked += read.kvs.size();
        if (!read.more || read.kvs.isEmpty())
            break;
        from = read.kvs.constLast().key + '\0';
    }
    const double walkMs = duration<double, std::milli>(Clock::now() - walkStart).count();
    if (walked != keys)
        fail(QStringLiteral("the walk found %1 of %2 keys").arg(walked).arg(keys));

    // A model made afresh (as the Keys page opening) nine times, alternating with etcd's own
    // answer to the model's first page asked directly: each figure the median. The first
    // model goes on to the whole index, and stays for the search.
    KeyModel model;
    model.setPrefix(QString::fromUtf8(prefix));
    RangeOptions firstPage = keysOnly;
    firstPage.limit = model.pageSize();
    constexpr int runs = 9;
    // Page after page, each asked for as soon as the last is in, as a list scrolled to its end.
    const auto everyPage = [&model, keys] {
        if (model.canFetchMore({}))
            model.fetchMore({});
        return model.rowCount() == keys && !model.canFetchMore({});
    };
    QList<double> etcdFirstPageMs, firstPageMs;
    const auto askDirectly = [&] {
        const auto asked = Clock::now();
        if (!await(client.get(prefix, firstPage), QStringLiteral("the first page, asked directly")).status)
            fail(QStringLiteral("the first page, asked directly, failed"));
        etcdFirstPageMs.append(duration<double, std::milli>(Clock::now() - asked).count());
        // etcd's collector catches up after each walk of a million keys: the next read should
        // not pay for this one.
        pause(milliseconds(300));
    };
    const auto listFirstPage = [&](KeyModel &listing) {
        const auto start = Clock::now();
        listing.setClient(&client);
        if (!waitUntil([&] { return listing.rowCount() > 0; }, milliseconds(60000), milliseconds(1)))
            fail(QStringLiteral("no first page: ") + listing.errorString());
        firstPageMs.append(duration<double, std::milli>(Clock::now() - start).count());
        return start;
    };
    askDirectly();
    const qint64 rssBefore = statusFieldKiB("VmRSS:");
    const auto start = listFirstPage(model);
    if (!waitUntil(everyPage, milliseconds(600000), milliseconds(1)))
        fail(QStringLiteral("the index stopped at %1 of %2 keys").arg(model.rowCount()).arg(keys));
    const double fullMs = duration<double, std::milli>(Clock::now() - start).count();
    // As the page sits once listed: what the model gives back after its listing is given.
    pause(milliseconds(1000));
    const qint64 rssLoaded = statusFieldKiB("VmRSS:");
    // What a trim here still finds to give back: memory the allocator keeps although freed.
    const auto trimStart = Clock::now();
    malloc_trim(0);
    const double trimMs = duration<double, std::milli>(Clock::now() - trimStart).count();
    const qint64 rssTrimmed = statusFieldKiB("VmRSS:");
    // The other runs take turns at going first.
    for (int run = 1; run < runs; ++run) {
        KeyModel fresh;
        fresh.setPrefix(model.prefix());
        if (run % 2 == 1) {
            listFirstPage(fresh);
            pause(milliseconds(300));
            askDirectly();
        } else {
            askDirectly();
            listFirstPage(fresh);
            pause(milliseconds(300));
        }
    }
    const double firstPage50 = percentile(firstPageMs, 50);
    const double etcdFirstPage50 = percentile(etcdFirstPageMs, 50);

    // The search over the keys loaded: the first of many hits, then a whole scan for the last key.
    KeySearchModel search;
    search.setKeys(&model);
    const auto searched = [&search](const QString &pattern) {
        search.setPattern(pattern);
        search.start();
        if (!waitUntil([&] { return !search.isRunning(); }, milliseconds(600000)))
            fail(QStringLiteral("the search for %1 did not end").arg(pattern));
        if (search.status() != ModelStatus::Ready || search.count() == 0)
            fail(QStringLiteral("the search for %1 found nothing: %2").arg(pattern, search.errorString()));
    };
    searched(QStringLiteral("7"));
    const double firstOfManyMs = search.firstHitMs();
    const QString last = QString::fromUtf8(keyName("/bench/keys/", keys - 1));
    searched(last);
    const double scanMs = search.elapsedMs();
    return {{"keys", keys},
            {"search_first_hit_ms", rounded(firstOfManyMs)},
            {"search_last_key_ms", rounded(scanMs)},
            {"search_keys_per_s", qint64(double(keys) / (scanMs / 1000.0))},
            {"page_size", model.pageSize()},
            {"runs", runs},
            {"first_page_ms", rounded(firstPage50)},
            {"etcd_first_page_ms", rounded(etcdFirstPage50)},
            {"first_page_to_etcd_first_page", ratio(firstPage50, etcdFirstPage50)},
            {"first_page_ms_each", roundedList(firstPageMs)},
            {"etcd_first_page_ms_each", roundedList(etcdFirstPageMs)},
            {"full_index_ms", rounded(fullMs)},
            {"walk_page", walkPage},
            {"walk_ms", rounded(walkMs)},
            {"full_index_to_walk", ratio(fullMs, walkMs)},
            {"rss_growth_mib", rounded(double(rssLoaded - rssBefore) / 1024.0)},
            {"rss_growth_after_malloc_trim_mib", rounded(double(rssTrimmed - rssBefore) / 1024.0)},
            {"malloc_trim_ms", rounded(trimMs)}};
}

// KeyTreeModel over keys in folders of keysEach (issue 38: 100,000 keys in 1,000 folders):
// the top level's first rows and the whole of it, against the first page etcd gives when
// asked directly, and one folder's listing once it is unfolded.
QJsonObject treeFigures(Client &client, int keys, int keysEach)
{
    const QByteArray prefix = "/bench/tree/";
    const int folders = (keys + keysEach - 1) / keysEach;
    for (int folder = 0; folder < folders; ++folder)
        fillKeys(client, prefix + "folder" + QByteArray::number(folder).rightJustified(5, '0') + '/',
                 std::min(keysEach, keys - folder * keysEach));
    // Five of each, alternating, each figure the median: etcd's own answer to the tree's first
    // page, and the tree listed afresh to its first screenful of rows and to its whole top level.
    RangeOptions firstPage;
    firstPage.range = KeyRange::prefix();
    firstPage.keysOnly = true;
    firstPage.limit = 4096;  // the tree's own first page
    constexpr int runs = 5;
    constexpr int screenful = 30;  // a tree view's rows
    const qint64 rssBefore = statusFieldKiB("VmRSS:");
    KeyModel source;
    KeyTreeModel tree;
    source.setPrefix(QString::fromUtf8(prefix));
    tree.setSource(&source);
    QList<double> etcdFirstPageMs, firstRowsMs, topLevelMs;
    for (int run = 0; run < runs; ++run) {
        const auto asked = Clock::now();
        if (!await(client.get(prefix, firstPage), QStringLiteral("the first page, asked directly")).status)
            fail(QStringLiteral("the first page, asked directly, failed"));
        etcdFirstPageMs.append(duration<double, std::milli>(Clock::now() - asked).count());
        const auto start = Clock::now();
        if (run == 0)
            source.setClient(&client);
        else
            source.reload();
        if (!waitUntil([&] { return tree.rowCount() >= std::min(folders, screenful); }, milliseconds(60000), milliseconds(1)))
            fail(QStringLiteral("no first rows in the tree: ") + tree.errorString());
        firstRowsMs.append(duration<double, std::milli>(Clock::now() - start).count());
        if (!waitUntil([&] { return !tree.isListing(); }, milliseconds(600000), milliseconds(1)))
            fail(QStringLiteral("the top level was not listed"));
        topLevelMs.append(duration<double, std::milli>(Clock::now() - start).count());
        if (tree.rowCount() != folders)
            fail(QStringLiteral("the top level has %1 folders of %2: %3").arg(tree.rowCount()).arg(folders).arg(tree.errorString()));
    }
    const qint64 rssListed = statusFieldKiB("VmRSS:");

    const QModelIndex middle = tree.index(folders / 2, 0);
    const auto unfolded = Clock::now();
    tree.fetchMore(middle);
    if (!waitUntil([&] { return !tree.isListing(); }, milliseconds(60000), milliseconds(1)) || tree.rowCount(middle) != keysEach)
        fail(QStringLiteral("the folder was not listed"));
    const double folderMs = duration<double, std::milli>(Clock::now() - unfolded).count();
    const double firstRows = percentile(firstRowsMs, 50);
    const double etcdFirstPage = percentile(etcdFirstPageMs, 50);
    return {{"keys", keys},
            {"folders", folders},
            {"runs", runs},
            {"first_rows", std::min(folders, screenful)},
            {"first_rows_ms", rounded(firstRows)},
            {"etcd_first_page_ms", rounded(etcdFirstPage)},
            {"first_rows_to_etcd_first_page", ratio(firstRows, etcdFirstPage)},
            {"top_level_ms", rounded(percentile(topLevelMs, 50))},
            {"first_rows_ms_each", roundedList(firstRowsMs)},
            {"etcd_first_page_ms_each", roundedList(etcdFirstPageMs)},
            {"top_level_ms_each", roundedList(topLevelMs)},
            {"folder_of_keys", keysEach},
            {"folder_ms", rounded(folderMs)},
            {"rss_growth_mib", rounded(double(rssListed - rssBefore) / 1024.0)}};
}

// Writes changes under prefix at rate for length; each key becomes a row of model, whose
// keyRole names it. The writer has a thread and a client of its own, so a busy model does
// not slow the writing down: the rate is what etcd took, the lag is the model's.
QJsonObject ingestFigures(const ClientOptions &options, QAbstractItemModel &model, int keyRole,
                          const QByteArray &prefix, const QByteArray &value, int rate, seconds length)
{
    QMutex mutex;
    QHash<QString, qint64> sentNs;  // under mutex: written by the writer, read on this thread
    QList<double> lagMs;
    const QMetaObject::Connection seen = QObject::connect(&model, &QAbstractItemModel::rowsInserted, [&](const QModelIndex &, int first, int last) {
        const qint64 now = nowNs();
        QMutexLocker locker(&mutex);
        for (int row = first; row <= last; ++row) {
            const auto sent = sentNs.constFind(model.index(row, 0).data(keyRole).toString());
            if (sent != sentNs.cend())
                lagMs.append(nsToMs(now - *sent));
        }
    });
    constexpr int batch = 50;
    const int batches = int(rate * length.count() / batch);
    const auto interval = nanoseconds(1000000000LL * batch / rate);
    double writeS = 0;
    bool writesFailed = false;
    std::unique_ptr<QThread> writer(QThread::create([&] {
        Client client(options);
        const auto start = Clock::now();
        QList<QFuture<TxnResult>> pending;
        for (int b = 0; b < batches; ++b) {
            std::this_thread::sleep_until(start + b * interval);
            Txn txn;
            QList<QString> keys;
            for (int i = 0; i < batch; ++i) {
                const QByteArray key = keyName(prefix, b * batch + i);
                keys.append(QString::fromUtf8(key));
                txn.success.append(TxnOp::put(key, value));
            }
            {
                QMutexLocker locker(&mutex);
                const qint64 now = nowNs();
                for (const QString &key : std::as_const(keys))
                    sentNs.insert(key, now);
            }
            pending.append(client.txn(txn));
        }
        for (QFuture<TxnResult> &future : pending) {
            future.waitForFinished();
            writesFailed = writesFailed || !future.result().succeeded;
        }
        writeS = duration<double>(Clock::now() - start).count();
    }));
    writer->start();
    const int expected = batches * batch;
    waitUntil([&] { return writer->isFinished() && model.rowCount() >= expected; }, length + milliseconds(60000));
    writer->wait();
    if (writesFailed)
        fail(QStringLiteral("an ingest write failed"));
    QObject::disconnect(seen);
    return {{"changes", expected},
            {"target_rate_per_s", rate},
            {"achieved_rate_per_s", rounded(expected / writeS)},
            {"missed", expected - model.rowCount()},
            {"lag_ms", summary(lagMs, {{"p50", 50}, {"p99", 99}})}};
}

QJsonObject leaseFigures(Client &client, int leases, seconds window)
{
    grantLeases(client, leases, 600);
    LeaseModel model;
    model.setRefreshInterval(5000);
    model.setClient(&client);
    if (!waitUntil([&] { return model.rowCount() == leases; }, milliseconds(120000)))
        fail(QStringLiteral("the lease model listed %1 of %2 leases").arg(model.rowCount()).arg(leases));
    const double cpuBefore = processCpuSeconds();
    const auto start = Clock::now();
    pause(duration_cast<milliseconds>(window));
    const double wallS = duration<double>(Clock::now() - start).count();
    return {{"leases", leases},
            {"refresh_interval_ms", model.refreshInterval()},
            {"window_s", double(window.count())},
            {"cpu_ms_per_s", rounded((processCpuSeconds() - cpuBefore) * 1000.0 / wallS)}};
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(parser, app, QStringLiteral("Console models at scale; prints one JSON object."),
                     {{QStringLiteral("keys"), QStringLiteral("Keys under the KeyModel's prefix"), QStringLiteral("N"),
                       QStringLiteral("100000")},
                      {QStringLiteral("tree-keys"), QStringLiteral("Keys under the KeyTreeModel's prefix"),
                       QStringLiteral("N"), QStringLiteral("100000")},
                      {QStringLiteral("folder-keys"), QStringLiteral("Keys in each of its folders"), QStringLiteral("N"),
                       QStringLiteral("100")},
                      {QStringLiteral("ingest-rate"), QStringLiteral("Changes per second written"), QStringLiteral("N"),
                       QStringLiteral("20000")},
                      {QStringLiteral("ingest-seconds"), QStringLiteral("How long to write"), QStringLiteral("S"),
                       QStringLiteral("10")},
                      {QStringLiteral("leases"), QStringLiteral("Leases the LeaseModel lists"), QStringLiteral("N"),
                       QStringLiteral("10000")}});
    return run([&] {
        EtcdCluster cluster;
        startCluster(cluster);
        ClientOptions options = ClientOptions::fromEndpoints(cluster.clientUrls());
        Client client(options);
        QJsonObject result{{"benchmark", "models"}};
        result["key_model"] = keysFigures(client, positiveOption(parser, QStringLiteral("keys")));
        result["key_tree"] = treeFigures(client, positiveOption(parser, QStringLiteral("tree-keys")),
                                         positiveOption(parser, QStringLiteral("folder-keys")));
        const int rate = positiveOption(parser, QStringLiteral("ingest-rate"));
        const seconds length(positiveOption(parser, QStringLiteral("ingest-seconds")));
        KeyModel keys;
        keys.setPrefix(QStringLiteral("/bench/ingest/"));
        keys.setClient(&client);
        if (!waitUntil([&] { return keys.status() == ModelStatus::Ready; }, milliseconds(30000)))
            fail(QStringLiteral("the ingest KeyModel did not load: ") + keys.errorString());
        result["watch_ingest"] = ingestFigures(options, keys, KeyModel::KeyRole, "/bench/ingest/", "v", rate, length);
        // Counters: each key is an object of its own, recognised again with every burst.
        CoordinationModel objects;
        objects.setPrefix(QStringLiteral("/bench/coord/"));
        objects.setClient(&client);
        if (!waitUntil([&] { return objects.status() == ModelStatus::Ready; }, milliseconds(30000)))
            fail(QStringLiteral("the CoordinationModel did not load: ") + objects.errorString());
        QByteArray one(8, '\0');
        one[7] = 1;
        result["coordination_ingest"] =
            ingestFigures(options, objects, CoordinationModel::NameRole, "/bench/coord/", one, rate, length);
        result["lease_model"] = leaseFigures(client, positiveOption(parser, QStringLiteral("leases")), seconds(10));
        return result;
    });
}
