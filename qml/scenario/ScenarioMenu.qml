// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QEtcdConsole

// The header's way into the guided scenarios, while a sandbox runs: one click starts one, on
// the Timeline page, with its narration above. Open story… runs a story file of one's own
// (docs/scenarios.md).
ToolButton {
    id: button
    required property Scenario scenario
    // Starts a scenario by name, or a story file by its local path (and shows the timeline).
    signal chosen(string name)
    // The story file picker, for tests: it has no window of its own offscreen.
    readonly property alias storyPicker: storyPicker

    text: qsTr("Scenarios \u25BE")
    onClicked: menu.open()
    ToolTip.visible: hovered && !menu.visible
    ToolTip.delay: 600
    ToolTip.text: qsTr("Guided, narrated demonstrations of partitions and failures on the sandbox")

    Menu {
        id: menu
        y: button.height
        MenuItem {
            objectName: "openStory"
            text: qsTr("Open story…")
            onTriggered: storyPicker.open()
        }
        MenuSeparator {}
        Repeater {
            model: button.scenario.names
            MenuItem {
                required property string modelData
                objectName: "scenario-" + modelData
                text: button.scenario.titleOf(modelData)
                onTriggered: button.chosen(modelData)
            }
        }
    }
    FileDialog {
        id: storyPicker
        title: qsTr("Open a story file")
        fileMode: FileDialog.OpenFile
        nameFilters: [qsTr("Stories (*.json)"), qsTr("All files (*)")]
        // A local path, as --scenario takes it; a file that cannot be read says why in the
        // scenario's bar, and nothing starts.
        onAccepted: button.chosen(decodeURIComponent(selectedFile.toString().replace(/^file:\/\//, "")))
    }
}
