// SPDX-License-Identifier: Apache-2.0
#include "commands.h"
#include "eventsession.h"
#include "pemfiles.h"

#include <QEtcd/coordinationmetrics.h>
#include <QEtcd/coordinationmonitor.h>

#include <QtCore/QDateTime>
#include <QtCore/QFile>
#include <QtCore/QFutureWatcher>
#include <QtHttpServer/QHttpServer>
#include <QtHttpServer/QHttpServerResponse>
#include <QtNetwork/QHostAddress>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>

#include <memory>
#include <vector>

namespace QEtcd::Cli {

namespace {
using namespace std::chrono_literals;

// How long after a failed start or a watch given up a prefix is followed again, and how often
// the exporter asks whether etcd answers.
constexpr auto RetryAfter = 2s;
constexpr auto PingEvery = 2s;

// One --prefix: a monitor, made again after it failed, for as long as the exporter runs.
class FollowedPrefix : public QObject
{
public:
    FollowedPrefix(Client *client, QByteArray prefix, CoordinationMetrics *metrics, EventSession *session)
        : m_client(client), m_prefix(std::move(prefix)), m_metrics(metrics), m_session(session)
    {
        m_retry.setSingleShot(true);
        m_retry.setInterval(RetryAfter);
        connect(&m_retry, &QTimer::timeout, this, &FollowedPrefix::start);
    }

    bool isListed() const { return m_listed; }
    QByteArray prefix() const { return m_prefix; }

    void start()
    {
        m_listed = false;
        m_monitor = std::make_unique<CoordinationMonitor>(m_client, m_prefix);
        m_metrics->follow(m_monitor.get());
        connect(m_monitor.get(), &CoordinationMonitor::failed, this, &FollowedPrefix::restart);
        connect(&m_started, &QFutureWatcherBase::finished, this, [this] {
            if (m_started.isCanceled())
                return restart(Status(StatusCode::Cancelled, QStringLiteral("the first read was cancelled")));
            if (const Status status = m_started.result(); !status)
                return restart(status);
            m_listed = true;
            m_session->write(QStringLiteral("following"), {{QLatin1String("prefix"), QString::fromUtf8(m_prefix)},
                                                          {QLatin1String("objects"), m_monitor->objects().size()}});
        });
        m_started.setFuture(m_monitor->start());
    }

private:
    void restart(const Status &status)
    {
        QJsonObject fields{{QLatin1String("prefix"), QString::fromUtf8(m_prefix)}};
        insertCause(&fields, status);
        m_session->write(QStringLiteral("notFollowing"), fields);
        m_listed = false;
        // Not from inside the monitor's own signal. Its start, finished or not, says nothing more.
        QTimer::singleShot(0, this, [this] {
            m_started.disconnect(this);
            m_monitor.reset();
            m_retry.start();
        });
    }

    Client *m_client;
    QByteArray m_prefix;
    CoordinationMetrics *m_metrics;
    EventSession *m_session;
    std::unique_ptr<CoordinationMonitor> m_monitor;
    QFutureWatcher<Status> m_started;
    QTimer m_retry;
    bool m_listed = false;
};

// ADDR:PORT, [ADDR]:PORT for IPv6; port 0 picks a free one.
bool parseListen(const QString &text, QHostAddress *address, quint16 *port, QString *error)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    QString host = colon < 0 ? QString() : text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint number = colon < 0 ? 0 : text.mid(colon + 1).toUInt(&ok);
    if (colon < 0 || !ok || number > 65535) {
        *error = QStringLiteral("--listen takes ADDR:PORT (such as 127.0.0.1:9479 or [::1]:9479), not \"%1\"").arg(text);
        return false;
    }
    if (host.isEmpty() || host == QLatin1String("*"))
        *address = QHostAddress::Any;
    else if (host == QLatin1String("localhost"))
        *address = QHostAddress::LocalHost;
    else if (!address->setAddress(host)) {
        *error = QStringLiteral("--listen: \"%1\" is not an IP address").arg(host);
        return false;
    }
    *port = quint16(number);
    return true;
}

// The prefixes to follow; none given: every key. Overlapping prefixes would count an object twice.
bool parsePrefixes(const QStringList &given, QList<QByteArray> *prefixes, QString *error)
{
    for (const QString &text : given)
        prefixes->append(text.toUtf8());
    if (prefixes->isEmpty())
        prefixes->append(QByteArray());
    for (const QByteArray &one : std::as_const(*prefixes)) {
        for (const QByteArray &other : std::as_const(*prefixes)) {
            if (&one != &other && other.startsWith(one)) {
                *error = QStringLiteral("--prefix \"%1\" and \"%2\" overlap: an object would be counted twice")
                             .arg(QString::fromUtf8(one), QString::fromUtf8(other));
                return false;
            }
        }
    }
    return true;
}

bool setUpListenerTls(Invocation &invocation, QHttpServer *server, QString *error)
{
    const bool certificate = invocation.isSet(QStringLiteral("listen-cert"));
    if (certificate != invocation.isSet(QStringLiteral("listen-key"))) {
        *error = QStringLiteral("--listen-cert and --listen-key go together");
        return false;
    }
    if (!certificate)
        return true;
    QList<QSslCertificate> chain;
    QSslKey key;
    if (!readCertificateAndKey({invocation.value(QStringLiteral("listen-cert")), QStringLiteral("--listen-cert")},
                               {invocation.value(QStringLiteral("listen-key")), QStringLiteral("--listen-key")}, &chain,
                               &key, error))
        return false;
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificateChain(chain);
    configuration.setPrivateKey(key);
    server->sslSetup(configuration);
    return true;
}

int runExporter(Invocation &invocation)
{
    QHostAddress address;
    quint16 port = 0;
    QList<QByteArray> prefixes;
    QString error;
    if (!invocation.isSet(QStringLiteral("listen")))
        return invocation.usageError(QStringLiteral("--listen ADDR:PORT is required"));
    if (!parseListen(invocation.value(QStringLiteral("listen")), &address, &port, &error)
        || !parsePrefixes(invocation.values(QStringLiteral("prefix")), &prefixes, &error))
        return invocation.usageError(error);
    bool ok = true;
    const int maxSeries = invocation.isSet(QStringLiteral("max-series"))
        ? invocation.value(QStringLiteral("max-series")).toInt(&ok) : 50000;
    if (!ok || maxSeries < 1) {
        return invocation.usageError(QStringLiteral("--max-series takes a whole number from 1, not \"%1\"")
                                         .arg(invocation.value(QStringLiteral("max-series"))));
    }
    if (int refused = 0; !declareLayouts(invocation, &refused))
        return refused;
    QHttpServer server;
    if (!setUpListenerTls(invocation, &server, &error))
        return invocation.usageError(error);

    CoordinationMetrics metrics;
    metrics.setHolderLabels(!invocation.isSet(QStringLiteral("no-holder-labels")));
    metrics.setMaxSeries(maxSeries);
    EventSession session(invocation, std::nullopt);
    std::vector<std::unique_ptr<FollowedPrefix>> followed;
    for (const QByteArray &prefix : std::as_const(prefixes))
        followed.push_back(std::make_unique<FollowedPrefix>(&invocation.client(), prefix, &metrics, &session));

    server.route(QStringLiteral("/metrics"), [&metrics] {
        return QHttpServerResponse(QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8"),
                                   metrics.render(QDateTime::currentMSecsSinceEpoch()));
    });
    server.route(QStringLiteral("/healthz"), [&] {
        QByteArray unwell;
        if (!metrics.isConnected())
            unwell += "etcd does not answer\n";
        for (const auto &prefix : followed) {
            if (!prefix->isListed())
                unwell += "not following \"" + prefix->prefix() + "\" yet\n";
        }
        return unwell.isEmpty() ? QHttpServerResponse(QByteArrayLiteral("text/plain"), QByteArrayLiteral("ok\n"))
                                : QHttpServerResponse(QByteArrayLiteral("text/plain"), unwell,
                                                      QHttpServerResponse::StatusCode::ServiceUnavailable);
    });
    const quint16 listening = server.listen(address, port);
    if (listening == 0) {
        // A port in use or an address not on this machine: exit 1, not 2, which says etcd did not
        // answer.
        return invocation.failed(Status(StatusCode::FailedPrecondition,
                                        QStringLiteral("exporter: cannot listen on %1 (in use, or not an address of "
                                                       "this machine)").arg(invocation.value(QStringLiteral("listen")))));
    }

    QTimer ping;
    ping.setInterval(PingEvery);
    const auto askEtcd = [&] {
        auto *answer = new QFutureWatcher<Result>(&ping);
        QObject::connect(answer, &QFutureWatcherBase::finished, &ping, [&metrics, &session, answer] {
            const bool answered = answer->result().status.isOk();
            if (answered != metrics.isConnected())
                session.write(answered ? QStringLiteral("connected") : QStringLiteral("disconnected"));
            metrics.setConnected(answered, QDateTime::currentMSecsSinceEpoch());
            answer->deleteLater();
        });
        answer->setFuture(invocation.client().ping());
    };
    QObject::connect(&ping, &QTimer::timeout, &ping, askEtcd);

    const QString scheme = invocation.isSet(QStringLiteral("listen-cert")) ? QStringLiteral("https") : QStringLiteral("http");
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol ? QLatin1Char('[') + address.toString() + QLatin1Char(']')
                                                                              : address.toString();
    // The exporter answers scrapes whether or not etcd does: /healthz says which.
    session.run(QtFuture::makeReadyFuture(Status()), QStringLiteral("exporter"), [&] {
        session.write(QStringLiteral("listening"), {{QLatin1String("url"), QStringLiteral("%1://%2:%3/metrics")
                                                                                .arg(scheme, host).arg(listening)}});
        askEtcd();
        ping.start();
        for (const auto &prefix : followed)
            prefix->start();
    });
    ping.stop();
    followed.clear();
    return session.finish();
}
} // namespace

Command exporterCommand()
{
    Command command;
    command.name = QStringLiteral("exporter");
    command.summary = QStringLiteral("Serve the coordination objects' metrics to Prometheus");
    command.details = QStringLiteral(
        "Follows the coordination objects under each --prefix (default: every key), as\n"
        "`qetcd inspect` recognises them, and serves them over HTTP until SIGINT or\n"
        "SIGTERM:\n"
        "  /metrics   Prometheus text format: qetcd_lock_held_seconds{name,holder},\n"
        "             qetcd_lock_waiters, qetcd_lock_handoffs_total,\n"
        "             qetcd_election_has_leader, qetcd_election_candidates,\n"
        "             qetcd_election_leader_changes_total,\n"
        "             qetcd_semaphore_permits_in_use, qetcd_semaphore_capacity,\n"
        "             qetcd_semaphore_waiters, qetcd_barrier_set,\n"
        "             qetcd_counted_barrier_arrived, qetcd_queue_depth,\n"
        "             qetcd_queue_oldest_item_age_seconds,\n"
        "             qetcd_service_instances{service}, qetcd_counter_value,\n"
        "             qetcd_objects{kind}, qetcd_lease_expirations_total, and the\n"
        "             exporter's own: qetcd_exporter_connected,\n"
        "             qetcd_exporter_last_refresh_timestamp_seconds,\n"
        "             qetcd_exporter_watch_resyncs_total, qetcd_exporter_series_dropped\n"
        "  /healthz   200 \"ok\" while etcd answers and every prefix is followed, else 503\n"
        "             saying what is wrong\n"
        "Counters count what the exporter saw change while it ran; a hold already there\n"
        "when it started counts from when its holder queued (qetcd's identity), else from\n"
        "the start. The client is read-only whatever the flags say; TLS and auth to etcd\n"
        "take the global flags (--cacert, --cert, --key, --user...).\n"
        "--no-holder-labels drops the holder label (one series per lock); past\n"
        "--max-series series about objects the rest are left out and counted in\n"
        "qetcd_exporter_series_dropped. --listen-cert and --listen-key serve HTTPS.\n"
        "\n"
        "Output: JSON lines: \"listening\" (\"url\"), \"following\" (\"prefix\", \"objects\")\n"
        "once a prefix is read, \"notFollowing\" (\"prefix\", \"cause\") when its watch is\n"
        "lost (it is followed again 2 s later), \"connected\"/\"disconnected\" as etcd\n"
        "answers or not, and \"closed\".\n"
        "\n"
        "The qetcd package installs alert rules (qetcd-rules.yml) and a Grafana dashboard\n"
        "(qetcd.json) in /usr/share/qetcd/exporter/, and a systemd unit,\n"
        "qetcd-exporter.service, that it does not enable.");
    command.options = {
        QCommandLineOption(QStringLiteral("listen"),
                           QStringLiteral("Serve on ADDR:PORT, e.g. 127.0.0.1:9479 (port 0: a free one)"),
                           QStringLiteral("ADDR:PORT")),
        QCommandLineOption(QStringLiteral("prefix"),
                           QStringLiteral("Follow the objects under P; repeatable [default: every key]"),
                           QStringLiteral("P")),
        layoutsOption(),
        QCommandLineOption(QStringLiteral("no-holder-labels"),
                           QStringLiteral("Leave the holder label out of qetcd_lock_held_seconds")),
        QCommandLineOption(QStringLiteral("max-series"),
                           QStringLiteral("Write at most N series about objects [default 50000]"), QStringLiteral("N")),
        QCommandLineOption(QStringLiteral("listen-cert"),
                           QStringLiteral("Serve HTTPS with this PEM certificate (chain)"), QStringLiteral("FILE")),
        QCommandLineOption(QStringLiteral("listen-key"),
                           QStringLiteral("The PEM private key of --listen-cert"), QStringLiteral("FILE")),
    };
    command.readsOnly = true;
    command.run = runExporter;
    return command;
}

} // namespace QEtcd::Cli
