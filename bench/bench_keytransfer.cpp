// SPDX-License-Identifier: Apache-2.0
// How fast KeyExport writes and KeyImport reads back --keys keys, and what memory each needs: a
// prefix is filled, exported (beside `etcdctl get --prefix -w json` to a file, the same
// document), then imported into a fresh cluster (its dry run included). Printed: seconds and
// keys per second of each, the file's size, and each job's peak RSS growth.

#include "benchsupport.h"

#include <QEtcd/keyexport.h>
#include <QEtcd/keyimport.h>

#include <QtCore/QFileInfo>
#include <QtCore/QTemporaryDir>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;

namespace {
constexpr int valueBytes = 100;

void fill(Client &client, int keys)
{
    const QByteArray value(valueBytes, 'v');
    for (int first = 0; first < keys; first += KeyImport::maxTransactionKeys) {
        Txn txn;
        for (int i = first; i < std::min(keys, first + KeyImport::maxTransactionKeys); ++i)
            txn.success.append(TxnOp::put("/bench/keys/" + QByteArray::number(i).rightJustified(8, '0'), value));
        const TxnResult result = await(client.txn(txn), QStringLiteral("fill"));
        if (!result.status)
            fail(QStringLiteral("fill: ") + result.status.toString());
    }
}

struct JobFigures
{
    double seconds = 0;
    qint64 peakRssGrowthKiB = 0;
};

// Runs a job until its finished() (Result), measuring time and peak memory.
template <class Job, class Result>
JobFigures measure(Job &job, void (Job::*finished)(const Result &), const std::function<void()> &start, Result *result)
{
    resetPeakRss();
    const qint64 rssBeforeKiB = statusFieldKiB("VmRSS:");
    bool done = false;
    QObject::connect(&job, finished, &job, [&](const Result &ended) {
        *result = ended;
        done = true;
    });
    const auto started = Clock::now();
    start();
    if (!waitUntil([&] { return done; }, hours(1), milliseconds(5)))
        fail(QStringLiteral("the job did not finish within an hour"));
    const double seconds = duration<double>(Clock::now() - started).count();
    if (!result->status)
        fail(result->status.toString());
    return {seconds, statusFieldKiB("VmHWM:") - rssBeforeKiB};
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(parser, app,
                     QStringLiteral("Exports --keys keys with KeyExport (and etcdctl get -w json), imports them into a "
                                    "fresh cluster with KeyImport. Prints one JSON object."),
                     {{QStringLiteral("keys"), QStringLiteral("Keys to move (the issue's figure: 100000)."),
                       QStringLiteral("n"), QStringLiteral("100000")}});
    return run([&] {
        const int keys = positiveOption(parser, QStringLiteral("keys"));
        Testing::EtcdCluster source;
        startCluster(source);
        Client client(ClientOptions::fromEndpoints(source.clientUrls()));
        fill(client, keys);
        QTemporaryDir directory;
        if (!directory.isValid())
            fail(QStringLiteral("no temporary directory"));
        const QString file = directory.filePath(QStringLiteral("keys.json"));

        KeyExport exporter(&client);
        KeyExportResult exported;
        const JobFigures exportFigures = measure(exporter, &KeyExport::finished, [&] { exporter.start("/bench/keys/", file); }, &exported);
        if (exported.keys != keys)
            fail(QStringLiteral("exported %1 keys, not %2").arg(exported.keys).arg(keys));

        int exitCode = -1;
        QByteArray error;
        const auto etcdctlStarted = Clock::now();
        const QByteArray theirs = source.etcdctl({QStringLiteral("get"), QStringLiteral("/bench/keys/"), QStringLiteral("--prefix"),
                                                  QStringLiteral("-w"), QStringLiteral("json")},
                                                 &exitCode, &error, hours(1));
        const double etcdctlSeconds = duration<double>(Clock::now() - etcdctlStarted).count();
        if (exitCode != 0)
            fail(QStringLiteral("etcdctl get failed: ") + QString::fromLocal8Bit(error));

        Testing::EtcdCluster target;
        startCluster(target);
        Client targetClient(ClientOptions::fromEndpoints(target.clientUrls()));
        KeyImport importer(&targetClient);
        KeyImportResult imported;
        const JobFigures importFigures = measure(importer, &KeyImport::finished, [&] { importer.start(file); }, &imported);
        if (imported.written != keys)
            fail(QStringLiteral("imported %1 keys, not %2").arg(imported.written).arg(keys));

        return QJsonObject{{"benchmark", "keytransfer"},
                           {"keys", keys},
                           {"value_bytes", valueBytes},
                           {"file_mib", rounded(double(QFileInfo(file).size()) / (1024.0 * 1024.0))},
                           {"export_seconds", rounded(exportFigures.seconds)},
                           {"export_keys_per_second", qRound64(keys / exportFigures.seconds)},
                           {"export_peak_rss_growth_mib", mib(exportFigures.peakRssGrowthKiB)},
                           {"etcdctl_get_json_seconds", rounded(etcdctlSeconds)},
                           {"import_seconds", rounded(importFigures.seconds)},
                           {"import_keys_per_second", qRound64(keys / importFigures.seconds)},
                           {"import_transactions", imported.transactions},
                           {"import_peak_rss_growth_mib", mib(importFigures.peakRssGrowthKiB)}};
    });
}
