// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QList>
#include <QtCore/QString>
#include <QtGui/QColor>
#include <QtGui/QImage>
#include <QtQml/qqmlregistration.h>
#include <QtQuick/QQuickPaintedItem>

#include <array>
#include <limits>

QT_BEGIN_NAMESPACE
class QPainter;
QT_END_NAMESPACE

// How each kind of timeline marker looks: a shape, filled or with a mark inside, and a colour
// that only repeats what the shape says (the console never says anything by colour alone). The
// chart's markers, the legend and the event log's rows are all painted by paintGlyph(), so they
// cannot disagree.
namespace TimelineGlyphs {

enum class Shape { Circle, Square, Diamond, TriangleUp, TriangleDown, TriangleRight, Cross, Star, Hexagon, Bar, Pause,
                   Badge, Dot };
// What is inside a shape: Filled or Hollow, or hollow with a centre dot, a slash, an X or a "!".
enum class Mark { Filled, Hollow, Dot, Slash, Cross, Bang };

struct Glyph
{
    QString name;   // the kind of event it stands for (some kinds have several: see glyphOf)
    QString title;  // for the legend
    Shape shape;
    Mark mark;
    QColor colour;
    QChar letter;  // a Badge's
};

// Every glyph, in the legend's order: holds, leadership, leases, connection, barriers, etcd,
// members, anything else.
const QList<Glyph> &all();
int indexOf(const QString &name);  // -1 for none
// The glyph of an event: its kind, except for a connection state (one per state), a spurious
// barrier lift, and kinds the vocabulary does not name ("other"). Empty for events drawn other
// than as a marker (faults) or not on a lane at all (etcd's puts, a scenario's steps).
QString glyphOf(const QString &kind, const QString &detail, bool spurious);
void paintGlyph(QPainter *painter, const QRectF &box, int glyph);
// The glyph at size × size device-independent pixels for a screen of this pixel ratio, for a
// chart series' light marker: drawn at exactly its size, it is copied rather than scaled.
QImage glyphImage(int glyph, int size, qreal devicePixelRatio);

// The Theme's colours the timeline paints with in C++ (glyphs, bands, loss brackets): the
// glyphs' mid tones read on a light and a dark lane alike.
namespace Colours {
extern const QColor Good, Warning, Bad, Info, Neutral;
extern const QColor Barrier, Lifted, Etcd;  // a barrier set and lifted, etcd's deletions
extern const QColor Lease;  // a lease's time left
}
// How high in its lane a lease with this fraction of its TTL left is drawn, in lane heights from
// the lane's bottom: from nothing to its TTL but for a margin, below the markers' middle and
// above it.
inline double leaseHeight(double fraction) { return 0.14 + 0.72 * fraction; }
// Markers that would cover one another stand apart on three levels of their lane: its middle,
// just below it, just above it (where a loss's bracket is drawn). The chart and the story
// export place them alike: each on the first level free where it starts, else on the one that
// frees first.
class MarkerLevels
{
public:
    static constexpr int Count = 3;
    // How far from the lane's middle a level stands, levels step apart.
    static double offset(int level, double step) { return level == 0 ? 0 : level == 1 ? step : -step; }

    // The level for a marker whose box starts at left.
    int choose(double left) const;
    // Where the last marker on level ends; a marker placed there ends at right.
    double end(int level) const { return m_ends[size_t(level)]; }
    void take(int level, double right) { m_ends[size_t(level)] = right; }

private:
    std::array<double, Count> m_ends{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity()};
};

// What the lanes are painted on, in the light or the dark look (Theme.dark), as Theme has them.
struct LanePalette
{
    QColor stripe, alternateStripe, memberStripe, grid;
    QColor ink;    // a loss's bracket and margin
    QColor paper;  // behind the margin's text
};
const LanePalette &lanePalette(bool dark);
// A band's colour by its kind: blackhole, delay, reset, paused, down.
QColor bandColour(const QString &kind);

} // namespace TimelineGlyphs

// One glyph as an item, for the legend and the event log: `name` as TimelineGlyphs names it.
class TimelineGlyph : public QQuickPaintedItem
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY nameChanged)

public:
    explicit TimelineGlyph(QQuickItem *parent = nullptr);

    QString name() const { return m_name; }
    void setName(const QString &name);

    void paint(QPainter *painter) override;

Q_SIGNALS:
    void nameChanged();

private:
    QString m_name;
    int m_glyph = -1;
};
