// SPDX-License-Identifier: Apache-2.0
// qetcd-console's command line as a user types it, through the real program: what it refuses
// (exit 128 and one line, as the CLI), what --read-only does whatever else the command line
// says, and how a run that should end by itself ends when it cannot do what it was asked.

#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDir>
#include <QtCore/QDirIterator>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QSettings>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <csignal>

using namespace QEtcd::Testing;

namespace {
constexpr int BadArguments = 128;  // the CLI's code for a wrong command line

struct Run
{
    int exitCode = -1;
    QByteArray out, err;
    qint64 elapsedMs = 0;
};
} // namespace

class tst_ConsoleCommandLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_scratch.isValid()); }

    void usageErrorsExit128WithOneLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("scenario without sandbox") << QStringList{"--scenario", "lock-partition"} << "add --sandbox";
        QTest::newRow("seed without sandbox") << QStringList{"--sandbox-seed", "scripts/demo-participants"}
                                              << "--sandbox-seed runs a program on the sandbox: add --sandbox";
        QTest::newRow("unknown look") << QStringList{"--look", "sepia"} << "--look is light or dark, not \"sepia\"";
        QTest::newRow("seed read-only") << QStringList{"--sandbox", "--sandbox-seed", "seed", "--read-only"}
                                        << "which --read-only forbids";
        QTest::newRow("unknown page") << QStringList{"--page", "nosuch"} << "--page: no page named \"nosuch\"";
        QTest::newRow("unknown scenario") << QStringList{"--sandbox", "--scenario", "nosuch"}
                                          << "--scenario: no scenario named \"nosuch\"; there are lock-partition";
        // A story file with a mistake: refused before the sandbox starts, its line and field named.
        QTest::newRow("malformed story file")
            << QStringList{"--sandbox", "--scenario", qEnvironmentVariable("QETCD_SOURCE_DIR") + "/tests/console/stories/misspelt-action.json"}
            << "misspelt-action.json:16: steps[1].action.do: unknown action \"blackhol\" (known: call, blackhole,";
        QTest::newRow("autoplay alone") << QStringList{"--autoplay"} << "go with --scenario";
        QTest::newRow("export without scenario") << QStringList{"--export-events", "x.jsonl"} << "go with --scenario";
        QTest::newRow("read-only and writable") << QStringList{"--read-only", "--writable"} << "contradict";
        QTest::newRow("scenario read-only") << QStringList{"--sandbox", "--scenario", "lock-partition", "--read-only"}
                                            << "which --read-only forbids";
        QTest::newRow("unknown option") << QStringList{"--nosuch"} << "Unknown option 'nosuch'";
        QTest::newRow("stray argument") << QStringList{"extra"} << "unexpected argument \"extra\"";
        QTest::newRow("bad duration") << QStringList{"--command-timeout", "soon"} << "--command-timeout:";
        QTest::newRow("layouts file missing") << QStringList{"--layouts", "/nonexistent/layouts.json"}
                                              << "/nonexistent/layouts.json: cannot read the layouts: ";
        // A password on its way to another machine in clear text; the message never repeats it.
        QTest::newRow("plaintext password")
            << QStringList{"--endpoints", "http://db.example:2379", "--user", "alice:s3cret"} << "--insecure-transport";
        // The CLI's unverified TLS: never the console's, silently or not.
        QTest::newRow("unverified TLS") << QStringList{"--insecure-skip-tls-verify"}
                                        << "the console always verifies the server's certificate";
    }

    void usageErrorsExit128WithOneLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, mentions);
        const Run run = console(arguments);
        QCOMPARE(run.exitCode, BadArguments);
        const QString error = QString::fromUtf8(run.err);
        QVERIFY2(error.startsWith(QLatin1String("qetcd-console: ")) && error.count(QLatin1Char('\n')) == 1,
                 qPrintable(error));
        QVERIFY2(error.contains(mentions), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1String("s3cret")), qPrintable(error));
    }

    // The help names the new flags, the exit code the usage errors use, and story files.
    void helpNamesWritableAndTheExitCode()
    {
        const Run run = console({"--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("--writable") && run.out.contains("--read-only"), run.out.constData());
        QVERIFY2(!run.out.contains("USER:PASSWORD") && !run.out.contains("USER[:PASSWORD]"), run.out.constData());
        QVERIFY2(!run.out.contains("--insecure-skip-tls-verify"), run.out.constData());
        // --scenario takes a story file too, and says where its format is.
        QVERIFY2(run.out.contains("--scenario <NAME|FILE>") && run.out.contains("docs/scenarios.md"), run.out.constData());
        // It reads in an 80-column terminal.
        for (const QString &line : QString::fromUtf8(run.out).split(QLatin1Char('\n')))
            QVERIFY2(line.size() <= 80, qPrintable(line));
    }

    // --screenshot when nothing answers: exit 1 and one line naming the endpoint, no picture.
    void screenshotWhenNothingAnswersExits1()
    {
        const QString picture = m_scratch.filePath(QStringLiteral("nothing.png"));
        const Run run = console({"--endpoints", "http://127.0.0.1:1", "--screenshot", picture}, {}, 120000);
        QCOMPARE(run.exitCode, 1);
        const QString error = QString::fromUtf8(run.err);
        QVERIFY2(error.startsWith(QLatin1String("qetcd-console: no screenshot: after 30 s the cluster at http://127.0.0.1:1"))
                     && error.count(QLatin1Char('\n')) == 1,
                 qPrintable(error));
        QVERIFY(!QFile::exists(picture));
    }

    // --read-only wins over the profile's own flag (it was ignored with --profile), and a local
    // profile that may write does.
    void readOnlyWinsOverTheProfile_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<bool>("readOnly");
        QTest::newRow("profile --read-only") << QStringList{"--profile", "local", "--read-only"} << true;
        QTest::newRow("profile") << QStringList{"--profile", "local"} << false;
        QTest::newRow("flags --read-only") << QStringList{"--read-only"} << true;
        QTest::newRow("flags") << QStringList{} << false;
    }

    void readOnlyWinsOverTheProfile()
    {
        QFETCH(QStringList, arguments);
        QFETCH(bool, readOnly);
        if (!m_cluster) {
            m_cluster = std::make_unique<EtcdCluster>();
            QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
        }
        const QString endpoint = m_cluster->clientUrls().constFirst();
        // The profile as the console's Profiles dialog saves it: on this machine, may write.
        QSettings profiles(m_scratch.filePath(QStringLiteral("config/qetcd/qetcd-console.conf")), QSettings::IniFormat);
        profiles.setValue(QStringLiteral("profiles/local/name"), QStringLiteral("local"));
        profiles.setValue(QStringLiteral("profiles/local/endpoints"), QStringList{endpoint});
        profiles.setValue(QStringLiteral("profiles/local/readOnly"), false);
        profiles.sync();
        QCOMPARE(profiles.status(), QSettings::NoError);

        const QString picture = m_scratch.filePath(QStringLiteral("keys.png"));
        const Run run = console(QStringList{"--endpoints", endpoint, "--page", "keys", "--screenshot", picture} + arguments);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject summary = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(summary.value(QLatin1String("page")).toString(), QStringLiteral("keys"));
        QVERIFY2(summary.contains(QLatin1String("readOnly")), run.out.constData());
        QCOMPARE(summary.value(QLatin1String("readOnly")).toBool(), readOnly);
    }

    // A scenario that cannot start ends the run: exit 1 within a bound, naming the step, never
    // a hang and never 0. No etcd binary, and an etcd whose every port is taken.
    void scenarioThatCannotStartExits1NamingTheStep_data()
    {
        QTest::addColumn<QString>("binary");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no etcd binary") << QStringLiteral("/nonexistent/etcd") << QStringLiteral("etcd not found");
        const QString taken = m_scratch.filePath(QStringLiteral("etcd-port-taken"));
        QFile script(taken);
        if (script.open(QIODevice::WriteOnly)) {
            script.write("#!/bin/sh\n"
                         "echo 'listen tcp 127.0.0.1:2379: bind: address already in use' >&2\n"
                         "exit 1\n");
            script.close();
            script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
        }
        QTest::newRow("port taken") << taken << QStringLiteral("etcd member m0 exited");
    }

    void scenarioThatCannotStartExits1NamingTheStep()
    {
        QFETCH(QString, binary);
        QFETCH(QString, mentions);
        const QString events = m_scratch.filePath(QStringLiteral("never.jsonl"));
        const Run run = console({"--sandbox", "--scenario", "lock-partition", "--autoplay", "--export-events", events},
                                {{"QETCD_ETCD_BINARY", binary}}, 120000);
        QCOMPARE(run.exitCode, 1);
        const QString error = QString::fromUtf8(run.err);
        QVERIFY2(error.startsWith(QLatin1String("qetcd-console: scenario lock-partition failed: its first step, "
                                                "starting the sandbox, failed: The sandbox did not start"))
                     && error.contains(mentions) && error.count(QLatin1Char('\n')) == 1,
                 qPrintable(error));
        QVERIFY2(!run.out.contains("done"), run.out.constData());
        // The log of what happened is still written, as a run that ends is.
        QVERIFY2(QFile::exists(events), qPrintable(events));
    }

    // SIGTERM and SIGINT close the console as its window's close button does: the sandbox's
    // members stop and their data directories go with them, and the console exits 0.
    void aSignalClosesTheSandbox_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGINT") << int(SIGINT);
    }

    void aSignalClosesTheSandbox()
    {
        QFETCH(int, signal);
        QTemporaryDir temporary;  // the console's TMPDIR: where the sandbox keeps its members' data
        QVERIFY(temporary.isValid());
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_scratch.filePath(QStringLiteral("config")));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), m_scratch.filePath(QStringLiteral("data")));
        environment.insert(QStringLiteral("TMPDIR"), temporary.path());
        process.setProcessEnvironment(environment);
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process.start(QStringLiteral(QETCD_CONSOLE_PATH), {"--sandbox", "--page", "cluster"});
        QVERIFY(process.waitForStarted());
        // Each member has written its data once etcd made its member/ directory.
        const auto membersWithData = [&] {
            int found = 0;
            QDirIterator dirs(temporary.path(), {QStringLiteral("member")}, QDir::Dirs, QDirIterator::Subdirectories);
            while (dirs.hasNext()) {
                dirs.next();
                ++found;
            }
            return found;
        };
        QTRY_COMPARE_WITH_TIMEOUT(membersWithData(), 3, scaledMs(60000));

        ::kill(pid_t(process.processId()), signal);
        QVERIFY2(process.waitForFinished(scaledMs(30000)), "the console did not exit");
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        QCOMPARE(QDir(temporary.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
        // And no etcd is left running on those directories.
        QDirIterator processes(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
        while (processes.hasNext()) {
            QFile commandLine(processes.next() + QStringLiteral("/cmdline"));
            if (commandLine.open(QIODevice::ReadOnly))
                QVERIFY2(!commandLine.readAll().contains(temporary.path().toUtf8()), qPrintable(commandLine.fileName()));
        }
    }

private:
    Run console(const QStringList &arguments, const QList<std::pair<QString, QString>> &variables = {},
                int timeoutMs = 90000)
    {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_scratch.filePath(QStringLiteral("config")));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), m_scratch.filePath(QStringLiteral("data")));
        // A usage error must not start etcd members on its way out.
        environment.insert(QStringLiteral("QETCD_ETCD_BINARY"), QStringLiteral("/nonexistent/etcd"));
        for (const auto &[name, value] : variables)
            environment.insert(name, value);
        for (const char *name : {"ETCDCTL_USER", "ETCDCTL_PASSWORD", "ETCDCTL_ENDPOINTS"})
            environment.remove(QLatin1String(name));
        process.setProcessEnvironment(environment);
        QElapsedTimer elapsed;
        elapsed.start();
        process.start(QStringLiteral(QETCD_CONSOLE_PATH), arguments);
        Run run;
        if (!process.waitForFinished(scaledMs(timeoutMs))) {
            process.kill();
            process.waitForFinished();
            qWarning("qetcd-console %s did not exit within %d ms", qPrintable(arguments.join(' ')), scaledMs(timeoutMs));
            return run;
        }
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        run.out = process.readAllStandardOutput();
        run.err = process.readAllStandardError();
        run.elapsedMs = elapsed.elapsed();
        return run;
    }

    QTemporaryDir m_scratch;
    std::unique_ptr<EtcdCluster> m_cluster;
};

QTEST_GUILESS_MAIN(tst_ConsoleCommandLine)
#include "tst_consolecommandline.moc"
