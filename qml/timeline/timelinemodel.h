// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "eventlogmodel.h"

#include <QtCharts/QValueAxis>
#include <QtCore/QHash>
#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QPointF>
#include <QtCore/QPointer>
#include <QtCore/QTimer>
#include <QtCore/QVariantList>
#include <QtQml/qqmlregistration.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <optional>
#include <utility>

// The Timeline page's model: an EventLogModel read into swim lanes, one per participant and then
// one per sandbox member (a participant with member events), each in the order first seen; etcd's
// own events and a scenario's narration are no lane. Per lane:
// - each event as a marker (TimelineGlyphs names their looks);
// - faults as bands: a proxy fault (blackhole, "delay N ms", reset) until the next pass; a member
//   paused until resumed, killed or stopped until restarted; a band still open runs to now;
// - a loss drawn at both of its moments: the participant's lost / leadershipLost, and etcd's
//   keyDeleted of the key it held (its last acquired / elected), with the margin between them
//   (positive when the participant knew first);
// - its lease's time left, sampled from the object given to watchLease().
//
// It moves a ChartView's time axis with the window (setTimeAxis): Qt Charts draws the time grid.
// Qt Charts paints its whole scene again whenever the axis moves, which at every step of a live
// window was most of a frame's work: so the chart spans more than the window (chartStart,
// chartLength: ChartSpan windows) and the page slides it under the window, ranging it again only
// when the window leaves it or the scale changes. TimelineTraceLayer paints the markers
// (visibleMarkers: of a lane's glyphs of one kind, one per half a glyph's width) and the lease
// lines under them (leaseLine) in tiles, and TimelineLayer the bands and the losses; the page
// places the time labels. A lease line drawn as a chart series had Qt Charts paint its whole
// scene at every new sample. Times reach QML in seconds since the origin (the first event or
// lease sample since the log was last cleared).
//
// Following, the window ends now and moves on a pixel's worth of time at a time (at most 20
// times a second); paused, it stays where it is until scrolled or zoomed. showWholeLog() pauses
// on the whole log, with a glyph's width of air at both ends.
//
// Memory: markers, bands and losses go with the log's events (the log's capacity bounds them);
// each lane keeps at most MaxLeaseSamples samples of its lease, 4 a second, fewer where the
// lease runs down steadily (a sample on the line through the two before it replaces the one
// before): its last 30 minutes at least.
class TimelineModel : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    // Top to bottom: participants first, members after them.
    Q_PROPERTY(QStringList lanes READ lanes NOTIFY lanesChanged)
    Q_PROPERTY(int memberLaneCount READ memberLaneCount NOTIFY lanesChanged)
    // Every glyph name, and those the log has so far (the legend's).
    Q_PROPERTY(QStringList glyphs READ glyphs CONSTANT)
    Q_PROPERTY(QStringList legendGlyphs READ legendGlyphs NOTIFY legendGlyphsChanged)
    // Events read from the log (all of them, whatever its filter).
    Q_PROPERTY(int eventCount READ eventCount NOTIFY countsChanged)
    Q_PROPERTY(int markerCount READ markerCount NOTIFY countsChanged)
    Q_PROPERTY(int bandCount READ bandCount NOTIFY countsChanged)
    Q_PROPERTY(int lossCount READ lossCount NOTIFY countsChanged)

    // Whether the timeline is shown: inactive, it reads the log but draws nothing.
    Q_PROPERTY(bool active READ isActive WRITE setActive NOTIFY activeChanged)
    Q_PROPERTY(bool following READ isFollowing WRITE setFollowing NOTIFY followingChanged)
    Q_PROPERTY(double windowLength READ windowLength WRITE setWindowLength NOTIFY windowChanged)
    Q_PROPERTY(double windowEnd READ windowEnd WRITE setWindowEnd NOTIFY windowChanged)
    Q_PROPERTY(double windowStart READ windowStart NOTIFY windowChanged)
    // The time the chart's axis spans, in seconds since the origin: the window and more.
    Q_PROPERTY(double chartStart READ chartStart NOTIFY windowChanged)
    Q_PROPERTY(double chartLength READ chartLength NOTIFY windowChanged)
    Q_PROPERTY(double logStart READ logStart NOTIFY windowChanged)
    Q_PROPERTY(double logEnd READ logEnd NOTIFY windowChanged)
    Q_PROPERTY(double minimumWindow READ minimumWindow CONSTANT)
    Q_PROPERTY(double maximumWindow READ maximumWindow NOTIFY windowChanged)
    // How far back and on the window's end can be scrolled while paused (the slider's range).
    Q_PROPERTY(double earliestWindowEnd READ earliestWindowEnd NOTIFY windowChanged)
    Q_PROPERTY(double latestWindowEnd READ latestWindowEnd NOTIFY windowChanged)
    // Paused with every event in view (as showWholeLog leaves it).
    Q_PROPERTY(bool wholeLogShown READ isWholeLogShown NOTIFY windowChanged)
    // The plot's width in pixels: how many points are worth drawing, and how often to move on.
    Q_PROPERTY(double plotWidth READ plotWidth WRITE setPlotWidth NOTIFY plotWidthChanged)

    // Time labels: [{at, text}] at whole multiples of a round interval on the wall clock, where
    // the time axis draws its grid lines.
    Q_PROPERTY(QVariantList ticks READ ticks NOTIFY ticksChanged)

public:
    static constexpr int MaxLeaseSamples = 7200;
    static constexpr int LeaseSampleIntervalMs = 250;
    static constexpr int PublishIntervalMs = 50;
    static constexpr double ChartSpan = 1.5;
    static constexpr double MinimumWindowSeconds = 5;
    static constexpr double DefaultWindowSeconds = 60;
    static constexpr int MarkerPixels = 14;
    // The whole log's view leaves this much room at both ends, so the first and last glyphs are whole.
    static constexpr int EdgePixels = MarkerPixels;

    struct Marker
    {
        qint64 sequence;  // of its event in the log
        qint64 ms;
        int lane;  // a lane's id: its place in first-seen order, whatever its row
        int glyph;  // in TimelineGlyphs::all()
    };
    struct Band
    {
        int lane;
        qint64 startMs;
        qint64 endMs;  // -1 while open
        QString label;  // "blackhole", "delay 300 ms", "reset", "paused", "killed", "stopped"
        QString kind;   // blackhole, delay, reset, paused, down
        qint64 endSequence = -1;
    };
    struct Loss
    {
        int lane;
        QString key;
        // Both set once the loss is complete; any value is a valid time (CLOCK_MONOTONIC counts
        // from boot, and a log may hold events from before it, e.g. merged from elsewhere).
        qint64 knewMs = 0;     // the participant's lost / leadershipLost
        qint64 deletedMs = 0;  // etcd's keyDeleted
        qint64 lastSequence = -1;
        qint64 marginMs() const { return deletedMs - knewMs; }
    };
    // A marker as the marker layer draws it: its row, its time in seconds since the origin, and
    // its level in the row (TimelineGlyphs::MarkerLevels).
    struct VisibleMarker
    {
        int row;
        double at;
        int glyph;
        int level;
    };
    struct LeaseSample
    {
        qint64 ms;
        float fraction;  // of the lease's TTL left
    };
    // What TimelineLayer draws of a band or a loss in the window: its row, times in seconds since
    // the origin.
    struct VisibleBand
    {
        int row;
        double start;
        double end;  // now, while open
        QString label;
        QString kind;  // blackhole, delay, reset, paused, down
    };
    struct VisibleLoss
    {
        int row;
        double knew;
        double deleted;
        QString margin;  // "0.73 s", or "0.40 s late" when etcd deleted the key first
        bool late;
    };

    explicit TimelineModel(QObject *parent = nullptr);
    ~TimelineModel() override;
    Q_DISABLE_COPY_MOVE(TimelineModel)

    QEtcd::EventLogModel *eventLog() const { return m_log; }
    void setEventLog(QEtcd::EventLogModel *log);

    QStringList lanes() const;
    int memberLaneCount() const;
    QStringList glyphs() const;
    QStringList legendGlyphs() const;
    int eventCount() const;
    int markerCount() const { return int(m_markers.size()); }
    int bandCount() const;
    int lossCount() const { return int(m_losses.size()); }

    bool isActive() const { return m_active; }
    void setActive(bool active);
    bool isFollowing() const { return m_following; }
    void setFollowing(bool following);
    double windowLength() const { return m_windowLengthMs / 1000.0; }
    void setWindowLength(double seconds);
    double windowEnd() const { return seconds(m_windowEndMs); }
    void setWindowEnd(double seconds);  // stops following
    double windowStart() const { return seconds(m_windowEndMs - m_windowLengthMs); }
    double chartStart() const { return seconds(m_chartStartMs); }
    double chartLength() const { return m_chartLengthMs / 1000.0; }
    double logStart() const;
    double logEnd() const;
    double minimumWindow() const { return MinimumWindowSeconds; }
    double maximumWindow() const;
    double earliestWindowEnd() const { return seconds(earliestWindowEndMs()); }
    double latestWindowEnd() const { return seconds(latestWindowEndMs()); }
    bool isWholeLogShown() const;
    double plotWidth() const { return m_plotWidth; }
    void setPlotWidth(double pixels);

    QVariantList ticks() const { return m_ticks; }
    // The bands and losses from start to end (seconds since the origin), or in the window.
    QList<VisibleBand> visibleBands(double start, double end) const;
    QList<VisibleLoss> visibleLosses(double start, double end) const;
    QList<VisibleBand> visibleBands() const;
    QList<VisibleLoss> visibleLosses() const;
    // The markers worth drawing from start to end (seconds since the origin) at secondsPerPixel:
    // of a lane's glyphs of one kind, the first in every half a glyph's width, in time order. The
    // halves are counted from the origin, so which marker stands for its neighbours does not
    // depend on the times asked for (the marker layer asks tile by tile); nor does a marker's
    // level, which is counted from the last moment every lane's levels were free.
    QList<VisibleMarker> visibleMarkers(double start, double end, double secondsPerPixel) const;

    // Samples participant's leaseTimeLeft (ms) and leaseTtl (s) properties 4 times a second while
    // it lives, as lane's lease line; a later call for the lane replaces the source.
    Q_INVOKABLE void watchLease(const QString &lane, QObject *participant);
    // A row's lease line from start to end (seconds since the origin) at secondsPerPixel: points
    // of (seconds, fraction of the TTL left), the lowest and the highest sample of every two
    // pixels in their order, and the nearest beyond each end so that the line reaches both. The
    // two pixels are counted from the origin: asked tile by tile, the pieces join. Nothing is
    // known before the first sample, nor after the last once its participant is gone: there the
    // line runs at nothing.
    QList<QPointF> leaseLine(int row, double start, double end, double secondsPerPixel) const;
    // The chart's time axis (a ValueAxis): the model moves it with the window, in one step with
    // its grid, so the chart lays its series out once per step rather than once per bound.
    Q_INVOKABLE void setTimeAxis(QAbstractAxis *axis);
    // Scales the window by factor, keeping the moment at `anchor` (0 left .. 1 right) in place.
    Q_INVOKABLE void zoom(double factor, double anchor = 1.0);
    // Pauses on the whole log: its first event to its last (or now), a glyph's width in from the plot's edges.
    Q_INVOKABLE void showWholeLog();
    // Moves the window by pixels of the plot (positive: back in time); stops following.
    Q_INVOKABLE void scrollBy(double pixels);
    Q_INVOKABLE QString glyphTitle(const QString &glyph) const;
    Q_INVOKABLE QString glyphOf(const QString &kind, const QString &detail, bool spurious) const;
    // A monotonic time (an event's) as the wall clock read then: "05:41:10.734".
    Q_INVOKABLE QString clockText(qint64 monotonicMs) const;

    // What the lanes hold, for tests and the benchmark; a lane by its row in lanes().
    QList<Marker> markers() const { return {m_markers.cbegin(), m_markers.cend()}; }
    QList<Band> bands() const;  // closed ones first, by end; then the open ones
    QList<Loss> losses() const { return {m_losses.cbegin(), m_losses.cend()}; }
    QList<LeaseSample> leaseSamples(int row) const;
    int rowOfLane(int lane) const { return m_rowOfLane.value(lane, -1); }
    qint64 originMs() const { return m_originMs; }
    // Draws now rather than at the next frame (tests, the benchmark).
    void refresh();

Q_SIGNALS:
    void eventLogChanged();
    void lanesChanged();
    void legendGlyphsChanged();
    void countsChanged();
    void activeChanged();
    void followingChanged();
    void windowChanged();
    void plotWidthChanged();
    void ticksChanged();
    // Markers from `from` to `to` (seconds since the origin) came or went: the marker layer
    // repaints what it painted of them. Infinite both ways when the log was cleared. Live, this
    // and the other changes the log brings are told PublishIntervalMs apart at most often.
    void markersChanged(double from, double to);
    // Bands from `from` to `to` (seconds since the origin; to may be infinite: an open band is
    // drawn on to the end) came, changed or went: not an open band growing as time goes on.
    void bandsChanged(double from, double to);
    // A lease line changed from `from` to `to` (seconds since the origin): new samples, mostly,
    // told at most PublishIntervalMs apart like the markers.
    void leaseLinesChanged(double from, double to);
    // Losses from `from` to `to` (seconds since the origin) came or went. Infinite both ways
    // when the log was cleared.
    void lossesChanged(double from, double to);

private:
    // One side of a loss heard, waiting for the other: the participant told it (knew), or etcd
    // deleted the key first.
    struct PendingLoss
    {
        Loss loss;
        bool knew = false;
    };
    // The time from the earliest change to the latest, in ms; empty while from > to.
    struct ChangedTime
    {
        qint64 fromMs = std::numeric_limits<qint64>::max();
        qint64 toMs = std::numeric_limits<qint64>::min();
        void note(qint64 from, qint64 to)
        {
            fromMs = std::min(fromMs, from);
            toMs = std::max(toMs, to);
        }
        bool isEmpty() const { return fromMs > toMs; }
        ChangedTime take() { return std::exchange(*this, ChangedTime{}); }
    };
    // What of one kind changed since the last publishChanges(): where new ones came or changed,
    // and, told apart, where the log's capacity (or the lease samples' bound) took old ones. Told
    // as one span, the two reached from the start of the history to now, and every layer painted
    // all it showed again at every change once the log was full.
    struct Changes
    {
        ChangedTime recent;
        ChangedTime dropped;
        void reset() { *this = {}; }
    };
    struct Lane
    {
        QString name;
        bool member = false;
        QString heldKey;  // of its last acquired / elected, until released, resigned or its loss is paired
        std::optional<PendingLoss> pendingLoss;  // one moment of a loss, waiting for the other
        std::optional<Band> fault;  // open bands
        std::optional<Band> outage;
        QPointer<QObject> leaseSource;
        bool leaseWatched = false;  // as of the last sampling: its line ends there when the source goes
        std::deque<LeaseSample> samples;
    };

    double seconds(qint64 ms) const { return (ms - m_originMs) / 1000.0; }
    qint64 msOf(double at) const;
    qint64 nowMs() const;
    void reset();
    void readNewEvents();
    void ingest(const QEtcd::EventLogModel::Event &event, qint64 sequence);
    void ingestDeletion(const QEtcd::EventLogModel::Event &event, qint64 sequence);
    int laneFor(const QString &name, bool member);
    void rebuildRows();
    qint64 logStartMs() const;
    qint64 logEndMs() const;
    qint64 wholeLogEdgeMs() const;  // the whole log's room at each end
    qint64 windowEdgeMs() const;    // EdgePixels in the window as it is
    qint64 earliestWindowEndMs() const;
    qint64 latestWindowEndMs() const;
    void schedulePublish();
    void publishChanges();
    // Emits signal for changes' dropped span and then its recent one, each in seconds since the
    // origin (an end at the largest time: infinite).
    template<typename Signal>
    void publish(Changes &changes, Signal signal);
    void addMarker(qint64 sequence, qint64 ms, int lane, const QString &glyph);
    void openBand(std::optional<Band> &slot, Band band, qint64 sequence);
    void closeBand(std::optional<Band> &slot, qint64 ms, qint64 sequence);
    void completeLoss(Lane &lane);
    void dropBefore(qint64 sequence);
    void sampleLeases();
    void noteOrigin(qint64 ms);
    void scheduleRefresh();
    void updateFollowInterval();
    void clampWindow();
    bool placeChart(qint64 windowStartMs);
    void updateTicks(qint64 startMs, qint64 endMs);
    void moveTimeAxis(qint64 startMs, qint64 endMs);

    QPointer<QEtcd::EventLogModel> m_log;
    qint64 m_nextSequence = 0;  // the first event not read yet
    std::deque<Lane> m_lanes;  // by id
    QHash<QString, int> m_laneIds;  // by name
    QList<int> m_rowOfLane;
    QList<int> m_laneOfRow;
    std::deque<Marker> m_markers;  // by time
    std::deque<Band> m_bands;      // closed, by their end's sequence
    std::deque<Loss> m_losses;     // both moments known, by the later one's sequence
    QList<int> m_glyphCounts;      // markers per glyph, for the legend
    Changes m_markersChanged;
    Changes m_bandsChanged;
    Changes m_leaseLinesChanged;
    Changes m_lossesChanged;
    QStringList m_legendPublished;
    QPointer<QValueAxis> m_timeAxis;

    qint64 m_originMs = 0;
    bool m_hasOrigin = false;
    qint64 m_lastEventMs = std::numeric_limits<qint64>::min();
    qint64 m_nowMs = 0;  // as of the last refresh
    const qint64 m_wallOffsetMs;  // wall clock minus monotonic clock
    bool m_active = true;
    bool m_following = true;
    bool m_wholeLogShown = false;  // since showWholeLog, until the window is moved or zoomed
    qint64 m_windowEndMs = 0;
    qint64 m_windowLengthMs = qint64(DefaultWindowSeconds * 1000);
    double m_plotWidth = 800;

    // The chart's span, and what it was ranged for.
    qint64 m_chartStartMs = 0;
    qint64 m_chartLengthMs = 0;
    double m_chartPlotWidth = 0;
    qint64 m_chartOriginMs = 0;

    QVariantList m_ticks;
    qint64 m_tickIntervalMs = 10000;
    double m_tickAnchor = 0;

    QTimer m_frame;    // one refresh a frame at most, after a change
    QTimer m_publish;  // live, what changed is told at most PublishIntervalMs apart
    QTimer m_follow;   // moves the window on while following
    QTimer m_sampler;  // leases
};
