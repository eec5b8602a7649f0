// SPDX-License-Identifier: Apache-2.0
// EventLogModel under QAbstractItemModelTester: appends become rows once per frame, in order,
// with monotonic times; the filter; JSON lines and CSV exports of what the filter keeps; the
// capacity, beyond which the oldest events and their rows go.
#include "eventlogmodel.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

using namespace QEtcd;

class tst_EventLogModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void appendsBatchPerFrame()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        const qint64 before = EventLogModel::monotonicNowMs();
        model.append(QStringLiteral("A"), QStringLiteral("acquired"), QStringLiteral("token 12"));
        model.append(QStringLiteral("A"), QStringLiteral("leaseExpired"), QStringLiteral("lease 1f"));
        model.append(QStringLiteral("B"), QStringLiteral("barrierLifted"), QStringLiteral("/gate"), true);
        QCOMPARE(model.rowCount(), 0);  // not before the frame
        QTRY_COMPARE(model.rowCount(), 3);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(model.index(0).data(EventLogModel::KindRole).toString(), QStringLiteral("acquired"));
        QCOMPARE(model.index(2).data(EventLogModel::SpuriousRole).toBool(), true);
        const qint64 first = model.index(0).data(EventLogModel::TimeRole).toLongLong();
        QVERIFY(first >= before && first <= EventLogModel::monotonicNowMs());
        QVERIFY(model.index(2).data(EventLogModel::TimeRole).toLongLong() >= first);
    }

    void filterAndExports()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.append({100, QStringLiteral("A"), QStringLiteral("acquired"), QStringLiteral("a, \"quoted\""), false, {}});
        model.append({200, QStringLiteral("B"), QStringLiteral("lost"), QStringLiteral("lease gone"), false, {}});
        model.append({300, QStringLiteral("A"), QStringLiteral("released"), QString(), false, {}});
        model.setFilter(QStringLiteral("a"));  // participant A twice; "lease gone" has an a too
        QCOMPARE(model.rowCount(), 3);
        model.setFilter(QStringLiteral("LOST"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0).data(EventLogModel::ParticipantRole).toString(), QStringLiteral("B"));
        // New events go through the same filter.
        model.append({400, QStringLiteral("C"), QStringLiteral("acquired"), QString(), false, {}});
        model.append({500, QStringLiteral("C"), QStringLiteral("lost"), QString(), false, QStringLiteral("/locks/c")});
        QTRY_COMPARE(model.rowCount(), 2);

        model.setFilter(QStringLiteral("A"));
        QTemporaryDir dir;
        QVERIFY(model.exportJsonLines(dir.filePath(QStringLiteral("log.jsonl"))));
        QFile jsonl(dir.filePath(QStringLiteral("log.jsonl")));
        QVERIFY(jsonl.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = jsonl.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), model.rowCount());
        const QJsonObject firstLine = QJsonDocument::fromJson(lines.first()).object();
        QCOMPARE(firstLine.value("mono_ms").toInteger(), 100);
        QCOMPARE(firstLine.value("detail").toString(), QStringLiteral("a, \"quoted\""));

        model.setFilter(QStringLiteral("released"));
        QVERIFY(model.exportCsv(dir.filePath(QStringLiteral("log.csv"))));
        QFile csv(dir.filePath(QStringLiteral("log.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll(), QByteArray("mono_ms,participant,kind,detail,spurious,key\n300,A,released,,false,\n"));
        model.setFilter(QStringLiteral("acquired"));
        QVERIFY(model.toCsv().contains("100,A,acquired,\"a, \"\"quoted\"\"\",false,\n"));
        // The key is matched by the filter and exported beside the detail.
        model.setFilter(QStringLiteral("/locks/c"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0).data(EventLogModel::KeyRole).toString(), QStringLiteral("/locks/c"));
        QVERIFY(model.toJsonLines().contains("\"key\":\"/locks/c\""));

        // A file that cannot be written says so and leaves nothing behind.
        QVERIFY(!model.exportCsv(dir.filePath(QStringLiteral("missing/dir/log.csv"))));
        QVERIFY(model.errorString().contains(QLatin1String("missing/dir/log.csv")));
    }

    void capacityDropsTheOldest()
    {
        EventLogModel model;
        QCOMPARE(model.capacity(), EventLogModel::DefaultCapacity);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &EventLogModel::eventsChanged);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.setCapacity(5);
        model.setFilter(QStringLiteral("B"));
        const auto pending = [&model](int from, int to, bool everyOther) {
            for (int i = from; i <= to; ++i) {
                const QString participant = everyOther && i % 2 ? QStringLiteral("A") : QStringLiteral("B");
                model.append({i * 100, participant, QStringLiteral("pending"), {}, false, {}});
            }
        };
        pending(1, 4, true);
        QTRY_COMPARE(model.rowCount(), 2);  // B at 200 and 400
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.firstSequence(), 0);
        QCOMPARE(model.endSequence(), 4);

        // Four more: the three oldest go, and the row of the one the filter kept with them.
        pending(5, 8, true);
        QTRY_COMPARE(changed.size(), 2);
        QCOMPARE(model.firstSequence(), 3);
        QCOMPARE(model.endSequence(), 8);
        QCOMPARE(model.eventAt(3).monotonicMs, 400);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(model.rowCount(), 3);  // B at 400, 600 and 800
        QCOMPARE(model.index(0).data(EventLogModel::TimeRole).toLongLong(), 400);
        QCOMPARE(model.events().size(), 5);

        // More than the capacity within one frame: those dropped before the frame never become rows.
        pending(9, 20, false);
        QTRY_COMPARE(model.firstSequence(), 15);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.index(0).data(EventLogModel::TimeRole).toLongLong(), 1600);

        // A smaller capacity drops at once; clear() empties the log and counts on.
        model.setCapacity(2);
        QCOMPARE(model.firstSequence(), 18);
        QCOMPARE(model.rowCount(), 2);
        model.clear();
        QCOMPARE(model.firstSequence(), 20);
        QCOMPARE(model.endSequence(), 20);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_EventLogModel)
#include "tst_eventlogmodel.moc"
