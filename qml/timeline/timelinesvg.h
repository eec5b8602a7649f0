// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QList>
#include <QtCore/QString>
#include <QtGui/QImage>

class TimelineModel;

// The whole of a timeline's log as one SVG picture, for a page that must open anywhere without
// the console (an exported story) and, rendered by QSvgRenderer, for a PNG: the same lanes, lease
// lines, markers, fault bands and loss brackets as the Timeline page, in its light or dark look,
// with the glyphs TimelineGlyphs paints. Below the participants' and members' lanes, etcd's own
// (its deletions, puts and reads), which the page shows only in its event log, and under the
// time axis a legend of what is drawn. The glyphs are PNGs inside it, crisp at twice their size.
//
// Each lane is a <g class="lane" data-lane="NAME">, each moment a <g class="moment"
// id="moment-N"> (a line across the lanes, numbered): with one shown, only that one is drawn;
// without, all of them are there hidden, for a page's script to show one at a time. What differs
// between the looks (stripes, grid, ink, paper) carries a class beside its fill, so that a page
// showing the picture inline can follow its reader's look (styleSheet()). Markers of a lane that
// would cover each other (the same moment, or nearly) are drawn below and above the lane's middle,
// and beside each other when those are taken too: each stays visible, with its own title.
namespace TimelineSvg {

struct Moment
{
    double at;  // seconds since the timeline's origin
    QString label;  // "3": a step's number
};

struct Options
{
    int width = 1200;
    QList<Moment> moments;
    int shownMoment = -1;
    QString caption;  // above the lanes, wrapped to the width: what the shown moment is
    bool dark = false;  // the console's dark look (Theme.dark) rather than its light one
};

// The SVG document (with its XML declaration left out: it goes inline in HTML as it is).
QString picture(const TimelineModel &timeline, const Options &options);
// svg drawn at scale on white; null if it cannot be read.
QImage image(const QString &svg, qreal scale);
// CSS for a page that shows pictures inline: their looks' colours as the reader's system has it
// (prefers-color-scheme), light or dark, whichever look they were drawn in.
QString styleSheet();

} // namespace TimelineSvg
