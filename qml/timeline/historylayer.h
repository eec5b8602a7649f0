// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QPointer>
#include <QtCore/QVariantList>
#include <QtQml/qqmlregistration.h>
#include <QtQuick/QQuickPaintedItem>

#include <coordinationhistorymodel.h>

// The Timeline's History source drawn: a CoordinationHistoryModel's lanes, revisions across
// from `from` to `to`. Per lane, on its stripe: each holder as a bar (a lock's holder, a leader, a
// barrier's owner, a service instance), each waiter as a thinner one under it, a bar's name
// inside it where it fits; every mark as its TimelineGlyphs glyph (so the History legend and the
// Participants one read alike), of one lane's marks of one kind one per half a glyph's width;
// the revision grid, and the as-of revision as a line across. Painted at once; again when the
// model publishes (at most every CoordinationHistoryModel::PublishIntervalMs while it replays)
// or the view moves.
class HistoryLayer : public QQuickPaintedItem
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QEtcd::CoordinationHistoryModel *model READ model WRITE setModel NOTIFY modelChanged)
    // The revisions at the left and right edges.
    Q_PROPERTY(double from READ from WRITE setFrom NOTIFY viewChanged)
    Q_PROPERTY(double to READ to WRITE setTo NOTIFY viewChanged)
    // Grid lines at these revisions (the page labels them).
    Q_PROPERTY(QList<double> ticks READ ticks WRITE setTicks NOTIFY viewChanged)
    // Drawn as a line across the lanes; 0: none.
    Q_PROPERTY(qint64 asOfRevision READ asOfRevision WRITE setAsOfRevision NOTIFY viewChanged)
    // What the marks and bars the model holds mean: [{glyph, title}] for the marks' glyphs, in
    // the model's order.
    Q_PROPERTY(QVariantList legend READ legend NOTIFY legendChanged)
    // The dark look's lanes and grid (Theme.dark).
    Q_PROPERTY(bool dark READ isDark WRITE setDark NOTIFY viewChanged)

public:
    static constexpr int MarkPixels = 14;
    // Holders at once get a track each, up to this many (a semaphore's permits, read locks).
    static constexpr int MaxTracks = 4;

    explicit HistoryLayer(QQuickItem *parent = nullptr);

    QEtcd::CoordinationHistoryModel *model() const { return m_model; }
    void setModel(QEtcd::CoordinationHistoryModel *model);
    double from() const { return m_from; }
    void setFrom(double revision);
    double to() const { return m_to; }
    void setTo(double revision);
    QList<double> ticks() const { return m_ticks; }
    void setTicks(const QList<double> &ticks);
    qint64 asOfRevision() const { return m_asOf; }
    void setAsOfRevision(qint64 revision);
    bool isDark() const { return m_dark; }
    void setDark(bool dark);
    QVariantList legend() const;

    // The glyph a mark kind ("acquired", "deleted", ...) is drawn as, and what the legend calls it.
    Q_INVOKABLE static QString glyphOf(const QString &markKind);
    Q_INVOKABLE static QString titleOf(const QString &markKind);
    // The revision at x (in the layer), and the x of a revision.
    Q_INVOKABLE double revisionAt(double x) const;
    Q_INVOKABLE double xAt(double revision) const;

    void paint(QPainter *painter) override;

Q_SIGNALS:
    void modelChanged();
    void viewChanged();
    void legendChanged();

private:
    QPointer<QEtcd::CoordinationHistoryModel> m_model;
    double m_from = 0;
    double m_to = 1;
    QList<double> m_ticks;
    qint64 m_asOf = 0;
    bool m_dark = false;
};
