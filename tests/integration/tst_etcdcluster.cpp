// SPDX-License-Identifier: Apache-2.0
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QFileInfo>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QScopeGuard>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslConfiguration>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>

#include <cerrno>
#include <csignal>

using QEtcd::Testing::EtcdCluster;
using QEtcd::Testing::scaledMs;
using namespace std::chrono_literals;

namespace {

bool processExists(qint64 pid)
{
    return ::kill(pid_t(pid), 0) == 0 || errno != ESRCH;
}

// Runs etcdctl and says what went wrong, for QVERIFY2.
struct Ctl
{
    explicit Ctl(const EtcdCluster &cluster) : cluster(cluster) { }

    const EtcdCluster &cluster;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;

    bool operator()(const QStringList &args)
    {
        out = cluster.etcdctl(args, &exitCode, &err);
        return exitCode == 0;
    }
    const char *why() const
    {
        message = "etcdctl exit " + QByteArray::number(exitCode) + "\nstdout: " + out + "\nstderr: " + err;
        return message.constData();
    }

private:
    mutable QByteArray message; // keeps why()'s text alive for the QVERIFY2 that prints it
};

// Index of the member that "etcdctl endpoint status" reports as leader, -1 if none.
int leaderOf(const EtcdCluster &cluster)
{
    Ctl ctl(cluster);
    if (!ctl({QStringLiteral("endpoint"), QStringLiteral("status")}))
        return -1;
    // Simple output: endpoint, id, version, db size, is leader, is learner, term, index, ...
    const QList<QByteArray> lines = ctl.out.trimmed().split('\n');
    for (const QByteArray &line : lines) {
        const QList<QByteArray> fields = line.split(',');
        if (fields.size() > 4 && fields.at(4).trimmed() == "true")
            return int(cluster.clientUrls().indexOf(QString::fromUtf8(fields.at(0).trimmed())));
    }
    return -1;
}

// Points EtcdCluster at another etcd binary until the returned guard goes.
auto useEtcdBinary(const QByteArray &binary)
{
    const QByteArray previous = qgetenv("QETCD_ETCD_BINARY");
    qputenv("QETCD_ETCD_BINARY", binary);
    return qScopeGuard([previous] {
        if (previous.isNull())
            qunsetenv("QETCD_ETCD_BINARY");
        else
            qputenv("QETCD_ETCD_BINARY", previous);
    });
}

} // namespace

class tst_EtcdCluster : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void singleMemberPutGet();
    void threeMembersSurviveKillAndRejoin();
    void pauseStallsMember();
    void destructorLeavesNothingRunning();
    void memberExitDuringStartFailsFast();
    void missingBinaryIsExplained();
    void aPortTakenBeforeEtcdBindsItIsRetried();
    void tlsWithClientCertificates();
};

void tst_EtcdCluster::singleMemberPutGet()
{
    EtcdCluster cluster;
    QElapsedTimer startTime;
    startTime.start();
    QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
    qInfo() << "1 member healthy after" << startTime.elapsed() << "ms";

    QCOMPARE(cluster.memberCount(), 1);
    QCOMPARE(cluster.memberName(0), QStringLiteral("m0"));
    QCOMPARE(cluster.clientUrls(), QStringList{cluster.clientUrl(0)});
    QCOMPARE(cluster.clientUrl(0), QStringLiteral("http://127.0.0.1:%1").arg(cluster.clientPort(0)));
    QVERIFY(cluster.peerUrl(0).startsWith(QLatin1String("http://127.0.0.1:")));
    QVERIFY(QFileInfo(cluster.dataDir(0) + QStringLiteral("/member")).isDir());
    QVERIFY(cluster.isRunning(0));
    QVERIFY(cluster.pid(0) > 0);
    // etcd may answer /health a moment before it logs that it joined: wait for the line.
    QTRY_VERIFY_WITH_TIMEOUT(cluster.logTail(0, 400).contains(QLatin1String("published local member to cluster")),
                             scaledMs(10000));
    QCOMPARE(cluster.logTail(0, 3).split(QLatin1Char('\n')).size(), 3);

    Ctl ctl(cluster);
    QVERIFY2(ctl({QStringLiteral("put"), QStringLiteral("/qetcd/k"), QStringLiteral("v1")}), ctl.why());
    QCOMPARE(ctl.out.trimmed(), QByteArray("OK"));
    QVERIFY2(ctl({QStringLiteral("get"), QStringLiteral("/qetcd/k"), QStringLiteral("--print-value-only")}),
             ctl.why());
    QCOMPARE(ctl.out.trimmed(), QByteArray("v1"));

    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("already running")));
    QVERIFY(!cluster.start());
    QVERIFY(cluster.errorString().contains(QLatin1String("already running")));
}

void tst_EtcdCluster::threeMembersSurviveKillAndRejoin()
{
    EtcdCluster::Options options;
    options.members = 3;
    EtcdCluster cluster(options);
    QElapsedTimer startTime;
    startTime.start();
    QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
    qInfo() << "3 members healthy after" << startTime.elapsed() << "ms";
    QCOMPARE(cluster.memberCount(), 3);
    QCOMPARE(cluster.clientUrls().size(), 3);
    QCOMPARE(cluster.clientUrls().removeDuplicates(), 0);

    int victim = -1;
    QTRY_VERIFY_WITH_TIMEOUT((victim = leaderOf(cluster)) >= 0, scaledMs(10000));
    const qint64 victimPid = cluster.pid(victim);
    QVERIFY(cluster.killMember(victim));
    QVERIFY(!cluster.isRunning(victim));
    QCOMPARE(cluster.pid(victim), 0);
    QVERIFY(!processExists(victimPid));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("killMember.*not running")));
    QVERIFY(!cluster.killMember(victim)); // nothing left to kill

    // The survivors elect a new leader (~1.5 s); a write sent before that only times out.
    int newLeader = -1;
    QTRY_VERIFY_WITH_TIMEOUT((newLeader = leaderOf(cluster)) >= 0, scaledMs(10000));
    QVERIFY(newLeader != victim);
    const int survivor = (newLeader + 1) % 3 == victim ? (newLeader + 2) % 3 : (newLeader + 1) % 3;
    const QString survivorEndpoint = QStringLiteral("--endpoints=") + cluster.clientUrl(survivor);
    Ctl ctl(cluster);
    QVERIFY2(ctl({survivorEndpoint, QStringLiteral("put"), QStringLiteral("/qetcd/after-kill"),
                  QStringLiteral("yes")}),
             ctl.why());

    QElapsedTimer restartTime;
    restartTime.start();
    QVERIFY2(cluster.restartMember(victim), qPrintable(cluster.errorString()));
    qInfo() << "killed leader rejoined after" << restartTime.elapsed() << "ms";
    QVERIFY(cluster.isRunning(victim));
    const QString victimEndpoint = QStringLiteral("--endpoints=") + cluster.clientUrl(victim);
    QVERIFY2(ctl({victimEndpoint, QStringLiteral("endpoint"), QStringLiteral("health")}), ctl.why());
    // A serializable read answers from the member's own store: it has caught up with the write.
    QTRY_VERIFY2_WITH_TIMEOUT(ctl({victimEndpoint, QStringLiteral("get"), QStringLiteral("/qetcd/after-kill"),
                                   QStringLiteral("--consistency=s"), QStringLiteral("--print-value-only")})
                                      && ctl.out.trimmed() == "yes",
                              ctl.why(), scaledMs(10000));
    QVERIFY(cluster.logTail(victim, 400).contains(QLatin1String("==== qetcd:")));

    QVERIFY2(cluster.stopMember(survivor), qPrintable(cluster.errorString()));
    QVERIFY(!cluster.isRunning(survivor));
}

void tst_EtcdCluster::pauseStallsMember()
{
    EtcdCluster cluster;
    QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
    Ctl ctl(cluster);
    const QStringList get{QStringLiteral("--command-timeout=1s"), QStringLiteral("get"),
                          QStringLiteral("/qetcd/p")};
    QVERIFY2(ctl(get), ctl.why());

    QVERIFY(cluster.pauseMember(0));
    QVERIFY(cluster.isRunning(0));
    QVERIFY(!ctl(get));
    QVERIFY2(ctl.err.contains("deadline exceeded") || ctl.err.contains("context deadline"), ctl.why());

    QVERIFY(cluster.resumeMember(0));
    QVERIFY2(ctl(get), ctl.why());
    QVERIFY2(cluster.waitForHealthy(0, 5s), qPrintable(cluster.errorString()));
}

void tst_EtcdCluster::destructorLeavesNothingRunning()
{
    EtcdCluster::Options options;
    options.members = 3;
    auto cluster = std::make_unique<EtcdCluster>(options);
    QVERIFY2(cluster->start(), qPrintable(cluster->errorString()));
    QList<qint64> pids;
    for (int i = 0; i < cluster->memberCount(); ++i)
        pids << cluster->pid(i);
    QVERIFY(!pids.contains(0));
    // A stopped member only reacts to SIGTERM once continued; the destructor must cope.
    QVERIFY(cluster->pauseMember(1));
    const QString dataDir = cluster->dataDir(0);
    QVERIFY(QFileInfo::exists(dataDir));

    QElapsedTimer stopTime;
    stopTime.start();
    cluster.reset();
    qInfo() << "3-member cluster (one paused) destroyed in" << stopTime.elapsed() << "ms";
    for (qint64 pid : std::as_const(pids))
        QVERIFY2(!processExists(pid), qPrintable(QString::number(pid)));
    QVERIFY(!QFileInfo::exists(dataDir));
}

void tst_EtcdCluster::memberExitDuringStartFailsFast()
{
    EtcdCluster::Options options;
    options.extraArgs = QStringList{QStringLiteral("--no-such-flag-for-qetcd")};
    EtcdCluster cluster(options);
    QElapsedTimer startTime;
    startTime.start();
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("exited")));
    QVERIFY(!cluster.start());
    QVERIFY2(startTime.elapsed() < scaledMs(10000), qPrintable(QString::number(startTime.elapsed())));
    QVERIFY2(cluster.errorString().contains(QLatin1String("no-such-flag-for-qetcd")),
             qPrintable(cluster.errorString()));
    QVERIFY(!cluster.isRunning(0));
}

void tst_EtcdCluster::missingBinaryIsExplained()
{
    const auto restore = useEtcdBinary("/nonexistent/qetcd/etcd");
    EtcdCluster cluster;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("etcd not found")));
    QVERIFY(!cluster.start());
    QVERIFY2(cluster.errorString().contains(QLatin1String("etcd-server")), qPrintable(cluster.errorString()));
}

// Free ports are found by binding and releasing them, so another program can bind one before
// etcd does (the sandbox and every test start members this way). Such a start is retried with
// new ports: here the first launch of etcd fails as a taken port makes it fail.
void tst_EtcdCluster::aPortTakenBeforeEtcdBindsItIsRetried()
{
    const QString realEtcd = qEnvironmentVariableIsEmpty("QETCD_ETCD_BINARY")
            ? QStandardPaths::findExecutable(QStringLiteral("etcd"))
            : qEnvironmentVariable("QETCD_ETCD_BINARY");
    QVERIFY2(!realEtcd.isEmpty(), "etcd not found (Debian package etcd-server)");
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const QString firstLaunch = scratch.filePath(QStringLiteral("first-launch-done"));
    const QString wrapper = scratch.filePath(QStringLiteral("etcd-port-taken-once"));
    QFile script(wrapper);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(QStringLiteral("#!/bin/sh\n"
                                "if [ ! -e '%1' ]; then\n"
                                "  : > '%1'\n"
                                "  echo 'listen tcp 127.0.0.1:2379: bind: address already in use' >&2\n"
                                "  exit 1\n"
                                "fi\n"
                                "exec '%2' \"$@\"\n")
                         .arg(firstLaunch, realEtcd)
                         .toUtf8());
    script.close();
    QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));

    const auto restore = useEtcdBinary(QFile::encodeName(wrapper));
    EtcdCluster cluster;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("member m0 exited")));
    QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
    QVERIFY2(QFileInfo::exists(firstLaunch), "the first launch never happened");
    Ctl ctl(cluster);
    QVERIFY2(ctl({QStringLiteral("put"), QStringLiteral("/retried"), QStringLiteral("yes")}), ctl.why());
}

void tst_EtcdCluster::tlsWithClientCertificates()
{
    QTemporaryDir pki;
    QVERIFY(pki.isValid());
    const auto openssl = [&](const QStringList &args) {
        QProcess process;
        process.setWorkingDirectory(pki.path());
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(QStringLiteral("openssl"), args);
        const bool ok = process.waitForFinished(scaledMs(30000))
                && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
        if (!ok)
            qWarning() << "openssl" << args << "failed:" << process.errorString() << process.readAll();
        return ok;
    };
    const auto file = [&](const QString &name, const QByteArray &content) {
        QFile f(pki.filePath(name));
        return f.open(QIODevice::WriteOnly) && f.write(content) == content.size();
    };
    QVERIFY(openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                     "/CN=qetcd-test-ca", "-keyout", "ca.key", "-out", "ca.crt"}));
    QVERIFY(file(QStringLiteral("server.ext"),
                 "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n"));
    QVERIFY(file(QStringLiteral("client.ext"), "extendedKeyUsage=clientAuth\n"));
    for (const QString &name : {QStringLiteral("server"), QStringLiteral("client")}) {
        QVERIFY(openssl({"req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=qetcd-test-" + name, "-keyout",
                         name + ".key", "-out", name + ".csr"}));
        QVERIFY(openssl({"x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                         "-CAcreateserial", "-days", "1", "-extfile", name + ".ext", "-out", name + ".crt"}));
    }

    EtcdCluster::Options options;
    options.caFile = pki.filePath(QStringLiteral("ca.crt"));
    options.certFile = pki.filePath(QStringLiteral("server.crt"));
    options.keyFile = pki.filePath(QStringLiteral("server.key"));
    options.clientCertAuth = true;
    options.clientCertFile = pki.filePath(QStringLiteral("client.crt"));
    options.clientKeyFile = pki.filePath(QStringLiteral("client.key"));
    EtcdCluster cluster(options);
    QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
    QVERIFY(cluster.clientUrl(0).startsWith(QLatin1String("https://127.0.0.1:")));

    Ctl ctl(cluster);
    QVERIFY2(ctl({QStringLiteral("put"), QStringLiteral("/qetcd/tls"), QStringLiteral("ok")}), ctl.why());
    QVERIFY2(ctl({QStringLiteral("get"), QStringLiteral("/qetcd/tls"), QStringLiteral("--print-value-only")}),
             ctl.why());
    QCOMPARE(ctl.out.trimmed(), QByteArray("ok"));

    // Without a client certificate the member must refuse: client-cert-auth is really on.
    QNetworkAccessManager network;
    QNetworkRequest request(QUrl(cluster.clientUrl(0) + QStringLiteral("/health")));
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setCaCertificates(QSslCertificate::fromPath(options.caFile));
    request.setSslConfiguration(ssl);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    std::unique_ptr<QNetworkReply> reply(network.get(request));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    QVERIFY(finished.wait(scaledMs(10000)));
    QVERIFY2(reply->error() != QNetworkReply::NoError, reply->readAll().constData());
}

QTEST_GUILESS_MAIN(tst_EtcdCluster)
#include "tst_etcdcluster.moc"
