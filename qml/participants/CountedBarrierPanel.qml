// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A CountedBarrier: wait until `members` participants have arrived; the last one lets all pass.
RecipePanel {
    id: panel
    key: "countedBarrier"
    refresh: () => panel.recipe.refreshArrived()

    CountLine {
        label: qsTr("Members")
        value: panel.recipe.memberCount
        locked: panel.settingsLocked
        toolTip: qsTr("How many participants the barrier waits for")
        note: panel.recipe.arrived < 0 ? "" : qsTr("%1 of %2 arrived").arg(panel.recipe.arrived).arg(panel.recipe.memberCount)
        onModified: value => panel.recipe.memberCount = value
    }
    Field {
        label: qsTr("Last wait")
        value: panel.waiting ? qsTr("waiting for the others") : panel.recipe.lifted ? qsTr("passed: all arrived") : "—"
    }
    WriteButton {
        objectName: "wait"
        text: qsTr("Wait")
        readOnly: panel.readOnly
        blockedReason: panel.waiting ? qsTr("Waiting already") : ""
        toolTip: qsTr("Arrive at the barrier and wait for the others")
        onClicked: panel.recipe.wait()
    }
}
