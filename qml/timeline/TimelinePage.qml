import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// What the console's participants, sandbox members and scenarios did, one lane each, over time,
// with the event log under it. Live, the chart follows now; paused (here, or by the window's
// pause) it stays where it is, to be scrolled back and zoomed at leisure.
ConsolePage {
    id: page
    property EventLogModel eventLog
    readonly property alias timeline: timeline
    // What the last export wrote, or why it could not.
    property string exportNote
    property bool exportFailed: false
    readonly property bool empty: timeline.eventCount === 0 && timeline.lanes.length === 0

    title: qsTr("Timeline")
    subtitle: empty ? "" : qsTr("%n lane(s)", "", timeline.lanes.length) + " · " + qsTr("%n event(s)", "", timeline.eventCount)
    // Everything it draws is in memory already.
    ready: true
    notReadyReason: ""
    summary: ({
        lanes: timeline.lanes.length,
        events: timeline.eventCount,
        markers: timeline.markerCount,
        bands: timeline.bandCount,
        losses: timeline.lossCount,
        following: timeline.following,
        wholeLog: timeline.wholeLogShown,
        windowSeconds: timeline.windowLength
    })
    onPausedChanged: if (paused) timeline.following = false

    // The lease line of a lane: participant's leaseTimeLeft and leaseTtl, sampled while it lives.
    function watchLease(lane, participant) {
        timeline.watchLease(lane, participant);
    }
    // Writes the rows the filter keeps; format "csv" or "jsonl".
    function exportLog(format, path) {
        const written = format === "csv" ? eventLog.exportCsv(path) : eventLog.exportJsonLines(path);
        exportFailed = !written;
        exportNote = written ? qsTr("Wrote %n event(s) to %1", "", eventLog.count).arg(path) : eventLog.errorString;
        return written;
    }

    // Nothing to zoom or pause while the log is empty.
    tools: RowLayout {
        visible: !page.empty
        spacing: Theme.spacing
        Label {
            objectName: "windowLabel"
            textFormat: Text.PlainText
            text: timeline.wholeLogShown ? qsTr("Whole log, %1").arg(Format.duration(timeline.windowLength * 1000))
                                         : qsTr("Window %1").arg(Format.duration(timeline.windowLength * 1000))
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
        }
        ToolButton {
            objectName: "zoomIn"
            text: "+"
            font.pixelSize: Theme.titleFont
            enabled: timeline.windowLength > timeline.minimumWindow
            onClicked: timeline.zoom(0.5)
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Zoom in: half the time across (the wheel over the chart zooms too)")
        }
        ToolButton {
            objectName: "zoomOut"
            text: "\u2212"
            font.pixelSize: Theme.titleFont
            enabled: timeline.windowLength < timeline.maximumWindow
            onClicked: timeline.zoom(2)
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Zoom out: twice the time across")
        }
        ToolButton {
            objectName: "wholeLog"
            text: qsTr("All")
            onClicked: timeline.showWholeLog()
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Show the whole log at once")
        }
        StatePill {
            objectName: "livePill"
            text: timeline.following ? qsTr("LIVE") : qsTr("PAUSED")
            foreground: timeline.following ? Theme.good : Theme.warning
            background: timeline.following ? Theme.goodSoft : Theme.warningSoft
        }
        Button {
            objectName: "liveButton"
            text: timeline.following ? qsTr("Pause") : qsTr("Go live")
            enabled: !page.paused
            onClicked: timeline.following = !timeline.following
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: timeline.following ? qsTr("Hold the chart still; drag it or use the slider to go back in time")
                                             : qsTr("Follow now again")
        }
    }

    TimelineModel {
        id: timeline
        eventLog: page.eventLog
        active: page.visible
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacing
        visible: !page.empty

        Rectangle {
            color: Theme.surface
            radius: Theme.radius
            border.color: Theme.border
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.minimumHeight: 220
            ColumnLayout {
                anchors.fill: parent
                anchors.margins: Theme.spacing
                spacing: Theme.spacing
                TimelineChart {
                    objectName: "timelineChart"
                    timeline: timeline
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                }
                TimelineLegend {
                    timeline: timeline
                    Layout.fillWidth: true
                    Layout.leftMargin: Theme.spacing
                    Layout.rightMargin: Theme.spacing
                }
            }
        }

        EventLogView {
            eventLog: page.eventLog
            timeline: timeline
            note: page.exportNote
            noteIsError: page.exportFailed
            onExportRequested: (format, path) => page.exportLog(format, path)
            Layout.fillWidth: true
            Layout.preferredHeight: Math.max(180, parent.height * 0.34)
        }
    }

    EmptyState {
        anchors.centerIn: parent
        visible: page.empty
        title: qsTr("Nothing has happened yet")
        detail: qsTr("Add participants on the Participants page, or start a scenario: their leases, locks, leaders, barriers and "
                     + "the faults they meet are drawn here, one lane each, as they happen.")
    }
}
