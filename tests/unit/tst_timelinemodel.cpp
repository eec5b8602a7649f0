// SPDX-License-Identifier: Apache-2.0
// TimelineModel over an EventLogModel (under QAbstractItemModelTester): lanes in first-seen
// order with members last; fault and member bands; both moments of a loss and the margin
// between them, either way round; the markers and lease lines it gives the trace layer, the window's only; the
// whole log shown at once, paused, with room at both ends; leases sampled from a participant
// while it lives; a live window sliding over a wider chart; and what the log's capacity takes
// with it.
#include "timelinemodel.h"

#include <QtCharts/QValueAxis>
#include <QtCore/QRegularExpression>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

#include <algorithm>

using QEtcd::EventLogModel;

namespace {
// The synthetic log's start, in monotonic ms: well before now. On a machine up for less than
// 1,000 s that is before boot, a negative time, which the model takes like any other.
const qint64 T = EventLogModel::monotonicNowMs() - 1000000;

EventLogModel::Event logged(qint64 at, const QString &participant, const QString &kind, const QString &detail = {},
                           const QString &key = {})
{
    return {T + at, participant, kind, detail, false, key};
}
// A timeline with the axis a page's chart gives it.
struct ChartedTimeline
{
    EventLogModel log;
    TimelineModel timeline;
    QValueAxis axis;

    ChartedTimeline()
    {
        timeline.setEventLog(&log);
        timeline.setTimeAxis(&axis);
    }
};

// What watchLease() samples of a participant.
void setLease(QObject &participant, int timeLeftMs, int ttlSeconds)
{
    participant.setProperty("leaseTimeLeft", timeLeftMs);
    participant.setProperty("leaseTtl", ttlSeconds);
}
} // namespace

class tst_TimelineModel : public QObject
{
    Q_OBJECT

private:
    // The lock-partition story of the console's brief, and a member paused meanwhile; from T, or
    // from another start.
    static void appendPartition(EventLogModel &log, qint64 start = T)
    {
        const auto logged = [start](qint64 at, const QString &participant, const QString &kind, const QString &detail = {},
                                    const QString &key = {}) { return ::logged(at + start - T, participant, kind, detail, key); };
        log.append(logged(0, "A", "acquired", "token 12", "/locks/k/a"));
        log.append(logged(500, "scenario", "step", "A is cut off"));
        log.append(logged(1000, "A", "fault", "blackhole"));
        log.append(logged(2000, "m1", "memberPaused"));
        log.append(logged(3000, "A", "leaseSuspended", "lease 1f", "/locks/k/a"));
        log.append(logged(4000, "m1", "memberResumed"));
        log.append(logged(5000, "etcd", "keyPut", {}, "/locks/k/b"));
        log.append(logged(6000, "A", "lost", {}, "/locks/k/a"));
        log.append(logged(6730, "etcd", "keyDeleted", {}, "/locks/k/a"));
        log.append(logged(7000, "B", "acquired", "token 19", "/locks/k/b"));
        log.append(logged(9000, "A", "fault", "pass"));
        log.append(logged(9500, "A", "releaseFailed", "unlock() said false", "/locks/k/a"));
    }

    static QStringList glyphsOf(const TimelineModel &timeline, const QString &lane)
    {
        QStringList glyphs;
        const int row = int(timeline.lanes().indexOf(lane));
        for (const auto &marker : timeline.markers()) {
            if (timeline.rowOfLane(marker.lane) == row)
                glyphs.append(timeline.glyphs().at(marker.glyph));
        }
        return glyphs;
    }

private Q_SLOTS:
    void lanesBandsAndTheLoss()
    {
        EventLogModel log;
        QAbstractItemModelTester tester(&log, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TimelineModel timeline;
        timeline.setEventLog(&log);
        appendPartition(log);
        QTRY_COMPARE(timeline.eventCount(), 12);

        // m1 was seen before B, but members come after participants; etcd and the scenario are no lane.
        QCOMPARE(timeline.lanes(), QStringList({"A", "B", "m1"}));
        QCOMPARE(timeline.memberLaneCount(), 1);
        QCOMPARE(glyphsOf(timeline, "A"),
                 QStringList({"acquired", "leaseSuspended", "lost", "keyDeleted", "releaseFailed"}));
        QCOMPARE(glyphsOf(timeline, "B"), QStringList({"acquired"}));
        QCOMPARE(glyphsOf(timeline, "m1"), QStringList({"memberPaused", "memberResumed"}));
        QCOMPARE(timeline.markerCount(), 8);

        const auto bands = timeline.bands();
        QCOMPARE(bands.size(), 2);
        QCOMPARE(timeline.rowOfLane(bands[0].lane), 2);  // m1's pause closed first
        QCOMPARE(bands[0].startMs, T + 2000);
        QCOMPARE(bands[0].endMs, T + 4000);
        QCOMPARE(bands[0].label, QStringLiteral("paused"));
        QCOMPARE(timeline.rowOfLane(bands[1].lane), 0);
        QCOMPARE(bands[1].startMs, T + 1000);
        QCOMPARE(bands[1].endMs, T + 9000);
        QCOMPARE(bands[1].label, QStringLiteral("blackhole"));

        const auto losses = timeline.losses();
        QCOMPARE(losses.size(), 1);
        QCOMPARE(timeline.rowOfLane(losses[0].lane), 0);
        QCOMPARE(losses[0].key, QStringLiteral("/locks/k/a"));
        QCOMPARE(losses[0].knewMs, T + 6000);
        QCOMPARE(losses[0].deletedMs, T + 6730);
        QCOMPARE(losses[0].marginMs(), 730);

        // What the page draws over the chart, for a window over the whole story.
        timeline.setFollowing(false);
        timeline.setWindowLength(20);
        timeline.setWindowEnd(15);  // not before the log's start, but for a glyph's width (14 of 800 pixels)
        QCOMPARE(timeline.windowEnd(), 19.65);
        QCOMPARE(timeline.windowStart(), -0.35);
        const auto visibleLosses = timeline.visibleLosses();
        QCOMPARE(visibleLosses.size(), 1);
        QCOMPARE(visibleLosses[0].row, 0);
        QCOMPARE(visibleLosses[0].knew, 6.0);
        QCOMPARE(visibleLosses[0].deleted, 6.73);
        QCOMPARE(visibleLosses[0].margin, QStringLiteral("0.73 s"));
        QCOMPARE(visibleLosses[0].late, false);
        const auto visibleBands = timeline.visibleBands();
        QCOMPARE(visibleBands.size(), 2);
        QCOMPARE(visibleBands[0].row, 2);
        QCOMPARE(visibleBands[0].start, 2.0);
        QCOMPARE(visibleBands[0].end, 4.0);
        // A later window shows neither the pause nor the loss.
        timeline.setWindowLength(5);
        timeline.setWindowEnd(14);
        QCOMPARE(timeline.visibleBands().size(), 1);
        QVERIFY(timeline.visibleLosses().isEmpty());
        QCOMPARE(timeline.legendGlyphs(), QStringList({"acquired", "lost", "releaseFailed", "leaseSuspended", "keyDeleted",
                                                        "memberPaused", "memberResumed"}));
    }

    void lossesEitherWayRoundAndReleases()
    {
        EventLogModel log;
        TimelineModel timeline;
        timeline.setEventLog(&log);
        // etcd deletes C's key before C knows: the margin is negative.
        log.append(logged(0, "C", "elected", {}, "/election/c"));
        log.append(logged(1000, "etcd", "keyDeleted", {}, "/election/c"));
        log.append(logged(1400, "C", "leadershipLost"));  // no key: the one it was elected with
        // D releases; etcd's deletion of its key is the release's own, whichever comes first.
        log.append(logged(2000, "D", "acquired", {}, "/locks/d"));
        log.append(logged(3000, "etcd", "keyDeleted", {}, "/locks/d"));
        log.append(logged(3010, "D", "released", {}, "/locks/d"));
        // A deletion of a key nobody holds.
        log.append(logged(3500, "etcd", "keyDeleted", {}, "/elsewhere"));
        // E is cut off with a delay and never healed: its band is still open.
        log.append(logged(4000, "E", "fault", "delay 300 ms"));
        QTRY_COMPARE(timeline.eventCount(), 8);

        QCOMPARE(timeline.lanes(), QStringList({"C", "D", "E"}));
        const auto losses = timeline.losses();
        QCOMPARE(losses.size(), 1);
        QCOMPARE(losses[0].marginMs(), -400);
        QCOMPARE(glyphsOf(timeline, "C"), QStringList({"elected", "keyDeleted", "leadershipLost"}));
        QCOMPARE(glyphsOf(timeline, "D"), QStringList({"acquired", "released"}));

        const auto bands = timeline.bands();
        QCOMPARE(bands.size(), 1);
        QCOMPARE(bands[0].endMs, -1);
        QCOMPARE(bands[0].label, QStringLiteral("delay 300 ms"));

        timeline.setFollowing(false);
        timeline.setWindowLength(10);
        timeline.setWindowEnd(5);
        QCOMPARE(timeline.visibleLosses().first().margin, QStringLiteral("0.40 s late"));
        QCOMPARE(timeline.visibleLosses().first().late, true);
        const auto band = timeline.visibleBands().first();
        QCOMPARE(band.kind, QStringLiteral("delay"));
        QCOMPARE(band.end, timeline.logEnd());  // open: until now
    }

    // CLOCK_MONOTONIC counts from boot: a loss told at 0 ms, or before (a log merged from another
    // machine's clock), is as much a loss as one told an hour later.
    void aLossAtOrBeforeTheClocksStartIsALoss_data()
    {
        QTest::addColumn<qint64>("knewMs");
        QTest::newRow("at the clock's start") << qint64(0);
        QTest::newRow("before it") << qint64(-5000);
        QTest::newRow("after it") << qint64(5000);
    }

    void aLossAtOrBeforeTheClocksStartIsALoss()
    {
        QFETCH(qint64, knewMs);
        EventLogModel log;
        TimelineModel timeline;
        timeline.setEventLog(&log);
        log.append({knewMs - 1000, "A", "acquired", {}, false, "/locks/a"});
        log.append({knewMs, "A", "lost", {}, false, "/locks/a"});
        log.append({knewMs + 250, "etcd", "keyDeleted", {}, false, "/locks/a"});
        QTRY_COMPARE(timeline.eventCount(), 3);

        const auto losses = timeline.losses();
        QCOMPARE(losses.size(), 1);
        QCOMPARE(losses[0].knewMs, knewMs);
        QCOMPARE(losses[0].marginMs(), 250);
        QCOMPARE(glyphsOf(timeline, "A"), QStringList({"acquired", "lost", "keyDeleted"}));
        QCOMPARE(log.events().constFirst().monotonicMs, knewMs - 1000);  // kept, not stamped now
    }

    void markersOfTheWindowOnly()
    {
        EventLogModel log;
        TimelineModel timeline;
        timeline.setEventLog(&log);
        appendPartition(log);
        QTRY_COMPARE(timeline.eventCount(), 12);
        const auto at = [&timeline](double start, double end, double secondsPerPixel, const QString &glyph) {
            QList<QPointF> points;  // (time, row)
            for (const auto &marker : timeline.visibleMarkers(start, end, secondsPerPixel)) {
                if (timeline.glyphs().at(marker.glyph) == glyph)
                    points.append({marker.at, double(marker.row)});
            }
            return points;
        };
        // 10 s over 1000 pixels: every marker. A: row 0, B: row 1.
        QCOMPARE(at(0, 10, 0.01, "acquired"), QList<QPointF>({{0.0, 0}, {7.0, 1}}));
        QCOMPARE(at(0, 10, 0.01, "lost"), QList<QPointF>({{6.0, 0}}));
        QCOMPARE(at(7, 12, 0.005, "acquired"), QList<QPointF>({{7.0, 1}}));
        QVERIFY(at(7, 12, 0.005, "lost").isEmpty());

        // Of a lane's glyphs of one kind, the first in each half a glyph's width stands for the
        // rest, whichever range is asked for (the layer asks tile by tile).
        log.append(logged(9600, "A", "leaseSuspended"));
        log.append(logged(9650, "A", "leaseSuspended"));
        log.append(logged(9700, "B", "leaseSuspended"));
        QTRY_COMPARE(timeline.eventCount(), 15);
        // 0.1 s a pixel: 0.7 s a half glyph, the halves from 9.1 s to 9.8 s.
        QCOMPARE(at(0, 20, 0.1, "leaseSuspended"), QList<QPointF>({{3.0, 0}, {9.6, 0}, {9.7, 1}}));
        QCOMPARE(at(9.62, 20, 0.1, "leaseSuspended"), QList<QPointF>({{9.7, 1}}));
        QCOMPARE(at(9.6, 20, 0.1, "leaseSuspended"), QList<QPointF>({{9.6, 0}, {9.7, 1}}));
    }

    // Markers of one lane that would cover one another stand on the lane's levels (its middle,
    // below, above), the same whichever range is asked for: tiles that meet draw a glyph whole.
    void crowdedMarkersStandApartWhateverTheRangeAsked()
    {
        EventLogModel log;
        TimelineModel timeline;
        timeline.setEventLog(&log);
        log.append(logged(0, "B", "acquired"));
        log.append(logged(1000, "A", "pending"));
        log.append(logged(1000, "A", "acquired"));
        log.append(logged(1000, "B", "lost"));
        log.append(logged(1050, "A", "leaseSuspended"));
        log.append(logged(1100, "A", "error"));
        log.append(logged(2000, "A", "lost"));
        QTRY_COMPARE(timeline.eventCount(), 7);
        // 0.01 s a pixel: a glyph is 140 ms wide.
        const auto levels = [&timeline](double start, double end, double secondsPerPixel = 0.01) {
            QStringList placed;
            for (const auto &marker : timeline.visibleMarkers(start, end, secondsPerPixel)) {
                placed << QStringLiteral("%1 %2 %3@%4")
                              .arg(timeline.lanes().at(marker.row), timeline.glyphs().at(marker.glyph))
                              .arg(marker.at)
                              .arg(marker.level);
            }
            return placed;
        };
        // Both at 1 s on the middle and below it; the suspension above them; the error, with all
        // three taken, where the first freed (it covers part of the pair, not the suspension);
        // B's loss at 1 s on its own lane's middle; A's later loss on the middle again.
        const QStringList whole{"B acquired 0@0",  "A pending 1@0",        "A acquired 1@1", "B lost 1@0",
                                "A leaseSuspended 1.05@2", "A error 1.1@0", "A lost 2@0"};
        QCOMPARE(levels(0, 3), whole);
        // Asked from inside the crowd, as a tile starting there would: the same levels.
        QCOMPARE(levels(1.04, 3), whole.mid(4));
        QCOMPARE(levels(1.09, 1.2), whole.mid(5, 1));
        // Zoomed in so far that only the pair at the same moment touches: the rest on the middle.
        QCOMPARE(levels(0, 3, 0.0001).filter(QRegularExpression(QStringLiteral("@[12]$"))), QStringList{"A acquired 1@1"});
    }

    void wholeLogAtOncePausedWithRoomAtBothEnds()
    {
        ChartedTimeline charted;
        auto &[log, timeline, axis] = charted;
        // The story ended just now, and A's lease is still drawn.
        appendPartition(log, EventLogModel::monotonicNowMs() - 10000);
        QTRY_COMPARE(timeline.eventCount(), 12);
        QObject participant;
        setLease(participant, 7500, 10);
        timeline.watchLease("A", &participant);
        timeline.setPlotWidth(1000);
        QVERIFY(timeline.isFollowing());
        timeline.refresh();
        QCOMPARE(timeline.windowLength(), 60.0);

        // As a scenario's end shows it: the whole story, at once, and no longer live.
        QSignalSpy following(&timeline, &TimelineModel::followingChanged);
        QSignalSpy window(&timeline, &TimelineModel::windowChanged);
        timeline.showWholeLog();
        QVERIFY(!timeline.isFollowing());
        QCOMPARE(following.count(), 1);
        QCOMPARE(window.count(), 1);
        QVERIFY(timeline.isWholeLogShown());
        // The axis moved in the same call, to the chart's span: the window with room either side,
        // as much as it is long again and a half.
        QCOMPARE(axis.min(), timeline.chartStart());
        QCOMPARE(axis.max(), timeline.chartStart() + timeline.chartLength());
        QCOMPARE_LE(qAbs(timeline.chartLength() - timeline.windowLength() * TimelineModel::ChartSpan), 0.001);
        QCOMPARE_LT(axis.min(), timeline.windowStart());
        QCOMPARE_GT(axis.max(), timeline.windowEnd());
        // A's lease, watched since the story ended, is drawn from then on; before, nothing is known.
        const auto line = timeline.leaseLine(int(timeline.lanes().indexOf("A")), axis.min(), axis.max(),
                                             timeline.chartLength() / 1000);
        QCOMPARE_GE(line.size(), 3);
        QCOMPARE(line.at(0), QPointF(axis.min(), 0));
        QCOMPARE(line.at(1).y(), 0.0);
        QCOMPARE_GE(line.at(1).x(), timeline.logEnd() - 1);
        QCOMPARE(line.last().y(), 0.75);
        // EdgePixels (14) of 1000 at each end: the first and the last glyphs are whole.
        const double secondsPerPixel = timeline.windowLength() / 1000;
        const double span = timeline.logEnd() - timeline.logStart();
        QCOMPARE_LE(qAbs(timeline.windowLength() - span * 1000 / (1000 - 2 * 14)), 0.01);
        QCOMPARE_GE((timeline.logStart() - timeline.windowStart()) / secondsPerPixel, 13.0);
        QCOMPARE_GE((timeline.windowEnd() - timeline.logEnd()) / secondsPerPixel, 13.0);
        const auto markers = timeline.visibleMarkers(timeline.windowStart(), timeline.windowEnd(), secondsPerPixel);
        QCOMPARE(markers.size(), 8);
        QCOMPARE_GE((markers.first().at - timeline.windowStart()) / secondsPerPixel, TimelineModel::MarkerPixels / 2.0);
        QCOMPARE_GE((timeline.windowEnd() - markers.last().at) / secondsPerPixel, TimelineModel::MarkerPixels / 2.0);

        // Paused, it stays (no follow step moves it on); the slider reaches both ends of it.
        const double start = timeline.windowStart();
        const double end = timeline.windowEnd();
        QTest::qWait(150);
        QCOMPARE(timeline.windowStart(), start);
        QCOMPARE(timeline.windowEnd(), end);
        QCOMPARE_LE(timeline.earliestWindowEnd(), end);
        QCOMPARE_GE(timeline.latestWindowEnd(), end);
        // Zoomed, it is a window like any other; live again, it follows now.
        timeline.zoom(0.5);
        QVERIFY(!timeline.isWholeLogShown());
        timeline.showWholeLog();
        QVERIFY(timeline.isWholeLogShown());
        timeline.setFollowing(true);
        QVERIFY(!timeline.isWholeLogShown());
        QCOMPARE(timeline.windowEnd(), timeline.logEnd());
    }

    void leasesAreSampledWhileTheParticipantLives()
    {
        EventLogModel log;
        TimelineModel timeline;
        timeline.setEventLog(&log);
        auto *participant = new QObject;
        setLease(*participant, 7500, 10);
        timeline.watchLease("A", participant);
        QCOMPARE(timeline.lanes(), QStringList({"A"}));
        QCOMPARE(timeline.leaseSamples(0).size(), 1);
        QCOMPARE(timeline.leaseSamples(0).first().fraction, 0.75f);
        // A lease that does not change is its first sample and its last, however long it is watched.
        QTRY_VERIFY(timeline.leaseSamples(0).last().ms >= timeline.leaseSamples(0).first().ms + 600);
        QCOMPARE(timeline.leaseSamples(0).size(), 2);

        // A second call for the lane replaces the source.
        QObject replacement;
        setLease(replacement, 2000, 10);
        timeline.watchLease("A", &replacement);
        QCOMPARE(timeline.leaseSamples(0).last().fraction, 0.2f);
        delete participant;  // the first source no longer matters

        // Its line: the samples in their order, inside the lane's 0 to 1.
        const QList<QPointF> line = timeline.leaseLine(0, 0, timeline.logEnd() + 1, 0.0001);
        QCOMPARE_GE(line.size(), 2);
        QCOMPARE(line.first().y(), 0.75);
        QCOMPARE(line.last().y(), double(0.2f));
        for (const QPointF &point : line)
            QVERIFY2(point.y() >= 0 && point.y() <= 1, qPrintable(QString::number(point.y())));
        // All in one bucket (two pixels), the line keeps the lowest and the highest, in their order.
        QCOMPARE(timeline.leaseLine(0, 0, timeline.logEnd() + 1, 1000), QList<QPointF>({line.first(), line.last()}));

        // Its participant gone, the line drops to nothing at its last sample, and says so.
        auto *last = new QObject;
        setLease(*last, 1000, 10);
        timeline.watchLease("A", last);
        const double lastSample = timeline.leaseLine(0, 0, timeline.logEnd() + 1, 0.0001).last().x();
        QSignalSpy changed(&timeline, &TimelineModel::leaseLinesChanged);
        delete last;
        const double after = timeline.logEnd() + 1;
        QTRY_COMPARE(timeline.leaseLine(0, 0, after, 0.0001).last(), QPointF(after, 0));
        const auto ended = timeline.leaseLine(0, 0, after, 0.0001).last(3);
        QCOMPARE(ended.at(0).x(), lastSample);
        QCOMPARE(ended.at(0).y(), double(0.1f));
        QCOMPARE(ended.at(1), QPointF(lastSample, 0));
        QTRY_VERIFY(std::any_of(changed.cbegin(), changed.cend(), [lastSample](const QList<QVariant> &range) {
            return range.at(0).toDouble() <= lastSample && range.at(1).toDouble() >= lastSample;
        }));

        // Events of A come to the same lane.
        log.append(logged(0, "A", "acquired", {}, "/locks/a"));
        QTRY_COMPARE(timeline.markerCount(), 1);
        QCOMPARE(timeline.lanes(), QStringList({"A"}));
    }

    void aLiveWindowSlidesOverTheChart()
    {
        ChartedTimeline charted;
        auto &[log, timeline, axis] = charted;
        QObject participant;
        setLease(participant, 7500, 10);
        timeline.watchLease("A", &participant);
        timeline.setPlotWidth(1000);
        timeline.setWindowLength(TimelineModel::MinimumWindowSeconds);
        QVERIFY(timeline.isFollowing());
        timeline.refresh();

        // A step every 50 ms for three seconds: the window always inside the chart's span, which
        // is ranged again (the axis moved, Qt Charts paints it all) only when the window leaves it,
        // after half a window's length. The lease's new samples change its line at its end only
        // (a flat line, too, whose samples replace one another), so only the last tile is painted.
        QSignalSpy ranged(&axis, &QValueAxis::rangeChanged);
        QSignalSpy lines(&timeline, &TimelineModel::leaseLinesChanged);
        int steps = 0;
        bool inside = true;
        connect(&timeline, &TimelineModel::windowChanged, this, [&] {
            ++steps;
            inside = inside && timeline.windowStart() >= timeline.chartStart()
                && timeline.windowEnd() <= timeline.chartStart() + timeline.chartLength() + 1e-9
                && axis.min() == timeline.chartStart();
        });
        const double firstStart = timeline.windowStart();
        QTRY_VERIFY_WITH_TIMEOUT(timeline.windowStart() >= firstStart + 3, 20000);
        QVERIFY(inside);
        QCOMPARE_GE(steps, 20);
        QCOMPARE_GE(ranged.count(), 1);
        QCOMPARE_LE(ranged.count() * 5, steps);
        QCOMPARE_GE(lines.count(), 4);
        for (const auto &range : std::as_const(lines))
            QCOMPARE_LE(range.at(1).toDouble() - range.at(0).toDouble(), 1.5);
    }

    void capacityTakesMarkersBandsAndLossesAlong()
    {
        EventLogModel log;
        QAbstractItemModelTester tester(&log, QAbstractItemModelTester::FailureReportingMode::QtTest);
        log.setCapacity(12);
        TimelineModel timeline;
        timeline.setEventLog(&log);
        QSignalSpy markersChanged(&timeline, &TimelineModel::markersChanged);
        appendPartition(log);
        QTRY_COMPARE(timeline.eventCount(), 12);
        QCOMPARE(timeline.markerCount(), 8);
        QTRY_VERIFY(!markersChanged.isEmpty() && markersChanged.last().at(1).toDouble() == 9.5);
        markersChanged.clear();

        // Six newer events push the first six out: A's acquisition, its suspension and m1's
        // pause go; the pause's band, closed by m1's resume (also gone), goes with them.
        for (int i = 0; i < 6; ++i)
            log.append(logged(10000 + i * 100, "B", "released", {}, "/locks/k/b"));
        QTRY_COMPARE(log.firstSequence(), 6);
        QCOMPARE(timeline.eventCount(), 12);
        QCOMPARE(glyphsOf(timeline, "A"), QStringList({"lost", "keyDeleted", "releaseFailed"}));
        QCOMPARE(glyphsOf(timeline, "m1"), QStringList());
        QCOMPARE(timeline.bands().size(), 1);
        QCOMPARE(timeline.losses().size(), 1);
        QCOMPARE(timeline.lanes(), QStringList({"A", "B", "m1"}));  // lanes stay
        // The marker layer hears which markers went and which came (live, a little later: changes
        // are told PublishIntervalMs apart), told apart: the start of the history going is no
        // reason to paint again all that lies between it and the new ones.
        QTRY_VERIFY(!markersChanged.isEmpty() && markersChanged.last().at(1).toDouble() == 10.5);
        QCOMPARE(markersChanged.first().at(0).toDouble(), 0.0);
        for (const auto &range : std::as_const(markersChanged))
            QVERIFY(range.at(1).toDouble() < 10 || range.at(0).toDouble() >= 10);

        // Three more: the loss's both moments are gone, and so is the loss.
        for (int i = 0; i < 3; ++i)
            log.append(logged(11000 + i * 100, "B", "released", {}, "/locks/k/b"));
        QTRY_COMPARE(log.firstSequence(), 9);
        QCOMPARE(timeline.losses().size(), 0);
        QCOMPARE(glyphsOf(timeline, "A"), QStringList({"releaseFailed"}));
        QCOMPARE(timeline.bands().size(), 1);  // the blackhole's pass is still in the log

        // Cleared: nothing left, no lanes either.
        log.clear();
        QCOMPARE(timeline.eventCount(), 0);
        QCOMPARE(timeline.markerCount(), 0);
        QCOMPARE(timeline.bands().size(), 0);
        QVERIFY(timeline.lanes().isEmpty());
    }
};

QTEST_MAIN(tst_TimelineModel)
#include "tst_timelinemodel.moc"
