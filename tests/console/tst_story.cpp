// SPDX-License-Identifier: Apache-2.0
// Story files (docs/scenarios.md) read without a server: every built-in story reads, the
// documentation's example is the one shipped; a malformed file gets one message naming its line
// and field, and a scenario given it starts nothing.

#include "sandbox.h"
#include "scenario.h"
#include "story.h"

#include <eventlogmodel.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

class tst_Story : public QObject
{
    Q_OBJECT

private:
    // stories/well-formed.json with `from` replaced by `to` (once), written to name. The rows'
    // line numbers count from its first line.
    QString write(const QString &name, const QByteArray &from, const QByteArray &to)
    {
        QFile wellFormed(QStringLiteral(QETCD_STORY_DIR "/well-formed.json"));
        if (!wellFormed.open(QIODevice::ReadOnly))
            return QString();
        QByteArray text = wellFormed.readAll();
        if (!from.isEmpty()) {
            const qsizetype at = text.indexOf(from);
            if (at < 0)
                return QString();
            text.replace(at, from.size(), to);
        }
        const QString path = m_files.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
            return QString();
        return path;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_files.isValid()); }

    void builtInStoriesRead()
    {
        const QStringList names = Story::builtInNames();
        QCOMPARE(names.size(), 6);
        for (const QString &name : names) {
            QString error;
            const std::optional<Story> story = Story::read(Story::fileOf(name), &error);
            QVERIFY2(story, qPrintable(error));
            QVERIFY2(!story->title.isEmpty() && !story->summary.isEmpty() && !story->steps.empty(), qPrintable(name));
            QVERIFY2(error.isEmpty(), qPrintable(error));
        }
    }

    // docs/scenarios.md teaches the format with consumer-partition, whole: as the console ships it.
    void theDocumentedExampleIsTheBuiltInStory()
    {
        QFile doc(QStringLiteral(QETCD_DOCS_DIR "/scenarios.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QByteArray text = doc.readAll();
        const QByteArray fence = "```json\n";
        const qsizetype start = text.indexOf(fence + "{\n  \"version\"");
        QVERIFY2(start >= 0, "a JSON block that is a story");
        const QByteArray example = text.mid(start + fence.size(), text.indexOf("```", start + fence.size()) - start - fence.size());
        QFile story(Story::fileOf(QStringLiteral("consumer-partition")));
        QVERIFY(story.open(QIODevice::ReadOnly));
        QCOMPARE(example.trimmed(), story.readAll().trimmed());
    }

    void wellFormedStoryReads()
    {
        const QString path = write(QStringLiteral("good.json"), {}, {});
        QString error;
        const std::optional<Story> story = Story::read(path, &error);
        QVERIFY2(story, qPrintable(error));
        QCOMPARE(story->participants.size(), 2);
        QCOMPARE(story->participants[1].ttlSeconds, 3);  // the default
        QCOMPARE(int(story->steps.size()), 3);
        QCOMPARE(story->steps[1].action->kind, Story::Action::Kind::Fault);
        QCOMPARE(story->steps[1].action->fault, QStringLiteral("blackhole"));
        QCOMPARE(story->steps[2].await.keyOf, 0);
        QVERIFY(!story->steps[2].action);
        QCOMPARE(story->concludedWith([](int step) { return step == 2 ? qint64(4250) : qint64(1000); }), QStringLiteral("3.25 s."));
    }

    // Each kind of action and await, with its fields as the file gives them.
    void everyActionReads()
    {
        QString error;
        const std::optional<Story> story = Story::read(QStringLiteral(QETCD_STORY_DIR "/every-action.json"), &error);
        QVERIFY2(story, qPrintable(error));
        using Kind = Story::Action::Kind;
        const std::vector<Story::Step> &steps = story->steps;
        QCOMPARE(int(steps.size()), 12);
        QCOMPARE(story->participants[0].options.value(QStringLiteral("permits")).toInt(), 2);
        QCOMPARE(story->participants[1].ttlSeconds, 3);
        QCOMPARE(steps[0].action->kind, Kind::Call);
        QCOMPARE(steps[0].action->arguments, QVariantList{5000});
        QCOMPARE(steps[0].await.within, std::chrono::milliseconds(5000));
        QCOMPARE(steps[1].action->arguments.size(), 2);
        QCOMPARE(steps[2].action->kind, Kind::Fault);
        QCOMPARE(steps[2].action->fault, QStringLiteral("delay"));
        QCOMPARE(steps[2].action->delayMs, 300);
        QCOMPARE(steps[3].action->fault, QStringLiteral("reset"));
        QCOMPARE(steps[4].action->kind, Kind::Member);
        QCOMPARE(steps[4].action->memberAction, QStringLiteral("pause"));
        QCOMPARE(steps[4].action->member, QStringLiteral("m1"));
        QCOMPARE(steps[6].action->member, QStringLiteral("leader"));
        QCOMPARE(steps[7].action->memberAction, QStringLiteral("restart"));
        QCOMPARE(steps[8].action->kind, Kind::Put);
        QCOMPARE(steps[8].action->key, QStringLiteral("/demo/note"));
        QCOMPARE(steps[8].action->value, QStringLiteral("hello"));
        QCOMPARE(steps[9].action->kind, Kind::Read);
        QCOMPARE(steps[9].action->keyOf, 0);
        QCOMPARE(steps[9].await.keyOf, 0);
        QCOMPARE(steps[10].action->kind, Kind::Intervene);
        QCOMPARE(steps[10].action->intervention, QStringLiteral("breakHold"));
        QCOMPARE(steps[10].await.spurious, std::optional<bool>(false));
        QCOMPARE(steps[10].await.after, 0);
        QVERIFY(steps[11].await.quiet);
        QCOMPARE(steps[11].await.within, std::chrono::milliseconds(1000));
        QVERIFY(steps[11].await.forbidden.isEmpty());
        QVERIFY(!steps[11].action);
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("message");
        // The parser's own words after "not JSON:", on the line where it noticed.
        QTest::newRow("bad JSON") << QByteArray("\"title\": \"A lock holder is partitioned\",")
                                  << QByteArray("\"title\": \"A lock holder is partitioned\"")
                                  << QStringLiteral("4: not JSON: unterminated object");
        QTest::newRow("unknown action") << QByteArray("\"do\": \"blackhole\"") << QByteArray("\"do\": \"blackhol\"")
                                        << QStringLiteral("18: steps[1].action.do: unknown action \"blackhol\" (known: call, "
                                                          "blackhole, delay, reset, pass, stop, kill, pause, resume, restart, "
                                                          "put, read, intervene)");
        QTest::newRow("unknown participant in a step")
            << QByteArray("\"do\": \"blackhole\", \"participant\": \"A\"") << QByteArray("\"do\": \"blackhole\", \"participant\": \"C\"")
            << QStringLiteral("18: steps[1].action.participant: no participant \"C\" (the story's are: A, B)");
        QTest::newRow("missing field") << QByteArray("\"narration\": \"A is cut off.\",") << QByteArray()
                                       << QStringLiteral("16: steps[1]: missing \"narration\"");
        QTest::newRow("wrong version") << QByteArray("\"version\": 1") << QByteArray("\"version\": 2")
                                       << QStringLiteral("2: version: 2 is not a version this console reads (it reads 1)");
        QTest::newRow("no version") << QByteArray("\"version\": 1,") << QByteArray()
                                    << QStringLiteral("1: version: missing; this console reads stories of version 1");
        QTest::newRow("misspelt field") << QByteArray("\"narration\": \"A is cut off.\"") << QByteArray("\"narative\": \"A is cut off.\"")
                                        << QStringLiteral("17: steps[1].narative: unknown field (known here: id, narration, action, await)");
        QTest::newRow("a reserved name") << QByteArray("\"name\": \"B\"") << QByteArray("\"name\": \"etcd\"")
                                         << QStringLiteral("7: participants[1].name: \"etcd\" is taken: the event log names etcd, "
                                                           "the operator, the scenario and the members (m0, m1…) so");
        QTest::newRow("unknown recipe") << QByteArray("\"recipe\": \"Mutex\", \"path\": \"/demo/lock\" }")
                                        << QByteArray("\"recipe\": \"Mutexx\", \"path\": \"/demo/lock\" }")
                                        << QStringLiteral("7: participants[1].recipe: unknown recipe \"Mutexx\" (known: Mutex, "
                                                          "ReadWriteLock, Semaphore, Election, ElectionObserver, Barrier, "
                                                          "CountedBarrier, DoubleBarrier, ServiceRegistration, TransientKey, "
                                                          "Counter, Queue, WorkQueue)");
        QTest::newRow("unknown method") << QByteArray("\"method\": \"lock\"") << QByteArray("\"method\": \"lockk\"")
                                        << QStringLiteral("13: steps[0].action.method: Mutex has no method \"lockk\" (it has: "
                                                          "close, lock, unlock)");
        QTest::newRow("too many arguments") << QByteArray("\"method\": \"lock\"")
                                            << QByteArray("\"method\": \"lock\", \"arguments\": [1, 2]")
                                            << QStringLiteral("13: steps[0].action.arguments: lock of Mutex does not take 2 argument(s)");
        QTest::newRow("unknown setting") << QByteArray("\"path\": \"/demo/lock\" }")
                                         << QByteArray("\"path\": \"/demo/lock\", \"options\": { \"permits\": 2 } }")
                                         << QStringLiteral("7: participants[1].options.permits: Mutex has no setting \"permits\" "
                                                           "(it has: none)");
        QTest::newRow("path outside the demo prefix") << QByteArray("\"path\": \"/demo/lock\", \"ttl\"")
                                             << QByteArray("\"path\": \"/locks/a\", \"ttl\"")
                                             << QStringLiteral("6: participants[0].path: \"/locks/a\" is not under /demo/, where a "
                                                               "scenario's keys live and are watched");
        QTest::newRow("a key of a later step") << QByteArray("\"keyOf\": \"aLocks\"") << QByteArray("\"keyOf\": \"later\"")
                                               << QStringLiteral("24: steps[2].await.keyOf: no earlier step has the id \"later\"");
        QTest::newRow("no awaited kind") << QByteArray("\"kind\": \"fault\", ") << QByteArray()
                                         << QStringLiteral("19: steps[1].await: missing \"kind\", the kind of event awaited (or "
                                                           "\"quiet\", a time in which nothing forbidden happens)");
        QTest::newRow("a number as a string") << QByteArray("\"ttl\": 3") << QByteArray("\"ttl\": \"3\"")
                                              << QStringLiteral("6: participants[0].ttl: a string where a number belongs");
        QTest::newRow("a TTL too long") << QByteArray("\"ttl\": 3") << QByteArray("\"ttl\": 1e12")
                                        << QStringLiteral("6: participants[0].ttl: 1e+12 is not a whole number from 1");
        QTest::newRow("conclusion of an unknown step") << QByteArray("{seconds:aLocks:deleted}")
                                                       << QByteArray("{seconds:aLocks:gone}")
                                                       << QStringLiteral("27: conclusion: {seconds:aLocks:gone}: no step has the id \"gone\"");
    }

    void malformed()
    {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, message);
        const QString path = write(QStringLiteral("%1.json").arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'))), from, to);
        QVERIFY2(!path.isEmpty(), "the row's text is in the well-formed story");
        QString error;
        QVERIFY(!Story::read(path, &error));
        QCOMPARE(error, path + QLatin1Char(':') + message);

        // A scenario given the file says the same, has nothing to play, and starts nothing.
        QEtcd::EventLogModel log;
        Scenario scenario;
        scenario.setEventLog(&log);
        scenario.setName(path);
        QCOMPARE(scenario.state(), Scenario::State::Failed);
        QCOMPARE(scenario.errorString(), error);
        QCOMPARE(scenario.stepCount(), 0);
        QVERIFY(!scenario.start());
        QCOMPARE(scenario.errorString(), error);
        QCOMPARE(scenario.state(), Scenario::State::Failed);
        QCOMPARE(log.events().size(), 0);
    }

    void unreadableFile()
    {
        const QString path = m_files.filePath(QStringLiteral("nosuch.json"));
        QString error;
        QVERIFY(!Story::read(path, &error));
        QVERIFY2(error.startsWith(path + QStringLiteral(": cannot read it: ")), qPrintable(error));
    }

private:
    QTemporaryDir m_files;
};

QTEST_GUILESS_MAIN(tst_Story)
#include "tst_story.moc"
