// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Two sources. Participants: what the console's participants, sandbox members and scenarios did,
// one lane each, over time, with the event log under it; live, the chart follows now; paused
// (here, or by the window's pause) it stays where it is, to be scrolled back and zoomed at
// leisure. History: who held what under a prefix, from etcd's own retained history, one lane per
// coordination object along the revisions; a click on it picks the revision the other pages
// show the cluster as of.
ConsolePage {
    id: page
    property EventLogModel eventLog
    // The connection the History source reads through.
    property alias client: history.client
    readonly property alias timeline: timeline
    readonly property alias history: history
    // "participants" or "history".
    property string source: "participants"
    readonly property bool showsHistory: source === "history"
    // The revision the pages show the cluster as of (0: live); a click on the History chart asks for one.
    property double asOfRevision: 0
    signal revisionPicked(double revision)
    signal showAsOfRequested()
    // What the last export wrote, or why it could not.
    property string exportNote
    property bool exportFailed: false
    readonly property bool empty: timeline.eventCount === 0 && timeline.lanes.length === 0

    title: qsTr("Timeline")
    subtitle: showsHistory ? (history.status === ModelStatus.Null ? "" : qsTr("%n object(s)", "", history.count) + " · " + qsTr("%n event(s)", "", history.eventCount))
            : empty ? "" : qsTr("%n lane(s)", "", timeline.lanes.length) + " · " + qsTr("%n event(s)", "", timeline.eventCount)
    // The participants' log is in memory already; a history is read once it has been replayed.
    ready: !showsHistory || history.status === ModelStatus.Ready || history.status === ModelStatus.Error
    notReadyReason: showsHistory ? qsTr("the history is still being replayed (revision %1 of %2)").arg(history.progressRevision).arg(history.lastRevision) : ""
    summary: showsHistory ? ({
        source: "history",
        objects: history.count,
        events: history.eventCount,
        firstRevision: history.firstRevision,
        lastRevision: history.lastRevision,
        compacted: history.compacted,
        asOfRevision: page.asOfRevision
    }) : ({
        source: "participants",
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

    // Writes the History source's lanes as JSON lines; the note says where, or why not.
    function exportHistory(path) {
        const failure = history.exportJsonLines(path);
        exportFailed = failure !== "";
        exportNote = failure !== "" ? failure : qsTr("Wrote the %n lane(s) to %1", "", history.count).arg(path);
        return failure === "";
    }
    // Starts the History source's replay under the prefix typed, over the range chosen.
    function replay() {
        history.prefix = historyPrefix.text;
        history.lastRevisions = historyRange.currentValue;
        history.following = historyFollow.checked;
        history.start();
    }
    // Shows the History source and replays everything etcd keeps under prefix, once connected.
    function showHistory(prefix) {
        source = "history";
        historyPrefix.text = prefix;
        historyRange.currentIndex = historyRange.count - 1;
        replayWhenConnected = true;
        if (client)
            replayNow();
    }
    property bool replayWhenConnected: false
    function replayNow() {
        replayWhenConnected = false;
        replay();
    }
    onClientChanged: if (replayWhenConnected && client) replayNow()

    tools: RowLayout {
        spacing: Theme.spacing
        // The source: two buttons, one of them checked.
        Row {
            objectName: "sourceSelector"
            spacing: 0
            Repeater {
                model: [{ name: "participants", title: qsTr("Participants") }, { name: "history", title: qsTr("History") }]
                delegate: Button {
                    required property var modelData
                    objectName: modelData.name + "Source"
                    text: modelData.title
                    checkable: true
                    checked: page.source === modelData.name
                    onClicked: page.source = modelData.name
                    ToolTip.visible: hovered
                    ToolTip.delay: 600
                    ToolTip.text: modelData.name === "history" ? qsTr("Who held what under a prefix, from etcd's own history: any client, not only the console's")
                                                               : qsTr("What the console's participants, members and scenarios did, over time")
                }
            }
        }
        // History: where, how far back, and the replay.
        RowLayout {
            visible: page.showsHistory
            spacing: Theme.spacing
            TextField {
                id: historyPrefix
                objectName: "historyPrefix"
                Accessible.name: qsTr("Prefix to replay")
                placeholderText: qsTr("prefix, e.g. /locks/")
                font.family: Theme.monoFamily
                Layout.preferredWidth: 180
                selectByMouse: true
                onAccepted: page.replay()
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("Replay the objects under this prefix; empty: every key")
            }
            ComboBox {
                id: historyRange
                objectName: "historyRange"
                Accessible.name: qsTr("How far back to replay")
                textRole: "text"
                valueRole: "revisions"
                model: [
                    { text: qsTr("Last 1,000 revisions"), revisions: 1000 },
                    { text: qsTr("Last 10,000 revisions"), revisions: 10000 },
                    { text: qsTr("Last 100,000 revisions"), revisions: 100000 },
                    { text: qsTr("All etcd keeps"), revisions: 0 }
                ]
                Layout.preferredWidth: 175
            }
            CheckBox {
                id: historyFollow
                objectName: "historyFollow"
                text: qsTr("Follow")
                enabled: !history.running
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("After the range, go on drawing what happens as it happens, for any client")
            }
            Button {
                objectName: "replayButton"
                readonly property bool live: history.running && history.status === ModelStatus.Ready
                text: live ? qsTr("Stop") : history.running ? qsTr("Cancel") : qsTr("Replay")
                enabled: !!history.client
                onClicked: history.running ? history.cancel() : page.replay()
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: live ? qsTr("Stop following; what was drawn stays")
                            : history.running ? qsTr("Stop reading; what was read so far stays")
                            : qsTr("Read etcd's history under the prefix (nothing is written)")
            }
            ToolButton {
                objectName: "historyZoomIn"
                text: "+"
                font.pixelSize: Theme.titleFont
                enabled: history.count > 0
                onClicked: historyChart.zoom(0.5)
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("Zoom in: half the revisions across (the wheel over the chart zooms too)")
            }
            ToolButton {
                objectName: "historyZoomOut"
                text: "\u2212"
                font.pixelSize: Theme.titleFont
                enabled: history.count > 0
                onClicked: historyChart.zoom(2)
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("Zoom out: twice the revisions across")
            }
            ToolButton {
                objectName: "historyAll"
                text: qsTr("All")
                enabled: history.count > 0
                onClicked: historyChart.showAll()
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("Show every revision replayed")
            }
            Button {
                objectName: "historyExport"
                text: qsTr("Export…")
                enabled: history.count > 0 && history.status !== ModelStatus.Loading
                onClicked: historySaveDialog.open()
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("Write every hold, wait and event the lanes show as JSON lines, for an incident's report")
            }
        }
        // Participants: nothing to zoom or pause while the log is empty.
        RowLayout {
            visible: !page.showsHistory && !page.empty
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
                Accessible.name: qsTr("Zoom in")
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
                Accessible.name: qsTr("Zoom out")
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
    }

    TimelineModel {
        id: timeline
        eventLog: page.eventLog
        active: page.visible
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacing
        visible: !page.showsHistory && !page.empty

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
                    entries: timeline.legendGlyphs.map(glyph => ({ glyph: glyph, title: timeline.glyphTitle(glyph) })).concat([
                        { swatch: "#3b82f6", swatchHeight: 2, title: qsTr("lease time left, 0 to TTL") },
                        { swatch: Qt.rgba(Theme.bad.r, Theme.bad.g, Theme.bad.b, 0.11), border: Theme.bad, title: qsTr("fault or outage, named in its band") },
                        { sign: "|\u2190 s \u2192|", title: qsTr("how long before etcd deleted the key its participant knew it was lost") }
                    ])
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
        visible: !page.showsHistory && page.empty
        title: qsTr("Nothing has happened yet")
        detail: qsTr("Add participants on the Participants page, or start a scenario: their leases, locks, leaders, barriers and "
                     + "the faults they meet are drawn here, one lane each, as they happen.")
    }

    CoordinationHistoryModel { id: history }
    FileDialog {
        id: historySaveDialog
        title: qsTr("Export the history as JSON lines")
        fileMode: FileDialog.SaveFile
        defaultSuffix: "jsonl"
        nameFilters: [qsTr("JSON lines (*.jsonl)"), qsTr("All files (*)")]
        // A local path, as the model writes it.
        onAccepted: page.exportHistory(decodeURIComponent(selectedFile.toString().replace(/^file:\/\//, "")))
    }
    // Puts the history's revisions on the clock where the console sampled them (Main's RevisionClock).
    property RevisionClock revisionClock: null
    // Where the replayed history begins and ends, and what its axis counts, in words.
    readonly property string historyNote: {
        if (history.status === ModelStatus.Null)
            return qsTr("etcd keeps every revision until it is compacted. Pick a prefix and a range, then Replay: "
                        + "one lane per lock, election, barrier, service, queue or counter, whoever wrote it. Nothing is written.");
        if (history.lastRevision === 0)
            return history.status === ModelStatus.Error ? history.errorString : qsTr("Finding where etcd's history begins…");
        let note = history.running && history.status === ModelStatus.Ready
            ? qsTr("Revisions %1 to %2 under %3, following: what happens now is drawn as it happens.").arg(history.firstRevision).arg(history.lastRevision).arg(history.prefix || "/")
            : qsTr("Revisions %1 to %2 under %3.").arg(history.firstRevision).arg(history.lastRevision).arg(history.prefix || "/");
        if (history.compacted)
            note += " " + qsTr("etcd has compacted everything before revision %1: history begins there.").arg(history.firstRevision);
        if (history.keptFrom > 0)
            note += " " + qsTr("Only revisions from %1 on are kept on screen.").arg(history.keptFrom);
        note += " " + qsTr("The axis counts revisions: etcd keeps no time for them.");
        if (page.revisionClock && page.revisionClock.sampleCount > 0)
            note += " " + qsTr("Times, where shown, lie between two of this console's once-a-second samples of the revision.");
        if (history.status === ModelStatus.Error)
            note += " " + history.errorString.charAt(0).toUpperCase() + history.errorString.slice(1) + ".";
        return note;
    }

    ColumnLayout {
        objectName: "historyView"
        anchors.fill: parent
        spacing: Theme.spacing
        visible: page.showsHistory

        Label {
            objectName: "historyNote"
            text: page.historyNote
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
            color: history.status === ModelStatus.Error && history.lastRevision === 0 ? Theme.bad : Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.fillWidth: true
        }
        Label {
            objectName: "historyExportNote"
            visible: text !== ""
            text: page.exportNote
            textFormat: Text.PlainText
            color: page.exportFailed ? Theme.bad : Theme.good
            font.pixelSize: Theme.smallFont
            elide: Text.ElideMiddle
            Layout.fillWidth: true
        }
        RowLayout {
            visible: history.status === ModelStatus.Loading
            spacing: Theme.spacing
            Layout.fillWidth: true
            ProgressBar {
                objectName: "historyProgress"
                value: history.progress
                Layout.fillWidth: true
            }
            Label {
                textFormat: Text.PlainText
                text: history.olderRevision > 0 ? qsTr("newest revisions shown; the older ones replayed to %1").arg(history.olderRevision)
                                                : qsTr("replayed to revision %1").arg(Math.max(history.progressRevision, history.firstRevision - 1))
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.smallFont
            }
        }
        Banner {
            objectName: "asOfNote"
            bad: false
            text: page.asOfRevision > 0 ? qsTr("Picked revision %1: the Coordination and Keys pages show the cluster as it was then.").arg(page.asOfRevision) : ""
            Layout.fillWidth: true
            Button {
                objectName: "showAsOf"
                text: qsTr("Show it")
                onClicked: page.showAsOfRequested()
            }
            Button {
                objectName: "historyBackToLive"
                text: qsTr("Back to live")
                onClicked: page.revisionPicked(0)
            }
        }
        Rectangle {
            visible: history.count > 0
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
                HistoryChart {
                    id: historyChart
                    objectName: "historyChart"
                    history: history
                    revisionClock: page.revisionClock
                    asOfRevision: page.asOfRevision
                    onRevisionPicked: revision => page.revisionPicked(revision)
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                }
                TimelineLegend {
                    objectName: "historyLegend"
                    entries: [
                        { swatch: "#2563eb", swatchHeight: 10, title: qsTr("holder: a lock's, a leader, a barrier's owner, an instance") },
                        { swatch: "#94a3b8", swatchHeight: 4, title: qsTr("waiter, candidate or member") }
                    ].concat(historyChart.historyLayer.legend)
                    Layout.fillWidth: true
                    Layout.leftMargin: Theme.spacing
                    Layout.rightMargin: Theme.spacing
                }
            }
        }
        Item {
            visible: history.count === 0
            Layout.fillWidth: true
            Layout.fillHeight: true
            EmptyState {
                anchors.centerIn: parent
                busy: history.status === ModelStatus.Loading
                title: history.status === ModelStatus.Loading ? qsTr("Replaying etcd's history…")
                     : history.running ? qsTr("Nothing here yet: following")
                     : history.status === ModelStatus.Ready ? qsTr("Nothing changed hands here")
                     : qsTr("No history read yet")
                detail: history.status === ModelStatus.Ready
                        ? qsTr("No lock, election, barrier, service, queue or counter under %1 changed in these revisions. Try a wider range or another prefix.").arg(history.prefix || "/")
                        : history.running ? "" : qsTr("Type a prefix (or none, for every key), pick how far back to look, and press Replay.")
            }
        }
    }
    // A replay shows every revision it read, growing as it reads; following, a view at the
    // newest revisions moves on with them.
    Connections {
        target: history
        function onRangeChanged() {
            if (history.status === ModelStatus.Loading)
                historyChart.showAll();
            else
                historyChart.keepUp();
        }
    }
}
