// SPDX-License-Identifier: Apache-2.0
// qetcd exporter scraped by a real Prometheus (Debian's `prometheus`, its own configuration and
// data in a temporary folder, scraping every second): what CLI participants do in etcd is what
// Prometheus's query API answers, and a participant cut off makes a shipped alert rule fire.
// Prometheus missing is a failure, not a skip.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonArray>
#include <QtCore/QTemporaryDir>
#include <QtCore/QUrlQuery>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QTcpServer>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_ExporterPrometheus : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;
    QTemporaryDir m_dir;
    QNetworkAccessManager m_http;
    std::unique_ptr<Qetcd> m_exporter;
    std::unique_ptr<ToolProcess> m_prometheus;
    QString m_prometheusUrl;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }

    // A loopback port nobody listens on now.
    static quint16 freePort()
    {
        QTcpServer probe;
        return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
    }

    // The body of GET url, or an empty one without a 200.
    QByteArray get(const QUrl &url)
    {
        QNetworkReply *reply = m_http.get(QNetworkRequest(url));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QByteArray body;
        if ((reply->isFinished() || finished.wait(scaledMs(10000)))
            && reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
            body = reply->readAll();
        reply->deleteLater();
        return body;
    }

    // What Prometheus answers to an instant query: the value of its one series, or a note of
    // what it answered instead (for the failure message).
    QString query(const QString &promql)
    {
        QUrl url(m_prometheusUrl + QStringLiteral("/api/v1/query"));
        QUrlQuery parameters;
        parameters.addQueryItem(QStringLiteral("query"), QString::fromUtf8(QUrl::toPercentEncoding(promql)));
        url.setQuery(parameters);
        const QByteArray body = get(url);
        const QJsonArray result = QJsonDocument::fromJson(body).object().value("data").toObject().value("result").toArray();
        if (result.size() != 1)
            return QStringLiteral("<%1 series: %2>").arg(result.size()).arg(QString::fromUtf8(body.left(300)));
        return result.first().toObject().value("value").toArray().at(1).toString();
    }

    // The state of the alert named alertname about the object name ("pending", "firing"), or
    // a note of the alerts there are instead.
    QString alertState(const QString &alertname, const QString &name)
    {
        const QByteArray body = get(QUrl(m_prometheusUrl + QStringLiteral("/api/v1/alerts")));
        const QJsonArray alerts =
            QJsonDocument::fromJson(body).object().value("data").toObject().value("alerts").toArray();
        for (const QJsonValue &alert : alerts) {
            const QJsonObject labels = alert.toObject().value("labels").toObject();
            if (labels.value("alertname").toString() == alertname && labels.value("name").toString() == name)
                return alert.toObject().value("state").toString();
        }
        return QStringLiteral("<not among: %1>").arg(QString::fromUtf8(body.left(600)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        QVERIFY(m_dir.isValid());

        m_exporter = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/pm/"});
        QTRY_VERIFY2_WITH_TIMEOUT(m_exporter->has("following"), m_exporter->transcript().constData(), scaledMs(15000));
        const QUrl metrics(text(m_exporter->event("listening"), "url"));

        const QString rules = qEnvironmentVariable("QETCD_SOURCE_DIR") + QStringLiteral("/packaging/prometheus/qetcd-rules.yml");
        QVERIFY2(QFileInfo::exists(rules), qPrintable(rules));
        QFile config(m_dir.filePath(QStringLiteral("prometheus.yml")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QStringLiteral("global:\n"
                                    "  scrape_interval: 1s\n"
                                    "  evaluation_interval: 1s\n"
                                    "rule_files:\n"
                                    "  - %1\n"
                                    "scrape_configs:\n"
                                    "  - job_name: qetcd\n"
                                    "    static_configs:\n"
                                    "      - targets: ['127.0.0.1:%2']\n")
                         .arg(rules)
                         .arg(metrics.port())
                         .toUtf8());
        config.close();

        const quint16 port = freePort();
        QVERIFY(port != 0);
        m_prometheusUrl = QStringLiteral("http://127.0.0.1:%1").arg(port);
        m_prometheus = std::make_unique<ToolProcess>(
            QStringLiteral("prometheus"),
            QStringList{QStringLiteral("--config.file=") + config.fileName(),
                        QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("data")),
                        QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port)},
            QList<std::pair<QString, QString>>{}, Printed::JsonAndPlainLines);
        QVERIFY2(m_prometheus->waitForStarted(),
                 "prometheus did not start: install Debian's prometheus package (scripts/setup does)");
        QTRY_VERIFY2_WITH_TIMEOUT(!get(QUrl(m_prometheusUrl + QStringLiteral("/-/ready"))).isEmpty(),
                                  m_prometheus->standardError().right(2000).constData(), scaledMs(30000));
    }

    void cleanupTestCase()
    {
        if (m_prometheus)
            m_prometheus->terminate();
        if (m_exporter)
            m_exporter->terminate();
        m_client.reset();
    }

    void prometheusSeesWhatParticipantsDo()
    {
        QTRY_COMPARE_WITH_TIMEOUT(query(QStringLiteral("qetcd_exporter_connected")), QStringLiteral("1"), scaledMs(20000));
        // The shipped rules load in a real Prometheus.
        QTRY_VERIFY_WITH_TIMEOUT(get(QUrl(m_prometheusUrl + QStringLiteral("/api/v1/rules")))
                                     .contains("\"name\":\"QetcdLockHeldTooLong\""), scaledMs(10000));

        auto holder = qetcd({"lock", "/pm/lock", "--hold", "120s"});
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("acquired"), holder->transcript().constData(), scaledMs(15000));
        auto second = qetcd({"lock", "/pm/lock", "--hold", "120s"});
        // Queued in this order: the second is next.
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(m_client.get(), "/pm/lock/"), 2, scaledMs(15000));
        auto third = qetcd({"lock", "/pm/lock", "--hold", "120s"});
        auto leader = qetcd({"elect", "/pm/election", "one", "--hold", "120s"});
        for (const char *item : {"a", "b", "c"}) {
            auto put = qetcd({"queue", "put", "/pm/queue", item});
            QCOMPARE(put->waitForExit(), 0);
        }

        QTRY_COMPARE_WITH_TIMEOUT(query(QStringLiteral(R"(qetcd_lock_waiters{name="/pm/lock"})")), QStringLiteral("2"),
                                  scaledMs(30000));
        QTRY_COMPARE_WITH_TIMEOUT(query(QStringLiteral(R"(qetcd_queue_depth{name="/pm/queue"})")), QStringLiteral("3"),
                                  scaledMs(30000));
        QTRY_COMPARE_WITH_TIMEOUT(query(QStringLiteral(R"(qetcd_election_has_leader{name="/pm/election"})")),
                                  QStringLiteral("1"), scaledMs(30000));
        QCOMPARE(query(QStringLiteral(R"(qetcd_lock_handoffs_total{name="/pm/lock"})")), QStringLiteral("0"));

        // The holder lets go; the next takes it: Prometheus sees the hand-off.
        holder->terminate();
        QCOMPARE(holder->waitForExit(), 0);
        QTRY_VERIFY2_WITH_TIMEOUT(second->has("acquired"), second->transcript().constData(), scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(query(QStringLiteral(R"(qetcd_lock_handoffs_total{name="/pm/lock"})")),
                                  QStringLiteral("1"), scaledMs(30000));
        QTRY_COMPARE_WITH_TIMEOUT(query(QStringLiteral(R"(qetcd_lock_waiters{name="/pm/lock"})")), QStringLiteral("1"),
                                  scaledMs(30000));
        // What a dashboard's rate() and an alert's increase() read.
        QTRY_VERIFY_WITH_TIMEOUT(
            query(QStringLiteral(R"(increase(qetcd_lock_handoffs_total{name="/pm/lock"}[1m]))")).toDouble() > 0,
            scaledMs(10000));
    }

    // The only candidate of an election, cut off from etcd: its lease expires, nobody leads, and
    // after the rule's minute Prometheus fires QetcdElectionWithoutLeader for that election.
    void partitionedLeaderFiresTheAlert()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        const QString election = QStringLiteral("/pm/partitioned");
        Qetcd leader(proxy.url(), {"elect", election, "one", "--hold", "600s", "--ttl", "2"});
        QTRY_VERIFY2_WITH_TIMEOUT(leader.has("elected"), leader.transcript().constData(), scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(query(QStringLiteral(R"(qetcd_election_has_leader{name="%1"})").arg(election)),
                                  QStringLiteral("1"), scaledMs(30000));
        QVERIFY(alertState(QStringLiteral("QetcdElectionWithoutLeader"), election).startsWith(QLatin1String("<not")));

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_VERIFY2_WITH_TIMEOUT(leader.has("leadershipLost"), leader.transcript().constData(), scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(m_client.get(), election.toUtf8() + '/'), 0, scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(alertState(QStringLiteral("QetcdElectionWithoutLeader"), election),
                                  QStringLiteral("pending"), scaledMs(30000));
        // The rule's `for: 1m`, kept as shipped, then the next evaluations.
        QTRY_COMPARE_WITH_TIMEOUT(alertState(QStringLiteral("QetcdElectionWithoutLeader"), election),
                                  QStringLiteral("firing"), 60000 + scaledMs(30000));
    }
};

QTEST_GUILESS_MAIN(tst_ExporterPrometheus)
#include "tst_exporterprometheus.moc"
