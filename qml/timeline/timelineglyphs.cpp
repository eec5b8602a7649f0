// SPDX-License-Identifier: Apache-2.0
#include "timelineglyphs.h"

#include <QtCore/QHash>
#include <QtGui/QPainter>
#include <QtGui/QPainterPath>

#include <algorithm>
#include <cmath>

namespace TimelineGlyphs {

namespace Colours {
const QColor Good(0x15, 0x80, 0x3d);
const QColor Warning(0xa1, 0x62, 0x07);
const QColor Bad(0xb9, 0x1c, 0x1c);
const QColor Info(0x1d, 0x4e, 0xd8);
const QColor Neutral(0x47, 0x55, 0x69);
const QColor Barrier(0x7c, 0x3a, 0xed);
const QColor Lifted(0x0f, 0x76, 0x6e);
const QColor Etcd(0x7f, 0x1d, 0x1d);
const QColor Lease(0x3b, 0x82, 0xf6);
} // namespace Colours

int MarkerLevels::choose(double left) const
{
    const auto free = std::find_if(m_ends.cbegin(), m_ends.cend(), [left](double end) { return end <= left; });
    const auto level = free != m_ends.cend() ? free : std::min_element(m_ends.cbegin(), m_ends.cend());
    return int(level - m_ends.cbegin());
}

const LanePalette &lanePalette(bool dark)
{
    static const LanePalette light{QColor(0xff, 0xff, 0xff), QColor(0xf8, 0xf9, 0xfb), QColor(0xf1, 0xf3, 0xf9),
                                   QColor(0xe4, 0xe7, 0xec), QColor(0x1d, 0x24, 0x30), QColor(0xff, 0xff, 0xff)};
    static const LanePalette night{QColor(0x19, 0x20, 0x2a), QColor(0x1d, 0x25, 0x30), QColor(0x1c, 0x23, 0x33),
                                   QColor(0x2e, 0x38, 0x46), QColor(0xe6, 0xea, 0xf0), QColor(0x19, 0x20, 0x2a)};
    return dark ? night : light;
}

namespace {

using namespace Colours;

QPolygonF polygon(const QRectF &box, std::initializer_list<QPointF> unitPoints)
{
    QPolygonF points;
    for (const QPointF &unit : unitPoints)
        points << QPointF(box.left() + unit.x() * box.width(), box.top() + unit.y() * box.height());
    return points;
}

QPolygonF regular(const QRectF &box, int corners, double outer, double inner, double turn)
{
    QPolygonF points;
    const int steps = inner > 0 ? corners * 2 : corners;
    for (int i = 0; i < steps; ++i) {
        const double radius = (inner > 0 && i % 2) ? inner : outer;
        const double angle = turn + 2 * M_PI * i / steps;
        points << QPointF(box.center().x() + radius * box.width() * std::cos(angle),
                          box.center().y() + radius * box.height() * std::sin(angle));
    }
    return points;
}

QPainterPath outline(Shape shape, const QRectF &box)
{
    QPainterPath path;
    switch (shape) {
    case Shape::Circle:
        path.addEllipse(box.adjusted(box.width() * 0.12, box.height() * 0.12, -box.width() * 0.12, -box.height() * 0.12));
        break;
    case Shape::Dot:
        path.addEllipse(box.adjusted(box.width() * 0.28, box.height() * 0.28, -box.width() * 0.28, -box.height() * 0.28));
        break;
    case Shape::Square:
        path.addRect(box.adjusted(box.width() * 0.14, box.height() * 0.14, -box.width() * 0.14, -box.height() * 0.14));
        break;
    case Shape::Badge:
        path.addRoundedRect(box.adjusted(box.width() * 0.06, box.height() * 0.06, -box.width() * 0.06, -box.height() * 0.06),
                            box.width() * 0.22, box.height() * 0.22);
        break;
    case Shape::Diamond:
        path.addPolygon(polygon(box, {{0.5, 0.03}, {0.97, 0.5}, {0.5, 0.97}, {0.03, 0.5}}));
        break;
    case Shape::TriangleUp:
        path.addPolygon(polygon(box, {{0.5, 0.06}, {0.96, 0.88}, {0.04, 0.88}}));
        break;
    case Shape::TriangleDown:
        path.addPolygon(polygon(box, {{0.04, 0.12}, {0.96, 0.12}, {0.5, 0.94}}));
        break;
    case Shape::TriangleRight:
        path.addPolygon(polygon(box, {{0.12, 0.04}, {0.94, 0.5}, {0.12, 0.96}}));
        break;
    case Shape::Star:
        path.addPolygon(regular(box.translated(0, box.height() * 0.04), 5, 0.5, 0.21, -M_PI / 2));
        break;
    case Shape::Hexagon:
        path.addPolygon(regular(box, 6, 0.47, 0, 0));
        break;
    case Shape::Bar:
        path.addRoundedRect(box.adjusted(box.width() * 0.34, 0, -box.width() * 0.34, 0), box.width() * 0.1,
                            box.width() * 0.1);
        break;
    case Shape::Pause:
        path.addRect(box.adjusted(box.width() * 0.16, box.height() * 0.1, -box.width() * 0.58, -box.height() * 0.1));
        path.addRect(box.adjusted(box.width() * 0.58, box.height() * 0.1, -box.width() * 0.16, -box.height() * 0.1));
        break;
    case Shape::Cross: {
        const QRectF in = box.adjusted(box.width() * 0.14, box.height() * 0.14, -box.width() * 0.14, -box.height() * 0.14);
        path.moveTo(in.topLeft());
        path.lineTo(in.bottomRight());
        path.moveTo(in.topRight());
        path.lineTo(in.bottomLeft());
        break;
    }
    }
    path.closeSubpath();
    return path;
}

} // namespace

const QList<Glyph> &all()
{
    static const QList<Glyph> glyphs{
        {QStringLiteral("pending"), QStringLiteral("waiting"), Shape::Diamond, Mark::Hollow, Neutral, {}},
        {QStringLiteral("acquired"), QStringLiteral("acquired"), Shape::TriangleUp, Mark::Filled, Good, {}},
        {QStringLiteral("released"), QStringLiteral("released"), Shape::TriangleDown, Mark::Hollow, Neutral, {}},
        {QStringLiteral("lost"), QStringLiteral("lost its hold"), Shape::Cross, Mark::Filled, Bad, {}},
        {QStringLiteral("releaseFailed"), QStringLiteral("release said false"), Shape::Square, Mark::Cross, Bad, {}},
        {QStringLiteral("elected"), QStringLiteral("elected"), Shape::Star, Mark::Filled, Info, {}},
        {QStringLiteral("leadershipLost"), QStringLiteral("leadership lost"), Shape::Star, Mark::Hollow, Bad, {}},
        {QStringLiteral("resigned"), QStringLiteral("resigned"), Shape::TriangleDown, Mark::Filled, Neutral, {}},
        {QStringLiteral("leaseSuspended"), QStringLiteral("lease suspended"), Shape::Circle, Mark::Hollow, Warning, {}},
        {QStringLiteral("leaseExpired"), QStringLiteral("lease expired"), Shape::Circle, Mark::Filled, Bad, {}},
        {QStringLiteral("leaseRestored"), QStringLiteral("lease restored"), Shape::Circle, Mark::Dot, Good, {}},
        {QStringLiteral("leaseFailed"), QStringLiteral("lease failed"), Shape::Circle, Mark::Slash, Bad, {}},
        {QStringLiteral("connectionConnected"), QStringLiteral("connected"), Shape::Badge, Mark::Filled, Good, u'C'},
        {QStringLiteral("connectionSuspended"), QStringLiteral("connection suspended"), Shape::Badge, Mark::Filled, Warning,
         u'S'},
        {QStringLiteral("connectionReconnected"), QStringLiteral("reconnected"), Shape::Badge, Mark::Filled, Info, u'R'},
        {QStringLiteral("connectionLost"), QStringLiteral("connection lost"), Shape::Badge, Mark::Filled, Bad, u'L'},
        {QStringLiteral("barrierSet"), QStringLiteral("barrier set"), Shape::Square, Mark::Filled, Barrier, {}},
        {QStringLiteral("barrierRemoved"), QStringLiteral("barrier removed"), Shape::Square, Mark::Hollow, Barrier, {}},
        {QStringLiteral("barrierLifted"), QStringLiteral("barrier lifted"), Shape::Diamond, Mark::Filled, Lifted, {}},
        {QStringLiteral("barrierLiftedSpurious"), QStringLiteral("lifted spuriously"), Shape::Diamond, Mark::Cross, Bad, {}},
        {QStringLiteral("removedByOther"), QStringLiteral("taken by someone else"), Shape::Square, Mark::Slash, Bad, {}},
        {QStringLiteral("intervention"), QStringLiteral("operator intervened"), Shape::Badge, Mark::Filled, Warning, u'O'},
        {QStringLiteral("interventionFailed"), QStringLiteral("intervention refused"), Shape::Badge, Mark::Filled, Bad, u'O'},
        {QStringLiteral("keyDeleted"), QStringLiteral("etcd deleted the key"), Shape::Bar, Mark::Filled, Etcd, {}},
        {QStringLiteral("error"), QStringLiteral("error"), Shape::TriangleUp, Mark::Bang, Bad, {}},
        {QStringLiteral("memberStopped"), QStringLiteral("member stopped"), Shape::Square, Mark::Slash, Neutral, {}},
        {QStringLiteral("memberKilled"), QStringLiteral("member killed"), Shape::Hexagon, Mark::Cross, Bad, {}},
        {QStringLiteral("memberPaused"), QStringLiteral("member paused"), Shape::Pause, Mark::Filled, Warning, {}},
        {QStringLiteral("memberResumed"), QStringLiteral("member resumed"), Shape::TriangleRight, Mark::Filled, Good, {}},
        {QStringLiteral("memberRestarted"), QStringLiteral("member restarted"), Shape::Hexagon, Mark::Dot, Good, {}},
        {QStringLiteral("leaderChanged"), QStringLiteral("new leader"), Shape::Hexagon, Mark::Filled, Info, {}},
        {QStringLiteral("other"), QStringLiteral("other event"), Shape::Dot, Mark::Filled, Neutral, {}},
    };
    return glyphs;
}

int indexOf(const QString &name)
{
    static const QHash<QString, int> indexes = [] {
        QHash<QString, int> byName;
        for (int i = 0; i < all().size(); ++i)
            byName.insert(all().at(i).name, i);
        return byName;
    }();
    return indexes.value(name, -1);
}

QString glyphOf(const QString &kind, const QString &detail, bool spurious)
{
    if (kind == QLatin1String("connectionState")) {
        const QString state = QStringLiteral("connection") + detail;
        return indexOf(state) >= 0 ? state : QStringLiteral("other");
    }
    if (kind == QLatin1String("barrierLifted") && spurious)
        return QStringLiteral("barrierLiftedSpurious");
    if (kind == QLatin1String("fault") || kind == QLatin1String("keyPut") || kind == QLatin1String("keyRead")
        || kind == QLatin1String("step")
        || kind == QLatin1String("stepFailed"))
        return {};
    return indexOf(kind) >= 0 ? kind : QStringLiteral("other");
}

void paintGlyph(QPainter *painter, const QRectF &box, int glyph)
{
    if (glyph < 0 || glyph >= all().size())
        return;
    const Glyph &look = all().at(glyph);
    const double side = std::min(box.width(), box.height());
    const QRectF square(box.center().x() - side / 2, box.center().y() - side / 2, side, side);
    const QPainterPath path = outline(look.shape, square);
    const double stroke = side * 0.13;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);

    // A white halo first: the glyph stays legible over the lease line, a band or another glyph.
    const bool lines = look.shape == Shape::Cross;
    painter->setBrush(lines ? Qt::NoBrush : QBrush(Qt::white));
    painter->setPen(QPen(Qt::white, lines ? side * 0.36 : side * 0.16, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->drawPath(path);

    if (lines) {
        painter->setPen(QPen(look.colour, side * 0.2, Qt::SolidLine, Qt::RoundCap));
        painter->drawPath(path);
    } else {
        painter->setPen(QPen(look.colour, stroke, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        painter->setBrush(look.mark == Mark::Filled ? QBrush(look.colour) : QBrush(Qt::white));
        painter->drawPath(path);
    }

    const QPointF centre = square.center();
    const double inner = side * 0.17;
    painter->setPen(QPen(look.colour, stroke, Qt::SolidLine, Qt::RoundCap));
    switch (look.mark) {
    case Mark::Dot:
        painter->setBrush(look.colour);
        painter->setPen(Qt::NoPen);
        painter->drawEllipse(centre, side * 0.13, side * 0.13);
        break;
    case Mark::Slash:
        painter->drawLine(centre + QPointF(-inner * 1.5, inner * 1.5), centre + QPointF(inner * 1.5, -inner * 1.5));
        break;
    case Mark::Cross:
        painter->drawLine(centre + QPointF(-inner, -inner), centre + QPointF(inner, inner));
        painter->drawLine(centre + QPointF(-inner, inner), centre + QPointF(inner, -inner));
        break;
    case Mark::Bang: {
        const QPointF top = centre + QPointF(0, -side * 0.08);
        painter->drawLine(top, top + QPointF(0, side * 0.2));
        painter->drawPoint(top + QPointF(0, side * 0.34));
        break;
    }
    case Mark::Filled:
    case Mark::Hollow:
        break;
    }
    if (look.shape == Shape::Badge) {
        QFont font(QStringLiteral("DejaVu Sans"));
        font.setBold(true);
        font.setPixelSize(std::max(1, int(side * 0.66)));
        painter->setFont(font);
        painter->setPen(Qt::white);
        painter->drawText(square, Qt::AlignCenter, QString(look.letter));
    }
    painter->restore();
}

QColor bandColour(const QString &kind)
{
    if (kind == QLatin1String("blackhole"))
        return Bad;
    if (kind == QLatin1String("delay") || kind == QLatin1String("paused"))
        return Warning;
    if (kind == QLatin1String("reset"))
        return Barrier;
    return Neutral;
}

QImage glyphImage(int glyph, int size, qreal devicePixelRatio)
{
    const int pixels = qRound(size * devicePixelRatio);
    QImage image(pixels, pixels, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    paintGlyph(&painter, QRectF(0, 0, pixels, pixels), glyph);
    painter.end();
    image.setDevicePixelRatio(devicePixelRatio);
    return image;
}

} // namespace TimelineGlyphs

TimelineGlyph::TimelineGlyph(QQuickItem *parent) : QQuickPaintedItem(parent)
{
    setAntialiasing(true);
    setImplicitSize(14, 14);
}

void TimelineGlyph::setName(const QString &name)
{
    if (name == m_name)
        return;
    m_name = name;
    m_glyph = TimelineGlyphs::indexOf(name);
    update();
    Q_EMIT nameChanged();
}

void TimelineGlyph::paint(QPainter *painter)
{
    TimelineGlyphs::paintGlyph(painter, boundingRect(), m_glyph);
}
