// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QEtcdConsole

// The header's way into the guided scenarios, while a sandbox runs: one click starts one, on
// the Timeline page, with its narration above.
ToolButton {
    id: button
    required property Scenario scenario
    // Starts a scenario by name (and shows the timeline).
    signal chosen(string name)

    text: qsTr("Scenarios \u25BE")
    onClicked: menu.open()
    ToolTip.visible: hovered && !menu.visible
    ToolTip.delay: 600
    ToolTip.text: qsTr("Guided, narrated demonstrations of partitions and failures on the sandbox")

    Menu {
        id: menu
        y: button.height
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
}
