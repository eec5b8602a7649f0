// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QEtcd
import QEtcdConsole

// The History source's chart: lanes down, one per coordination object, revisions across, as
// TimelineChart lays its lanes out. HistoryLayer paints the bars and marks; here are the lanes'
// names, the revision labels, and the pointer: hovering says what a lane held at that revision,
// a click picks it as the as-of revision, dragging scrolls, the wheel zooms about the pointer.
Item {
    id: area
    required property CoordinationHistoryModel history
    // The revisions at the plot's left and right edges.
    property double from: 0
    property double to: 1
    property double asOfRevision: 0
    property RevisionClock revisionClock: null
    signal revisionPicked(double revision)

    readonly property int laneLabelWidth: 224
    readonly property int axisHeight: 20
    readonly property rect plot: Qt.rect(laneLabelWidth, 4, Math.max(1, width - laneLabelWidth - 12),
                                         Math.max(1, height - 8 - axisHeight))
    readonly property int rows: Math.max(1, history.count)
    readonly property real laneHeight: plot.height / rows
    readonly property var ticks: history.ticks(from, to, plot.width, 84)
    readonly property alias historyLayer: layer
    // What the history spans, with half a revision of air at each end.
    readonly property double start: history.firstRevision - 0.5
    readonly property double end: Math.max(history.firstRevision, history.lastRevision) + 0.5

    // Whether the last show() reached the first and the last revision.
    property bool showsStart: true
    property bool showsEnd: true

    // Shows revisions a to b, kept within the history and at least 8 revisions across.
    function show(a, b) {
        const span = Math.min(end - start, Math.max(8, b - a));
        const left = Math.max(start, Math.min(end - span, a));
        from = left;
        to = left + span;
        showsStart = from <= start;
        showsEnd = to >= end;
    }
    // The history grew at its end: a view of all of it stays so, one of its newest revisions
    // moves on with them, and one scrolled back stays where it is.
    function keepUp() {
        if (showsStart && showsEnd)
            showAll();
        else if (showsEnd)
            show(end - (to - from), end);
    }
    function showAll() {
        show(start, end);
    }
    // Scales the view by factor about revision `about` (default: its middle).
    function zoom(factor, about) {
        const anchor = about === undefined ? (from + to) / 2 : about;
        show(anchor - (anchor - from) * factor, anchor + (to - anchor) * factor);
    }

    HistoryLayer {
        id: layer
        objectName: "historyLayer"
        dark: Theme.dark
        x: area.plot.x
        y: area.plot.y
        width: area.plot.width
        height: area.plot.height
        model: area.history
        from: area.from
        to: area.to
        ticks: area.ticks
        asOfRevision: area.asOfRevision
    }

    // Lane names and kinds, and the lines between lanes.
    Repeater {
        objectName: "laneLabels"
        model: area.history
        delegate: Item {
            id: laneLabel
            required property int index
            required property string path
            required property string kind
            required property string rule
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
                    value: laneLabel.path
                    color: Theme.text
                    font.family: Theme.monoFamily
                    font.pixelSize: area.laneHeight < 18 ? Theme.smallFont - 1 : Theme.bodyFont
                    font.bold: true
                }
                Label {
                    visible: area.laneHeight >= 40
                    width: parent.width
                    elide: Text.ElideRight
                    textFormat: Text.PlainText
                    text: laneLabel.rule ? laneLabel.kind + " · " + laneLabel.rule : laneLabel.kind
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                }
            }
        }
    }

    // Revision labels under the plot.
    Label {
        x: Theme.spacing
        y: area.plot.y + area.plot.height + 3
        textFormat: Text.PlainText
        text: qsTr("revision")
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
    }
    Item {
        x: area.plot.x
        y: area.plot.y + area.plot.height
        width: area.plot.width
        height: area.axisHeight
        Repeater {
            model: area.ticks
            delegate: Label {
                required property double modelData
                readonly property real at: (modelData - area.from) / Math.max(1e-9, area.to - area.from) * area.plot.width
                x: Math.max(0, Math.min(parent.width - width, at - width / 2))
                y: 3
                visible: at >= 0 && at <= parent.width
                textFormat: Text.PlainText
                text: String(modelData)
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.smallFont
            }
        }
    }

    MouseArea {
        id: pointer
        objectName: "historyPointer"
        property real pressX
        property real lastX
        property bool dragged: false
        x: area.plot.x
        y: area.plot.y
        width: area.plot.width
        height: area.plot.height
        hoverEnabled: true
        cursorShape: dragged ? Qt.ClosedHandCursor : Qt.CrossCursor
        readonly property double revision: Math.round(layer.revisionAt(mouseX))
        readonly property int row: Math.floor(mouseY / area.laneHeight)
        onPressed: mouse => { pressX = mouse.x; lastX = mouse.x; dragged = false; }
        onPositionChanged: mouse => {
            if (!pressed)
                return;
            if (Math.abs(mouse.x - pressX) > 4)
                dragged = true;
            if (dragged) {
                const shift = (lastX - mouse.x) / width * (area.to - area.from);
                area.show(area.from + shift, area.to + shift);
            }
            lastX = mouse.x;
        }
        onReleased: dragged = false
        onClicked: mouse => {
            if (Math.abs(mouse.x - pressX) <= 4)
                area.revisionPicked(Math.round(layer.revisionAt(mouse.x)));
        }
        onWheel: wheel => area.zoom(wheel.angleDelta.y > 0 ? 0.8 : 1.25, layer.revisionAt(wheel.x))
        // What a lane held at the revision under the pointer: etcd's names, escaped by describe().
        EtcdToolTip {
            objectName: "historyTip"
            visible: pointer.containsMouse && !pointer.pressed && area.history.count > 0
            delay: 400
            text: qsTr("Revision %1%2").arg(pointer.revision).arg(Format.revisionTime(area.revisionClock, pointer.revision)) + "\n"
                  + area.history.describe(pointer.row, pointer.revision) + "\n" + qsTr("Click: show the cluster as of revision %1").arg(pointer.revision)
        }
    }

    // The as-of revision's label, over the plot's top.
    Label {
        readonly property real at: (area.asOfRevision - area.from) / Math.max(1e-9, area.to - area.from) * area.plot.width
        visible: area.asOfRevision > 0 && at >= 0 && at <= area.plot.width
        x: area.plot.x + Math.min(at + 4, area.plot.width - width)
        y: area.plot.y + 2
        padding: 2
        textFormat: Text.PlainText
        text: qsTr("as of %1").arg(area.asOfRevision)
        color: Theme.warning
        font.pixelSize: Theme.smallFont
        font.bold: true
        background: Rectangle { color: Theme.warningSoft; radius: 3 }
    }
}
