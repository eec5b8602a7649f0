// SPDX-License-Identifier: Apache-2.0
// The revision-to-time map `qetcd record` keeps and `qetcd history --map` reads: what a file
// says, what it refuses (naming the line), and between which two samples a revision falls.
#include <QEtcd/revisiontimes.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace QEtcd;

class tst_RevisionTimes : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString file(const QByteArray &contents)
    {
        static int count = 0;
        const QString path = m_dir.filePath(QStringLiteral("map-%1").arg(++count));
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly) || out.write(contents) != contents.size())
            qWarning() << "cannot write" << path;
        return path;
    }

private Q_SLOTS:
    void boundsFallBetweenTheSamplesAroundAChange()
    {
        Status status;
        // 10 until 1000 ms, then 12 by 2000 ms (11 and 12 came in between), 12 until 5000, 20 by 6000.
        const RevisionTimes times = RevisionTimes::load(file("1000 10\n2000 12\n\n5000 12\n6000 20\n"), &status);
        QCOMPARE(status, Status());
        QCOMPARE(times.samples().size(), 4);

        RevisionTimes::Bounds eleven = times.bounds(11);
        QCOMPARE(eleven.afterMs, 1000);
        QCOMPARE(eleven.byMs, 2000);
        QVERIFY(eleven.isKnown());
        QCOMPARE(times.bounds(12).byMs, 2000);
        QCOMPARE(times.bounds(13).afterMs, 5000);
        QCOMPARE(times.bounds(13).byMs, 6000);
        // Older than every sample: only an upper bound; newer than every one: only a lower.
        QCOMPARE(times.bounds(5).afterMs, -1);
        QCOMPARE(times.bounds(5).byMs, 1000);
        QCOMPARE(times.bounds(21).afterMs, 6000);
        QCOMPARE(times.bounds(21).byMs, -1);
        QVERIFY(!times.bounds(21).isKnown());

        QCOMPARE(times.revisionAt(999), 0);
        QCOMPARE(times.revisionAt(1000), 10);
        QCOMPARE(times.revisionAt(5500), 12);
        QCOMPARE(times.revisionAt(99999), 20);
    }

    void badFilesAreRefusedNamingTheLine_data()
    {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("message");
        QTest::newRow("words") << QByteArray("1000 10\nyesterday 11\n") << QStringLiteral("line 2: expected");
        QTest::newRow("three fields") << QByteArray("1000 10 x\n") << QStringLiteral("line 1: expected");
        QTest::newRow("revision 0") << QByteArray("1000 0\n") << QStringLiteral("line 1: expected");
        QTest::newRow("clock set back") << QByteArray("2000 10\n1000 11\n") << QStringLiteral("line 2: the time goes back");
        QTest::newRow("another cluster") << QByteArray("1000 90\n2000 3\n")
                                         << QStringLiteral("line 2: revision 3 after 90: samples of another cluster?");
    }
    void badFilesAreRefusedNamingTheLine()
    {
        QFETCH(QByteArray, contents);
        QFETCH(QString, message);
        Status status;
        const QString path = file(contents);
        const RevisionTimes times = RevisionTimes::load(path, &status);
        QCOMPARE(status.code(), StatusCode::InvalidArgument);
        QVERIFY2(status.message().startsWith(path + QLatin1Char(' ')) && status.message().contains(message),
                 qPrintable(status.message()));
        QVERIFY(times.samples().isEmpty());
    }

    void aMissingFileIsNotFound()
    {
        Status status;
        RevisionTimes::load(m_dir.filePath(QStringLiteral("absent")), &status);
        QCOMPARE(status.code(), StatusCode::NotFound);
    }
};

QTEST_GUILESS_MAIN(tst_RevisionTimes)
#include "tst_revisiontimes.moc"
