// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtCharts
import QEtcdConsole

// Lanes down, time across. The plot is a window onto the chart's span (TimelineModel::chartStart,
// chartLength: more time than the window), which slides under it: a live window's step moves it
// rather than has Qt Charts or the layers paint again. In the span, bottom to top: the lanes'
// stripes and the fault bands; the ChartView (transparent) with the time grid, which the model
// ranges; each lane's lease line and its markers, painted in tiles of their own rather than as
// chart series; the loss brackets. Over the plot: the lane names and the lines between
// lanes, the time labels and the slider that scrolls back through the whole log. Dragging the
// plot scrolls too; the wheel zooms about the pointer.
Item {
    id: area
    required property TimelineModel timeline
    readonly property int laneLabelWidth: 128
    readonly property int timeLabelHeight: 20
    readonly property rect plot: Qt.rect(laneLabelWidth, 4, Math.max(1, width - laneLabelWidth - 12),
                                         Math.max(1, height - 8 - timeLabelHeight - scrubber.height))
    readonly property int rows: Math.max(1, timeline.lanes.length)
    readonly property real laneHeight: plot.height / rows

    function xAt(seconds) {
        return plot.x + (seconds - timeline.windowStart) / timeline.windowLength * plot.width;
    }

    Binding {
        target: area.timeline
        property: "plotWidth"
        value: area.plot.width
    }

    // The plot: a window onto the chart's span, which holds every layer that moves with time
    // and slides under it (a whole pixel at a time, as the marker tiles are placed).
    Item {
        x: area.plot.x
        y: area.plot.y
        width: area.plot.width
        height: area.plot.height
        clip: true

        Item {
            id: span
            x: Math.round((area.timeline.chartStart - area.timeline.windowStart) / area.timeline.windowLength * area.plot.width)
            width: area.timeline.chartLength / area.timeline.windowLength * area.plot.width
            height: parent.height

            // Stripes, one per lane, and the bands over them.
            TimelineLayer {
                anchors.fill: parent
                timeline: area.timeline
                content: TimelineLayer.Bands
                dark: Theme.dark
            }

            ChartView {
                id: chart
                anchors.fill: parent
                backgroundColor: "transparent"
                plotAreaColor: "transparent"
                backgroundRoundness: 0
                margins { left: 0; top: 0; right: 0; bottom: 0 }
                plotArea: Qt.rect(0, 0, width, height)
                legend.visible: false
                antialiasing: true
                animationOptions: ChartView.NoAnimation

                // Ranged by the model, in one step with its grid lines.
                ValueAxis {
                    id: timeAxis
                    labelsVisible: false
                    lineVisible: false
                    gridLineColor: Theme.grid
                    minorGridVisible: false
                }
                ValueAxis {
                    id: laneAxis
                    labelsVisible: false
                    lineVisible: false
                    gridVisible: false
                }
                // Qt Charts draws an axis only for a series that uses it; the lease lines are
                // painted with the markers, so this one stays empty.
                LineSeries {
                    axisX: timeAxis
                    axisY: laneAxis
                }
                Component.onCompleted: area.timeline.setTimeAxis(timeAxis)
            }

            // Each lane's lease line, and every event as its glyph over it.
            TimelineTraceLayer {
                objectName: "traceLayer"
                anchors.fill: parent
                chart: chart
                timeline: area.timeline
            }

            // Both moments of each loss: when the participant knew, when etcd deleted its key.
            TimelineLayer {
                anchors.fill: parent
                timeline: area.timeline
                content: TimelineLayer.Losses
                dark: Theme.dark
            }
        }
    }

    // Lane names, and the lines between lanes.
    Repeater {
        model: area.timeline.lanes
        delegate: Item {
            id: laneLabel
            required property int index
            required property string modelData
            readonly property bool member: index >= area.timeline.lanes.length - area.timeline.memberLaneCount
            x: 0
            y: area.plot.y + index * area.laneHeight
            width: area.plot.x + area.plot.width
            height: area.laneHeight
            Rectangle {
                anchors.bottom: parent.bottom
                width: parent.width
                height: 1
                color: Theme.border
            }
            Column {
                anchors.verticalCenter: parent.verticalCenter
                x: Theme.spacing
                width: area.laneLabelWidth - 2 * Theme.spacing
                EtcdLabel {
                    width: parent.width
                    value: laneLabel.modelData
                    color: Theme.text
                    font.family: Theme.monoFamily
                    font.pixelSize: area.laneHeight < 18 ? Theme.smallFont - 1 : Theme.bodyFont
                    font.bold: true
                }
                Label {
                    visible: area.laneHeight >= 40
                    textFormat: Text.PlainText
                    text: laneLabel.member ? qsTr("etcd member") : qsTr("participant")
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                }
            }
        }
    }

    // Time labels under the plot.
    Item {
        x: area.plot.x
        y: area.plot.y + area.plot.height
        width: area.plot.width
        height: area.timeLabelHeight
        Repeater {
            model: area.timeline.ticks
            delegate: Label {
                required property var modelData
                readonly property real at: area.xAt(modelData.at) - area.plot.x
                x: Math.max(0, Math.min(parent.width - width, at - width / 2))
                y: 3
                visible: at >= 0 && at <= parent.width
                textFormat: Text.PlainText
                text: modelData.text
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.smallFont
            }
        }
    }

    MouseArea {
        id: drag
        property real lastX
        x: area.plot.x
        y: area.plot.y
        width: area.plot.width
        height: area.plot.height
        cursorShape: pressed ? Qt.ClosedHandCursor : Qt.OpenHandCursor
        onPressed: mouse => lastX = mouse.x
        onPositionChanged: mouse => {
            area.timeline.scrollBy(mouse.x - lastX);
            lastX = mouse.x;
        }
        onWheel: wheel => area.timeline.zoom(wheel.angleDelta.y > 0 ? 0.8 : 1.25, wheel.x / width)
    }

    Slider {
        id: scrubber
        objectName: "scrubber"
        Accessible.name: qsTr("Where the shown window ends")
        x: area.plot.x - leftPadding
        y: area.plot.y + area.plot.height + area.timeLabelHeight
        width: area.plot.width + leftPadding + rightPadding
        from: area.timeline.earliestWindowEnd
        to: area.timeline.latestWindowEnd
        value: area.timeline.windowEnd
        enabled: to > from
        onMoved: area.timeline.windowEnd = value
        ToolTip.visible: hovered
        ToolTip.delay: 600
        ToolTip.text: qsTr("Scroll back through the whole log; the right end is now")
    }
}
