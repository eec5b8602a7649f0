// SPDX-License-Identifier: Apache-2.0
// StoryExport and TimelineSvg without a server: a scenario that could not start (it has no
// sandbox) is over, failed at its first step, and exports like a run that failed there. Two
// events of one lane at one moment are drawn apart, each with its title, and a band's name
// beside them rather than under them; the pictures take the
// look they are asked for, the page carries the other's colours for its reader; an export over
// an earlier one of a longer story removes that one's last pictures and nothing else; an export
// that fails leaves the earlier page as it was, and no file half-written.

#include "../common/picturechecks.h"
#include "sandbox.h"  // scenario.h's inline sandbox() converts its QPointer<Sandbox>
#include "scenario.h"
#include "storyexport.h"
#include "timelinemodel.h"
#include "timelinesvg.h"

#include <eventlogmodel.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtGui/QImage>
#include <QtTest/QtTest>

using QEtcd::EventLogModel;
using QEtcd::Testing::lightnessOf;

namespace {
// The synthetic log's start, in monotonic ms: well before now.
const qint64 T = EventLogModel::monotonicNowMs() - 1000000;

QByteArray contentsOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &contents)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size();
}

} // namespace

class tst_StoryExport : public QObject
{
    Q_OBJECT

private:
    // A scenario of a built-in story that failed at its first step, and a timeline of a log in
    // which alice acquires and releases at one moment, and bob acquires five seconds later.
    struct Run
    {
        EventLogModel log;
        TimelineModel timeline;
        Scenario scenario;
        StoryExport storyExport;

        explicit Run(const QString &story)
        {
            timeline.setEventLog(&log);
            log.append({T, QStringLiteral("alice"), QStringLiteral("acquired"), QStringLiteral("token 1"), false, QStringLiteral("/s/lock/a")});
            log.append({T, QStringLiteral("alice"), QStringLiteral("released"), QString(), false, QStringLiteral("/s/lock/a")});
            log.append({T + 5000, QStringLiteral("bob"), QStringLiteral("acquired"), QStringLiteral("token 2"), false, QStringLiteral("/s/lock/b")});
            scenario.setName(story);
            scenario.setEventLog(&log);
            scenario.start();  // no sandbox
            storyExport.setScenario(&scenario);
            storyExport.setTimeline(&timeline);
        }
    };

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_files.isValid()); }

    void markersAtOneMomentAreDrawnApart()
    {
        Run run(QStringLiteral("lock-partition"));
        QTRY_COMPARE(run.timeline.eventCount(), 3);
        run.timeline.refresh();
        const QString svg = TimelineSvg::picture(run.timeline, {});
        const qsizetype laneStart = svg.indexOf(QLatin1String("<g class=\"lane\" data-lane=\"alice\">"));
        QVERIFY(laneStart >= 0);
        const QString lane = svg.mid(laneStart, svg.indexOf(QLatin1String("<g class=\"lane\""), laneStart + 1) - laneStart);
        static const QRegularExpression marker(
            QStringLiteral("<g class=\"marker\"><title>([^<]*)</title><use xlink:href=\"#glyph-\\d+\" x=\"([\\d.]+)\" y=\"([\\d.]+)\"/>"));
        QList<QPointF> places;
        QStringList titles;
        for (auto match = marker.globalMatch(lane); match.hasNext();) {
            const QRegularExpressionMatch each = match.next();
            titles << each.captured(1);
            places << QPointF(each.captured(2).toDouble(), each.captured(3).toDouble());
        }
        QCOMPARE(places.size(), 2);
        QVERIFY2(titles.at(0).contains(QLatin1String("acquired")) && titles.at(1).contains(QLatin1String("released")),
                 qPrintable(titles.join(QLatin1String(" | "))));
        // Apart by a glyph at least, one way or the other: neither covers the other.
        const QPointF apart = places.at(1) - places.at(0);
        QVERIFY2(std::abs(apart.x()) >= TimelineModel::MarkerPixels || std::abs(apart.y()) >= TimelineModel::MarkerPixels,
                 qPrintable(QStringLiteral("%1,%2 and %3,%4").arg(places[0].x()).arg(places[0].y()).arg(places[1].x()).arg(places[1].y())));
        // Below the lane's middle rather than later than it happened.
        QCOMPARE(places.at(0).x(), places.at(1).x());
        QVERIFY(places.at(1).y() > places.at(0).y());
    }

    // A band's name goes right of markers in its corner, not under them.
    void aBandsNameKeepsClearOfTheMarkers()
    {
        // Ending about now: the picture runs to the log's end.
        const qint64 start = EventLogModel::monotonicNowMs() - 9000;
        EventLogModel log;
        TimelineModel timeline;
        timeline.setEventLog(&log);
        log.append({start, QStringLiteral("carol"), QStringLiteral("fault"), QStringLiteral("blackhole"), false, QString()});
        for (const QString &kind : {QStringLiteral("leaseSuspended"), QStringLiteral("error"), QStringLiteral("acquired")})
            log.append({start + 100, QStringLiteral("carol"), kind, QString(), false, QStringLiteral("/s/lock/c")});
        log.append({start + 8000, QStringLiteral("carol"), QStringLiteral("fault"), QStringLiteral("pass"), false, QString()});
        QTRY_COMPARE(timeline.eventCount(), 5);
        timeline.refresh();
        const QString svg = TimelineSvg::picture(timeline, {});
        const qsizetype laneStart = svg.indexOf(QLatin1String("<g class=\"lane\" data-lane=\"carol\">"));
        QVERIFY(laneStart >= 0);
        const QString lane = svg.mid(laneStart, svg.indexOf(QLatin1String("<g class=\"lane\""), laneStart + 1) - laneStart);
        static const QRegularExpression marker(QStringLiteral("<use xlink:href=\"#glyph-\\d+\" x=\"([\\d.]+)\" y=\"([\\d.]+)\"/>"));
        QList<QRectF> glyphs;
        for (auto match = marker.globalMatch(lane); match.hasNext();) {
            const QRegularExpressionMatch each = match.next();
            glyphs << QRectF(each.captured(1).toDouble(), each.captured(2).toDouble(), TimelineModel::MarkerPixels,
                             TimelineModel::MarkerPixels);
        }
        QCOMPARE(glyphs.size(), 3);
        static const QRegularExpression name(QStringLiteral("<text x=\"([\\d.]+)\" y=\"([\\d.]+)\"[^>]*>blackhole</text>"));
        const QRegularExpressionMatch label = name.match(lane);
        QVERIFY2(label.hasMatch(), qPrintable(lane));
        // The name's line, as wide as the glyphs' room for it: no glyph's box may reach into it.
        const double left = label.captured(1).toDouble();
        const double baseline = label.captured(2).toDouble();
        for (const QRectF &glyph : glyphs) {
            const bool sameLine = glyph.bottom() > baseline - 9 && glyph.top() < baseline;
            QVERIFY2(!sameLine || glyph.right() <= left,
                     qPrintable(QStringLiteral("glyph %1,%2 and the name at %3,%4").arg(glyph.x()).arg(glyph.y()).arg(left).arg(baseline)));
        }
    }

    void picturesTakeTheLookAskedForThePageBoth()
    {
        Run run(QStringLiteral("lock-partition"));
        QTRY_COMPARE(run.timeline.eventCount(), 3);
        QCOMPARE(run.scenario.state(), Scenario::State::Failed);
        QDir directory(m_files.filePath(QStringLiteral("looks")));
        QVERIFY(directory.mkpath(QStringLiteral(".")));

        QVERIFY2(run.storyExport.write(directory.filePath(QStringLiteral("light.html"))), qPrintable(run.storyExport.errorString()));
        run.storyExport.setDark(true);
        QVERIFY2(run.storyExport.write(directory.filePath(QStringLiteral("dark.html"))), qPrintable(run.storyExport.errorString()));
        const QImage light(directory.filePath(QStringLiteral("light-step-1.png")));
        const QImage dark(directory.filePath(QStringLiteral("dark-step-1.png")));
        QVERIFY(!light.isNull() && !dark.isNull());
        QVERIFY2(lightnessOf(light) > 0.8, qPrintable(QString::number(lightnessOf(light))));
        QVERIFY2(lightnessOf(dark) < 0.25, qPrintable(QString::number(lightnessOf(dark))));

        // The page follows its reader whatever the pictures' look: its timeline drawn light, with
        // both looks' lane colours, the dark ones under the media query.
        const QByteArray page = contentsOf(directory.filePath(QStringLiteral("dark.html")));
        const qsizetype darkRules = page.indexOf("@media (prefers-color-scheme: dark)");
        QVERIFY(darkRules > 0);
        QVERIFY(page.indexOf("svg.timeline .stripe { fill: #ffffff; }") > 0
                && page.indexOf("svg.timeline .stripe { fill: #19202a; }") > darkRules);
        QVERIFY(page.contains("class=\"stripe\" fill=\"#ffffff\""));
    }

    void aLongerEarlierExportsLastPicturesAreRemoved()
    {
        Run run(QStringLiteral("leader-death"));
        QTRY_COMPARE(run.timeline.eventCount(), 3);
        const int steps = run.scenario.stepCount();
        QVERIFY(steps > 1);
        QDir directory(m_files.filePath(QStringLiteral("stale")));
        QVERIFY(directory.mkpath(QStringLiteral(".")));
        const QString page = directory.filePath(QStringLiteral("story.html"));
        // An earlier export's pictures beyond this story's steps, and files only like them.
        const QStringList stale{QStringLiteral("story-step-%1.png").arg(steps + 1), QStringLiteral("story-step-%1.png").arg(steps + 10)};
        const QStringList kept{QStringLiteral("story-step-%1.png.orig").arg(steps + 1), QStringLiteral("story-step-0.png"),
                               QStringLiteral("story-step-0%1.png").arg(steps + 1), QStringLiteral("story-step-x.png"),
                               QStringLiteral("other-step-%1.png").arg(steps + 1), QStringLiteral("story.html-step-%1.png").arg(steps + 1),
                               QStringLiteral("my-story-step-%1.png").arg(steps + 1)};
        for (const QString &name : stale + kept)
            QVERIFY(writeFile(directory.filePath(name), "earlier"));

        QStringList expected;
        for (const QString &name : stale)
            expected << directory.filePath(name);
        QCOMPARE(run.storyExport.staleFilesFor(page), expected);
        QVERIFY2(run.storyExport.write(page), qPrintable(run.storyExport.errorString()));
        for (const QString &name : stale)
            QVERIFY2(!directory.exists(name), qPrintable(name));
        for (const QString &name : kept)
            QVERIFY2(directory.exists(name), qPrintable(name));
        for (int step = 1; step <= steps; ++step)
            QVERIFY(!QImage(directory.filePath(QStringLiteral("story-step-%1.png").arg(step))).isNull());
        QVERIFY(run.storyExport.staleFilesFor(page).isEmpty());
    }

    void aFailedExportLeavesTheEarlierPage()
    {
        Run run(QStringLiteral("leader-death"));
        QTRY_COMPARE(run.timeline.eventCount(), 3);
        QDir directory(m_files.filePath(QStringLiteral("failed")));
        QVERIFY(directory.mkpath(QStringLiteral(".")));
        const QString page = directory.filePath(QStringLiteral("story.html"));
        const QString stale = directory.filePath(QStringLiteral("story-step-%1.png").arg(run.scenario.stepCount() + 1));
        QVERIFY(writeFile(page, "the earlier page"));
        QVERIFY(writeFile(stale, "an earlier picture"));
        // A picture that cannot be written: a directory is where it goes.
        QVERIFY(directory.mkdir(QStringLiteral("story-step-2.png")));

        QSignalSpy written(&run.storyExport, &StoryExport::writtenChanged);
        QVERIFY(!run.storyExport.write(page));
        QCOMPARE(written.size(), 1);
        QVERIFY2(run.storyExport.errorString().contains(QLatin1String("story-step-2.png")), qPrintable(run.storyExport.errorString()));
        QVERIFY(run.storyExport.written().isEmpty());
        QCOMPARE(contentsOf(page), QByteArray("the earlier page"));
        QCOMPARE(contentsOf(stale), QByteArray("an earlier picture"));
        // Nothing half-written beside them: the page, the first picture, the two in the way.
        QStringList names = directory.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        names.sort();
        QCOMPARE(names, QStringList({QStringLiteral("story-step-1.png"), QStringLiteral("story-step-2.png"), QFileInfo(stale).fileName(),
                                     QStringLiteral("story.html")}));
    }

private:
    QTemporaryDir m_files;
};

QTEST_MAIN(tst_StoryExport)
#include "tst_storyexport.moc"
