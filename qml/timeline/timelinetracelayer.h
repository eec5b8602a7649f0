// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QList>
#include <QtCore/QPointer>
#include <QtGui/QImage>
#include <QtQml/qqmlregistration.h>
#include <QtQuick/QQuickItem>

#include <map>

#include "timelinemodel.h"

// What each lane traces over the chart (sized to it and sliding with it under the window: see
// TimelineModel::chartStart): its lease line, and its markers over it, each glyph painted from
// one cached image. They are painted in tiles TileWidth pixels wide, at fixed times from the
// origin: a tile is painted once for a scale and kept while it is in the chart's span or next to
// it, so a window that moves on costs nothing here until the chart is ranged again, and then
// placing the tiles; only those whose markers or lease samples changed (where new events and
// samples land, or where the log's capacity took old ones) are painted again. A new scale (zoom,
// a new plot size, lanes added) paints the tiles afresh. At most the tiles of the span and two
// beyond each end are kept.
//
// Qt Charts paints its scene into an image of its own two event loop turns after a change, so
// the chart beneath (the time grid) could show the window before while this
// layer and the bands show the new one: a screenshot taken at the next frame showed both. Given
// the ChartView as `chart`, the layer has Qt Charts do that work at the start of the frame that
// draws a new window, so every layer of the frame shows the same one.
class TimelineTraceLayer : public QQuickItem
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(TimelineModel *timeline READ timeline WRITE setTimeline NOTIFY timelineChanged)
    Q_PROPERTY(QQuickItem *chart READ chart WRITE setChart NOTIFY chartChanged)
    // What the layer's last update drew (tests, the benchmark): the window then, in seconds since
    // the origin, how many markers it placed in the chart's span, and how many tiles were painted
    // since the layer was made.
    Q_PROPERTY(double drawnStart READ drawnStart NOTIFY drawn)
    Q_PROPERTY(double drawnEnd READ drawnEnd NOTIFY drawn)
    Q_PROPERTY(int drawnMarkers READ drawnMarkers NOTIFY drawn)
    Q_PROPERTY(int tilesPainted READ tilesPainted NOTIFY drawn)

public:
    static constexpr int TileWidth = 256;

    explicit TimelineTraceLayer(QQuickItem *parent = nullptr);
    ~TimelineTraceLayer() override;
    Q_DISABLE_COPY_MOVE(TimelineTraceLayer)

    TimelineModel *timeline() const { return m_timeline; }
    void setTimeline(TimelineModel *timeline);
    QQuickItem *chart() const { return m_chart; }
    void setChart(QQuickItem *chart);
    double drawnStart() const { return m_drawnStart; }
    double drawnEnd() const { return m_drawnEnd; }
    int drawnMarkers() const { return m_drawnMarkers; }
    int tilesPainted() const { return m_tilesPainted; }

Q_SIGNALS:
    void timelineChanged();
    void chartChanged();
    void drawn();

protected:
    QSGNode *updatePaintNode(QSGNode *oldNode, UpdatePaintNodeData *data) override;
    void geometryChange(const QRectF &newGeometry, const QRectF &oldGeometry) override;
    void releaseResources() override;
    void updatePolish() override;

private:
    // What a tile's pixels depend on besides its markers.
    struct Scale
    {
        double secondsPerPixel = 0;
        qint64 originMs = 0;
        int rows = 0;
        double height = 0;
        qreal devicePixelRatio = 1;
        bool operator==(const Scale &other) const;
    };
    struct Tile
    {
        QImage image;
        int markers = 0;
        bool painted = false;  // its image is up to date
        bool uploaded = false;  // its node shows that image
    };

    Scale currentScale() const;
    double tileSeconds() const { return TileWidth * m_scale.secondsPerPixel; }
    // Paints again the tiles that show anything from `from` to `to`, or reachPixels beyond.
    void repaintTiles(double from, double to, double reachPixels);
    void dropTiles();
    void paintTile(qint64 index, Tile &tile);
    void windowChanged();

    QPointer<TimelineModel> m_timeline;
    QPointer<QQuickItem> m_chart;
    QPointer<QObject> m_chartScene;   // its QGraphicsScene
    QPointer<QObject> m_chartWidget;  // and the QChart in it
    Scale m_scale;
    std::map<qint64, Tile> m_tiles;  // by index: tile i starts i × tileSeconds() after the origin
    QList<QImage> m_glyphs;          // by glyph, at m_scale's pixel ratio
    bool m_dropNodes = false;        // the nodes show tiles of another scale
    double m_drawnStart = 0;
    double m_drawnEnd = 0;
    int m_drawnMarkers = 0;
    int m_tilesPainted = 0;
};
