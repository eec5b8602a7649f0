// SPDX-License-Identifier: Apache-2.0
// How soon a consumer waiting on an empty DistributedQueue takes an item: from the producer's
// enqueue() to the consumer's takeAsync() finishing, while other clients keep writing elsewhere
// in the store. Those writes are what matter: a consumer's watch created after one of them is
// one etcd serves from its catch-up loop, which runs every 100 ms, so an item could wait up to
// that long before anyone heard of it. Each round the consumer starts waiting, then the item
// follows 15-45 ms later.

#include "benchsupport.h"

#include <QEtcd/client.h>
#include <QEtcd/distributedqueue.h>

#include <QtCore/QFutureWatcher>

#include <functional>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
// Writers that keep the store's revision moving until told to stop.
class BackgroundWriters
{
public:
    BackgroundWriters(const QStringList &endpoints, int count) : m_client(ClientOptions::fromEndpoints(endpoints))
    {
        for (int i = 0; i < count; ++i)
            write(i);
    }
    ~BackgroundWriters()
    {
        m_running = false;
        if (!waitUntil([this] { return m_inFlight == 0; }, 30s))
            std::fprintf(stderr, "background writers did not wind down\n");
    }
    qint64 writes() const { return m_writes; }

private:
    void write(int writer)
    {
        ++m_inFlight;
        auto *watcher = new QFutureWatcher<PutResult>;
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [this, watcher, writer] {
            watcher->deleteLater();
            --m_inFlight;
            ++m_writes;
            if (m_running)
                write(writer);
        });
        watcher->setFuture(m_client.put("/bench/queue-noise/" + QByteArray::number(writer), "x"));
    }

    Client m_client;
    bool m_running = true;
    int m_inFlight = 0;
    qint64 m_writes = 0;
};
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(parser, app,
                     QStringLiteral("Latency from enqueue() to a waiting consumer's takeAsync() finishing, with other "
                                    "clients writing meanwhile. Prints one JSON object."),
                     {{QStringLiteral("rounds"), QStringLiteral("Items sent, one at a time."), QStringLiteral("n"),
                       QStringLiteral("200")},
                      {QStringLiteral("writers"), QStringLiteral("Background writers, each one put at a time."),
                       QStringLiteral("n"), QStringLiteral("4")}});
    return run([&] {
        const int rounds = positiveOption(parser, QStringLiteral("rounds"));
        const int writers = positiveOption(parser, QStringLiteral("writers"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        Client consumerClient(ClientOptions::fromEndpoints(cluster.clientUrls()));
        Client producerClient(ClientOptions::fromEndpoints(cluster.clientUrls()));
        DistributedQueue consumer(&consumerClient, "/bench/queue");
        DistributedQueue producer(&producerClient, "/bench/queue");
        QList<double> latencies;
        qint64 backgroundWrites = 0;
        {
            BackgroundWriters background(cluster.clientUrls(), writers);
            for (int round = 0; round < rounds; ++round) {
                const QFuture<QueueItem> taken = consumer.takeAsync();
                pause(milliseconds(15 + (round % 7) * 5));
                if (taken.isFinished())
                    fail(QStringLiteral("a take finished before anything was enqueued"));
                const qint64 sentNs = nowNs();
                const QFuture<Status> enqueued = producer.enqueue("item");
                const QueueItem item = await(taken, QStringLiteral("take"));
                latencies.append(nsToMs(nowNs() - sentNs));
                if (!item.status)
                    fail(QStringLiteral("take failed: ") + item.status.toString());
                if (const Status status = await(enqueued, QStringLiteral("enqueue")); !status)
                    fail(QStringLiteral("enqueue failed: ") + status.toString());
            }
            backgroundWrites = background.writes();
        }
        return QJsonObject{{"benchmark", "queue"},
                           {"rounds", rounds},
                           {"background_writers", writers},
                           {"background_writes", backgroundWrites},
                           {"take_latency_ms", summary(latencies, {{"p50", 50}, {"p90", 90}, {"p99", 99}})}};
    });
}
