// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// The log under the chart: a row per event the filter keeps, oldest first, following the newest
// while scrolled to the bottom; the filter, and exports of what it keeps.
Rectangle {
    id: view
    property EventLogModel eventLog
    property TimelineModel timeline
    // What the last export did, in words.
    property string note
    property bool noteIsError: false
    signal exportRequested(string format, string path)

    color: Theme.surface
    radius: Theme.radius
    border.color: Theme.border

    readonly property var columns: [
        { title: qsTr("Time"), width: 96 },
        { title: qsTr("Participant"), width: 120 },
        { title: qsTr("Event"), width: 190 },
        { title: qsTr("Detail"), width: -1 },
        { title: qsTr("Key"), width: 240 }
    ]

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: Theme.spacing / 2

        RowLayout {
            spacing: Theme.spacing
            Layout.fillWidth: true
            TextField {
                objectName: "logFilter"
                Accessible.name: qsTr("Filter the event log")
                placeholderText: qsTr("Filter by participant, event, detail or key")
                text: view.eventLog ? view.eventLog.filter : ""
                onTextEdited: view.eventLog.filter = text
                Layout.preferredWidth: 320
            }
            Label {
                textFormat: Text.PlainText
                text: view.eventLog && view.eventLog.filter
                      ? qsTr("%1 of %2 events").arg(Format.count(view.eventLog.count)).arg(Format.count(view.timeline.eventCount))
                      : qsTr("%n event(s)", "", view.timeline.eventCount)
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
            }
            Label {
                objectName: "exportNote"
                text: view.note
                textFormat: Text.PlainText
                color: view.noteIsError ? Theme.bad : Theme.good
                font.pixelSize: Theme.smallFont
                elide: Text.ElideMiddle
                horizontalAlignment: Text.AlignRight
                Layout.fillWidth: true
            }
            Button {
                objectName: "exportJsonLines"
                text: qsTr("Export JSON lines…")
                enabled: view.eventLog && view.eventLog.count > 0
                onClicked: saveDialog.ask("jsonl")
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("One JSON object per event the filter keeps, as the qetcd CLI prints them")
            }
            Button {
                objectName: "exportCsv"
                text: qsTr("Export CSV…")
                enabled: view.eventLog && view.eventLog.count > 0
                onClicked: saveDialog.ask("csv")
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("A spreadsheet's rows: the events the filter keeps, under a header line")
            }
        }

        RowLayout {
            spacing: Theme.padding
            Layout.fillWidth: true
            Layout.leftMargin: Theme.spacing
            Layout.rightMargin: Theme.spacing
            Repeater {
                model: view.columns
                delegate: Label {
                    required property var modelData
                    textFormat: Text.PlainText
                    text: modelData.title
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                    font.bold: true
                    Layout.preferredWidth: modelData.width
                    Layout.fillWidth: modelData.width < 0
                }
            }
        }

        ListView {
            id: list
            objectName: "eventList"
            // Scrolled to the bottom, the list follows the newest event; scrolled up, it stays.
            // It catches up a few times a second, not at every event: nobody reads two hundred
            // rows a second, and each catch-up moves every row it shows.
            property bool atNewest: true
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: view.eventLog
            reuseItems: true
            // Rows beyond the view would be laid out again at every catch-up (4 a second), to
            // be thrown away at the next.
            cacheBuffer: 0
            boundsBehavior: Flickable.StopAtBounds
            ScrollBar.vertical: ScrollBar {}
            onMovementEnded: atNewest = atYEnd
            onCountChanged: if (atNewest && !catchUp.running) catchUp.start()

            Timer {
                id: catchUp
                interval: 250
                onTriggered: if (list.atNewest) list.positionViewAtEnd()
            }

            delegate: Rectangle {
                id: row
                required property int index
                required property var time
                required property string participant
                required property string kind
                required property string detail
                required property bool spurious
                required property string key
                width: ListView.view.width
                height: 24
                color: index % 2 ? Theme.window : Theme.surface

                RowLayout {
                    anchors.fill: parent
                    anchors.leftMargin: Theme.spacing
                    anchors.rightMargin: Theme.spacing
                    spacing: Theme.padding
                    Label {
                        textFormat: Text.PlainText
                        text: view.timeline.clockText(row.time)
                        color: Theme.mutedText
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        Layout.preferredWidth: view.columns[0].width
                    }
                    EtcdLabel {
                        value: row.participant
                        color: Theme.text
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        Layout.preferredWidth: view.columns[1].width
                    }
                    RowLayout {
                        spacing: 6
                        Layout.preferredWidth: view.columns[2].width
                        Layout.maximumWidth: view.columns[2].width
                        TimelineGlyph {
                            name: view.timeline.glyphOf(row.kind, row.detail, row.spurious)
                            Layout.preferredWidth: 12
                            Layout.preferredHeight: 12
                        }
                        EtcdLabel {
                            value: row.spurious ? qsTr("%1 (spurious)").arg(row.kind) : row.kind
                            color: Theme.text
                            font.pixelSize: Theme.smallFont
                            elide: Text.ElideRight
                            Layout.fillWidth: true
                        }
                    }
                    EtcdLabel {
                        value: row.detail
                        color: Theme.text
                        font.pixelSize: Theme.smallFont
                        elide: Text.ElideRight
                        // Takes what the fixed columns leave; a long detail must not squeeze them,
                        // or its row's columns start left of the others'.
                        Layout.preferredWidth: 0
                        Layout.fillWidth: true
                    }
                    EtcdLabel {
                        value: row.key
                        color: Theme.mutedText
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        Layout.preferredWidth: view.columns[4].width
                    }
                }
            }
        }
    }

    FileDialog {
        id: saveDialog
        property string format
        function ask(chosen) {
            format = chosen;
            open();
        }
        title: format === "csv" ? qsTr("Export the events as CSV") : qsTr("Export the events as JSON lines")
        fileMode: FileDialog.SaveFile
        defaultSuffix: format
        nameFilters: format === "csv" ? [qsTr("CSV files (*.csv)"), qsTr("All files (*)")]
                                      : [qsTr("JSON lines (*.jsonl)"), qsTr("All files (*)")]
        // A local path, as the model writes it.
        onAccepted: view.exportRequested(format, decodeURIComponent(selectedFile.toString().replace(/^file:\/\//, "")))
    }
}
