// SPDX-License-Identifier: Apache-2.0
#include "timelinesvg.h"

#include "timelineglyphs.h"
#include "timelinemodel.h"

#include <QtCore/QBuffer>
#include <QtCore/QSet>
#include <QtGui/QFontMetricsF>
#include <QtGui/QPainter>
#include <QtSvg/QSvgRenderer>

#include <algorithm>
#include <cmath>

namespace TimelineSvg {
namespace {
constexpr double Gutter = 110;  // the lanes' names
constexpr double RightMargin = 24;
constexpr double LaneHeight = 54;
constexpr double MomentRoom = 28;  // above the lanes: a moment's number
constexpr double AxisHeight = 30;
constexpr int GlyphSize = TimelineModel::MarkerPixels;
// A marker crowded off its lane's middle goes this far below it, or above.
constexpr double CrowdedOffset = GlyphSize + 2;
// Fonts a reader has: the console's where it is installed, any sans-serif elsewhere.
const QString FontFamily = QStringLiteral("DejaVu Sans, Verdana, sans-serif");
constexpr int LabelPixels = 11;  // bands' and margins' labels, as TimelineLayer's
constexpr int CaptionPixels = 17;
constexpr int LegendPixels = 12;
constexpr double LegendLineHeight = 22;

QString number(double value)
{
    return QString::number(value, 'f', 1);
}

QString colour(const QColor &colour)
{
    return colour.name(QColor::HexRgb);
}

using TimelineGlyphs::LanePalette;

// The colours that differ between the looks, by the class that names them in the picture.
const std::pair<const char *, QColor LanePalette::*> LookColours[] = {
    {"stripe", &LanePalette::stripe}, {"stripe-alternate", &LanePalette::alternateStripe},
    {"stripe-member", &LanePalette::memberStripe}, {"grid", &LanePalette::grid},
    {"ink", &LanePalette::ink}, {"paper", &LanePalette::paper}};

// What fills a shape: a colour that reads in both looks, or one of the look's, drawn as the
// picture's look has it and named by its class.
struct Paint
{
    Paint(const QColor &value) : value(value) {}  // one for both looks
    Paint(const LanePalette &palette, QColor LanePalette::*role) : value(palette.*role)
    {
        for (const auto &[name, each] : LookColours) {
            if (each == role)
                lookClass = QLatin1String(name);
        }
    }

    QString attributes() const
    {
        const QString fill = QStringLiteral("fill=\"%1\"").arg(colour(value));
        return lookClass.isEmpty() ? fill : QStringLiteral("class=\"%1\" %2").arg(lookClass, fill);
    }

    QColor value;
    QString lookClass;
};

QFont font(int pixels, bool bold)
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(pixels);
    font.setBold(bold);
    return font;
}

QString text(double x, double y, const QString &content, int pixels, bool bold, const Paint &fill,
             const QString &anchor = QStringLiteral("start"))
{
    return QStringLiteral("<text x=\"%1\" y=\"%2\" font-family=\"%3\" font-size=\"%4\"%5 %6 text-anchor=\"%7\">%8</text>\n")
        .arg(number(x), number(y), FontFamily)
        .arg(pixels)
        .arg(bold ? QStringLiteral(" font-weight=\"bold\"") : QString(), fill.attributes(), anchor, content.toHtmlEscaped());
}

QString rect(const QRectF &area, const Paint &fill, double opacity = 1)
{
    return QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" %5%6/>\n")
        .arg(number(area.x()), number(area.y()), number(area.width()), number(area.height()), fill.attributes(),
             opacity < 1 ? QStringLiteral(" fill-opacity=\"%1\"").arg(opacity, 0, 'f', 3) : QString());
}

struct LaneMarker
{
    double x;
    int glyph;
    QString title;
};

// A lane's markers, left to right, on MarkerLevels; when all three are taken, just right of the
// one that ends first. Where each went is added to placed.
QString markers(QList<LaneMarker> lane, double middle, QList<QRectF> *placed)
{
    std::stable_sort(lane.begin(), lane.end(), [](const LaneMarker &a, const LaneMarker &b) { return a.x < b.x; });
    TimelineGlyphs::MarkerLevels levels;
    QString content;
    for (const LaneMarker &marker : lane) {
        double left = marker.x - GlyphSize / 2.0;
        const int level = levels.choose(left);
        left = std::max(left, levels.end(level));
        levels.take(level, left + GlyphSize);
        const double top = middle - GlyphSize / 2.0 + TimelineGlyphs::MarkerLevels::offset(level, CrowdedOffset);
        placed->append(QRectF(left, top, GlyphSize, GlyphSize));
        content += QStringLiteral("<g class=\"marker\"><title>%1</title><use xlink:href=\"#glyph-%2\" x=\"%3\" y=\"%4\"/></g>\n")
                       .arg(marker.title.toHtmlEscaped(), QString::number(marker.glyph), number(left), number(top));
    }
    return content;
}

// The first of the lefts at which a box of size with its top at top covers none of placed; the
// first left when each would.
double clearLeft(const QList<double> &lefts, double top, const QSizeF &size, const QList<QRectF> &placed)
{
    const auto clear = std::find_if(lefts.cbegin(), lefts.cend(), [&](double left) {
        const QRectF box(QPointF(left, top), size);
        return std::none_of(placed.cbegin(), placed.cend(), [&](const QRectF &glyph) { return glyph.intersects(box); });
    });
    return clear != lefts.cend() ? *clear : lefts.first();
}

// The words of text in lines no wider than width in the caption's font.
QStringList wrapped(const QString &text, double width)
{
    const QFontMetricsF metrics(font(CaptionPixels, false));
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
            lines.append(line);
            line = word;
        } else {
            line = longer;
        }
    }
    if (!line.isEmpty())
        lines.append(line);
    return lines;
}

// The time labels' interval: the roundest that puts at most about a dozen on the axis.
double tickInterval(double span)
{
    for (double interval : {0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0}) {
        if (span / interval <= 12)
            return interval;
    }
    return 1800;
}
QString glyphUrl(int glyph)
{
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    TimelineGlyphs::glyphImage(glyph, GlyphSize, 2).save(&buffer, "PNG");
    return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
}
} // namespace

QString picture(const TimelineModel &timeline, const Options &options)
{
    const LanePalette &palette = TimelineGlyphs::lanePalette(options.dark);
    const QEtcd::EventLogModel *log = timeline.eventLog();
    const QStringList lanes = timeline.lanes() << QStringLiteral("etcd");
    const int etcdRow = int(lanes.size()) - 1;
    const int firstMember = etcdRow - timeline.memberLaneCount();

    const double width = options.width;
    const QStringList caption = wrapped(options.caption, width - 2 * RightMargin);
    const double captionHeight = caption.isEmpty() ? 0 : caption.size() * (CaptionPixels + 7) + 14;
    const double lanesTop = captionHeight + MomentRoom;
    const double axisY = lanesTop + lanes.size() * LaneHeight;

    // The whole log, with a glyph's width of air at both ends.
    const double plotWidth = width - Gutter - RightMargin;
    const double logSpan = std::max(1.0, timeline.logEnd() - timeline.logStart());
    const double air = logSpan * GlyphSize / plotWidth;
    const double start = timeline.logStart() - air;
    const double end = timeline.logEnd() + air;
    const double secondsPerPixel = (end - start) / plotWidth;
    const auto xAt = [&](double seconds) { return Gutter + (seconds - start) / secondsPerPixel; };
    const auto laneTop = [&](int row) { return lanesTop + row * LaneHeight; };
    const auto secondsOf = [&](qint64 ms) { return double(ms - timeline.originMs()) / 1000.0; };

    // What each lane draws, in its own group, bottom layer first as on the page: stripe, bands,
    // lease line, bands' names and losses' brackets (clear of the markers), markers.
    QList<QString> laneContent(lanes.size());
    QSet<int> glyphsUsed;
    for (int row = 0; row < lanes.size(); ++row) {
        const auto stripe = row >= firstMember ? &LanePalette::memberStripe : row % 2 ? &LanePalette::alternateStripe : &LanePalette::stripe;
        laneContent[row] += rect(QRectF(0, laneTop(row), width, LaneHeight), Paint(palette, stripe));
        laneContent[row] += text(12, laneTop(row) + LaneHeight / 2 + 5, lanes.at(row), 13, true, Paint(palette, &LanePalette::ink));
    }
    const QFontMetricsF labelMetrics(font(LabelPixels, true));
    const QList<TimelineModel::VisibleBand> bands = timeline.visibleBands(start, end);
    const QList<TimelineModel::VisibleLoss> losses = timeline.visibleLosses(start, end);
    for (const auto &band : bands) {
        const QColor strong = TimelineGlyphs::bandColour(band.kind);
        // One still open when the run ended runs on to the plot's end, not past it.
        const double left = xAt(band.start);
        const QRectF area(left, laneTop(band.row) + 1, std::max(2.0, std::min(xAt(band.end), xAt(end)) - left), LaneHeight - 2);
        QString &content = laneContent[band.row];
        content += rect(area, strong, 28 / 255.0);
        content += rect(QRectF(area.left(), area.top(), 2, area.height()), strong);
        content += rect(QRectF(area.right() - 1, area.top(), 1, area.height()), strong, 0.5);
    }
    for (int row = 0; row < etcdRow; ++row) {
        QStringList points;
        const double bottom = laneTop(row) + LaneHeight;
        for (const QPointF &point : timeline.leaseLine(row, start, end, secondsPerPixel))
            points << number(xAt(point.x())) + QLatin1Char(',') + number(bottom - TimelineGlyphs::leaseHeight(point.y()) * LaneHeight);
        if (!points.isEmpty()) {
            laneContent[row] += QStringLiteral("<polyline points=\"%1\" fill=\"none\" stroke=\"%2\" stroke-width=\"1.2\"/>\n")
                                    .arg(points.join(QLatin1Char(' ')), colour(TimelineGlyphs::Colours::Lease));
        }
    }
    QList<QList<LaneMarker>> laneMarkers(lanes.size());
    const auto marker = [&](int row, double at, int glyph, const QString &title) {
        glyphsUsed.insert(glyph);
        laneMarkers[row].append({xAt(at), glyph, title});
    };
    const auto describe = [&](const QEtcd::EventLogModel::Event &event) {
        return QStringList{number(secondsOf(event.monotonicMs)) + QStringLiteral(" s"), event.participant, event.kind,
                           event.detail, event.key}
            .join(QLatin1Char(' '))
            .simplified();
    };
    for (const TimelineModel::Marker &each : timeline.markers()) {
        const bool logged = log && each.sequence >= log->firstSequence() && each.sequence < log->endSequence();
        marker(timeline.rowOfLane(each.lane), secondsOf(each.ms), each.glyph, logged ? describe(log->eventAt(each.sequence)) : QString());
    }
    if (log) {
        for (const QEtcd::EventLogModel::Event &event : log->events()) {
            if (event.participant != QLatin1String("etcd"))
                continue;
            // A put or a read is no kind of its own among the glyphs: etcd's lane is the place that tells it.
            const QString glyph = TimelineGlyphs::glyphOf(event.kind, event.detail, event.spurious);
            marker(etcdRow, secondsOf(event.monotonicMs),
                   TimelineGlyphs::indexOf(glyph.isEmpty() ? QStringLiteral("other") : glyph), describe(event));
        }
    }
    // Placed before the bands' names and the losses' margins, which keep clear of them, and drawn
    // after, over the brackets' lines.
    QList<QList<QRectF>> placedMarkers(lanes.size());
    QStringList markerContent;
    for (int row = 0; row < lanes.size(); ++row)
        markerContent << markers(laneMarkers.at(row), laneTop(row) + LaneHeight / 2, &placedMarkers[row]);
    // A band's name in its bottom left corner, else just right of a marker it would cover.
    for (const auto &band : bands) {
        const double left = xAt(band.start);
        const double right = std::min(xAt(band.end), xAt(end));
        const QSizeF box(labelMetrics.horizontalAdvance(band.label), labelMetrics.height());
        if (left + 6 + box.width() > right - 4)
            continue;
        const double baseline = laneTop(band.row) + LaneHeight - 3 - labelMetrics.descent();
        QList<double> lefts{left + 6};
        for (const QRectF &glyph : placedMarkers.at(band.row)) {
            if (glyph.right() + 4 > left + 6 && glyph.right() + 4 + box.width() <= right - 4)
                lefts.append(glyph.right() + 4);
        }
        std::sort(lefts.begin(), lefts.end());
        const double at = clearLeft(lefts, baseline - labelMetrics.ascent(), box, placedMarkers.at(band.row));
        laneContent[band.row] += text(at, baseline, band.label, LabelPixels, true, TimelineGlyphs::bandColour(band.kind));
    }
    for (const auto &loss : losses) {
        // As TimelineLayer draws it: a tick at each moment, a line between them, the margin on it.
        const Paint ink = loss.late ? Paint(TimelineGlyphs::Colours::Bad) : Paint(palette, &LanePalette::ink);
        const double top = laneTop(loss.row);
        const double left = xAt(std::min(loss.knew, loss.deleted));
        const double right = xAt(std::max(loss.knew, loss.deleted));
        const double tickHeight = std::max(3.0, LaneHeight / 2 - 8);
        const double lineY = top + std::max(3.0, std::min(LaneHeight * 0.22, tickHeight - 2));
        QString &content = laneContent[loss.row];
        content += rect(QRectF(left - 1, top + 1, 2, tickHeight), ink);
        content += rect(QRectF(right - 1, top + 1, 2, tickHeight), ink);
        content += rect(QRectF(left, lineY - 0.75, right - left, 1.5), ink);
        // The margin on the line when it fits between the ticks, else beside them; and where a
        // marker of the lane would be under it, beside them on the other side, or the first side
        // after all when every place covers one.
        const QSizeF box(labelMetrics.horizontalAdvance(loss.margin) + 8, labelMetrics.height() + 2);
        const bool fits = right - left >= box.width() + 12;
        QList<double> lefts{right + 5};
        if (left - 5 - box.width() >= Gutter)
            lefts.append(left - 5 - box.width());
        if (fits)
            lefts.prepend((left + right - box.width()) / 2);
        const double boxTop = lineY - box.height() / 2;
        const QRectF area(QPointF(clearLeft(lefts, boxTop, box, placedMarkers.at(loss.row)), boxTop), box);
        content += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" rx=\"3\" %5%6/>\n")
                       .arg(number(area.x()), number(area.y()), number(area.width()), number(area.height()),
                            Paint(palette, &LanePalette::paper).attributes(),
                            loss.late ? QStringLiteral(" stroke=\"%1\"").arg(colour(ink.value)) : QString());
        content += text(area.center().x(), area.bottom() - labelMetrics.descent() - 1.5, loss.margin, LabelPixels, true, ink,
                        QStringLiteral("middle"));
    }
    for (int row = 0; row < lanes.size(); ++row)
        laneContent[row] += markerContent.at(row);

    // The legend under the axis, as the page's: the glyphs drawn, then the lines and shades.
    QList<int> glyphs(glyphsUsed.cbegin(), glyphsUsed.cend());
    std::sort(glyphs.begin(), glyphs.end());
    QString legend;
    const QFontMetricsF legendMetrics(font(LegendPixels, false));
    QPointF at(Gutter, axisY + AxisHeight + 4);
    const auto legendEntry = [&](const QString &swatch, const QString &title) {
        const double entryWidth = GlyphSize + 6 + legendMetrics.horizontalAdvance(title) + 20;
        if (at.x() + entryWidth > width - RightMargin && at.x() > Gutter)
            at = QPointF(Gutter, at.y() + LegendLineHeight);
        legend += swatch.arg(number(at.x()), number(at.y()));
        legend += text(at.x() + GlyphSize + 6, at.y() + GlyphSize - 2, title, LegendPixels, false, Paint(palette, &LanePalette::ink));
        at.rx() += entryWidth;
    };
    for (int glyph : glyphs) {
        legendEntry(QStringLiteral("<use xlink:href=\"#glyph-%1\" x=\"%2\" y=\"%3\"/>\n").arg(glyph),
                    TimelineGlyphs::all().at(glyph).title);
    }
    legendEntry(QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"14\" height=\"1.5\" transform=\"translate(0 6)\" fill=\"%3\"/>\n")
                    .arg(QStringLiteral("%1"), QStringLiteral("%2"), colour(TimelineGlyphs::Colours::Lease)),
                QStringLiteral("lease time left, 0 to TTL"));
    if (!bands.isEmpty()) {
        legendEntry(QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"14\" height=\"14\" fill=\"%3\" fill-opacity=\"0.11\" stroke=\"%3\"/>\n")
                        .arg(QStringLiteral("%1"), QStringLiteral("%2"), colour(TimelineGlyphs::Colours::Bad)),
                    QStringLiteral("fault or outage, named in its band"));
    }
    if (!losses.isEmpty()) {
        legendEntry(QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"14\" height=\"1.5\" transform=\"translate(0 6)\" %3/>\n")
                        .arg(QStringLiteral("%1"), QStringLiteral("%2"), Paint(palette, &LanePalette::ink).attributes()),
                    QStringLiteral("|\u2190 s \u2192| how long before etcd deleted the key its participant knew it was lost"));
    }
    const double height = at.y() + LegendLineHeight;

    QString svg = QStringLiteral("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
                                 "version=\"1.2\" baseProfile=\"tiny\" class=\"timeline\" width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\">\n")
                      .arg(width)
                      .arg(height);
    svg += QStringLiteral("<defs>\n");
    for (int glyph : glyphs) {
        svg += QStringLiteral("<image id=\"glyph-%1\" width=\"%2\" height=\"%2\" xlink:href=\"%3\"/>\n")
                   .arg(glyph)
                   .arg(GlyphSize)
                   .arg(glyphUrl(glyph));
    }
    svg += QStringLiteral("</defs>\n");
    svg += rect(QRectF(0, 0, width, height), Paint(palette, &LanePalette::paper));
    for (int line = 0; line < caption.size(); ++line)
        svg += text(RightMargin, 10 + (line + 1) * (CaptionPixels + 7) - 6, caption.at(line), CaptionPixels, false, Paint(palette, &LanePalette::ink));

    for (int row = 0; row < lanes.size(); ++row) {
        svg += QStringLiteral("<g class=\"lane\" data-lane=\"%1\">\n").arg(lanes.at(row).toHtmlEscaped());
        svg += laneContent.at(row);
        svg += QStringLiteral("</g>\n");
    }
    // The time grid over the stripes, thin enough to read the lanes through.
    const double interval = tickInterval(end - start);
    for (qint64 tick = qint64(std::ceil(start / interval)); tick * interval <= end; ++tick) {
        const double at = tick * interval;
        svg += rect(QRectF(xAt(at) - 0.5, lanesTop, 1, axisY - lanesTop), Paint(palette, &LanePalette::grid), 0.6);
        svg += text(xAt(at), axisY + 18, QStringLiteral("%1 s").arg(at), 11, false, Paint(palette, &LanePalette::ink), QStringLiteral("middle"));
    }
    svg += rect(QRectF(Gutter - 1, lanesTop, 1, axisY - lanesTop), Paint(palette, &LanePalette::grid));

    for (int index = 0; index < options.moments.size(); ++index) {
        if (options.shownMoment >= 0 && index != options.shownMoment)
            continue;
        const Moment &moment = options.moments.at(index);
        const double x = xAt(moment.at);
        const QColor mark = TimelineGlyphs::Colours::Info;
        svg += QStringLiteral("<g class=\"moment\" id=\"moment-%1\" visibility=\"%2\">\n")
                   .arg(index)
                   .arg(index == options.shownMoment ? QStringLiteral("visible") : QStringLiteral("hidden"));
        // See-through: the markers of that moment show through it.
        svg += rect(QRectF(x - 1, lanesTop - 6, 2, axisY - lanesTop + 6), mark, 0.55);
        svg += QStringLiteral("<circle cx=\"%1\" cy=\"%2\" r=\"11\" fill=\"%3\"/>\n").arg(number(x), number(lanesTop - 14), colour(mark));
        svg += text(x, lanesTop - 10, moment.label, 12, true, QColor(Qt::white), QStringLiteral("middle"));
        svg += QStringLiteral("</g>\n");
    }
    svg += legend;
    svg += QStringLiteral("</svg>\n");
    return svg;
}

QImage image(const QString &svg, qreal scale)
{
    QSvgRenderer renderer(svg.toUtf8());
    if (!renderer.isValid())
        return {};
    QImage image((QSizeF(renderer.defaultSize()) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    renderer.render(&painter);
    painter.end();
    return image;
}

QString styleSheet()
{
    const auto rules = [](const LanePalette &palette) {
        QString css;
        for (const auto &[name, role] : LookColours)
            css += QStringLiteral("svg.timeline .%1 { fill: %2; }\n").arg(QLatin1String(name), colour(palette.*role));
        return css;
    };
    return rules(TimelineGlyphs::lanePalette(false)) + QStringLiteral("@media (prefers-color-scheme: dark) {\n")
        + rules(TimelineGlyphs::lanePalette(true)) + QStringLiteral("}\n");
}

} // namespace TimelineSvg
