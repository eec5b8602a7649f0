// SPDX-License-Identifier: Apache-2.0
// The qetcd CLI meeting bad input as a new user would give it, against real etcds with mutual TLS
// and with authentication: each failure exits with its code and one line that names the endpoint
// or key and says what to do. Also what the CLI must never do with credentials and etcd's data:
// print a password, hand it to a child, or let a value drive the terminal.
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testcertificates.h>
#include <QEtcd/testtimeouts.h>

#include "../common/mutualtls.h"
#include "../common/authsetup.h"
#include "../common/qetcdprocess.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <pty.h>
#include <unistd.h>

using namespace QEtcd::Testing;

namespace {
struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    qint64 elapsedMs = 0;
};

// qetcd's exit codes (docs/cli.md).
constexpr int Failure = 1, BadConnection = 2, BadArguments = 128;
} // namespace

class tst_CliBadInput : public QObject
{
    Q_OBJECT

private:
    TestCertificates m_certificates;
    std::unique_ptr<EtcdCluster> m_tls;   // demands client certificates
    std::unique_ptr<EtcdCluster> m_auth;  // root, and "app" confined to /app/
    QTemporaryDir m_scratch;

    QString path(const QString &name) const { return m_certificates.path(name); }
    QString tlsEndpoint() const { return m_tls->clientUrl(0); }
    QString authEndpoint() const { return m_auth->clientUrl(0); }

    // Runs qetcd with no ETCDCTL_*, ETCD_* or QETCD_* variables but those given; stdout on a terminal with onTerminal.
    Run qetcd(const QStringList &arguments, const QList<std::pair<QString, QString>> &variables = {},
              bool onTerminal = false)
    {
        QProcess process;
        process.setProcessEnvironment(toolEnvironment(variables));
        int terminal = -1, terminalSide = -1;
        if (onTerminal) {
            if (openpty(&terminal, &terminalSide, nullptr, nullptr, nullptr) != 0)
                qFatal("openpty failed");
            process.setChildProcessModifier([terminalSide] { ::dup2(terminalSide, STDOUT_FILENO); });
        }
        QElapsedTimer timer;
        timer.start();
        process.start(QStringLiteral(QETCD_CLI_PATH), arguments);
        Run run;
        const bool finished = process.waitForFinished(scaledMs(60000));
        run.elapsedMs = timer.elapsed();
        if (!finished) {
            process.kill();
            process.waitForFinished();
            qWarning() << "qetcd" << arguments << "did not finish";
        } else {
            run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        }
        run.out = process.readAllStandardOutput();
        run.err = process.readAllStandardError();
        if (onTerminal) {
            ::close(terminalSide);
            char buffer[4096];
            ssize_t got;
            while ((got = ::read(terminal, buffer, sizeof buffer)) > 0)
                run.out.append(buffer, got);
            ::close(terminal);
        }
        return run;
    }

    static QString oneLine(const Run &run)
    {
        const QString error = QString::fromUtf8(run.err);
        return error.startsWith(QLatin1String("qetcd")) && error.endsWith(QLatin1Char('\n'))
                && error.count(QLatin1Char('\n')) == 1
            ? error
            : QString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_certificates.addAuthority("ca") && m_certificates.addAuthority("other-ca")
                     && m_certificates.addCertificate("server", "ca", "IP:127.0.0.1,DNS:localhost")
                     && m_certificates.addCertificate("client", "ca", "DNS:client"),
                 qPrintable(m_certificates.errorString()));
        m_tls = std::make_unique<EtcdCluster>(mutualTlsOptions(m_certificates));
        QVERIFY2(m_tls->start(), qPrintable(m_tls->errorString()));

        m_auth = std::make_unique<EtcdCluster>();
        QVERIFY2(m_auth->start(), qPrintable(m_auth->errorString()));
        const QString authFailed = enableAuth(*m_auth);
        QVERIFY2(authFailed.isEmpty(), qPrintable(authFailed));
        QFile empty(m_scratch.filePath(QStringLiteral("empty.pem")));
        QVERIFY(empty.open(QIODevice::WriteOnly));
    }

    // Each TLS mistake: its exit code, and one line naming the endpoint or file and what to do.
    void tlsMistakes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QStringList>("mentions");
        const QString endpoint = tlsEndpoint();
        const QString plain = QString(endpoint).replace(QLatin1String("https://"), QLatin1String("http://"));
        const QStringList client{"--cert", path("client.pem"), "--key", path("client.key")};
        QTest::newRow("wrong CA") << (QStringList{"--endpoints", endpoint, "--cacert", path("other-ca.pem")} + client)
                                  << BadConnection << QStringList{endpoint, "--cacert", "not signed"};
        QTest::newRow("missing CA file")
            << (QStringList{"--endpoints", endpoint, "--cacert", "/nonexistent/ca.pem"} + client) << BadArguments
            << QStringList{"/nonexistent/ca.pem", "does not exist"};
        const QString empty = m_scratch.filePath(QStringLiteral("empty.pem"));
        QTest::newRow("empty CA file") << (QStringList{"--endpoints", endpoint, "--cacert", empty} + client)
                                       << BadArguments << QStringList{empty, "is empty"};
        QTest::newRow("empty key file")
            << QStringList{"--endpoints", endpoint, "--cacert", path("ca.pem"), "--cert", path("client.pem"), "--key", empty}
            << BadArguments << QStringList{empty, "is empty"};
        QTest::newRow("plaintext to a TLS port") << QStringList{"--endpoints", plain} << BadConnection
                                                 << QStringList{plain, "hung up on plaintext", "https://", "--cacert"};
        QTest::newRow("no client certificate") << QStringList{"--endpoints", endpoint, "--cacert", path("ca.pem")}
                                               << BadConnection
                                               << QStringList{endpoint, "client certificate", "--cert", "--key"};
    }

    void tlsMistakes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QStringList, mentions);
        const Run run = qetcd(QStringList{"get", "/k", "--dial-timeout", "2s", "--command-timeout", "5s"} + arguments);
        QVERIFY2(run.exitCode == exitCode, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        const QString line = oneLine(run);
        QVERIFY2(!line.isEmpty(), run.err.constData());
        for (const QString &mention : mentions)
            QVERIFY2(line.contains(mention), qPrintable(QStringLiteral("no \"%1\" in: %2").arg(mention, line)));
        // The right files work.
        const Run right = qetcd({"get", "/k", "--endpoints", tlsEndpoint(), "--cacert", path("ca.pem"), "--cert",
                                 path("client.pem"), "--key", path("client.key")});
        QVERIFY2(right.exitCode == 0, right.err.constData());
    }

    // --insecure-skip-tls-verify connects whoever signed the server's certificate, as etcdctl's
    // does, and says so on stderr at every run, by the flag as by the variable.
    void skippingVerificationWarnsEachRun()
    {
        const QStringList client{"--cert", path("client.pem"), "--key", path("client.key")};
        const QString bare = QString(tlsEndpoint()).remove(QLatin1String("https://"));
        const auto checkWarned = [](const Run &run) {
            QVERIFY2(run.exitCode == 0, run.err.constData());
            QCOMPARE(run.err.count('\n'), 1);
            QVERIFY2(run.err.startsWith("qetcd: warning: ") && run.err.contains("not verified")
                         && run.err.contains("--insecure-skip-tls-verify"),
                     run.err.constData());
        };
        Run run = qetcd(QStringList{"put", "/skip/k", "v", "--endpoints", tlsEndpoint(), "--insecure-skip-tls-verify"}
                        + client);
        checkWarned(run);
        // A CA that did not sign the server's certificate is not consulted either; a bare
        // host:port is https.
        run = qetcd(QStringList{"get", "/skip/k", "--print-value-only", "--endpoints", bare, "--cacert",
                                path("other-ca.pem")}
                        + client,
                    {{"ETCDCTL_INSECURE_SKIP_TLS_VERIFY", "true"}});
        checkWarned(run);
        QCOMPARE(run.out, QByteArray("v\n"));
    }

    // check datascale reads etcd's metrics page over mutual TLS with the client's own files, and
    // with --insecure-skip-tls-verify as the gRPC connection does: unverified, warned about.
    void loadCheckReadsTheMetricsPageWithTheClientsTlsFiles()
    {
        const QStringList client{"--endpoints", tlsEndpoint(), "--cert", path("client.pem"), "--key", path("client.key")};
        const QStringList check{"check", "datascale", "--prefix", "/datascale-tls/", "--yes", "--json"};
        const Run measured = qetcd(QStringList{"--cacert", path("ca.pem")} + client + check);
        QVERIFY2(measured.exitCode == 0, measured.err.constData());
        const QJsonObject result = QJsonDocument::fromJson(measured.out).object();
        QVERIFY2(result.value("resident_bytes_before").toDouble() > 0, measured.out.constData());
        QCOMPARE(result.value("puts").toInt(), 10000);

        const Run unverified = qetcd(QStringList{"--cacert", path("other-ca.pem"), "--insecure-skip-tls-verify"} + client + check);
        QVERIFY2(unverified.exitCode == 0 && unverified.err.contains("not verified"), unverified.err.constData());
        QVERIFY2(QJsonDocument::fromJson(unverified.out).object().value("resident_bytes_after").toDouble() > 0,
                 unverified.out.constData());
    }

    // Authentication mistakes: the key or endpoint named, and what to do.
    void authMistakes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QStringList>("mentions");
        QTest::newRow("permission denied") << QStringList{"--user", "app:apppw", "put", "/other/k", "v"} << Failure
                                           << QStringList{"/other/k", "permission denied", "app", "role"};
        QTest::newRow("auth enabled, no user") << QStringList{"get", "/app/k"} << 3
                                               << QStringList{authEndpoint(), "requires authentication", "--user"};
        QTest::newRow("wrong password") << QStringList{"--user", "app:wrong", "get", "/app/k"} << 3
                                        << QStringList{"app", "password"};
    }

    void authMistakes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QStringList, mentions);
        const Run run = qetcd(QStringList{"--endpoints", authEndpoint()} + arguments);
        QVERIFY2(run.exitCode == exitCode, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        const QString line = oneLine(run);
        QVERIFY2(!line.isEmpty(), run.err.constData());
        for (const QString &mention : mentions)
            QVERIFY2(line.contains(mention), qPrintable(QStringLiteral("no \"%1\" in: %2").arg(mention, line)));
        QVERIFY2(!line.contains(QLatin1String("apppw")), qPrintable(line));
    }

    // A refusal is permanent: elect does not retry it as an outage until --command-timeout
    // (it exited 2, "no answer"), it exits 1 at once saying what was refused.
    void electRefusalIsNotAnOutage_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("read-only") << QStringList{"--user", "app:apppw", "--read-only", "elect", "/app/e", "p"} << "read-only";
        QTest::newRow("permission denied") << QStringList{"--user", "app:apppw", "elect", "/other/e", "p"}
                                           << "permission denied";
    }

    void electRefusalIsNotAnOutage()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, mentions);
        const Run run = qetcd(QStringList{"--endpoints", authEndpoint(), "--command-timeout", "20s"} + arguments);
        QVERIFY2(run.exitCode == Failure, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        QVERIFY2(run.err.contains(mentions.toUtf8()) && !run.err.contains("no answer"), run.err.constData());
        QVERIFY2(run.elapsedMs < 15000, qPrintable(QStringLiteral("%1 ms").arg(run.elapsedMs)));
    }

    // The command run under a lock does not get qetcd's credentials.
    void lockedCommandDoesNotInheritCredentials()
    {
        const Run run = qetcd({"--endpoints", authEndpoint(), "lock", "/app/l", "--", "sh", "-c",
                               "echo \"password=${ETCDCTL_PASSWORD-unset} user=${ETCDCTL_USER-unset} "
                               "token=${QETCD_FENCING_TOKEN-unset}\""},
                              {{"ETCDCTL_USER", "app"}, {"ETCDCTL_PASSWORD", "apppw"}});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("password=unset user=unset token="), run.out.constData());
        QVERIFY2(!run.out.contains("token=unset") && !run.out.contains("apppw"), run.out.constData());
    }

    // With ETCDCTL_PASSWORD set, "--user alice:pw" was taken as the user "alice:pw", and the
    // refusal printed it.
    void whatFollowsTheColonOfAUserIsNeverPrinted()
    {
        const Run run = qetcd({"--endpoints", authEndpoint(), "--user", "app:s3cret", "get", "/app/k"},
                              {{"ETCDCTL_PASSWORD", "apppw"}});
        QCOMPARE(run.exitCode, BadArguments);
        QVERIFY2(!oneLine(run).isEmpty() && run.err.contains("app"), run.err.constData());
        QVERIFY2(!run.err.contains("s3cret") && !run.err.contains("apppw"), run.err.constData());
    }

    // etcd's data never drives the terminal: on a terminal control characters are escaped, in
    // a pipe the bytes are kept (binary values survive `get > file`), in messages always escaped.
    void controlCharactersFromEtcdAreEscapedOnATerminal()
    {
        const QByteArray value("\x1b]0;owned\x07\x1b[2Jred\xe2\x80\xaegnp.exe");
        int exitCode = -1;
        m_tls->etcdctl({"put", "/esc/k", QString::fromUtf8(value)}, &exitCode);
        QCOMPARE(exitCode, 0);
        const QStringList tls{"--endpoints", tlsEndpoint(), "--cacert", path("ca.pem"), "--cert", path("client.pem"),
                              "--key", path("client.key")};
        const Run piped = qetcd(tls + QStringList{"get", "/esc/k", "--print-value-only"});
        QVERIFY2(piped.exitCode == 0, piped.err.constData());
        QCOMPARE(piped.out, value + '\n');
        const Run shown = qetcd(tls + QStringList{"get", "/esc/k", "--print-value-only"}, {}, true);
        QVERIFY2(shown.exitCode == 0, shown.err.constData());
        QVERIFY2(!shown.out.contains('\x1b') && !shown.out.contains('\x07') && !shown.out.contains("\xe2\x80\xae"),
                 shown.out.toHex(' ').constData());
        QVERIFY2(shown.out.contains("\\x1b]0;owned\\x07\\x1b[2Jred\\u202egnp.exe"), shown.out.constData());
        // A refusal quoting such a key.
        const Run refused = qetcd(tls + QStringList{"--read-only", "put", QString::fromUtf8("/esc/\x1b[31mk"), "v"});
        QCOMPARE(refused.exitCode, Failure);
        QVERIFY2(!refused.err.contains('\x1b') && refused.err.contains("/esc/\\x1b[31mk"), refused.err.constData());
    }
};

QTEST_GUILESS_MAIN(tst_CliBadInput)
#include "tst_cli_badinput.moc"
