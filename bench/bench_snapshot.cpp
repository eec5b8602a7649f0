// SPDX-License-Identifier: Apache-2.0
// How fast SnapshotSave saves a snapshot, and what memory it needs, against `etcdctl snapshot
// save` on the same server in the same run: a database is filled to --mib MiB, then each takes
// --rounds turns saving it (turns, so that the machine's drift weighs on both alike). Printed:
// the database size, each side's throughput (MiB/s, best and median), their ratio, and
// SnapshotSave's peak RSS growth above what the process held before the save.

#include "benchsupport.h"

#include <QEtcd/snapshotsave.h>

#include <QtCore/QFileInfo>
#include <QtCore/QTemporaryDir>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
// Puts of 64 KiB values under distinct keys until the store holds about bytes, 16 in flight.
void fill(Client &client, qint64 bytes)
{
    const QByteArray value(64 * 1024, 'x');
    const qint64 puts = bytes / value.size();
    qint64 started = 0;
    qint64 finished = 0;
    qint64 failures = 0;
    std::function<void()> next = [&] {
        if (started == puts)
            return;
        const QByteArray key = "/bench/snapshot/" + QByteArray::number(started++).rightJustified(8, '0');
        auto *watcher = new QFutureWatcher<PutResult>;
        QObject::connect(watcher, &QFutureWatcherBase::finished, [&, watcher] {
            if (!watcher->result().status)
                ++failures;
            ++finished;
            watcher->deleteLater();
            next();
        });
        watcher->setFuture(client.put(key, value));
    };
    for (int i = 0; i < 16; ++i)
        next();
    if (!waitUntil([&] { return finished == puts; }, hours(1), 50ms))
        fail(QStringLiteral("filling the database did not finish within an hour"));
    if (failures > 0)
        fail(QStringLiteral("%1 puts failed").arg(failures));
}

struct SaveFigures
{
    double seconds = 0;
    qint64 bytes = 0;
    qint64 peakRssGrowthKiB = 0;
};

SaveFigures saveWithQetcd(Client &client, const QString &file)
{
    resetPeakRss();
    const qint64 rssBeforeKiB = statusFieldKiB("VmRSS:");
    SnapshotSave save(&client);
    SnapshotResult result;
    bool done = false;
    QObject::connect(&save, &SnapshotSave::finished, [&](const SnapshotResult &saved) {
        result = saved;
        done = true;
    });
    const auto started = Clock::now();
    save.start(file);
    if (!waitUntil([&] { return done; }, hours(1), 5ms))
        fail(QStringLiteral("SnapshotSave did not finish within an hour"));
    const double seconds = duration<double>(Clock::now() - started).count();
    if (!result.status)
        fail(QStringLiteral("SnapshotSave failed: ") + result.status.toString());
    return {seconds, result.size, statusFieldKiB("VmHWM:") - rssBeforeKiB};
}

SaveFigures saveWithEtcdctl(Testing::EtcdCluster &cluster, const QString &file)
{
    int exitCode = -1;
    QByteArray error;
    const auto started = Clock::now();
    cluster.etcdctl({QStringLiteral("snapshot"), QStringLiteral("save"), file}, &exitCode, &error, hours(1));
    const double seconds = duration<double>(Clock::now() - started).count();
    if (exitCode != 0)
        fail(QStringLiteral("etcdctl snapshot save failed: ") + QString::fromLocal8Bit(error));
    return {seconds, QFileInfo(file).size(), 0};
}

double mibPerSecond(const SaveFigures &save)
{
    return double(save.bytes) / (1024.0 * 1024.0) / save.seconds;
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(parser, app,
                     QStringLiteral("Fills etcd to --mib MiB, then saves its snapshot with SnapshotSave and with "
                                    "`etcdctl snapshot save` in turns. Prints one JSON object."),
                     {{QStringLiteral("mib"), QStringLiteral("The database size to fill to, in MiB (the issue's "
                                                             "figure: 1024)."),
                       QStringLiteral("n"), QStringLiteral("128")},
                      {QStringLiteral("rounds"), QStringLiteral("Saves per side."), QStringLiteral("n"), QStringLiteral("3")}});
    return run([&] {
        const int mib = positiveOption(parser, QStringLiteral("mib"));
        const int rounds = positiveOption(parser, QStringLiteral("rounds"));
        Testing::EtcdCluster::Options options;
        // Room for the database and its history, well above etcd's 2 GiB default.
        options.extraArgs = {QStringLiteral("--quota-backend-bytes=%1").arg(qint64(mib) * 3 * 1024 * 1024 + (1LL << 30))};
        Testing::EtcdCluster cluster(options);
        startCluster(cluster);
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        const auto fillStarted = Clock::now();
        fill(client, qint64(mib) * 1024 * 1024);
        const double fillSeconds = duration<double>(Clock::now() - fillStarted).count();

        QTemporaryDir directory;
        if (!directory.isValid())
            fail(QStringLiteral("no temporary directory"));
        QList<double> ours;
        QList<double> theirs;
        qint64 peakGrowthKiB = 0;
        qint64 snapshotBytes = 0;
        takeTurns(rounds, 2, [&](int round, int side) {
            const QString file = directory.filePath(QStringLiteral("%1-%2.db").arg(side).arg(round));
            const SaveFigures saved = side == 0 ? saveWithQetcd(client, file) : saveWithEtcdctl(cluster, file);
            (side == 0 ? ours : theirs).append(mibPerSecond(saved));
            if (side == 0)
                peakGrowthKiB = std::max(peakGrowthKiB, saved.peakRssGrowthKiB);
            snapshotBytes = saved.bytes;
            QFile::remove(file);
        });
        const double oursMedian = percentile(ours, 50);
        const double theirsMedian = percentile(theirs, 50);
        return QJsonObject{{"benchmark", "snapshot"},
                           {"database_mib", rounded(double(snapshotBytes) / (1024.0 * 1024.0))},
                           {"fill_seconds", rounded(fillSeconds)},
                           {"rounds", rounds},
                           {"qetcd_mib_per_second", summary(ours, {{"median", 50}})},
                           {"etcdctl_mib_per_second", summary(theirs, {{"median", 50}})},
                           {"throughput_ratio_median", ratio(oursMedian, theirsMedian)},
                           {"peak_rss_growth_mib", rounded(double(peakGrowthKiB) / 1024.0)}};
    });
}
