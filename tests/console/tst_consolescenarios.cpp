// Each guided scenario run as a user would script it: `qetcd-console --sandbox --scenario NAME
// --autoplay --export-events FILE`, offscreen, to its end. The exported event log must tell the
// scenario's story in order; for a partitioned lock holder, the loss strictly before etcd
// deleted the key. The timeline after each run is kept as a picture (QETCD_SCREENSHOT_DIR: the
// README's).

#include <QEtcd/testtimeouts.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
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
    void scenario_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QList<QStringList>>("stories");
        QTest::newRow("lock-partition")
            << "lock-partition"
            << QList<QStringList>{{"A acquired", "B pending", "A fault", "A leaseSuspended", "A lost", "etcd keyDeleted",
                                   "A fault", "A releaseFailed"},
                                  {"A lost", "B acquired", "A fault"}};
        QTest::newRow("spurious-barrier")
            << "spurious-barrier"
            << QList<QStringList>{{"A barrierSet", "B pending", "A fault", "etcd keyDeleted", "A fault", "etcd keyPut"},
                                  {"A fault", "B barrierLifted spurious", "A fault", "A leaseRestored"}};
        QTest::newRow("registration-heal")
            << "registration-heal"
            << QList<QStringList>{{"A registered", "A fault", "etcd keyDeleted", "A fault", "etcd keyPut", "A fault",
                                   "etcd keyDeleted", "etcd keyPut", "A fault", "A leaseFailed"}};
        QTest::newRow("leader-death")
            << "leader-death"
            << QList<QStringList>{{"A acquired", "B elected", "* memberKilled", "* leaderChanged", "A released"}};
    }

    void scenario()
    {
        QFETCH(QString, name);
        QFETCH(QList<QStringList>, stories);
        const QString events = m_scratch.filePath(name + QStringLiteral(".jsonl"));
        const QString picture = QDir(m_outputDir).filePath(QStringLiteral("scenario-%1.png").arg(name));
        QFile::remove(picture);

        QProcess console;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_scratch.filePath(QStringLiteral("config")));
        console.setProcessEnvironment(environment);
        console.start(QStringLiteral(QETCD_CONSOLE_PATH),
                      {QStringLiteral("--sandbox"), QStringLiteral("--scenario"), name, QStringLiteral("--autoplay"),
                       QStringLiteral("--export-events"), events, QStringLiteral("--screenshot"), picture});
        QVERIFY(console.waitForFinished(scaledMs(180000)));
        const QByteArray errors = console.readAllStandardError();
        QVERIFY2(console.exitStatus() == QProcess::NormalExit && console.exitCode() == 0, errors.constData());

        const QList<Event> log = readEvents(events);
        QVERIFY2(!log.isEmpty(), qPrintable(events));
        QList<QList<qsizetype>> found;
        for (const QStringList &story : stories) {
            QString missing;
            found.append(findInOrder(log, story, &missing));
            QVERIFY2(missing.isEmpty(),
                     qPrintable(QStringLiteral("%1: no \"%2\" in order in %3").arg(name, missing, events)));
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
            // A member died, a new leader was seen after it, and nothing was lost.
            QString dead;
            for (const Event &event : log) {
                QVERIFY2(event.kind != QLatin1String("lost") && event.kind != QLatin1String("leadershipLost"),
                         qPrintable(event.participant + QLatin1Char(' ') + event.kind));
                if (event.kind == QLatin1String("memberKilled"))
                    dead = event.participant;
                if (event.kind == QLatin1String("leaderChanged") && !dead.isEmpty())
                    QVERIFY2(event.participant != dead, qPrintable(dead + QStringLiteral(" still leads")));
            }
            QVERIFY(!dead.isEmpty());
        }
        const QImage timeline(picture);
        QVERIFY2(!timeline.isNull(), qPrintable(picture));
    }

private:
    QTemporaryDir m_scratch;
    QString m_outputDir;
};

QTEST_GUILESS_MAIN(tst_ConsoleScenarios)
#include "tst_consolescenarios.moc"
