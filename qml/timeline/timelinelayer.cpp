// SPDX-License-Identifier: Apache-2.0
#include "timelinelayer.h"

#include "timelineglyphs.h"
#include "timelinemodel.h"

#include <QtGui/QFontMetricsF>
#include <QtGui/QPainter>

#include <algorithm>
#include <cmath>

namespace {

// The lanes' stripes: white and a whisper of grey by turns, the members' lanes a little bluer.

QColor withAlpha(QColor colour, int alpha)
{
    colour.setAlpha(alpha);
    return colour;
}

// How far right of a loss its margin's label may stand.
constexpr double LossLabelReach = 96;

QFont labelFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(11);
    font.setBold(true);
    return font;
}

} // namespace

TimelineLayer::TimelineLayer(QQuickItem *parent) : QQuickPaintedItem(parent)
{
    setAntialiasing(true);
    setOpaquePainting(m_content == Content::Bands);
}

void TimelineLayer::setTimeline(TimelineModel *timeline)
{
    if (timeline == m_timeline)
        return;
    if (m_timeline)
        disconnect(m_timeline, nullptr, this, nullptr);
    m_timeline = timeline;
    m_paintedEmpty = false;
    if (m_timeline) {
        // Every step of the window, and every change while paused, ends in windowChanged.
        connect(m_timeline, &TimelineModel::windowChanged, this, &TimelineLayer::windowChanged);
        connect(m_timeline, &TimelineModel::lanesChanged, this, [this] { update(); });
        // A band's name is inside it; a loss's margin may stand right of it, when the two
        // moments are too close for it.
        connect(m_timeline, &TimelineModel::bandsChanged, this, [this](double from, double to) {
            if (m_content == Content::Bands)
                repaintTime(from, to, 0);
        });
        connect(m_timeline, &TimelineModel::lossesChanged, this, [this](double from, double to) {
            if (m_content == Content::Losses) {
                m_paintedEmpty = false;
                repaintTime(from, to, LossLabelReach);
            }
        });
    }
    update();
    Q_EMIT timelineChanged();
}

void TimelineLayer::windowChanged()
{
    // The layer spans the chart and slides with it: a live window's step changes nothing in it
    // until the chart is ranged again. Paused, an open band's end is now, which moves on.
    if (!spansWhatItPainted() || !m_timeline->isFollowing())
        repaintIfShownChanged();
}

void TimelineLayer::repaintIfShownChanged()
{
    // Most spans hold no loss: a layer of nothing, painted again, would still be cleared and
    // blended over the whole plot.
    if (m_content == Content::Losses) {
        const bool empty = m_timeline->visibleLosses(m_timeline->chartStart(), chartEnd()).isEmpty();
        if (empty && m_paintedEmpty)
            return;
        m_paintedEmpty = empty;
    }
    update();
}

void TimelineLayer::repaintTime(double from, double to, double rightReachPixels)
{
    // Only the time that changed, when the layer still spans what it painted: a band opened or
    // closed now, or a loss told, touches the last part of the span, not the whole plot.
    if (!spansWhatItPainted() || !std::isfinite(from)) {
        update();
        return;
    }
    const double left = std::floor(std::max(0.0, xAt(from)) - 2);
    const double right = std::isfinite(to) ? std::ceil(std::min(width(), xAt(to) + rightReachPixels) + 2) : width();
    if (right > left)
        update(QRectF(left, 0, right - left, height()).toAlignedRect());
}

bool TimelineLayer::spansWhatItPainted() const
{
    return m_timeline->chartStart() == m_paintedStart && m_timeline->chartLength() == m_paintedLength;
}

double TimelineLayer::textWidth(const QString &text) const
{
    // The labels repeat ("blackhole", "0.42 s"): shaping each again at every paint was the
    // layers' largest cost once a span held hundreds of them. Always in labelFont().
    if (m_textWidths.size() > 1024)
        m_textWidths.clear();
    auto found = m_textWidths.constFind(text);
    if (found == m_textWidths.cend())
        found = m_textWidths.insert(text, QFontMetricsF(labelFont()).horizontalAdvance(text));
    return *found;
}

double TimelineLayer::chartEnd() const
{
    return m_timeline->chartStart() + m_timeline->chartLength();
}

void TimelineLayer::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    Q_EMIT darkChanged();
    update();
}

void TimelineLayer::setContent(Content content)
{
    if (content == m_content)
        return;
    m_content = content;
    // The stripes cover every pixel of the bands' layer: the renderer need not blend it, nor
    // draw what is under it.
    setOpaquePainting(m_content == Content::Bands);
    m_paintedEmpty = false;
    update();
    Q_EMIT contentChanged();
}

double TimelineLayer::xAt(double seconds) const
{
    return (seconds - m_paintedStart) / std::max(0.001, m_paintedLength) * width();
}

void TimelineLayer::paint(QPainter *painter)
{
    if (!m_timeline)
        return;
    m_paintedStart = m_timeline->chartStart();
    m_paintedLength = m_timeline->chartLength();
    const double laneHeight = height() / std::max<qsizetype>(1, m_timeline->lanes().size());
    painter->setFont(labelFont());
    if (m_content == Content::Bands)
        paintBands(painter, laneHeight);
    else
        paintLosses(painter, laneHeight);
}

void TimelineLayer::paintBands(QPainter *painter, double laneHeight) const
{
    const int rows = int(m_timeline->lanes().size());
    const int firstMember = rows - m_timeline->memberLaneCount();
    for (int row = 0; row < rows; ++row) {
        const TimelineGlyphs::LanePalette &lanes = TimelineGlyphs::lanePalette(m_dark);
        const QColor stripe = row >= firstMember ? lanes.memberStripe : row % 2 ? lanes.alternateStripe : lanes.stripe;
        painter->fillRect(QRectF(0, row * laneHeight, width(), laneHeight), stripe);
    }
    // A partial repaint (a band came or went now) is clipped to its time: the bands elsewhere in
    // the span are skipped rather than drawn into nothing.
    const QRectF clip = painter->hasClipping() ? painter->clipBoundingRect() : QRectF(0, 0, width(), height());
    const QFontMetricsF metrics(painter->font());
    for (const auto &band : m_timeline->visibleBands(m_paintedStart, chartEnd())) {
        const QColor strong = TimelineGlyphs::bandColour(band.kind);
        const double left = std::max(-2.0, xAt(band.start));
        const double right = std::min(width() + 2, xAt(band.end));
        const QRectF area(left, band.row * laneHeight + 1, std::max(2.0, right - left), laneHeight - 2);
        if (!area.intersects(clip))
            continue;
        painter->fillRect(area, withAlpha(strong, 28));
        painter->fillRect(QRectF(area.left(), area.top(), 2, area.height()), strong);
        painter->fillRect(QRectF(area.right() - 1, area.top(), 1, area.height()), withAlpha(strong, 128));
        // Its name, bottom left, where the lease line is lowest and the markers are not.
        if (area.width() >= textWidth(band.label) + 10 && area.height() >= 16) {
            painter->setPen(strong);
            painter->drawText(QPointF(area.left() + 6, area.bottom() - metrics.descent() - 2), band.label);
        }
    }
}

void TimelineLayer::paintLosses(QPainter *painter, double laneHeight) const
{
    const QFontMetricsF metrics(painter->font());
    const QRectF clip = painter->hasClipping() ? painter->clipBoundingRect() : QRectF(0, 0, width(), height());
    for (const auto &loss : m_timeline->visibleLosses(m_paintedStart, chartEnd())) {
        const QColor colour = loss.late ? TimelineGlyphs::Colours::Bad : TimelineGlyphs::lanePalette(m_dark).ink;
        const double top = loss.row * laneHeight;
        const double left = xAt(std::min(loss.knew, loss.deleted));
        const double right = xAt(std::max(loss.knew, loss.deleted));
        if (left - 2 > clip.right() || right + LossLabelReach < clip.left())
            continue;
        // Above the lane's markers (its middle): a tick at each moment, a line between them.
        const double tickHeight = std::max(3.0, laneHeight / 2 - 8);
        const double lineY = top + std::max(3.0, std::min(laneHeight * 0.22, tickHeight - 2));
        painter->fillRect(QRectF(left - 1, top + 1, 2, tickHeight), colour);
        painter->fillRect(QRectF(right - 1, top + 1, 2, tickHeight), colour);
        painter->fillRect(QRectF(left, lineY - 0.75, right - left, 1.5), colour);

        // The margin on the line, or beside it when the two moments are too close for it.
        const QSizeF text(textWidth(loss.margin) + 8, metrics.height() + 2);
        const bool fits = right - left >= text.width() + 12;
        const QRectF box(QPointF(fits ? (left + right - text.width()) / 2 : right + 5, lineY - text.height() / 2), text);
        painter->setPen(loss.late ? QPen(colour, 1) : QPen(Qt::NoPen));
        painter->setBrush(TimelineGlyphs::lanePalette(m_dark).paper);
        painter->drawRoundedRect(box, 3, 3);
        painter->setPen(colour);
        painter->drawText(box, Qt::AlignCenter, loss.margin);
    }
}
