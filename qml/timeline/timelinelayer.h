// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QHash>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>
#include <QtQuick/QQuickPaintedItem>

#include "timelinemodel.h"

// What the Timeline draws beside the chart's series, painted at once however much is in view
// (an item for each band would be made and destroyed as the window moves). Sized to the chart
// and sliding with it (TimelineModel::chartStart, chartLength), painted again only when the chart
// is ranged again or what it shows changes; one layer per place: Bands under the chart (the lanes' stripes and each fault or
// outage, shaded and named) or Losses over it (each loss's two moments and the margin between
// them, |<- 0.73 s ->|, red and "late" when etcd deleted the key before the participant knew).
class TimelineLayer : public QQuickPaintedItem
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(TimelineModel *timeline READ timeline WRITE setTimeline NOTIFY timelineChanged)
    Q_PROPERTY(Content content READ content WRITE setContent NOTIFY contentChanged)
    // The dark look's lanes and ink (Theme.dark).
    Q_PROPERTY(bool dark READ isDark WRITE setDark NOTIFY darkChanged)

public:
    enum class Content { Bands, Losses };
    Q_ENUM(Content)

    explicit TimelineLayer(QQuickItem *parent = nullptr);

    TimelineModel *timeline() const { return m_timeline; }
    void setTimeline(TimelineModel *timeline);
    Content content() const { return m_content; }
    void setContent(Content content);
    bool isDark() const { return m_dark; }
    void setDark(bool dark);

    void paint(QPainter *painter) override;

Q_SIGNALS:
    void timelineChanged();
    void contentChanged();
    void darkChanged();

private:
    void windowChanged();
    void repaintIfShownChanged();
    void repaintTime(double from, double to, double rightReachPixels);
    double chartEnd() const;
    bool spansWhatItPainted() const;
    double textWidth(const QString &text) const;
    double xAt(double seconds) const;
    void paintBands(QPainter *painter, double laneHeight) const;
    void paintLosses(QPainter *painter, double laneHeight) const;

    QPointer<TimelineModel> m_timeline;
    Content m_content = Content::Bands;
    bool m_dark = false;
    bool m_paintedEmpty = false;  // the Losses layer's last paint held no loss
    mutable QHash<QString, double> m_textWidths;  // in labelFont()
    double m_paintedStart = 0;    // the chart's span as last painted
    double m_paintedLength = 0;
};
