// SPDX-License-Identifier: Apache-2.0
// What a Prometheus scrape of `qetcd exporter` costs when etcd holds many coordination objects:
// a store is filled with --objects objects (locks in etcd's layout, each with a holder and a
// waiter, and FIFO queues of qetcd's layout), the built exporter follows it, and /metrics is
// fetched --scrapes times, one after another. Printed: the scrape time (request to last byte),
// the exporter's CPU time per scrape (its /proc stat across the scrapes), the body's size and
// series, and the exporter's RSS.

#include "benchsupport.h"

#include <QEtcd/client.h>

#include <QtCore/QDateTime>
#include <QtCore/QFutureWatcher>
#include <QtCore/QUrl>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>

using namespace QEtcd;
using namespace Bench;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
// Puts keys, a few hundred in flight at a time.
class Filler
{
public:
    Filler(Client &client, QList<std::pair<QByteArray, qint64>> keys) : m_client(client), m_keys(std::move(keys))
    {
        for (int i = 0; i < 200; ++i)
            next();
    }
    bool done() const { return m_finished == m_keys.size(); }
    qint64 failures() const { return m_failures; }

private:
    void next()
    {
        if (m_started == m_keys.size())
            return;
        const auto &[key, lease] = m_keys.at(m_started++);
        PutOptions options;
        options.lease = lease;
        auto *watcher = new QFutureWatcher<PutResult>;
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [this, watcher] {
            watcher->deleteLater();
            if (!watcher->result().status)
                ++m_failures;
            ++m_finished;
            next();
        });
        watcher->setFuture(m_client.put(key, {}, options));
    }

    Client &m_client;
    QList<std::pair<QByteArray, qint64>> m_keys;
    qsizetype m_started = 0;
    qsizetype m_finished = 0;
    qint64 m_failures = 0;
};

QByteArray fetch(QNetworkAccessManager &http, const QUrl &url)
{
    QNetworkReply *reply = http.get(QNetworkRequest(url));
    if (!waitUntil([reply] { return reply->isFinished(); }, 30s, 1ms))
        fail(QStringLiteral("no answer from %1 within 30 s").arg(url.toString()));
    reply->deleteLater();
    if (reply->error() != QNetworkReply::NoError)
        fail(QStringLiteral("%1: %2").arg(url.toString(), reply->errorString()));
    return reply->readAll();
}

double processCpuSeconds(qint64 pid)
{
    return statCpuSeconds(QStringLiteral("/proc/%1/stat").arg(pid));
}

qint64 processRssKiB(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/status").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        fail(QStringLiteral("cannot read the exporter's status"));
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parseCommandLine(parser, app, QStringLiteral("Scrape time and CPU of qetcd exporter over many objects."),
                     {{QStringLiteral("objects"), QStringLiteral("Coordination objects in the store."), QStringLiteral("N"),
                       QStringLiteral("10000")},
                      {QStringLiteral("scrapes"), QStringLiteral("Scrapes of /metrics to time."), QStringLiteral("N"),
                       QStringLiteral("200")}});
    return run([&] {
        const int objects = positiveOption(parser, QStringLiteral("objects"));
        const int scrapes = positiveOption(parser, QStringLiteral("scrapes"));
        Testing::EtcdCluster cluster;
        startCluster(cluster);
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        QList<qint64> leases;
        for (int i = 0; i < 16; ++i) {
            const LeaseGrantResult granted = await(client.leaseGrant(3600), QStringLiteral("lease grant"));
            if (!granted.status)
                fail(QStringLiteral("lease grant failed: ") + granted.status.toString());
            leases.append(granted.id);
        }
        // Three locks in four, each a holder and a waiter on two sessions' leases; the rest queues
        // of three items, named by qetcd's layout (the put time in ms, 19 digits, then a suffix).
        const qint64 putMs = QDateTime::currentMSecsSinceEpoch() - 60000;
        QList<std::pair<QByteArray, qint64>> keys;
        for (int i = 0; i < objects; ++i) {
            const QByteArray name = QByteArray::number(i);
            if (i % 4 != 3) {
                for (int entry = 0; entry < 2; ++entry) {
                    const qint64 lease = leases.at((i + entry) % leases.size());
                    keys.append({"/bench/exporter/locks/l" + name + '/' + QByteArray::number(lease, 16), lease});
                }
            } else {
                for (int item = 0; item < 3; ++item) {
                    keys.append({"/bench/exporter/queues/q" + name + '/'
                                     + QByteArray::number(putMs + item).rightJustified(19, '0') + "-abc",
                                 0});
                }
            }
        }
        Filler filler(client, keys);
        if (!waitUntil([&] { return filler.done(); }, 10min, 20ms))
            fail(QStringLiteral("the store was not filled within 10 minutes"));
        if (filler.failures() > 0)
            fail(QStringLiteral("%1 puts failed").arg(filler.failures()));

        QProcess exporter;
        exporter.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        exporter.start(QStringLiteral(QETCD_CLI_PATH),
                       {QStringLiteral("--endpoints"), cluster.clientUrl(0), QStringLiteral("exporter"),
                        QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--prefix"),
                        QStringLiteral("/bench/exporter/")});
        QByteArray printed;
        QUrl metrics;
        qint64 recognised = -1;
        const auto followed = [&] {
            printed += exporter.readAllStandardOutput();
            for (const QByteArray &line : printed.split('\n')) {
                const QJsonObject event = QJsonDocument::fromJson(line).object();
                if (event.value("event").toString() == QLatin1String("listening"))
                    metrics = QUrl(event.value("url").toString());
                if (event.value("event").toString() == QLatin1String("following")) {
                    recognised = event.value("objects").toInteger();
                    return true;
                }
            }
            return false;
        };
        const auto startedAt = Clock::now();
        if (!waitUntil(followed, 5min, 20ms))
            fail(QStringLiteral("the exporter did not follow the store within 5 minutes"));
        const double firstReadSeconds = duration<double>(Clock::now() - startedAt).count();
        if (recognised != objects)
            fail(QStringLiteral("the exporter recognised %1 objects of %2").arg(recognised).arg(objects));

        QNetworkAccessManager http;
        const QByteArray first = fetch(http, metrics);  // warms the connection
        qint64 series = 0;
        for (const QByteArray &line : first.split('\n'))
            series += !line.isEmpty() && !line.startsWith('#');
        QList<double> scrapeMs;
        const double cpuBefore = processCpuSeconds(exporter.processId());
        for (int i = 0; i < scrapes; ++i) {
            const qint64 started = nowNs();
            fetch(http, metrics);
            scrapeMs.append(nsToMs(nowNs() - started));
        }
        const double cpuSeconds = processCpuSeconds(exporter.processId()) - cpuBefore;
        const qint64 rssKiB = processRssKiB(exporter.processId());
        exporter.terminate();
        exporter.waitForFinished(10000);
        return QJsonObject{{"benchmark", "exporter"},
                           {"objects", objects},
                           {"keys", keys.size()},
                           {"scrapes", scrapes},
                           {"series", series},
                           {"body_kib", rounded(double(first.size()) / 1024.0)},
                           {"first_read_seconds", rounded(firstReadSeconds)},
                           {"scrape_ms", summary(scrapeMs, {{"median", 50}, {"p99", 99}})},
                           {"exporter_cpu_ms_per_scrape", rounded(cpuSeconds * 1000.0 / scrapes)},
                           {"exporter_rss_mib", rounded(double(rssKiB) / 1024.0)}};
    });
}
