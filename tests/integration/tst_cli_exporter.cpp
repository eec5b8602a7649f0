// SPDX-License-Identifier: Apache-2.0
// qetcd exporter against a real etcd member: what /metrics and /healthz answer over HTTP while
// CLI participants come and go, while etcd stops answering, and what bad command lines get.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/testcertificates.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QTemporaryDir>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslConfiguration>
#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

namespace {
constexpr int BadArguments = 128;

struct HttpAnswer
{
    int status = 0;  // 0: no answer
    QByteArray contentType;
    QByteArray body;
};
} // namespace

class tst_CliExporter : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    QNetworkAccessManager m_http;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments, const QString &endpoint = {})
    {
        return std::make_unique<Qetcd>(endpoint.isEmpty() ? m_cluster.clientUrl(0) : endpoint, arguments);
    }

    // caCertificate: the authority an https URL's certificate must chain to.
    HttpAnswer get(const QString &url, const QString &caCertificate = {})
    {
        QNetworkRequest request{QUrl(url)};
        if (!caCertificate.isEmpty()) {
            QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
            tls.setCaCertificates(QSslCertificate::fromPath(caCertificate));
            request.setSslConfiguration(tls);
        }
        QNetworkReply *reply = m_http.get(request);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        HttpAnswer answer;
        if (reply->isFinished() || finished.wait(scaledMs(10000))) {
            answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            answer.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
            answer.body = reply->readAll();
        }
        reply->deleteLater();
        return answer;
    }

    // The exporter's base URL from its "listening" line ("http://127.0.0.1:PORT").
    static QString base(ToolProcess &exporter)
    {
        return text(exporter.event("listening"), "url").chopped(int(qstrlen("/metrics")));
    }

    static QString sample(const QByteArray &metrics, const QString &series)
    {
        for (const QByteArray &line : metrics.split('\n')) {
            if (line.startsWith(series.toUtf8() + ' '))
                return QString::fromUtf8(line.mid(series.toUtf8().size() + 1));
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString())); }

    void servesMetricsAndHealth()
    {
        auto holder = qetcd({"lock", "/ex/lock", "--hold", "120s"});
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("acquired"), holder->transcript().constData(), scaledMs(15000));
        auto exporter = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/ex/", "--prefix", "/other/"});
        QTRY_VERIFY2_WITH_TIMEOUT(exporter->count("following") == 2, exporter->transcript().constData(), scaledMs(15000));
        QVERIFY(text(exporter->event("listening"), "url").startsWith(QLatin1String("http://127.0.0.1:")));

        QTRY_COMPARE_WITH_TIMEOUT(get(base(*exporter) + "/healthz").status, 200, scaledMs(10000));
        QCOMPARE(get(base(*exporter) + "/healthz").body, QByteArray("ok\n"));
        auto waiter = qetcd({"lock", "/ex/lock", "--hold", "120s"});
        HttpAnswer metrics;
        QTRY_COMPARE_WITH_TIMEOUT(sample((metrics = get(base(*exporter) + "/metrics")).body,
                                         R"(qetcd_lock_waiters{name="/ex/lock"})"),
                                  QStringLiteral("1"), scaledMs(15000));
        QCOMPARE(metrics.status, 200);
        QVERIFY2(metrics.contentType.startsWith("text/plain; version=0.0.4"), metrics.contentType.constData());
        QVERIFY(metrics.body.contains("# HELP qetcd_lock_held_seconds "));
        QCOMPARE(sample(metrics.body, "qetcd_exporter_connected"), QStringLiteral("1"));
        QVERIFY(sample(metrics.body, "qetcd_exporter_last_refresh_timestamp_seconds").toDouble()
                > QDateTime::currentSecsSinceEpoch() - 60);
        QCOMPARE(get(base(*exporter) + "/nothing").status, 404);

        exporter->terminate();
        QCOMPARE(exporter->waitForExit(), 0);
        QCOMPARE(text(exporter->event("closed"), "reason"), QStringLiteral("SIGTERM"));
    }

    void noHolderLabelsAndTheCap()
    {
        auto holder = qetcd({"lock", "/ey/lock", "--hold", "120s"});
        QTRY_VERIFY2_WITH_TIMEOUT(holder->has("acquired"), holder->transcript().constData(), scaledMs(15000));
        auto exporter = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/ey/", "--no-holder-labels",
                               "--max-series", "2"});
        QTRY_VERIFY2_WITH_TIMEOUT(exporter->has("following"), exporter->transcript().constData(), scaledMs(15000));
        const QByteArray metrics = get(base(*exporter) + "/metrics").body;
        // qetcd_objects{kind="lock"} and the held time; the waiters and hand-offs are left out.
        QVERIFY2(!sample(metrics, R"(qetcd_lock_held_seconds{name="/ey/lock"})").isEmpty(), metrics.constData());
        QVERIFY2(!metrics.contains("holder="), metrics.constData());
        QCOMPARE(sample(metrics, "qetcd_exporter_series_dropped"), QStringLiteral("2"));
    }

    // etcd stops answering: /healthz says so with 503, and the metrics say disconnected; it
    // answers again: healthy again.
    void healthFollowsEtcd()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        auto exporter = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/ez/"}, proxy.url());
        QTRY_VERIFY2_WITH_TIMEOUT(exporter->has("following"), exporter->transcript().constData(), scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(get(base(*exporter) + "/healthz").status, 200, scaledMs(10000));

        proxy.setMode(FaultProxy::Mode::Reset);
        HttpAnswer health;
        QTRY_COMPARE_WITH_TIMEOUT((health = get(base(*exporter) + "/healthz")).status, 503, scaledMs(20000));
        QVERIFY2(health.body.contains("etcd does not answer"), health.body.constData());
        QCOMPARE(sample(get(base(*exporter) + "/metrics").body, "qetcd_exporter_connected"), QStringLiteral("0"));
        QVERIFY2(exporter->has("disconnected"), exporter->transcript().constData());

        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(get(base(*exporter) + "/healthz").status, 200, scaledMs(30000));
        QCOMPARE(sample(get(base(*exporter) + "/metrics").body, "qetcd_exporter_connected"), QStringLiteral("1"));
    }

    // Started while etcd is not there at all: it serves, unhealthy, and says why.
    void servesWhileEtcdIsUnreachable()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY(proxy.start());
        proxy.setMode(FaultProxy::Mode::Reset);
        auto exporter = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/ez/"}, proxy.url());
        QTRY_VERIFY2_WITH_TIMEOUT(exporter->has("listening"), exporter->transcript().constData(), scaledMs(15000));
        const HttpAnswer health = get(base(*exporter) + "/healthz");
        QCOMPARE(health.status, 503);
        QVERIFY2(health.body.contains("not following \"/ez/\""), health.body.constData());
        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_VERIFY2_WITH_TIMEOUT(exporter->has("following"), exporter->transcript().constData(), scaledMs(30000));
        QTRY_COMPARE_WITH_TIMEOUT(get(base(*exporter) + "/healthz").status, 200, scaledMs(10000));
    }

    void servesHttps()
    {
        TestCertificates certificates;
        QVERIFY2(certificates.addAuthority(QStringLiteral("ca")), qPrintable(certificates.errorString()));
        QVERIFY2(certificates.addCertificate(QStringLiteral("exporter"), QStringLiteral("ca"), QStringLiteral("IP:127.0.0.1")),
                 qPrintable(certificates.errorString()));
        auto exporter = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/ez/", "--listen-cert",
                               certificates.path("exporter.pem"), "--listen-key", certificates.path("exporter.key")});
        QTRY_VERIFY2_WITH_TIMEOUT(exporter->has("following"), exporter->transcript().constData(), scaledMs(15000));
        const QString url = text(exporter->event("listening"), "url");
        QVERIFY2(url.startsWith(QLatin1String("https://127.0.0.1:")), qPrintable(url));
        const HttpAnswer metrics = get(url, certificates.path("ca.pem"));
        QCOMPARE(metrics.status, 200);
        QVERIFY(metrics.body.contains("# TYPE qetcd_exporter_connected gauge"));
        // Plain HTTP gets nothing from it.
        QCOMPARE(get(QString(url).replace(QLatin1String("https:"), QLatin1String("http:"))).status, 0);
    }

    // --layouts FILE: an operator's declared layout makes plain keys a lock, with its waiters.
    void declaredLayoutsAreFollowed()
    {
        QTemporaryDir dir;
        QFile layouts(dir.filePath(QStringLiteral("layouts.json")));
        QVERIFY(layouts.open(QIODevice::WriteOnly));
        layouts.write(R"({"layouts": [{"name": "billing locks", "prefix": "/ew/billing/", "kind": "lock"}]})");
        layouts.close();
        for (const char *key : {"/ew/billing/nightly/a", "/ew/billing/nightly/b"}) {
            auto put = qetcd({"put", key, "x"});
            QCOMPARE(put->waitForExit(), 0);
        }
        auto exporter = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/ew/", "--layouts", layouts.fileName()});
        QTRY_VERIFY2_WITH_TIMEOUT(exporter->has("following"), exporter->transcript().constData(), scaledMs(15000));
        const QByteArray metrics = get(base(*exporter) + "/metrics").body;
        QCOMPARE(sample(metrics, R"(qetcd_lock_waiters{name="/ew/billing/nightly"})"), QStringLiteral("1"));
    }

    void badCommandLinesAreNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("said");
        QTest::newRow("no listen") << QStringList{"exporter"} << "--listen ADDR:PORT is required";
        QTest::newRow("no port") << QStringList{"exporter", "--listen", "127.0.0.1"} << "--listen takes ADDR:PORT";
        QTest::newRow("bad port") << QStringList{"exporter", "--listen", "127.0.0.1:99999"} << "not \"127.0.0.1:99999\"";
        QTest::newRow("bad host") << QStringList{"exporter", "--listen", "example.org:9479"}
                                  << "\"example.org\" is not an IP address";
        QTest::newRow("overlap") << QStringList{"exporter", "--listen", ":0", "--prefix", "/a", "--prefix", "/a/b"}
                                 << "--prefix \"/a\" and \"/a/b\" overlap";
        QTest::newRow("cap") << QStringList{"exporter", "--listen", ":0", "--max-series", "0"}
                             << "--max-series takes a whole number from 1";
        QTest::newRow("cert alone") << QStringList{"exporter", "--listen", ":0", "--listen-cert", "/nonexistent"}
                                    << "--listen-cert and --listen-key go together";
        QTest::newRow("unreadable cert") << QStringList{"exporter", "--listen", ":0", "--listen-cert", "/nonexistent",
                                                        "--listen-key", "/nonexistent"}
                                         << "--listen-cert: cannot read \"/nonexistent\"";
        QTest::newRow("layouts") << QStringList{"exporter", "--listen", ":0", "--layouts", "/nonexistent/layouts.json"}
                                 << "/nonexistent/layouts.json";
    }

    void badCommandLinesAreNamed()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, said);
        auto run = qetcd(arguments);
        QCOMPARE(run->waitForExit(), BadArguments);
        QVERIFY2(QString::fromUtf8(run->standardError()).contains(said), run->standardError().constData());
        QVERIFY(run->standardOutput().isEmpty());
    }

    void aPortInUseIsSaid()
    {
        auto first = qetcd({"exporter", "--listen", "127.0.0.1:0", "--prefix", "/ez/"});
        QTRY_VERIFY2_WITH_TIMEOUT(first->has("listening"), first->transcript().constData(), scaledMs(15000));
        const QString address = base(*first).mid(int(qstrlen("http://")));
        auto second = qetcd({"exporter", "--listen", address});
        QCOMPARE(second->waitForExit(), 1);
        QVERIFY2(second->standardError().contains("cannot listen on " + address.toUtf8()),
                 second->standardError().constData());
    }
};

QTEST_GUILESS_MAIN(tst_CliExporter)
#include "tst_cli_exporter.moc"
