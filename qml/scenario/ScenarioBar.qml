// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import QEtcdConsole

// The narrator of a scenario: ready to play, then which step, what happens now, what it waits
// for, and the buttons to go on; once it is over, Export story… writes the run as a page with a
// picture per step. Shown until it is closed.
Rectangle {
    id: bar
    required property Scenario scenario
    property StoryExport storyExport
    // The export's file picker and its overwrite question, for tests: offscreen they have no window of their own.
    readonly property alias storySaveDialog: storySaveDialog
    readonly property alias confirmOverwrite: confirmOverwrite
    property bool sandboxRunning: false

    readonly property bool running: scenario.state === Scenario.Acting || scenario.state === Scenario.Ready
    readonly property bool ended: scenario.state === Scenario.Finished || scenario.state === Scenario.Failed
    readonly property bool readyToPlay: scenario.state === Scenario.Idle && scenario.stepCount > 0
    readonly property color tone: scenario.state === Scenario.Failed ? Theme.bad
                                 : scenario.state === Scenario.Finished ? Theme.good : Theme.info

    visible: sandboxRunning && (running || ended || readyToPlay)
    implicitHeight: content.implicitHeight + 2 * Theme.spacing
    radius: Theme.radius
    color: scenario.state === Scenario.Failed ? Theme.badSoft
         : scenario.state === Scenario.Finished ? Theme.goodSoft : Theme.infoSoft
    border.color: tone

    RowLayout {
        id: content
        anchors.fill: parent
        anchors.leftMargin: Theme.padding
        anchors.rightMargin: Theme.spacing
        spacing: Theme.padding

        ColumnLayout {
            spacing: 2
            Layout.preferredWidth: 200
            Label {
                objectName: "scenarioTitle"
                textFormat: Text.PlainText
                text: bar.scenario.title
                font.bold: true
                color: bar.tone
                // Titles run to a few words more than the column: two lines, cut only beyond.
                wrapMode: Text.WordWrap
                maximumLineCount: 2
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            Label {
                objectName: "scenarioProgress"
                textFormat: Text.PlainText
                text: bar.scenario.state === Scenario.Finished ? qsTr("Done, all %1 steps").arg(bar.scenario.stepCount)
                    : bar.scenario.state === Scenario.Failed ? qsTr("Failed")
                    : bar.readyToPlay ? qsTr("Ready, %1 steps").arg(bar.scenario.stepCount)
                    : qsTr("Step %1 of %2").arg(bar.scenario.step + 1).arg(bar.scenario.stepCount)
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
            }
        }
        ColumnLayout {
            spacing: 2
            Layout.fillWidth: true
            Label {
                objectName: "scenarioNarration"
                text: bar.scenario.state === Scenario.Failed ? bar.scenario.errorString
                    : bar.readyToPlay ? bar.scenario.summary + "\n" + qsTr("Play runs it step by step on the sandbox, with the timeline below: press Next after each step, or let Auto-play go on by itself.")
                    : bar.scenario.narration
                color: Theme.text
                wrapMode: Text.Wrap
                textFormat: Text.PlainText
                Layout.fillWidth: true
            }
            Label {
                objectName: "storyExportNote"
                visible: bar.ended && !!bar.storyExport && text.length > 0
                text: !bar.storyExport ? "" : bar.storyExport.errorString.length > 0 ? bar.storyExport.errorString
                    : bar.storyExport.written.length > 0 ? qsTr("Exported: %1").arg(bar.storyExport.written) : ""
                color: bar.storyExport && bar.storyExport.errorString.length > 0 ? Theme.bad : Theme.mutedText
                font.pixelSize: Theme.smallFont
                textFormat: Text.PlainText
                elide: Text.ElideMiddle
                Layout.fillWidth: true
            }
            RowLayout {
                visible: bar.scenario.state === Scenario.Acting
                spacing: 6
                BusyIndicator {
                    running: parent.visible
                    Layout.preferredWidth: 16
                    Layout.preferredHeight: 16
                }
                Label {
                    textFormat: Text.PlainText
                    text: qsTr("Waiting for: %1").arg(bar.scenario.awaiting)
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                    Layout.fillWidth: true
                    elide: Text.ElideRight
                }
            }
        }
        Button {
            objectName: "scenarioNext"
            visible: bar.running
            text: qsTr("Next \u25B8")
            enabled: bar.scenario.state === Scenario.Ready && !bar.scenario.autoplay
            onClicked: bar.scenario.next()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Do the next step")
            ToolTip.delay: 600
        }
        CheckBox {
            objectName: "scenarioAutoplay"
            visible: bar.running || bar.readyToPlay
            text: qsTr("Auto-play")
            checked: bar.scenario.autoplay
            onToggled: bar.scenario.autoplay = checked
        }
        Button {
            objectName: "exportStory"
            visible: bar.ended && bar.scenario.stepCount > 0 && !!bar.storyExport
            text: qsTr("Export story…")
            onClicked: storySaveDialog.open()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Write this run as one HTML page that opens anywhere (timeline, narration step by step, event log) and a PNG per step for slides")
            ToolTip.delay: 600
        }
        Button {
            objectName: "scenarioPlay"
            // Not for a story file that could not be read: there is nothing to play.
            visible: (bar.ended || bar.readyToPlay) && bar.scenario.stepCount > 0
            text: bar.readyToPlay ? qsTr("Play \u25B6") : qsTr("Run again")
            highlighted: bar.readyToPlay
            // The event log is the record of what happened before: cleared only when asked.
            onClicked: bar.scenario.eventLog && bar.scenario.eventLog.count > 0 ? confirmClearLog.open() : bar.scenario.start()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Starts afresh: the event log is cleared and new participants take part")
            ToolTip.delay: 600
        }
        ToolButton {
            text: "\u2715"
            onClicked: bar.running ? bar.scenario.stop() : bar.scenario.name = ""
            ToolTip.visible: hovered
            ToolTip.text: bar.running ? qsTr("Stop the scenario; its participants let go of what they hold")
                                      : qsTr("Close")
            Accessible.name: qsTr("Stop the scenario")
        }
    }
    // Writes the run to path, asking first when that would replace or remove files.
    function exportStory(path) {
        const existing = bar.storyExport.existingFilesFor(path);
        const stale = bar.storyExport.staleFilesFor(path);
        if (existing.length === 0 && stale.length === 0)
            return bar.storyExport.write(path);
        confirmOverwrite.path = path;
        confirmOverwrite.existing = existing;
        confirmOverwrite.stale = stale;
        confirmOverwrite.open();
        return false;
    }
    FileDialog {
        id: storySaveDialog
        title: qsTr("Export the story as a web page")
        fileMode: FileDialog.SaveFile
        defaultSuffix: "html"
        nameFilters: [qsTr("Web pages (*.html)"), qsTr("All files (*)")]
        // A local path, as the export writes it.
        onAccepted: bar.exportStory(decodeURIComponent(selectedFile.toString().replace(/^file:\/\//, "")))
    }
    ConfirmDialog {
        id: confirmOverwrite
        objectName: "confirmStoryOverwrite"
        property string path
        property var existing: []
        property var stale: []  // an earlier, longer export's last pictures
        title: existing.length > 0 ? qsTr("Replace the files?") : qsTr("Remove an earlier export's pictures?")
        destructive: true
        confirmText: existing.length > 0 ? qsTr("Replace") : qsTr("Remove")
        message: (existing.length === 0 ? ""
                  : qsTr("The export writes a page and a picture per step; these %n file(s) exist already and would be replaced:", "", existing.length)
                    + "\n" + existing.join("\n"))
                 + (existing.length > 0 && stale.length > 0 ? "\n\n" : "")
                 + (stale.length === 0 ? ""
                    : qsTr("These %n picture(s) of an earlier export to this name have no step in this story and would be removed:", "", stale.length)
                      + "\n" + stale.join("\n"))
        onConfirmed: bar.storyExport.write(path)
    }
    ConfirmDialog {
        id: confirmClearLog
        objectName: "confirmClearLog"
        title: qsTr("Clear the event log?")
        confirmText: qsTr("Clear and play")
        message: qsTr("The scenario starts on a fresh timeline: the %n event(s) in the log now are cleared. Export them from the Timeline first to keep them.",
                      "", bar.scenario.eventLog ? bar.scenario.eventLog.count : 0)
        onConfirmed: bar.scenario.start()
    }
}
