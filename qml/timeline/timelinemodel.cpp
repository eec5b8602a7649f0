// SPDX-License-Identifier: Apache-2.0
#include "timelinemodel.h"

#include "timelineglyphs.h"

#include <QtCore/QDateTime>
#include <QtCore/QLoggingCategory>

#include <algorithm>
#include <cmath>
#include <limits>

Q_LOGGING_CATEGORY(lcTimeline, "qetcd.console.timeline")

using QEtcd::EventLogModel;

namespace {

const QString Etcd = QStringLiteral("etcd");
const QString ScenarioParticipant = QStringLiteral("scenario");

bool isMemberKind(const QString &kind)
{
    return kind.startsWith(QLatin1String("member")) || kind == QLatin1String("leaderChanged");
}

// Time labels at least this far apart, in pixels: "05:41:10" and some air.
constexpr double TickSpacingPixels = 96;

} // namespace

TimelineModel::TimelineModel(QObject *parent)
    : QObject(parent),
      m_glyphCounts(TimelineGlyphs::all().size(), 0),
      m_wallOffsetMs(QDateTime::currentMSecsSinceEpoch() - EventLogModel::monotonicNowMs())
{
    m_frame.setSingleShot(true);
    m_frame.setInterval(std::chrono::milliseconds(16));
    m_publish.setSingleShot(true);
    m_publish.setInterval(std::chrono::milliseconds(PublishIntervalMs));
    connect(&m_publish, &QTimer::timeout, this, &TimelineModel::publishChanges);
    connect(&m_frame, &QTimer::timeout, this, &TimelineModel::refresh);
    connect(&m_follow, &QTimer::timeout, this, &TimelineModel::refresh);
    m_sampler.setInterval(std::chrono::milliseconds(LeaseSampleIntervalMs));
    connect(&m_sampler, &QTimer::timeout, this, &TimelineModel::sampleLeases);
    m_nowMs = nowMs();
    m_windowEndMs = m_nowMs;
    updateFollowInterval();
}

TimelineModel::~TimelineModel() = default;

qint64 TimelineModel::nowMs() const
{
    return EventLogModel::monotonicNowMs();
}

void TimelineModel::setEventLog(EventLogModel *log)
{
    if (log == m_log)
        return;
    if (m_log)
        disconnect(m_log, nullptr, this, nullptr);
    m_log = log;
    reset();
    if (m_log) {
        connect(m_log, &EventLogModel::eventsChanged, this, &TimelineModel::readNewEvents);
        m_nextSequence = m_log->firstSequence();
        readNewEvents();
    }
    Q_EMIT eventLogChanged();
}

void TimelineModel::reset()
{
    // A lane with a lease to watch stays: its participant is still there.
    std::deque<Lane> kept;
    for (Lane &lane : m_lanes) {
        if (lane.leaseSource)
            kept.push_back(Lane{lane.name, lane.member, {}, {}, {}, {}, lane.leaseSource, lane.leaseWatched, {}});
    }
    const bool lanesChanged = kept.size() != m_lanes.size();
    m_lanes = std::move(kept);
    m_markers.clear();
    m_bands.clear();
    m_losses.clear();
    std::fill(m_glyphCounts.begin(), m_glyphCounts.end(), 0);
    m_hasOrigin = false;
    m_originMs = 0;
    m_lastEventMs = std::numeric_limits<qint64>::min();
    if (lanesChanged) {
        rebuildRows();
        Q_EMIT this->lanesChanged();
    }
    m_publish.stop();
    m_markersChanged.reset();
    m_bandsChanged.reset();
    m_leaseLinesChanged.reset();
    m_lossesChanged.reset();
    m_legendPublished.clear();
    constexpr double infinity = std::numeric_limits<double>::infinity();
    Q_EMIT markersChanged(-infinity, infinity);
    Q_EMIT bandsChanged(-infinity, infinity);
    Q_EMIT lossesChanged(-infinity, infinity);
    Q_EMIT legendGlyphsChanged();
    Q_EMIT countsChanged();
    scheduleRefresh();
}

void TimelineModel::readNewEvents()
{
    if (!m_log)
        return;
    const qint64 first = m_log->firstSequence();
    const qint64 end = m_log->endSequence();
    if (first == end) {  // cleared: the capacity never empties the log
        reset();
        m_nextSequence = end;
        return;
    }
    for (qint64 sequence = std::max(m_nextSequence, first); sequence < end; ++sequence)
        ingest(m_log->eventAt(sequence), sequence);
    m_nextSequence = end;
    dropBefore(first);
    schedulePublish();
    scheduleRefresh();
}

void TimelineModel::schedulePublish()
{
    // The log flushes at every frame; live, what the page draws of it changes at most
    // PublishIntervalMs apart, so a frame of new events does not repaint the plot's tiles and
    // layers at every turn (a marker up to that much late is less than a pixel at most windows).
    if (m_following && m_active) {
        if (!m_publish.isActive())
            m_publish.start();
    } else {
        publishChanges();
    }
}

template<typename Signal>
void TimelineModel::publish(Changes &changes, Signal signal)
{
    for (ChangedTime *changed : {&changes.dropped, &changes.recent}) {
        if (changed->isEmpty())
            continue;
        const ChangedTime time = changed->take();
        const double to = time.toMs == std::numeric_limits<qint64>::max() ? std::numeric_limits<double>::infinity()
                                                                          : seconds(time.toMs);
        Q_EMIT(this->*signal)(seconds(time.fromMs), to);
    }
}

void TimelineModel::publishChanges()
{
    m_publish.stop();
    publish(m_markersChanged, &TimelineModel::markersChanged);
    publish(m_bandsChanged, &TimelineModel::bandsChanged);
    publish(m_leaseLinesChanged, &TimelineModel::leaseLinesChanged);
    publish(m_lossesChanged, &TimelineModel::lossesChanged);
    const QStringList legend = legendGlyphs();
    if (legend != m_legendPublished) {
        m_legendPublished = legend;
        Q_EMIT legendGlyphsChanged();
    }
    Q_EMIT countsChanged();
}


void TimelineModel::ingest(const EventLogModel::Event &event, qint64 sequence)
{
    if (event.participant == Etcd) {
        if (event.kind == QLatin1String("keyDeleted"))
            ingestDeletion(event, sequence);
        return;
    }
    if (event.participant == ScenarioParticipant || event.participant.isEmpty())
        return;
    noteOrigin(event.monotonicMs);
    m_lastEventMs = std::max(m_lastEventMs, event.monotonicMs);
    const int id = laneFor(event.participant, isMemberKind(event.kind));
    Lane &lane = m_lanes[id];
    const QString &kind = event.kind;
    const qint64 ms = event.monotonicMs;

    if (kind == QLatin1String("fault")) {
        if (event.detail == QLatin1String("pass")) {
            closeBand(lane.fault, ms, sequence);
        } else {
            const QString bandKind = event.detail.startsWith(QLatin1String("delay")) ? QStringLiteral("delay") : event.detail;
            openBand(lane.fault, Band{id, ms, -1, event.detail, bandKind}, sequence);
        }
        return;
    }
    if (kind == QLatin1String("memberPaused")) {
        openBand(lane.outage, Band{id, ms, -1, QStringLiteral("paused"), QStringLiteral("paused")}, sequence);
    } else if (kind == QLatin1String("memberKilled") || kind == QLatin1String("memberStopped")) {
        const QString label = kind == QLatin1String("memberKilled") ? QStringLiteral("killed") : QStringLiteral("stopped");
        openBand(lane.outage, Band{id, ms, -1, label, QStringLiteral("down")}, sequence);
    } else if (kind == QLatin1String("memberResumed")) {
        if (lane.outage && lane.outage->kind == QLatin1String("paused"))
            closeBand(lane.outage, ms, sequence);
    } else if (kind == QLatin1String("memberRestarted")) {
        closeBand(lane.outage, ms, sequence);
    } else if (kind == QLatin1String("acquired") || kind == QLatin1String("elected")) {
        lane.heldKey = event.key;
        lane.pendingLoss.reset();
    } else if (kind == QLatin1String("released") || kind == QLatin1String("resigned")) {
        // A deletion seen just before was this release's own.
        lane.heldKey.clear();
        lane.pendingLoss.reset();
    } else if (kind == QLatin1String("lost") || kind == QLatin1String("leadershipLost")) {
        const QString key = event.key.isEmpty() ? lane.heldKey : event.key;
        if (lane.pendingLoss && !lane.pendingLoss->knew && lane.pendingLoss->loss.key == key) {
            lane.pendingLoss->loss.knewMs = ms;
            lane.pendingLoss->loss.lastSequence = sequence;
            addMarker(sequence, ms, id, kind);
            completeLoss(lane);
            return;
        }
        lane.heldKey = key;
        lane.pendingLoss = PendingLoss{Loss{id, key, ms, 0, sequence}, true};
    }
    const QString glyph = TimelineGlyphs::glyphOf(kind, event.detail, event.spurious);
    if (!glyph.isEmpty())
        addMarker(sequence, ms, id, glyph);
}

void TimelineModel::ingestDeletion(const EventLogModel::Event &event, qint64 sequence)
{
    if (event.key.isEmpty())
        return;
    const auto holder = std::find_if(m_lanes.begin(), m_lanes.end(),
                                     [&](const Lane &lane) { return lane.heldKey == event.key; });
    if (holder == m_lanes.end())
        return;
    noteOrigin(event.monotonicMs);
    m_lastEventMs = std::max(m_lastEventMs, event.monotonicMs);
    if (holder->pendingLoss && holder->pendingLoss->knew && holder->pendingLoss->loss.key == event.key) {
        holder->pendingLoss->loss.deletedMs = event.monotonicMs;
        holder->pendingLoss->loss.lastSequence = sequence;
        completeLoss(*holder);
        return;
    }
    // etcd first: the participant has not said it lost the key yet (or it is releasing it; its
    // released then drops this).
    const int id = int(holder - m_lanes.begin());
    holder->pendingLoss = PendingLoss{Loss{id, event.key, 0, event.monotonicMs, sequence}, false};
}

void TimelineModel::completeLoss(Lane &lane)
{
    const Loss loss = lane.pendingLoss->loss;
    lane.pendingLoss.reset();
    lane.heldKey.clear();
    addMarker(loss.lastSequence, loss.deletedMs, loss.lane, QStringLiteral("keyDeleted"));
    m_losses.push_back(loss);
    m_lossesChanged.recent.note(std::min(loss.knewMs, loss.deletedMs), std::max(loss.knewMs, loss.deletedMs));
}

int TimelineModel::laneFor(const QString &name, bool member)
{
    const int id = m_laneIds.value(name, -1);
    if (id >= 0) {
        Lane &found = m_lanes[id];
        if (member && !found.member) {  // a participant's name a member turned out to have
            found.member = true;
            rebuildRows();
            Q_EMIT lanesChanged();
        }
        return id;
    }
    Lane lane;
    lane.name = name;
    lane.member = member;
    m_lanes.push_back(std::move(lane));
    rebuildRows();
    Q_EMIT lanesChanged();
    return int(m_lanes.size() - 1);
}

void TimelineModel::rebuildRows()
{
    m_laneIds.clear();
    for (int id = 0; id < int(m_lanes.size()); ++id)
        m_laneIds.insert(m_lanes[id].name, id);
    m_laneOfRow.clear();
    for (const bool members : {false, true}) {
        for (int id = 0; id < int(m_lanes.size()); ++id) {
            if (m_lanes[id].member == members)
                m_laneOfRow.append(id);
        }
    }
    m_rowOfLane = QList<int>(m_lanes.size(), -1);
    for (int row = 0; row < m_laneOfRow.size(); ++row)
        m_rowOfLane[m_laneOfRow[row]] = row;
}

void TimelineModel::addMarker(qint64 sequence, qint64 ms, int lane, const QString &glyph)
{
    const int index = TimelineGlyphs::indexOf(glyph);
    const Marker marker{sequence, ms, lane, index};
    // Events come in time order, but a loss's deletion is drawn only once its pair is known, and
    // the CLI's events merged in may lag a little.
    if (m_markers.empty() || m_markers.back().ms <= ms) {
        m_markers.push_back(marker);
    } else {
        const auto at = std::upper_bound(m_markers.begin(), m_markers.end(), ms,
                                         [](qint64 time, const Marker &other) { return time < other.ms; });
        m_markers.insert(at, marker);
    }
    ++m_glyphCounts[index];
    m_markersChanged.recent.note(ms, ms);
}


void TimelineModel::openBand(std::optional<Band> &slot, Band band, qint64 sequence)
{
    closeBand(slot, band.startMs, sequence);  // a new fault replaces the one before
    m_bandsChanged.recent.note(band.startMs, std::numeric_limits<qint64>::max());  // open: drawn on to the end
    slot = std::move(band);
}

void TimelineModel::closeBand(std::optional<Band> &slot, qint64 ms, qint64 sequence)
{
    if (!slot)
        return;
    slot->endMs = ms;
    slot->endSequence = sequence;
    m_bandsChanged.recent.note(ms, std::numeric_limits<qint64>::max());  // no longer drawn on past its end
    m_bands.push_back(std::move(*slot));
    slot.reset();
}

void TimelineModel::dropBefore(qint64 sequence)
{
    while (!m_markers.empty() && m_markers.front().sequence < sequence) {
        --m_glyphCounts[m_markers.front().glyph];
        m_markersChanged.dropped.note(m_markers.front().ms, m_markers.front().ms);
        m_markers.pop_front();
    }
    while (!m_bands.empty() && m_bands.front().endSequence < sequence) {
        m_bandsChanged.dropped.note(m_bands.front().startMs, m_bands.front().endMs);
        m_bands.pop_front();
    }
    while (!m_losses.empty() && m_losses.front().lastSequence < sequence) {
        const Loss &loss = m_losses.front();
        m_lossesChanged.dropped.note(std::min(loss.knewMs, loss.deletedMs), std::max(loss.knewMs, loss.deletedMs));
        m_losses.pop_front();
    }
}

void TimelineModel::noteOrigin(qint64 ms)
{
    if (m_hasOrigin)
        return;
    m_hasOrigin = true;
    m_originMs = ms;
}

QStringList TimelineModel::lanes() const
{
    QStringList names;
    for (const int id : m_laneOfRow)
        names.append(m_lanes[id].name);
    return names;
}

int TimelineModel::memberLaneCount() const
{
    return int(std::count_if(m_lanes.cbegin(), m_lanes.cend(), [](const Lane &lane) { return lane.member; }));
}

QStringList TimelineModel::glyphs() const
{
    QStringList names;
    for (const auto &glyph : TimelineGlyphs::all())
        names.append(glyph.name);
    return names;
}

QStringList TimelineModel::legendGlyphs() const
{
    QStringList names;
    for (int i = 0; i < m_glyphCounts.size(); ++i) {
        if (m_glyphCounts[i] > 0)
            names.append(TimelineGlyphs::all().at(i).name);
    }
    return names;
}

int TimelineModel::eventCount() const
{
    return m_log ? int(m_nextSequence - m_log->firstSequence()) : 0;
}

int TimelineModel::bandCount() const
{
    int open = 0;
    for (const Lane &lane : m_lanes)
        open += int(lane.fault.has_value()) + int(lane.outage.has_value());
    return int(m_bands.size()) + open;
}

QList<TimelineModel::Band> TimelineModel::bands() const
{
    QList<Band> all(m_bands.cbegin(), m_bands.cend());
    for (const Lane &lane : m_lanes) {
        for (const auto *open : {&lane.fault, &lane.outage}) {
            if (*open)
                all.append(**open);
        }
    }
    return all;
}

QList<TimelineModel::LeaseSample> TimelineModel::leaseSamples(int row) const
{
    if (row < 0 || row >= m_laneOfRow.size())
        return {};
    const auto &samples = m_lanes[m_laneOfRow[row]].samples;
    return {samples.cbegin(), samples.cend()};
}

qint64 TimelineModel::logStartMs() const
{
    qint64 start = m_log && m_log->endSequence() > m_log->firstSequence()
        ? m_log->eventAt(m_log->firstSequence()).monotonicMs
        : std::numeric_limits<qint64>::max();
    if (!m_markers.empty())
        start = std::min(start, m_markers.front().ms);
    for (const Lane &lane : m_lanes) {
        if (!lane.samples.empty())
            start = std::min(start, lane.samples.front().ms);
    }
    return start == std::numeric_limits<qint64>::max() ? m_nowMs : start;
}

qint64 TimelineModel::logEndMs() const
{
    return std::max(m_nowMs, m_lastEventMs);
}

double TimelineModel::logStart() const
{
    return seconds(logStartMs());
}

double TimelineModel::logEnd() const
{
    return seconds(logEndMs());
}

qint64 TimelineModel::wholeLogEdgeMs() const
{
    // The whole log across the plot but for EdgePixels at each end.
    const double inner = std::max(m_plotWidth - 2 * EdgePixels, m_plotWidth / 2);
    return qint64(std::ceil((logEndMs() - logStartMs()) * EdgePixels / std::max(1.0, inner)));
}

qint64 TimelineModel::windowEdgeMs() const
{
    return qint64(std::ceil(m_windowLengthMs * EdgePixels / std::max(1.0, m_plotWidth)));
}

double TimelineModel::maximumWindow() const
{
    return std::max(MinimumWindowSeconds, (logEndMs() - logStartMs() + 2 * wholeLogEdgeMs()) / 1000.0);
}

qint64 TimelineModel::latestWindowEndMs() const
{
    // Following, the window ends now; paused, it may end a glyph's width after the last event,
    // and start as far before the first, so that neither glyph is cut at the plot's edge.
    return m_following ? logEndMs() : logEndMs() + windowEdgeMs();
}

qint64 TimelineModel::earliestWindowEndMs() const
{
    return std::min(latestWindowEndMs(), logStartMs() - windowEdgeMs() + m_windowLengthMs);
}

bool TimelineModel::isWholeLogShown() const
{
    return m_wholeLogShown && !m_following;
}

void TimelineModel::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    updateFollowInterval();
    Q_EMIT activeChanged();
    if (m_active)
        refresh();
}

void TimelineModel::setFollowing(bool following)
{
    if (following == m_following)
        return;
    m_following = following;
    m_wholeLogShown = false;
    updateFollowInterval();
    Q_EMIT followingChanged();
    refresh();
}

void TimelineModel::setWindowLength(double seconds)
{
    const qint64 length = qint64(std::clamp(seconds, MinimumWindowSeconds, maximumWindow()) * 1000);
    if (length == m_windowLengthMs)
        return;
    m_windowLengthMs = length;
    m_wholeLogShown = false;
    clampWindow();
    updateFollowInterval();
    refresh();
}

void TimelineModel::setWindowEnd(double seconds)
{
    setFollowing(false);
    m_windowEndMs = m_originMs + qint64(seconds * 1000);
    m_wholeLogShown = false;
    clampWindow();
    refresh();
}

void TimelineModel::clampWindow()
{
    if (m_following)
        return;
    m_windowEndMs = std::clamp(m_windowEndMs, earliestWindowEndMs(), latestWindowEndMs());
}

void TimelineModel::zoom(double factor, double anchor)
{
    if (!(factor > 0))
        return;
    anchor = std::clamp(anchor, 0.0, 1.0);
    const qint64 start = m_windowEndMs - m_windowLengthMs;
    const double anchorMs = start + anchor * m_windowLengthMs;
    const qint64 length =
        qint64(std::clamp(m_windowLengthMs * factor / 1000.0, MinimumWindowSeconds, maximumWindow()) * 1000);
    m_windowLengthMs = length;
    m_wholeLogShown = false;
    if (!m_following)
        m_windowEndMs = qint64(anchorMs - anchor * length) + length;
    clampWindow();
    updateFollowInterval();
    refresh();
}

void TimelineModel::showWholeLog()
{
    // Paused: following, the window would move on from the whole log at the next step, and the
    // page would still say LIVE over a view that is not.
    const bool wasFollowing = m_following;
    m_following = false;
    m_nowMs = nowMs();
    m_windowLengthMs = qRound64(maximumWindow() * 1000);
    m_windowEndMs = latestWindowEndMs();
    m_wholeLogShown = true;
    updateFollowInterval();
    if (wasFollowing)
        Q_EMIT followingChanged();
    // Every layer at once: the axis, the lease line and the window's signal for the layers over
    // them, in this call rather than at the next step.
    refresh();
}

void TimelineModel::scrollBy(double pixels)
{
    setWindowEnd(windowEnd() - pixels / std::max(1.0, m_plotWidth) * windowLength());
}

void TimelineModel::setPlotWidth(double pixels)
{
    if (qFuzzyCompare(pixels, m_plotWidth) || pixels <= 0)
        return;
    m_plotWidth = pixels;
    updateFollowInterval();
    Q_EMIT plotWidthChanged();
    scheduleRefresh();
}

void TimelineModel::updateFollowInterval()
{
    if (!m_following || !m_active) {
        m_follow.stop();
        return;
    }
    // A pixel's worth of time, but no more than 20 steps a second (each redraws the chart), and at
    // least one a second for the open bands' ends.
    const int interval = int(std::clamp(m_windowLengthMs / std::max(1.0, m_plotWidth), 50.0, 1000.0));
    if (!m_follow.isActive() || m_follow.interval() != interval)
        m_follow.start(interval);
}

void TimelineModel::scheduleRefresh()
{
    if (m_active && !m_following && !m_frame.isActive())
        m_frame.start();
}

void TimelineModel::watchLease(const QString &lane, QObject *participant)
{
    if (lane.isEmpty() || !participant) {
        qCWarning(lcTimeline, "watchLease: a lane name and a participant are needed");
        return;
    }
    m_lanes[laneFor(lane, false)].leaseSource = participant;
    sampleLeases();
    if (!m_sampler.isActive())
        m_sampler.start();
}

void TimelineModel::sampleLeases()
{
    const qint64 now = nowMs();
    bool watching = false;
    for (Lane &lane : m_lanes) {
        auto &samples = lane.samples;
        if (!lane.leaseSource) {
            // Its participant went: the line now drops to nothing at its last sample.
            if (std::exchange(lane.leaseWatched, false) && !samples.empty())
                m_leaseLinesChanged.recent.note(samples.back().ms, samples.back().ms);
            continue;
        }
        watching = true;
        lane.leaseWatched = true;
        const double left = lane.leaseSource->property("leaseTimeLeft").toDouble();
        const double ttl = lane.leaseSource->property("leaseTtl").toDouble();
        noteOrigin(now);
        const LeaseSample sample{now, float(ttl > 0 ? std::clamp(left / (ttl * 1000), 0.0, 1.0) : 0.0)};
        // The line changes from its last sample on: one replaced below was on it already.
        m_leaseLinesChanged.recent.note(samples.empty() ? sample.ms : samples.back().ms, sample.ms);
        // A lease runs down in a straight line between renewals: a sample on the line through
        // the two before it says no more than the one before, and replaces it.
        if (samples.size() >= 2) {
            const LeaseSample &before = samples[samples.size() - 2];
            const LeaseSample &last = samples.back();
            const double slope = (last.fraction - before.fraction) / double(std::max<qint64>(1, last.ms - before.ms));
            if (std::abs(last.fraction + slope * double(sample.ms - last.ms) - sample.fraction) < 0.005)
                samples.pop_back();
        }
        samples.push_back(sample);
        if (samples.size() > MaxLeaseSamples) {
            m_leaseLinesChanged.dropped.note(samples.front().ms, samples[1].ms);
            samples.pop_front();
        }
    }
    if (!watching)
        m_sampler.stop();
    schedulePublish();
    scheduleRefresh();
}

void TimelineModel::setTimeAxis(QAbstractAxis *axis)
{
    m_timeAxis = qobject_cast<QValueAxis *>(axis);
    if (!m_timeAxis) {
        qCWarning(lcTimeline, "setTimeAxis: the axis is no ValueAxis");
        return;
    }
    m_timeAxis->setTickType(QValueAxis::TicksDynamic);
    m_chartLengthMs = 0;  // ranged at the next refresh
    scheduleRefresh();
}

void TimelineModel::refresh()
{
    m_frame.stop();
    if (!m_active)
        return;
    m_nowMs = nowMs();
    if (m_following)
        m_windowEndMs = logEndMs();
    const qint64 start = m_windowEndMs - m_windowLengthMs;
    const bool ranged = placeChart(start);
    updateTicks(start, m_windowEndMs);
    if (ranged)
        moveTimeAxis(m_chartStartMs, m_chartStartMs + m_chartLengthMs);
    Q_EMIT windowChanged();
}

bool TimelineModel::placeChart(qint64 windowStartMs)
{
    const auto length = qint64(m_windowLengthMs * ChartSpan);
    const qint64 windowEndMs = windowStartMs + m_windowLengthMs;
    if (length == m_chartLengthMs && m_plotWidth == m_chartPlotWidth && m_originMs == m_chartOriginMs
        && windowStartMs >= m_chartStartMs && windowEndMs <= m_chartStartMs + m_chartLengthMs) {
        return false;
    }
    m_chartLengthMs = length;
    m_chartPlotWidth = m_plotWidth;
    m_chartOriginMs = m_originMs;
    // Following, the window moves on into the room ahead of it; paused, it may go either way.
    m_chartStartMs = m_following ? windowStartMs : windowStartMs - (length - m_windowLengthMs) / 2;
    return true;
}

QList<TimelineModel::VisibleMarker> TimelineModel::visibleMarkers(double start, double end, double secondsPerPixel) const
{
    QList<VisibleMarker> visible;
    if (!(secondsPerPixel > 0) || !(end >= start) || m_markers.empty())
        return visible;
    // Of a lane's glyphs of one kind, one per half a glyph's width: closer ones would mostly cover
    // it. The halves are counted from the origin, and read from the start of the one `start` is
    // in: the marker that stands for a half is its first, whatever range is asked for.
    const double bucketMs = std::max(1.0, secondsPerPixel * 1000 * MarkerPixels / 2);
    const auto bucketOf = [&](qint64 ms) { return qint64(std::floor((ms - m_originMs) / bucketMs)); };
    const qint64 startMs = msOf(std::floor(start * 1000) / 1000);
    const qint64 endMs = msOf(std::ceil(end * 1000) / 1000);
    const qint64 scanFromMs = m_originMs + qint64(std::floor(double(bucketOf(startMs)) * bucketMs));
    const int glyphCount = int(TimelineGlyphs::all().size());
    QList<qint64> lastBucket(qsizetype(m_lanes.size()) * glyphCount, std::numeric_limits<qint64>::min());
    // A marker's level depends on the markers just before it in its lane: read from the last one
    // a glyph's width clear of the marker before it, where every lane's levels are free.
    const double glyphMs = secondsPerPixel * 1000 * MarkerPixels;
    QList<TimelineGlyphs::MarkerLevels> levels(qsizetype(m_lanes.size()));
    auto marker = std::lower_bound(m_markers.cbegin(), m_markers.cend(), scanFromMs,
                                   [](const Marker &marker, qint64 time) { return marker.ms < time; });
    while (marker != m_markers.cbegin() && marker != m_markers.cend() && double(marker->ms - std::prev(marker)->ms) < glyphMs)
        --marker;
    for (; marker != m_markers.cend() && marker->ms <= endMs; ++marker) {
        const qint64 bucket = bucketOf(marker->ms);
        qint64 &last = lastBucket[qsizetype(marker->lane) * glyphCount + marker->glyph];
        if (last == bucket)
            continue;
        last = bucket;
        TimelineGlyphs::MarkerLevels &lane = levels[marker->lane];
        const int level = lane.choose(double(marker->ms) - glyphMs / 2);
        lane.take(level, double(marker->ms) + glyphMs / 2);
        if (marker->ms >= startMs)
            visible.append({m_rowOfLane[marker->lane], seconds(marker->ms), marker->glyph, level});
    }
    return visible;
}

QList<QPointF> TimelineModel::leaseLine(int row, double start, double end, double secondsPerPixel) const
{
    QList<QPointF> points;
    if (row < 0 || row >= m_laneOfRow.size() || !(secondsPerPixel > 0) || !(end >= start))
        return points;
    const Lane &lane = m_lanes[m_laneOfRow[row]];
    const auto &samples = lane.samples;
    const double bucketMs = std::max(1.0, 2 * secondsPerPixel * 1000);
    const auto bucketOf = [&](qint64 ms) { return qint64(std::floor((ms - m_originMs) / bucketMs)); };
    const auto bucketStartMs = [&](qint64 bucket) { return m_originMs + qint64(std::ceil(double(bucket) * bucketMs)); };
    const auto byTime = [](const LeaseSample &sample, qint64 time) { return sample.ms < time; };
    // Whole buckets, from start's to end's, and the nearest sampled bucket beyond each end: the
    // line reaches both ends, and a piece asked for next to this one draws the same line.
    auto sample = std::lower_bound(samples.cbegin(), samples.cend(), bucketStartMs(bucketOf(msOf(start))), byTime);
    if (sample != samples.cbegin())
        sample = std::lower_bound(samples.cbegin(), sample, bucketStartMs(bucketOf(std::prev(sample)->ms)), byTime);
    auto last = std::lower_bound(sample, samples.cend(), bucketStartMs(bucketOf(msOf(end)) + 1), byTime);
    if (last != samples.cend())
        last = std::lower_bound(last, samples.cend(), bucketStartMs(bucketOf(last->ms) + 1), byTime);
    // Nothing is known before the first sample: the line runs along the lane's bottom.
    if (sample == samples.cbegin() && sample != last && seconds(sample->ms) > start)
        points << QPointF(start, 0) << QPointF(seconds(sample->ms), 0);
    while (sample != last) {
        const qint64 bucket = bucketOf(sample->ms);
        auto low = sample;
        auto high = sample;
        for (; sample != last && bucketOf(sample->ms) == bucket; ++sample) {
            if (sample->fraction < low->fraction)
                low = sample;
            if (sample->fraction > high->fraction)
                high = sample;
        }
        const auto earlier = std::min(low, high);  // in the samples' order, even within a millisecond
        const auto later = std::max(low, high);
        points << QPointF(seconds(earlier->ms), earlier->fraction);
        if (later != earlier)
            points << QPointF(seconds(later->ms), later->fraction);
    }
    // Nor after the last one, once its participant is gone.
    if (!lane.leaseSource && last == samples.cend() && !points.isEmpty() && points.last().x() < end)
        points << QPointF(points.last().x(), 0) << QPointF(end, 0);
    return points;
}

void TimelineModel::updateTicks(qint64 startMs, qint64 endMs)
{
    static constexpr qint64 niceSeconds[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200};
    const double wanted = TickSpacingPixels * m_windowLengthMs / std::max(1.0, m_plotWidth);
    qint64 interval = niceSeconds[std::size(niceSeconds) - 1] * 1000;
    for (const qint64 candidate : niceSeconds) {
        if (candidate * 1000 >= wanted) {
            interval = candidate * 1000;
            break;
        }
    }
    // At whole multiples of the interval on the wall clock: 05:41:10, 05:41:20, ...
    const qint64 wallStart = startMs + m_wallOffsetMs;
    const qint64 firstTick = (wallStart / interval + (wallStart % interval > 0 ? 1 : 0)) * interval - m_wallOffsetMs;
    QVariantList ticks;
    for (qint64 tick = firstTick; tick <= endMs; tick += interval) {
        ticks.append(QVariantMap{{QStringLiteral("at"), seconds(tick)},
                                 {QStringLiteral("text"), QDateTime::fromMSecsSinceEpoch(tick + m_wallOffsetMs)
                                                              .toString(QStringLiteral("HH:mm:ss"))}});
    }
    m_tickIntervalMs = interval;
    m_tickAnchor = seconds(firstTick);
    if (ticks == m_ticks)
        return;
    m_ticks = ticks;
    Q_EMIT ticksChanged();
}

void TimelineModel::moveTimeAxis(qint64 startMs, qint64 endMs)
{
    if (!m_timeAxis)
        return;
    m_timeAxis->setTickInterval(m_tickIntervalMs / 1000.0);
    m_timeAxis->setTickAnchor(m_tickAnchor);
    m_timeAxis->setRange(seconds(startMs), seconds(endMs));
}

QList<TimelineModel::VisibleBand> TimelineModel::visibleBands() const
{
    return visibleBands(windowStart(), windowEnd());
}

QList<TimelineModel::VisibleLoss> TimelineModel::visibleLosses() const
{
    return visibleLosses(windowStart(), windowEnd());
}

qint64 TimelineModel::msOf(double at) const
{
    constexpr double limit = double(std::numeric_limits<qint64>::max() / 2);
    return qint64(std::llround(std::clamp(m_originMs + at * 1000, -limit, limit)));
}

QList<TimelineModel::VisibleBand> TimelineModel::visibleBands(double start, double end) const
{
    const qint64 startMs = msOf(start);
    const qint64 endMs = msOf(end);
    // Following, the window's end is now: an open band runs on past it, to the end of what is
    // asked for, so it need not be drawn again at every step.
    const qint64 openEndMs = m_following ? std::max(endMs, logEndMs()) : logEndMs();
    QList<VisibleBand> visible;
    const auto add = [&](const Band &band, qint64 bandEndMs) {
        if (band.startMs <= endMs && bandEndMs >= startMs)
            visible.append({m_rowOfLane[band.lane], seconds(band.startMs), seconds(bandEndMs), band.label, band.kind});
    };
    // Closed bands are kept in the order they closed: those closed before the window are skipped.
    auto closed = std::lower_bound(m_bands.cbegin(), m_bands.cend(), startMs,
                                   [](const Band &band, qint64 time) { return band.endMs < time; });
    for (; closed != m_bands.cend(); ++closed)
        add(*closed, closed->endMs);
    for (const Lane &lane : m_lanes) {
        for (const auto *open : {&lane.fault, &lane.outage}) {
            if (*open)
                add(**open, openEndMs);
        }
    }
    return visible;
}

QList<TimelineModel::VisibleLoss> TimelineModel::visibleLosses(double start, double end) const
{
    const qint64 startMs = msOf(start);
    const qint64 endMs = msOf(end);
    QList<VisibleLoss> visible;
    for (const Loss &loss : m_losses) {
        if (std::max(loss.knewMs, loss.deletedMs) < startMs || std::min(loss.knewMs, loss.deletedMs) > endMs)
            continue;
        const qint64 margin = loss.marginMs();
        const QString length = QString::number(std::abs(margin) / 1000.0, 'f', 2);
        visible.append({m_rowOfLane[loss.lane], seconds(loss.knewMs), seconds(loss.deletedMs),
                        margin >= 0 ? tr("%1 s").arg(length) : tr("%1 s late").arg(length), margin < 0});
    }
    return visible;
}

QString TimelineModel::glyphTitle(const QString &glyph) const
{
    const int index = TimelineGlyphs::indexOf(glyph);
    return index < 0 ? QString() : TimelineGlyphs::all().at(index).title;
}

QString TimelineModel::glyphOf(const QString &kind, const QString &detail, bool spurious) const
{
    return TimelineGlyphs::glyphOf(kind, detail, spurious);
}

QString TimelineModel::clockText(qint64 monotonicMs) const
{
    return QDateTime::fromMSecsSinceEpoch(monotonicMs + m_wallOffsetMs).toString(QStringLiteral("HH:mm:ss.zzz"));
}
