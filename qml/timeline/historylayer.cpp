// SPDX-License-Identifier: Apache-2.0
#include "historylayer.h"

#include "timelineglyphs.h"

#include <displaytext.h>

#include <QtGui/QFontMetricsF>
#include <QtGui/QLinearGradient>
#include <QtGui/QPainter>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

using QEtcd::CoordinationHistoryModel;
using Kind = QEtcd::CoordinationObject::Kind;

namespace {

const QColor Waiter(0x94, 0xa3, 0xb8);
const QColor AsOf(0xa1, 0x62, 0x07);

// A holder's bar by its object's kind; its lane's name says the kind too.
QColor holderColour(Kind kind)
{
    switch (kind) {
    case Kind::Election:
        return QColor(0x1d, 0x4e, 0xd8);
    case Kind::Barrier:
    case Kind::CountedBarrier:
    case Kind::DoubleBarrier:
        return TimelineGlyphs::Colours::Barrier;
    case Kind::Service:
        return TimelineGlyphs::Colours::Good;
    default:
        return QColor(0x25, 0x63, 0xeb);
    }
}

struct MarkLook
{
    const char *kind;
    const char *glyph;
    const char *title;
};

// In CoordinationHistoryModel::MarkKind's order.
const MarkLook Looks[] = {
    {"acquired", "acquired", QT_TRANSLATE_NOOP("HistoryLayer", "acquired, instance up")},
    {"handedOn", "memberResumed", QT_TRANSLATE_NOOP("HistoryLayer", "handed on to the next in line")},
    {"elected", "elected", QT_TRANSLATE_NOOP("HistoryLayer", "elected")},
    {"barrierSet", "barrierSet", QT_TRANSLATE_NOOP("HistoryLayer", "barrier set, round opened")},
    {"released", "released", QT_TRANSLATE_NOOP("HistoryLayer", "no longer holds (its key stays)")},
    {"deleted", "keyDeleted", QT_TRANSLATE_NOOP("HistoryLayer", "key deleted: released, or deleted by someone")},
    {"leaseEnded", "leaseExpired", QT_TRANSLATE_NOOP("HistoryLayer", "lease ended, taking several keys at once")},
    {"removedByOwner", "barrierRemoved", QT_TRANSLATE_NOOP("HistoryLayer", "removed by its owner")},
    {"liftedByOperator", "intervention", QT_TRANSLATE_NOOP("HistoryLayer", "lifted by an operator")},
    {"roundReleased", "barrierLifted", QT_TRANSLATE_NOOP("HistoryLayer", "round released")},
    {"healed", "leaseRestored", QT_TRANSLATE_NOOP("HistoryLayer", "healed: back on a new lease")},
    {"changed", "other", QT_TRANSLATE_NOOP("HistoryLayer", "items put or taken, counter changed")},
};

static_assert(std::size(Looks) == size_t(CoordinationHistoryModel::MarkKind::Changed) + 1);

const MarkLook *lookOf(const QString &kind)
{
    for (const MarkLook &look : Looks) {
        if (kind == QLatin1String(look.kind))
            return &look;
    }
    return nullptr;
}

QFont historyLabelFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(11);
    font.setBold(true);
    return font;
}

} // namespace

HistoryLayer::HistoryLayer(QQuickItem *parent) : QQuickPaintedItem(parent)
{
    setAntialiasing(true);
    setOpaquePainting(true);
    connect(this, &HistoryLayer::viewChanged, this, [this] { update(); });
}

void HistoryLayer::setModel(CoordinationHistoryModel *model)
{
    if (model == m_model)
        return;
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    if (m_model) {
        connect(m_model, &CoordinationHistoryModel::lanesChanged, this, [this] { update(); });
        connect(m_model, &CoordinationHistoryModel::countChanged, this, [this] { update(); });
        connect(m_model, &CoordinationHistoryModel::markKindsChanged, this, &HistoryLayer::legendChanged);
    }
    update();
    Q_EMIT modelChanged();
    Q_EMIT legendChanged();
}

void HistoryLayer::setFrom(double revision)
{
    if (revision == m_from)
        return;
    m_from = revision;
    Q_EMIT viewChanged();
}

void HistoryLayer::setTo(double revision)
{
    if (revision == m_to)
        return;
    m_to = revision;
    Q_EMIT viewChanged();
}

void HistoryLayer::setTicks(const QList<double> &ticks)
{
    if (ticks == m_ticks)
        return;
    m_ticks = ticks;
    Q_EMIT viewChanged();
}

void HistoryLayer::setAsOfRevision(qint64 revision)
{
    if (revision == m_asOf)
        return;
    m_asOf = revision;
    Q_EMIT viewChanged();
}

void HistoryLayer::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    Q_EMIT viewChanged();
}

QVariantList HistoryLayer::legend() const
{
    QVariantList entries;
    if (!m_model)
        return entries;
    for (const QString &kind : m_model->markKinds())
        entries.append(QVariantMap{{QStringLiteral("glyph"), glyphOf(kind)}, {QStringLiteral("title"), titleOf(kind)}});
    return entries;
}

QString HistoryLayer::glyphOf(const QString &markKind)
{
    const MarkLook *look = lookOf(markKind);
    return look ? QString::fromLatin1(look->glyph) : QString();
}

QString HistoryLayer::titleOf(const QString &markKind)
{
    const MarkLook *look = lookOf(markKind);
    return look ? tr(look->title) : QString();
}

double HistoryLayer::revisionAt(double x) const
{
    return m_from + x / std::max(1.0, width()) * (m_to - m_from);
}

double HistoryLayer::xAt(double revision) const
{
    return (revision - m_from) / std::max(1e-9, m_to - m_from) * width();
}

void HistoryLayer::paint(QPainter *painter)
{
    const QRectF all(0, 0, width(), height());
    const TimelineGlyphs::LanePalette &palette = TimelineGlyphs::lanePalette(m_dark);
    painter->fillRect(all, palette.stripe);
    static const std::vector<CoordinationHistoryModel::Lane> none;
    const std::vector<CoordinationHistoryModel::Lane> &lanes = m_model ? m_model->lanes() : none;
    const double laneHeight = height() / std::max<size_t>(1, lanes.size());
    for (size_t row = 1; row < lanes.size(); row += 2)
        painter->fillRect(QRectF(0, double(row) * laneHeight, width(), laneHeight), palette.alternateStripe);
    painter->setPen(QPen(palette.grid, 1));
    for (const double tick : std::as_const(m_ticks)) {
        const double x = std::round(xAt(tick)) + 0.5;
        painter->drawLine(QPointF(x, 0), QPointF(x, height()));
    }
    if (!m_model || lanes.empty() || !(m_to > m_from)) {
        return;
    }

    // An open bar runs to what has been replayed, or to the end.
    const qint64 openEnd = (m_model->isRunning() ? m_model->progressRevision() : m_model->lastRevision()) + 1;
    const double revisionsPerPixel = (m_to - m_from) / std::max(1.0, width());
    const double markSize = std::clamp(laneHeight * 0.42, 8.0, double(MarkPixels));
    const QFont font = historyLabelFont();
    const QFontMetricsF metrics(font);
    painter->setFont(font);
    QList<QImage> glyphs;  // by glyph index, painted once per paint at this size
    const auto glyphImage = [&](int index) -> const QImage & {
        if (glyphs.isEmpty())
            glyphs.resize(TimelineGlyphs::all().size());
        QImage &image = glyphs[index];
        if (image.isNull())
            image = TimelineGlyphs::glyphImage(index, int(markSize), painter->device()->devicePixelRatioF());
        return image;
    };

    for (size_t row = 0; row < lanes.size(); ++row) {
        const CoordinationHistoryModel::Lane &lane = lanes[row];
        const double top = double(row) * laneHeight;
        const double holderHeight = std::clamp(laneHeight * 0.4, 6.0, 26.0);
        const double holderTop = top + (laneHeight - holderHeight) / 2 - std::min(6.0, laneHeight * 0.08);
        const double waiterHeight = std::clamp(laneHeight * 0.1, 3.0, 6.0);
        const double waiterTop = std::min(top + laneHeight - waiterHeight - 2, holderTop + holderHeight + 3);
        const QColor holder = holderColour(lane.kind);
        // Holders at once (a semaphore's, a read lock's) each get a track of the holder band,
        // the first free one in the order they came, at most MaxTracks.
        std::vector<int> trackOf(lane.bars.size(), 0);
        std::vector<qint64> trackEnds;
        for (size_t i = 0; i < lane.bars.size(); ++i) {
            const CoordinationHistoryModel::Bar &bar = lane.bars[i];
            if (bar.waiter)
                continue;
            const qint64 end = bar.to != 0 ? bar.to : openEnd;
            auto track = std::find_if(trackEnds.begin(), trackEnds.end(), [&bar](qint64 free) { return free <= bar.from; });
            if (track == trackEnds.end() && trackEnds.size() < size_t(MaxTracks))
                track = trackEnds.insert(trackEnds.end(), 0);
            else if (track == trackEnds.end())
                track = std::min_element(trackEnds.begin(), trackEnds.end());
            *track = end;
            trackOf[i] = int(track - trackEnds.begin());
        }
        const int tracks = std::max<int>(1, int(trackEnds.size()));
        const double trackHeight = (holderHeight - (tracks - 1)) / tracks;
        // Of bars that fall in one pixel of a track, the first stands for them.
        std::vector<double> holderDrawnTo(size_t(tracks), -1);
        double waiterDrawnTo = -1;
        for (size_t i = 0; i < lane.bars.size(); ++i) {
            const CoordinationHistoryModel::Bar &bar = lane.bars[i];
            const double end = double(bar.to != 0 ? bar.to : openEnd);
            if (end < m_from || double(bar.from) > m_to)
                continue;
            const double left = std::max(-2.0, xAt(double(bar.from)));
            const double right = std::min(width() + 2, xAt(end));
            double &drawnTo = bar.waiter ? waiterDrawnTo : holderDrawnTo[size_t(trackOf[i])];
            if (right <= drawnTo + 0.5)
                continue;
            drawnTo = right;
            if (bar.waiter) {
                painter->fillRect(QRectF(left, waiterTop, std::max(1.0, right - left), waiterHeight), Waiter);
                continue;
            }
            // A pixel of air before each holder that follows another, so a hand-over shows.
            const double gap = !bar.fromBefore && right - left > 4 ? 1 : 0;
            const QRectF box(left + gap, holderTop + trackOf[i] * (trackHeight + 1), std::max(1.0, right - left - gap), trackHeight);
            if (bar.fromBefore) {
                // Held before the first revision replayed: it fades in from the edge.
                QLinearGradient fade(box.topLeft(), box.topLeft() + QPointF(std::min(24.0, box.width()), 0));
                QColor clear = holder;
                clear.setAlpha(40);
                fade.setColorAt(0, clear);
                fade.setColorAt(1, holder);
                painter->fillRect(box, fade);
            } else {
                painter->fillRect(box, holder);
            }
            // The name, clear of the mark at the bar's start.
            const double indent = bar.fromBefore ? 6 : markSize / 2 + 3;
            if (box.width() > indent + 30 && trackHeight >= 12) {
                const QRectF inside = box.adjusted(indent, 0, -4, 0).intersected(all.adjusted(indent, 0, -4, 0));
                if (inside.width() > 24) {
                    painter->setPen(Qt::white);
                    painter->drawText(inside, Qt::AlignVCenter | Qt::AlignLeft,
                                      metrics.elidedText(QEtcd::DisplayText::escape(bar.who), Qt::ElideRight, inside.width()));
                }
            }
        }

        // Of one kind's marks, the first in each half a glyph's width, counted from revision 0.
        const double bucketRevisions = std::max(1e-9, revisionsPerPixel * markSize / 2);
        qint64 lastBucket[std::size(Looks)];
        std::fill(std::begin(lastBucket), std::end(lastBucket), std::numeric_limits<qint64>::min());
        const double markY = holderTop + holderHeight / 2 - markSize / 2;
        auto mark = std::lower_bound(lane.marks.cbegin(), lane.marks.cend(), m_from - revisionsPerPixel * markSize,
                                     [](const CoordinationHistoryModel::Mark &each, double at) { return double(each.revision) < at; });
        for (; mark != lane.marks.cend() && double(mark->revision) <= m_to + revisionsPerPixel * markSize; ++mark) {
            const int kind = int(mark->kind);
            const qint64 bucket = qint64(std::floor(double(mark->revision) / bucketRevisions));
            if (lastBucket[kind] == bucket)
                continue;
            lastBucket[kind] = bucket;
            const int glyph = TimelineGlyphs::indexOf(QString::fromLatin1(Looks[kind].glyph));
            if (glyph < 0)
                continue;
            painter->drawImage(QRectF(xAt(double(mark->revision)) - markSize / 2, markY, markSize, markSize), glyphImage(glyph));
        }
    }

    if (m_asOf > 0) {
        const double x = std::round(xAt(double(m_asOf))) + 0.5;
        painter->setPen(QPen(AsOf, 2));
        painter->drawLine(QPointF(x, 0), QPointF(x, height()));
    }
}
