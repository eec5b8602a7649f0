// SPDX-License-Identifier: Apache-2.0
// The console as a user meets it: a cluster with the demo participants on it, every page
// rendered to a PNG by `qetcd-console --screenshot`, each picture checked to show something and
// each page's own numbers checked against what the participants hold. With
// QETCD_SCREENSHOT_DIR set the pictures are kept there (scripts/screenshots: the README's).

#include "../common/picturechecks.h"

#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDir>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtGui/QImage>
#include <QtTest/QtTest>

#include <algorithm>

using namespace QEtcd::Testing;

class tst_ConsoleScreenshots : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QETCD_BUILD"), QStringLiteral(QETCD_BUILD_DIR));
        m_demo.setProcessEnvironment(environment);
        m_demo.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_demo.start(QStringLiteral(QETCD_SOURCE_DIR "/scripts/demo-participants"), {endpoint()});
        // The condition is evaluated again after it held, so it must not consume the output.
        QByteArray demoOutput;
        QTRY_VERIFY_WITH_TIMEOUT((demoOutput += m_demo.readAllStandardOutput()).contains("ready\n")
                                     || m_demo.state() == QProcess::NotRunning,
                                 scaledMs(60000));
        QCOMPARE(m_demo.state(), QProcess::Running);
        handOverALock();
        addUsersAndRoles();
        if (QTest::currentTestFailed())
            return;
        m_outputDir = qEnvironmentVariable("QETCD_SCREENSHOT_DIR", m_scratch.path());
        QVERIFY(QDir().mkpath(m_outputDir));
    }

    void cleanupTestCase()
    {
        m_demo.terminate();  // the participants release, resign and revoke on the way out
        QVERIFY(m_demo.waitForFinished(scaledMs(30000)));
    }

    void page_data()
    {
        QTest::addColumn<QString>("page");
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QJsonObject>("expected");
        // The sandbox's three members with their process controls, the README's picture; the
        // demo's one member below is checked but not kept.
        QTest::newRow("cluster") << "cluster" << QStringList{"--sandbox"}
                                 << QJsonObject{{"members", 3}, {"healthy", 3}, {"alarms", 0}};
        // scripts/run's first screen: its own sandbox with the demo participants seeded on it
        // (the 8 objects above), and the lock-partition story offered above the cards.
        QTest::newRow("first-screen") << "coordination"
                                      << QStringList{"--sandbox", "--sandbox-seed", QStringLiteral(QETCD_SOURCE_DIR "/scripts/demo-participants"),
                                                     "--scenario", "lock-partition", "--page", "coordination"}
                                      << QJsonObject{{"objects", 8}};
        // The dark look (--look dark), for the README beside the light one.
        QTest::newRow("coordination-dark") << "coordination" << QStringList{"--look", "dark"} << QJsonObject{{"objects", 8}};
        QTest::newRow("keys-dark") << "keys" << QStringList{"--look", "dark", "--select", "/demo/config/mode"}
                                   << QJsonObject{{"keys", 21}, {"selected", "/demo/config/mode"}};
        QTest::newRow("cluster-dark") << "cluster" << QStringList{"--look", "dark", "--sandbox"}
                                      << QJsonObject{{"members", 3}, {"healthy", 3}};
        QTest::newRow("leases-dark") << "leases" << QStringList{"--look", "dark"} << QJsonObject{{"leases", 12}};
        QTest::newRow("access-dark") << "access" << QStringList{"--look", "dark"} << QJsonObject{{"users", 3}, {"roles", 3}};
        QTest::newRow("timeline-history-dark") << "timeline" << QStringList{"--look", "dark", "--history", "/demo/"}
                                               << QJsonObject{{"source", "history"}, {"objects", 8}};
        QTest::newRow("cluster-demo") << "cluster" << QStringList() << QJsonObject{{"members", 1}, {"healthy", 1}, {"alarms", 0}};
        // 3 lock entries, 2 semaphore holders and its permits key, 2 candidates, the barrier,
        // the counted barrier's 2 arrivals and its ready key, 2 service instances, 5 queue items,
        // the counter and the config key.
        // With the JSON config selected: its value, versions and the write buttons show.
        QTest::newRow("keys") << "keys" << QStringList{"--select", "/demo/config/mode"}
                              << QJsonObject{{"keys", 21}, {"selected", "/demo/config/mode"}};
        // A lease each: 3 lock entries, 2 permits, 2 candidates, the barrier, 2 arrivals and 2
        // service instances.
        QTest::newRow("leases") << "leases" << QStringList() << QJsonObject{{"leases", 12}};
        // lock, semaphore, election, barrier, counted barrier, service, queue, counter.
        QTest::newRow("coordination") << "coordination" << QStringList() << QJsonObject{{"objects", 8}};
        // The demo's participants are another process's: the console's own timeline and
        // participants are empty, and the pages say so rather than draw lanes, markers or
        // losses of nothing. (A timeline with a story, its lanes, markers and loss bracket, is
        // tst_consolescenarios's; the Participants page with three and their timeline.png are
        // qml_tst_participantspage's.) Checked, not kept.
        QTest::newRow("timeline-empty") << "timeline" << QStringList()
                                  << QJsonObject{{"lanes", 0}, {"events", 0}, {"markers", 0}, {"bands", 0}, {"losses", 0}};
        // root, and two users with roles over a prefix and a range; auth stays off for the demo.
        QTest::newRow("access") << "access" << QStringList()
                                << QJsonObject{{"users", 3}, {"roles", 3}, {"authEnabled", false}};
        QTest::newRow("participants") << "participants" << QStringList()
                                      << QJsonObject{{"participants", 0}, {"holding", 0}, {"waiting", 0}, {"lost", 0}};
        // The Timeline's History source over everything etcd keeps under /demo/: the demo's
        // objects there (all but the service, registered under /services/) and the lock
        // etcdctl handed over, with the revision of the hand-over picked.
        const QString handOver = QString::number(m_handOverRevision);
        QTest::newRow("timeline-history") << "timeline" << QStringList{"--history", "/demo/", "--rev", handOver}
                                          << QJsonObject{{"source", "history"}, {"objects", 8}, {"compacted", false},
                                                         {"asOfRevision", double(m_handOverRevision)}};
        // The Coordination page as of the hand-over: the demo's 8 objects and etcdctl's lock,
        // held and waited for.
        QTest::newRow("coordination-asof") << "coordination" << QStringList{"--rev", handOver}
                                           << QJsonObject{{"objects", 9}, {"asOfRevision", double(m_handOverRevision)}};
    }

    void page()
    {
        QFETCH(QString, page);
        QFETCH(QStringList, arguments);
        QFETCH(QJsonObject, expected);
        const QString tag = QString::fromUtf8(QTest::currentDataTag());
        const bool kept = !tag.endsWith(QLatin1String("-empty")) && !tag.endsWith(QLatin1String("-demo"));
        const QString file = QDir(kept ? m_outputDir : m_scratch.path()).filePath(tag + QStringLiteral(".png"));
        QFile::remove(file);

        QProcess console;
        console.setProcessChannelMode(QProcess::SeparateChannels);
        // The console's revision samples go to the data folder: this run's own.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_DATA_HOME"), m_scratch.filePath(QStringLiteral("data")));
        console.setProcessEnvironment(environment);
        console.start(QStringLiteral(QETCD_CONSOLE_PATH),
                      QStringList{QStringLiteral("--endpoints"), endpoint(), QStringLiteral("--page"), page,
                                  QStringLiteral("--screenshot"), file}
                          + arguments);
        QVERIFY(console.waitForFinished(scaledMs(90000)));
        QVERIFY2(console.exitStatus() == QProcess::NormalExit && console.exitCode() == 0,
                 console.readAllStandardError().constData());

        const QImage picture(file);
        QVERIFY2(!picture.isNull(), qPrintable(file));
        QCOMPARE(picture.size(), QSize(1280, 800));
        QVERIFY2(coloursIn(picture, 2) > 100, qPrintable(QStringLiteral("%1 looks blank").arg(file)));

        const QJsonObject summary = QJsonDocument::fromJson(console.readAllStandardOutput()).object();
        QCOMPARE(summary.value(QStringLiteral("page")).toString(), page);
        for (auto it = expected.constBegin(); it != expected.constEnd(); ++it)
            QVERIFY2(summary.value(it.key()) == it.value(),
                     qPrintable(QStringLiteral("%1: %2 is %3, expected %4")
                                    .arg(page, it.key(), summary.value(it.key()).toVariant().toString(),
                                         it.value().toVariant().toString())));
    }

private:
    QString endpoint() const { return m_cluster.clientUrls().constFirst(); }

    // What the Access page shows: root ready to enable auth, an application confined to its
    // prefix, and a deploy user who may write a range and read everything.
    void addUsersAndRoles()
    {
        for (const QStringList &step :
             {QStringList{"user", "add", "root", "--new-user-password", "root-pw"}, QStringList{"role", "add", "root"},
              QStringList{"user", "grant-role", "root", "root"}, QStringList{"role", "add", "app-role"},
              QStringList{"role", "grant-permission", "app-role", "readwrite", "/demo/", "--prefix=true"},
              QStringList{"role", "add", "deployer"}, QStringList{"role", "grant-permission", "deployer", "write", "/deploy/a", "/deploy/n"},
              QStringList{"role", "grant-permission", "deployer", "read", "", "--prefix=true"},
              QStringList{"user", "add", "app", "--new-user-password", "app-pw"}, QStringList{"user", "grant-role", "app", "app-role"},
              QStringList{"user", "add", "ci", "--new-user-password", "ci-pw"}, QStringList{"user", "grant-role", "ci", "deployer"}}) {
            int exitCode = -1;
            QByteArray error;
            m_cluster.etcdctl(step, &exitCode, &error);
            QVERIFY2(exitCode == 0, qPrintable(step.join(' ') + ": " + QString::fromUtf8(error)));
        }
    }

    int keysUnder(const QString &prefix)
    {
        const QList<QByteArray> lines =
            m_cluster.etcdctl({QStringLiteral("get"), QStringLiteral("--prefix"), QStringLiteral("--keys-only"), prefix}).split('\n');
        return int(std::count_if(lines.cbegin(), lines.cend(), [](const QByteArray &line) { return !line.trimmed().isEmpty(); }));
    }

    qint64 storeRevision()
    {
        const QByteArray answer = m_cluster.etcdctl({QStringLiteral("get"), QStringLiteral("/"), QStringLiteral("--prefix"),
                                                     QStringLiteral("--keys-only"), QStringLiteral("--limit"), QStringLiteral("1"),
                                                     QStringLiteral("-w"), QStringLiteral("json")});
        return QJsonDocument::fromJson(answer).object().value(QStringLiteral("header")).toObject().value(QStringLiteral("revision")).toInteger();
    }

    // etcdctl takes /demo/locks/release, a second etcdctl waits for it and is handed it: a story
    // for the History source, and a revision (both there) for the Coordination page as of then.
    void handOverALock()
    {
        const QString lock = QStringLiteral("/demo/locks/release");
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("ETCDCTL_API"), QStringLiteral("3"));
        QProcess first;
        QProcess second;
        for (QProcess *each : {&first, &second}) {
            each->setProcessEnvironment(environment);
            each->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        }
        first.start(QStringLiteral("etcdctl"), {QStringLiteral("--endpoints"), endpoint(), QStringLiteral("lock"), lock,
                                                QStringLiteral("sleep"), QStringLiteral("3")});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(lock), 1, scaledMs(20000));
        second.start(QStringLiteral("etcdctl"), {QStringLiteral("--endpoints"), endpoint(), QStringLiteral("lock"), lock,
                                                 QStringLiteral("sleep"), QStringLiteral("1")});
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(lock), 2, scaledMs(20000));
        m_handOverRevision = storeRevision();
        QVERIFY(m_handOverRevision > 0);
        // Their keys are named by their leases, which etcdctl leaves to expire: revoked here,
        // the Leases page counts the demo's alone.
        QStringList leases;
        for (const QByteArray &key : m_cluster.etcdctl({QStringLiteral("get"), QStringLiteral("--prefix"),
                                                        QStringLiteral("--keys-only"), lock})
                                         .split('\n')) {
            if (!key.trimmed().isEmpty())
                leases.append(QString::fromUtf8(key.trimmed().mid(lock.size() + 1)));
        }
        QCOMPARE(leases.size(), 2);
        QVERIFY(first.waitForFinished(scaledMs(30000)));
        QVERIFY(second.waitForFinished(scaledMs(30000)));
        QCOMPARE(keysUnder(lock), 0);
        for (const QString &lease : std::as_const(leases))
            m_cluster.etcdctl({QStringLiteral("lease"), QStringLiteral("revoke"), lease});
    }

    EtcdCluster m_cluster;
    QProcess m_demo;
    QTemporaryDir m_scratch;
    QString m_outputDir;
    qint64 m_handOverRevision = 0;
};

QTEST_GUILESS_MAIN(tst_ConsoleScreenshots)
#include "tst_consolescreenshots.moc"
