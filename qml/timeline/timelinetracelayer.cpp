// SPDX-License-Identifier: Apache-2.0
#include "timelinetracelayer.h"

#include "timelineglyphs.h"

#include <QtCore/QCoreApplication>
#include <QtGui/QPainter>
#include <QtWidgets/QGraphicsScene>
#include <QtWidgets/QGraphicsWidget>
#include <QtQuick/QQuickWindow>
#include <QtQuick/QSGImageNode>
#include <QtQuick/QSGTransformNode>

#include <algorithm>
#include <cmath>

namespace {

// The lease lines' pen: blue under the markers, thin enough not to hide them, and cosmetic (one
// pixel whatever the scale): the raster engine draws such lines directly, where a wider pen is
// outlined and filled, at several times the cost in a tile painted 20 times a second.
constexpr double LeaseLineWidth = 1;

// The tiles' image nodes, by tile index; a tile with nothing in it has none. A transform node (that
// moves nothing) rather than a plain one: the software scene graph places a node added later
// by the state it recorded for its parent, and it records none for a plain node.
class TileNodes : public QSGTransformNode
{
public:
    std::map<qint64, QSGImageNode *> nodes;

    void remove(std::map<qint64, QSGImageNode *>::iterator at)
    {
        removeChildNode(at->second);
        delete at->second;
        nodes.erase(at);
    }
    void removeAll()
    {
        while (!nodes.empty())
            remove(nodes.begin());
    }
};

} // namespace

bool TimelineTraceLayer::Scale::operator==(const Scale &other) const
{
    return secondsPerPixel == other.secondsPerPixel && originMs == other.originMs && rows == other.rows
        && height == other.height && devicePixelRatio == other.devicePixelRatio;
}

TimelineTraceLayer::TimelineTraceLayer(QQuickItem *parent) : QQuickItem(parent)
{
    setFlag(ItemHasContents, true);
}

TimelineTraceLayer::~TimelineTraceLayer() = default;

void TimelineTraceLayer::setTimeline(TimelineModel *timeline)
{
    if (timeline == m_timeline)
        return;
    if (m_timeline)
        disconnect(m_timeline, nullptr, this, nullptr);
    m_timeline = timeline;
    dropTiles();
    if (m_timeline) {
        // Every step of the window, and every change while paused, ends in windowChanged; the
        // markers' changes come before it, and only repaint the tiles they touch.
        connect(m_timeline, &TimelineModel::windowChanged, this, &TimelineTraceLayer::windowChanged);
        // A tile shows the markers up to half a glyph beyond its ends, and which marker stands
        // for its half a glyph's width may change with one before it: a glyph's width either way.
        connect(m_timeline, &TimelineModel::markersChanged, this, [this](double from, double to) {
            repaintTiles(from, to, TimelineModel::MarkerPixels);
        });
        connect(m_timeline, &TimelineModel::leaseLinesChanged, this, [this](double from, double to) {
            repaintTiles(from, to, 2 * LeaseLineWidth);
        });
        connect(m_timeline, &TimelineModel::lanesChanged, this, [this] {
            dropTiles();
            update();
        });
    }
    update();
    Q_EMIT timelineChanged();
}

void TimelineTraceLayer::setChart(QQuickItem *chart)
{
    if (chart == m_chart)
        return;
    m_chart = chart;
    m_chartScene = nullptr;
    m_chartWidget = nullptr;
    Q_EMIT chartChanged();
}

void TimelineTraceLayer::windowChanged()
{
    update();
    if (m_chart)
        polish();
}

void TimelineTraceLayer::updatePolish()
{
    if (!m_chart)
        return;
    // The ChartView keeps its QGraphicsScene as a child, and the scene holds the QChart.
    if (!m_chartScene) {
        auto *scene = m_chart->findChild<QGraphicsScene *>(QString(), Qt::FindDirectChildrenOnly);
        m_chartScene = scene;
        for (QGraphicsItem *item : scene ? scene->items() : QList<QGraphicsItem *>()) {
            if (item->isWidget() && !item->parentItem()) {
                m_chartWidget = static_cast<QGraphicsWidget *>(item);
                break;
            }
        }
    }
    // What the model's change of the axis and the lease line left for later, in order: the
    // chart's layout (the grid), the scene's update and its changed signal, and the ChartView's
    // render of the scene into its image (which asks for this frame's sync).
    for (QObject *receiver : {m_chartWidget.data(), m_chartScene.data(), static_cast<QObject *>(m_chart.data()),
                              m_chartScene.data(), static_cast<QObject *>(m_chart.data())}) {
        if (receiver)
            QCoreApplication::sendPostedEvents(receiver, 0);
    }
}

void TimelineTraceLayer::geometryChange(const QRectF &newGeometry, const QRectF &oldGeometry)
{
    QQuickItem::geometryChange(newGeometry, oldGeometry);
    if (newGeometry.size() != oldGeometry.size())
        update();  // a new scale: updatePaintNode paints the tiles afresh
}

void TimelineTraceLayer::releaseResources()
{
    // The nodes go with the window's scene graph; the images are kept, to be shown again.
    for (auto &entry : m_tiles)
        entry.second.uploaded = false;
}

TimelineTraceLayer::Scale TimelineTraceLayer::currentScale() const
{
    Scale scale;
    if (!m_timeline || width() <= 0)
        return scale;
    scale.secondsPerPixel = m_timeline->chartLength() / width();
    scale.originMs = m_timeline->originMs();
    scale.rows = int(m_timeline->lanes().size());
    scale.height = height();
    scale.devicePixelRatio = window() ? window()->effectiveDevicePixelRatio() : 1.0;
    return scale;
}

void TimelineTraceLayer::dropTiles()
{
    m_tiles.clear();
    m_dropNodes = true;
}

void TimelineTraceLayer::repaintTiles(double from, double to, double reachPixels)
{
    if (!std::isfinite(from) || !std::isfinite(to)) {
        dropTiles();
        update();
        return;
    }
    const double span = tileSeconds();
    if (!(span > 0))
        return;
    const double reach = reachPixels * m_scale.secondsPerPixel;
    const auto first = qint64(std::floor((from - reach) / span));
    const auto last = qint64(std::floor((to + reach) / span));
    bool touched = false;
    for (auto tile = m_tiles.lower_bound(first); tile != m_tiles.end() && tile->first <= last; ++tile) {
        tile->second.painted = false;
        touched = true;
    }
    if (touched)
        update();
}

void TimelineTraceLayer::paintTile(qint64 index, Tile &tile)
{
    const qreal ratio = m_scale.devicePixelRatio;
    tile.markers = 0;
    tile.painted = true;
    ++m_tilesPainted;
    const double start = index * tileSeconds();
    const double end = start + TileWidth * m_scale.secondsPerPixel;
    const double half = TimelineModel::MarkerPixels / 2.0;
    const auto markers = m_timeline->visibleMarkers(start - half * m_scale.secondsPerPixel,
                                                    end + half * m_scale.secondsPerPixel, m_scale.secondsPerPixel);
    QList<QList<QPointF>> leaseLines;
    bool anyLine = false;
    for (int row = 0; row < m_scale.rows; ++row) {
        leaseLines.append(m_timeline->leaseLine(row, start, end, m_scale.secondsPerPixel));
        anyLine = anyLine || !leaseLines.last().isEmpty();
    }
    if (markers.isEmpty() && !anyLine) {  // no image, and no node
        tile.image = QImage();
        return;
    }
    const QSize pixels(qRound(TileWidth * ratio), qRound(m_scale.height * ratio));
    if (tile.image.size() != pixels) {
        tile.image = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
        tile.image.setDevicePixelRatio(ratio);
    }
    tile.image.fill(Qt::transparent);
    const double laneHeight = m_scale.height / std::max(1, m_scale.rows);
    QPainter painter(&tile.image);

    // Each lease from nothing to its TTL, in its lane (TimelineGlyphs::leaseHeight).
    painter.setRenderHint(QPainter::Antialiasing);
    QPen leasePen(TimelineGlyphs::Colours::Lease, LeaseLineWidth);
    leasePen.setCosmetic(true);
    painter.setPen(leasePen);
    QPolygonF polyline;
    for (int row = 0; row < leaseLines.size(); ++row) {
        polyline.clear();
        const double bottom = (row + 1) * laneHeight;
        for (const QPointF &point : leaseLines.at(row))
            polyline << QPointF((point.x() - start) / m_scale.secondsPerPixel, bottom - TimelineGlyphs::leaseHeight(point.y()) * laneHeight);
        painter.drawPolyline(polyline);
    }

    // In device pixels, at whole ones: each glyph is copied, never scaled or filtered.
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.scale(1 / ratio, 1 / ratio);
    const int glyphPixels = m_glyphs.isEmpty() ? 0 : m_glyphs.first().width();
    // A crowded marker a glyph and a little below the lane's middle, or above; closer in a lane
    // too low for that.
    const double levelStep = std::max(0.0, std::min(TimelineModel::MarkerPixels + 2.0, (laneHeight - TimelineModel::MarkerPixels) / 2));
    for (const auto &marker : markers) {
        const double x = (marker.at - start) / m_scale.secondsPerPixel;
        const double y = (marker.row + 0.5) * laneHeight + TimelineGlyphs::MarkerLevels::offset(marker.level, levelStep);
        painter.drawImage(QPoint(int(std::lround(x * ratio)) - glyphPixels / 2, int(std::lround(y * ratio)) - glyphPixels / 2),
                          m_glyphs.at(marker.glyph));
        if (x >= 0 && x < TileWidth)
            ++tile.markers;
    }
}

QSGNode *TimelineTraceLayer::updatePaintNode(QSGNode *oldNode, UpdatePaintNodeData *)
{
    auto *root = static_cast<TileNodes *>(oldNode);
    const Scale scale = currentScale();
    if (!(scale.secondsPerPixel > 0) || height() <= 0 || !window()) {
        delete root;
        return nullptr;
    }
    if (!root) {
        root = new TileNodes;
        for (auto &entry : m_tiles)
            entry.second.uploaded = false;
    }
    if (!(scale == m_scale)) {
        if (m_glyphs.isEmpty() || scale.devicePixelRatio != m_scale.devicePixelRatio) {
            m_glyphs.clear();
            for (int glyph = 0; glyph < TimelineGlyphs::all().size(); ++glyph) {
                QImage image = TimelineGlyphs::glyphImage(glyph, TimelineModel::MarkerPixels, scale.devicePixelRatio);
                image.setDevicePixelRatio(1);  // drawn in device pixels
                m_glyphs.append(image);
            }
        }
        m_scale = scale;
        dropTiles();
    }
    if (m_dropNodes) {
        root->removeAll();
        m_dropNodes = false;
    }

    // Over the chart's whole span, which slides under the window: a step of a live window moves
    // none of the tiles.
    const double start = m_timeline->chartStart();
    const double end = start + m_timeline->chartLength();
    const double span = tileSeconds();
    const auto first = qint64(std::floor(start / span));
    const auto last = qint64(std::floor(end / span));
    // The tiles of the span, and two beyond each end for a window that comes back.
    for (auto tile = m_tiles.begin(); tile != m_tiles.end();)
        tile = tile->first < first - 2 || tile->first > last + 2 ? m_tiles.erase(tile) : std::next(tile);
    for (auto node = root->nodes.begin(); node != root->nodes.end();) {
        const auto next = std::next(node);
        if (node->first < first || node->first > last)
            root->remove(node);
        node = next;
    }

    const qreal ratio = m_scale.devicePixelRatio;
    int markers = 0;
    for (qint64 index = first; index <= last; ++index) {
        Tile &tile = m_tiles[index];
        if (!tile.painted) {
            paintTile(index, tile);
            tile.uploaded = false;
        }
        markers += tile.markers;
        const auto found = root->nodes.find(index);
        if (tile.image.isNull()) {
            if (found != root->nodes.end())
                root->remove(found);
            continue;
        }
        QSGImageNode *node = found != root->nodes.end() ? found->second : nullptr;
        const bool added = !node;
        if (added) {
            node = window()->createImageNode();
            node->setOwnsTexture(true);
            node->setFiltering(QSGTexture::Nearest);
            tile.uploaded = false;
        }
        if (!tile.uploaded) {
            node->setTexture(window()->createTextureFromImage(tile.image));
            node->setSourceRect(QRectF(QPointF(0, 0), tile.image.size()));
            tile.uploaded = true;
        }
        // At a whole device pixel, as the glyphs in it are.
        const double x = std::round((index * span - start) / m_scale.secondsPerPixel * ratio) / ratio;
        node->setRect(QRectF(x, 0, TileWidth, m_scale.height));
        if (added) {  // with its texture: the renderer reads it as soon as the node is in the tree
            root->appendChildNode(node);
            root->nodes.emplace(index, node);
        }
    }
    m_drawnStart = m_timeline->windowStart();
    m_drawnEnd = m_timeline->windowEnd();
    m_drawnMarkers = markers;
    // Emitted where the properties are read (the render thread may be another).
    QMetaObject::invokeMethod(this, &TimelineTraceLayer::drawn, Qt::QueuedConnection);
    return root;
}
