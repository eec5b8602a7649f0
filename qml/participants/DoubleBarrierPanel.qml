// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A DoubleBarrier: enter passes once `members` participants entered, leave once all of them left.
RecipePanel {
    id: panel
    key: "doubleBarrier"
    refresh: () => panel.recipe.refreshArrived()

    CountLine {
        label: qsTr("Members")
        value: panel.recipe.memberCount
        locked: panel.settingsLocked
        toolTip: qsTr("How many participants enter and leave together")
        note: panel.recipe.arrived < 0 ? "" : qsTr("%1 of %2 waiting to enter").arg(panel.recipe.arrived).arg(panel.recipe.memberCount)
        onModified: value => panel.recipe.memberCount = value
    }
    Field {
        label: qsTr("Phase")
        value: panel.waiting ? qsTr("waiting for the others")
             : panel.recipe.left ? qsTr("left: everyone is out")
             : panel.recipe.entered ? qsTr("inside: everyone entered")
             : qsTr("outside")
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "enter"
            text: qsTr("Enter")
            readOnly: panel.readOnly
            blockedReason: panel.waiting ? qsTr("Waiting already") : panel.recipe.entered && !panel.recipe.left ? qsTr("Inside already") : ""
            toolTip: qsTr("Enter, and wait until all members have entered")
            onClicked: panel.recipe.enter()
        }
        WriteButton {
            objectName: "leave"
            text: qsTr("Leave")
            readOnly: panel.readOnly
            blockedReason: panel.waiting ? qsTr("Waiting already") : panel.recipe.entered && !panel.recipe.left ? "" : qsTr("Not inside")
            toolTip: qsTr("Leave, and wait until all members have left")
            onClicked: panel.recipe.leave()
        }
    }
}
