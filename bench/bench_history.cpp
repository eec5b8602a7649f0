// SPDX-License-Identifier: Apache-2.0
// How fast `qetcd history` replays etcd's history, and what memory it needs: a store is filled
// with --revisions revisions of mixed coordination traffic (locks held and handed on in etcd's
// layout, an election's candidates coming and going, queue items put and taken), then
// CoordinationHistory replays all of it. Printed: revisions and events per second, the time to
// the first events beside etcd's own floor for them (a bare watch's first answer from the same
// revision), the replay's peak RSS above what the process held before it, and the console's
// side: how soon the Timeline's model (CoordinationHistoryModel, replaying newest first) has its
// first lanes to paint, and how long until it holds the whole history.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationhistory.h>

#include "coordinationhistorymodel.h"

#include <QtCore/QFutureWatcher>

#include <atomic>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
// Writers that make `total` revisions, each write one: a key appears, and the same writer's next
// write takes it away, so the store stays small while its history grows.
class TrafficWriters
{
public:
    TrafficWriters(Client &client, const QList<qint64> &leases, qint64 total, int writers)
        : m_client(client), m_leases(leases), m_total(total)
    {
        for (int writer = 0; writer < writers; ++writer)
            next(writer, 0);
    }
    bool done() const { return m_finished == m_total; }
    qint64 failures() const { return m_failures; }

private:
    // A writer's step alternates: put its key, then delete it.
    void next(int writer, qint64 step)
    {
        if (m_started == m_total)
            return;
        ++m_started;
        const qint64 lease = m_leases.at(writer % m_leases.size());
        QByteArray key;
        PutOptions options;
        switch (writer % 3) {
        case 0:  // a lock in etcd's layout, held by the writer's session
            key = "/bench/history/locks/l" + QByteArray::number(writer % 20) + '/' + QByteArray::number(lease, 16);
            options.lease = lease;
            break;
        case 1:  // a candidate in an election
            key = "/bench/history/elections/e" + QByteArray::number(writer % 5) + '/' + QByteArray::number(lease, 16);
            options.lease = lease;
            break;
        default:  // a FIFO queue item
            // The item put at an even step is the one taken at the next.
            key = "/bench/history/queues/q" + QByteArray::number(writer % 4) + '/'
                + QByteArray::number(1700000000000000000LL + writer * 1000000LL + step / 2).rightJustified(19, '0')
                + "-abc";
            break;
        }
        const bool put = step % 2 == 0;
        if (put)
            whenDone(m_client.put(key, "w" + QByteArray::number(writer), options), writer, step);
        else
            whenDone(m_client.remove(key), writer, step);
    }

    // Watched, not then(): Qt 6.4 can run a continuation twice when it is attached while the
    // client's thread finishes the future (Client's documentation), which crashed a run.
    template <class T>
    void whenDone(const QFuture<T> &future, int writer, qint64 step)
    {
        auto *watcher = new QFutureWatcher<T>;
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [this, watcher, writer, step] {
            watcher->deleteLater();
            if (!watcher->result().status)
                ++m_failures;
            ++m_finished;
            next(writer, step + 1);
        });
        watcher->setFuture(future);
    }

    Client &m_client;
    QList<qint64> m_leases;
    const qint64 m_total;
    qint64 m_started = 0;
    qint64 m_finished = 0;
    qint64 m_failures = 0;
};
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(parser, app,
                     QStringLiteral("Replays --revisions revisions of lock, election and queue traffic through "
                                    "CoordinationHistory. Prints one JSON object."),
                     {{QStringLiteral("revisions"), QStringLiteral("Revisions of traffic to replay."), QStringLiteral("n"),
                       QStringLiteral("1000000")},
                      {QStringLiteral("writers"), QStringLiteral("Writers making the traffic, one write at a time each."),
                       QStringLiteral("n"), QStringLiteral("96")},
                      {QStringLiteral("no-bare-watch"),
                       QStringLiteral("Skip the bare watch's catch-up, which grows with the square of --revisions.")}});
    return run([&] {
        const int revisions = positiveOption(parser, QStringLiteral("revisions"));
        const int writers = positiveOption(parser, QStringLiteral("writers"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));

        QList<qint64> leases;
        for (int i = 0; i < writers; ++i) {
            const LeaseGrantResult granted = await(client.leaseGrant(3600), QStringLiteral("lease grant"));
            if (!granted.status)
                fail(QStringLiteral("lease grant failed: ") + granted.status.toString());
            leases.append(granted.id);
        }
        const qint64 filledFrom = await(client.get("/"), QStringLiteral("get")).header.revision;
        const auto fillStarted = Clock::now();
        TrafficWriters traffic(client, leases, revisions, writers);
        if (!waitUntil([&] { return traffic.done(); }, hours(1), 50ms))
            fail(QStringLiteral("the traffic did not finish within an hour"));
        const double fillSeconds = duration<double>(Clock::now() - fillStarted).count();
        if (traffic.failures() > 0)
            fail(QStringLiteral("%1 writes failed").arg(traffic.failures()));

        // etcd's own part: a bare watch catching up on the same history, events counted only.
        const qint64 filledTo = await(client.get("/"), QStringLiteral("get")).header.revision;
        double watchSeconds = -1;
        if (!parser.isSet(QStringLiteral("no-bare-watch"))) {
            WatchOptions replay;
            replay.range = KeyRange::prefix();
            replay.startRevision = filledFrom + 1;
            Watcher watcher(&client, "/bench/history/", replay);
            std::atomic<qint64> reached{0};
            QObject::connect(&watcher, &Watcher::eventsReceived, &watcher, [&reached](const QList<WatchEvent> &events) {
                reached = events.constLast().kv.modRevision;
            }, Qt::DirectConnection);
            const auto watchStarted = Clock::now();
            await(watcher.start(), QStringLiteral("watch"));
            if (!waitUntil([&] { return reached.load() >= filledTo; }, hours(1), 20ms))
                fail(QStringLiteral("the bare watch did not catch up within an hour"));
            watchSeconds = duration<double>(Clock::now() - watchStarted).count();
        }

        resetPeakRss();
        const qint64 rssBeforeKiB = statusFieldKiB("VmRSS:");
        CoordinationHistory history(&client, "/bench/history/");
        history.setFromRevision(filledFrom + 1);
        qint64 events = 0;
        qint64 firstEventsNs = 0;
        const qint64 startedNs = nowNs();
        QObject::connect(&history, &CoordinationHistory::eventsReady, [&](const QList<CoordinationEvent> &batch) {
            if (events == 0)
                firstEventsNs = nowNs() - startedNs;
            events += batch.size();
        });
        const Status replayed = await(history.start(), QStringLiteral("replay"), hours(1));
        const double replaySeconds = double(nowNs() - startedNs) / 1e9;
        if (!replayed)
            fail(QStringLiteral("the replay failed: ") + replayed.toString());
        const qint64 peakGrowthKiB = statusFieldKiB("VmHWM:") - rssBeforeKiB;

        // etcd's floor for the first events: how long a bare watch from the same revision waits
        // for its first (etcd 3.4 reads every revision from there to now before it answers).
        qint64 bareFirstEventNs = 0;
        {
            WatchOptions fromStart;
            fromStart.range = KeyRange::prefix();
            fromStart.startRevision = filledFrom + 1;
            Watcher first(&client, "/bench/history/", fromStart);
            std::atomic<bool> answered{false};
            QObject::connect(&first, &Watcher::eventsReceived, &first, [&answered](const QList<WatchEvent> &) { answered = true; },
                             Qt::DirectConnection);
            const qint64 watchedNs = nowNs();
            await(first.start(), QStringLiteral("watch"));
            if (!waitUntil([&] { return answered.load(); }, minutes(10), 1ms))
                fail(QStringLiteral("the bare watch told nothing within ten minutes"));
            bareFirstEventNs = nowNs() - watchedNs;
        }

        // The console's Timeline over the same revisions.
        CoordinationHistoryModel model;
        model.setClient(&client);
        model.setPrefix(QStringLiteral("/bench/history/"));
        model.setLastRevisions(filledTo - filledFrom);
        qint64 firstLanesNs = 0;
        const qint64 modelStartedNs = nowNs();
        QObject::connect(&model, &CoordinationHistoryModel::lanesChanged, &model, [&] {
            const bool painted = std::any_of(model.lanes().begin(), model.lanes().end(), [](const auto &lane) {
                return !lane.bars.empty() || !lane.marks.empty();
            });
            if (painted && firstLanesNs == 0)
                firstLanesNs = nowNs() - modelStartedNs;
        });
        model.start();
        if (!waitUntil([&] { return !model.isRunning(); }, hours(1), 20ms) || model.status() != ModelStatus::Ready)
            fail(QStringLiteral("the console's replay did not end Ready: ") + model.errorString());
        const double modelSeconds = double(nowNs() - modelStartedNs) / 1e9;

        return QJsonObject{{"benchmark", "history"},
                           {"revisions", revisions},
                           {"writers", writers},
                           {"fill_seconds", rounded(fillSeconds)},
                           {"events", events},
                           {"replay_seconds", rounded(replaySeconds)},
                           {"bare_watch_catch_up_seconds", rounded(watchSeconds)},
                           {"revisions_per_second", qint64(double(revisions) / replaySeconds)},
                           {"events_per_second", qint64(double(events) / replaySeconds)},
                           {"first_events_ms", rounded(nsToMs(firstEventsNs))},
                           {"bare_watch_first_event_ms", rounded(nsToMs(bareFirstEventNs))},
                           {"console_first_lanes_ms", rounded(nsToMs(firstLanesNs))},
                           {"console_replay_seconds", rounded(modelSeconds)},
                           {"console_newest_first_revisions", CoordinationHistoryModel::NewestFirstRevisions},
                           {"peak_rss_growth_mib", rounded(double(peakGrowthKiB) / 1024.0)}};
    });
}
