// SPDX-License-Identifier: Apache-2.0
// Each guided scenario run as a user would script it: `qetcd-console --sandbox --scenario NAME|FILE
// --autoplay --export-events FILE`, offscreen, to its end, as the documentation gives it and
// again with `--screenshot`. The exported event log must tell the scenario's story in order,
// with nothing the story forbids; for a partitioned lock holder, the loss strictly before etcd
// deleted the key. The screenshot's summary must count what the log holds. The timeline after
// each run is kept as a picture (QETCD_SCREENSHOT_DIR: the README's).

#include <QEtcd/testtimeouts.h>

#include <algorithm>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QSet>
#include <QtCore/QTemporaryDir>
#include <QtGui/QImage>
#include <QtTest/QtTest>

using namespace QEtcd::Testing;

namespace {
struct Event
{
    qint64 monotonicMs = 0;
    QString participant, kind, detail, key;
    bool spurious = false;
};

QList<Event> readEvents(const QString &path)
{
    QList<Event> events;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return events;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.isEmpty())
            continue;
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        events.append({object.value(QLatin1String("mono_ms")).toInteger(), object.value(QLatin1String("participant")).toString(),
                       object.value(QLatin1String("kind")).toString(), object.value(QLatin1String("detail")).toString(),
                       object.value(QLatin1String("key")).toString(), object.value(QLatin1String("spurious")).toBool()});
    }
    return events;
}

// "A acquired", "etcd keyDeleted", "B barrierLifted spurious", "* memberKilled" (anyone): where each comes, in order, after
// the one before; -1 for the first that is missing.
QList<qsizetype> findInOrder(const QList<Event> &events, const QStringList &story, QString *missing)
{
    QList<qsizetype> found;
    qsizetype from = 0;
    for (const QString &expected : story) {
        const QStringList words = expected.split(QLatin1Char(' '));
        const bool spurious = words.value(2) == QLatin1String("spurious");
        qsizetype at = from;
        while (at < events.size()
               && !((words[0] == QLatin1String("*") || events[at].participant == words[0]) && events[at].kind == words[1] && (!spurious || events[at].spurious)))
            ++at;
        if (at == events.size()) {
            *missing = expected;
            return found;
        }
        found.append(at);
        from = at + 1;
    }
    return found;
}
} // namespace

class tst_ConsoleScenarios : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        m_outputDir = qEnvironmentVariable("QETCD_SCREENSHOT_DIR", m_scratch.path());
        QVERIFY(QDir().mkpath(m_outputDir));
    }

    // Each story is in log order. Two observers that see one change (etcd deleting a key, the
    // next holder acquiring) may log it in either order, so such events are in separate stories,
    // each after their common cause.
    // exclusive: "participant kind" events that may come only as the stories' own ("*": anyone);
    // one more anywhere in the log is a step the story forbids (a registration that fails on
    // its first heal, a lease lost while the leader dies).
    void scenario_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("screenshot");
        QTest::addColumn<QList<QStringList>>("stories");
        QTest::addColumn<QStringList>("exclusive");
        const QList<QStringList> lockPartition{{"A acquired", "B pending", "A fault", "A leaseSuspended", "A lost",
                                                "etcd keyDeleted", "A fault", "A releaseFailed"},
                                               {"A lost", "B acquired", "A fault"}};
        const QStringList oneLoss{"A lost", "B lost", "* leaseFailed"};
        // The documented command line, with no screenshot to wait for: it must end by itself.
        QTest::newRow("lock-partition, as documented") << "lock-partition" << false << lockPartition << oneLoss;
        QTest::newRow("lock-partition") << "lock-partition" << true << lockPartition << oneLoss;
        QTest::newRow("spurious-barrier")
            << "spurious-barrier" << true
            << QList<QStringList>{{"A barrierSet", "B pending", "A fault", "etcd keyDeleted", "A fault", "etcd keyPut"},
                                  {"A fault", "B barrierLifted spurious", "A fault", "A leaseRestored"}}
            << QStringList{"* leaseFailed", "* lost"};
        QTest::newRow("registration-heal")
            << "registration-heal" << true
            << QList<QStringList>{{"A registered", "A fault", "etcd keyDeleted", "A fault", "etcd keyPut", "A fault",
                                   "etcd keyDeleted", "etcd keyPut", "A fault", "A leaseFailed", "etcd keyRead"}}
            << QStringList{"* leaseFailed"};
        QTest::newRow("leader-death")
            << "leader-death" << true
            << QList<QStringList>{{"A acquired", "B elected", "* memberKilled", "* leaderChanged", "A released"}}
            << QStringList{"* leaseFailed", "* lost", "* leadershipLost"};
        // The deployer sets its barrier once: told of the lift, it does not set it again.
        QTest::newRow("operator-unsticks-a-deploy")
            << "operator-unsticks-a-deploy" << true
            << QList<QStringList>{{"deployer barrierSet", "job-1 pending", "job-2 pending", "operator intervention"},
                                  {"job-2 pending", "job-1 barrierLifted"},
                                  {"job-2 pending", "job-2 barrierLifted"},
                                  {"job-2 pending", "deployer removedByOther"}}
            << QStringList{"* leaseFailed", "* lost", "* leaseExpired", "deployer barrierSet", "* interventionFailed"};
        // A story of one's own, run from its file (`--scenario FILE`): the built-in
        // consumer-partition is one, written without C++. A's claim goes with its lease (etcd
        // deletes it), and B's redelivery is seen after the cut, like the deletion.
        QTest::newRow("consumer-partition, from its file")
            << QStringLiteral("%1/qml/scenario/stories/consumer-partition.json").arg(qEnvironmentVariable("QETCD_SOURCE_DIR")) << true
            << QList<QStringList>{{"producer enqueued", "A received", "B pending", "A fault", "etcd keyDeleted"},
                                  {"A fault", "B received", "A fault", "A ackRefused", "B acknowledged"}}
            << QStringList{"* leaseFailed", "A received", "B received", "A acknowledged", "B ackRefused"};
    }

    void scenario()
    {
        QFETCH(QString, name);
        QFETCH(bool, screenshot);
        QFETCH(QList<QStringList>, stories);
        QFETCH(QStringList, exclusive);
        // A built-in's name, or a story file's base name.
        const QString story = QFileInfo(name).completeBaseName();
        const QString events = m_scratch.filePath(story + (screenshot ? QStringLiteral(".jsonl") : QStringLiteral("-documented.jsonl")));
        const QString picture = QDir(m_outputDir).filePath(QStringLiteral("scenario-%1.png").arg(story));
        QStringList arguments{QStringLiteral("--sandbox"), QStringLiteral("--scenario"), name, QStringLiteral("--autoplay"),
                              QStringLiteral("--export-events"), events};
        if (screenshot) {
            QFile::remove(picture);
            arguments << QStringLiteral("--screenshot") << picture;
        }

        QProcess console;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_scratch.filePath(QStringLiteral("config")));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), m_scratch.filePath(QStringLiteral("data")));
        console.setProcessEnvironment(environment);
        console.start(QStringLiteral(QETCD_CONSOLE_PATH), arguments);
        QVERIFY(console.waitForFinished(scaledMs(180000)));
        const QByteArray errors = console.readAllStandardError();
        QVERIFY2(console.exitStatus() == QProcess::NormalExit && console.exitCode() == 0, errors.constData());
        // What the documentation promises on stdout: the outcome line, then (with a screenshot)
        // one JSON line describing the page.
        const QList<QByteArray> output = console.readAllStandardOutput().trimmed().split('\n');
        const QByteArray done = "qetcd-console: scenario " + name.toUtf8() + " done: ";
        QVERIFY2(output.first().startsWith(done), output.join('\n').constData());
        QCOMPARE(output.size(), screenshot ? 2 : 1);

        const QList<Event> log = readEvents(events);
        QVERIFY2(!log.isEmpty(), qPrintable(events));
        QList<QList<qsizetype>> found;
        for (const QStringList &story : stories) {
            QString missing;
            found.append(findInOrder(log, story, &missing));
            QVERIFY2(missing.isEmpty(),
                     qPrintable(QStringLiteral("%1: no \"%2\" in order in %3").arg(name, missing, events)));
        }
        for (const QString &only : exclusive) {
            const QStringList words = only.split(QLatin1Char(' '));
            for (qsizetype at = 0; at < log.size(); ++at) {
                const Event &event = log[at];
                if ((words[0] != QLatin1String("*") && event.participant != words[0]) || event.kind != words[1])
                    continue;
                const bool inStory = std::any_of(found.cbegin(), found.cend(), [at](const QList<qsizetype> &story) {
                    return story.contains(at);
                });
                QVERIFY2(inStory, qPrintable(QStringLiteral("%1: %2 %3 (%4) at event %5, which the story forbids")
                                                 .arg(name, event.participant, event.kind, event.detail).arg(at + 1)));
            }
        }

        if (screenshot) {
            // The summary counts what the exported log holds: one event the timeline did not read,
            // or one more it read after the export, is a timeline that does not show the story.
            const QJsonObject summary = QJsonDocument::fromJson(output.last()).object();
            QCOMPARE(summary.value(QStringLiteral("page")).toString(), QStringLiteral("timeline"));
            QCOMPARE(summary.value(QStringLiteral("events")).toInt(-1), int(log.size()));
            // A lane for every participant and member of the story, and no other: the scenario's
            // narration and etcd's own view of the keys are drawn over the others' lanes.
            QSet<QString> participants;
            for (const Event &event : log)
                participants.insert(event.participant);
            participants.remove(QStringLiteral("scenario"));
            participants.remove(QStringLiteral("etcd"));
            QVERIFY2(summary.value(QStringLiteral("lanes")).toInt() == int(participants.size()),
                     qPrintable(QStringLiteral("%1 lanes for %2").arg(summary.value(QStringLiteral("lanes")).toInt())
                                    .arg(QStringList(participants.values()).join(QLatin1String(", ")))));
            // One loss bracket for the lock holder's one loss, none where nothing was lost; a
            // marker for what happened, a band for each fault that lasted.
            QCOMPARE(summary.value(QStringLiteral("losses")).toInt(-1), name == QLatin1String("lock-partition") ? 1 : 0);
            QVERIFY2(summary.value(QStringLiteral("markers")).toInt() >= 4, qPrintable(output.last()));
            // A band for each fault that lasted; these two stories cut no link.
            if (name != QLatin1String("leader-death") && name != QLatin1String("operator-unsticks-a-deploy"))
                QVERIFY2(summary.value(QStringLiteral("bands")).toInt() >= 1, qPrintable(output.last()));
        }

        if (name == QLatin1String("lock-partition")) {
            // A was told of its loss strictly before etcd deleted its key, and so before B
            // acquired the lock. The deletion and B's acquisition are not compared: the console
            // hears the one through its own watch and B the other through B's, so either may
            // arrive first by a few milliseconds.
            const Event &acquired = log[found[0][0]];
            const Event &lost = log[found[0][4]];
            const Event &deleted = log[found[0][5]];
            const Event &next = log[found[1][1]];
            QCOMPARE(lost.key, acquired.key);
            QCOMPARE(deleted.key, acquired.key);
            QVERIFY2(lost.monotonicMs < deleted.monotonicMs,
                     qPrintable(QStringLiteral("lost at %1, deleted at %2").arg(lost.monotonicMs).arg(deleted.monotonicMs)));
            QVERIFY2(lost.monotonicMs < next.monotonicMs,
                     qPrintable(QStringLiteral("lost at %1, B acquired at %2").arg(lost.monotonicMs).arg(next.monotonicMs)));
            QCOMPARE(log[found[0][2]].detail, QStringLiteral("blackhole"));
            QCOMPARE(log[found[0][6]].detail, QStringLiteral("pass"));
        }
        if (name == QLatin1String("leader-death")) {
            // A member died, and a new leader was seen after it (nothing lost: `exclusive`).
            QString dead;
            for (const Event &event : log) {
                if (event.kind == QLatin1String("memberKilled"))
                    dead = event.participant;
                if (event.kind == QLatin1String("leaderChanged") && !dead.isEmpty())
                    QVERIFY2(event.participant != dead, qPrintable(dead + QStringLiteral(" still leads")));
            }
            QVERIFY(!dead.isEmpty());
        }
        if (name == QLatin1String("operator-unsticks-a-deploy")) {
            // Both jobs were told the barrier was deleted (not that it expired), after the
            // operator acted, and the operator's line names the barrier's key.
            const Event &intervention = log[found[0][3]];
            QCOMPARE(intervention.key, QStringLiteral("/demo/deploy-gate"));
            QVERIFY2(intervention.detail.contains(QLatin1String("lifted the barrier")), qPrintable(intervention.detail));
            for (int job = 1; job <= 2; ++job) {
                const Event &lifted = log[found[job][1]];
                QVERIFY2(!lifted.spurious && lifted.detail.contains(QLatin1String("deleted by someone else")),
                         qPrintable(lifted.detail));
            }
        }
        if (story == QLatin1String("consumer-partition")) {
            // The job's first delivery was A's, its claim the key etcd deleted; B's was the second,
            // of the same claim key; A's acknowledgement was refused for the lost claim.
            const Event &first = log[found[0][1]];
            const Event &deleted = log[found[0][4]];
            const Event &second = log[found[1][1]];
            QCOMPARE(first.detail, QStringLiteral("attempt 1: resize photo 42"));
            QVERIFY2(first.key.startsWith(QLatin1String("/demo/jobs/claims/")), qPrintable(first.key));
            QCOMPARE(deleted.key, first.key);
            QCOMPARE(second.detail, QStringLiteral("attempt 2: resize photo 42"));
            QCOMPARE(second.key, first.key);
            QVERIFY2(log[found[1][3]].detail.contains(QLatin1String("was lost")), qPrintable(log[found[1][3]].detail));
        }
        if (name == QLatin1String("registration-heal")) {
            // etcd is left with the operator's value under A's instance key, read back at the end.
            const Event &registered = log[found[0][0]];
            const Event &read = log[found[0][10]];
            QCOMPARE(read.key, registered.key);
            QVERIFY2(read.key.startsWith(QLatin1String("/demo/services/")), qPrintable(read.key));
            QCOMPARE(read.detail, QStringLiteral("{\"owner\":\"operator\"}"));
        }
        if (screenshot) {
            const QImage timeline(picture);
            QVERIFY2(!timeline.isNull(), qPrintable(picture));
        }
    }

private:
    QTemporaryDir m_scratch;
    QString m_outputDir;
};

QTEST_GUILESS_MAIN(tst_ConsoleScenarios)
#include "tst_consolescenarios.moc"
