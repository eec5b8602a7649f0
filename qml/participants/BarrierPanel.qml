// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// A Barrier: set it (this participant owns it then), remove it, or wait at it; a wait tells
// whether the barrier was lifted and whether the lift was spurious, the owner's lease having
// expired rather than the owner removing it.
RecipePanel {
    id: panel
    key: "barrier"

    Field {
        label: qsTr("Owner")
        value: panel.recipe.owner ? qsTr("this participant set it") : qsTr("not this participant")
        valueColor: panel.recipe.owner ? Theme.text : Theme.mutedText
    }
    Field {
        objectName: "liftedLine"
        label: qsTr("Last wait")
        wraps: true
        value: panel.recipe.waitPhase === Barrier.Reading ? qsTr("reading the barrier…")
             : panel.recipe.waitPhase === Barrier.UntilRemoved ? qsTr("waiting for the barrier to lift")
             : panel.recipe.waitPhase === Barrier.UntilSetAndRemoved ? qsTr("no barrier yet: waiting for one to be set and lifted")
             : !panel.recipe.lifted ? "—"
             : panel.recipe.spurious ? qsTr("lifted spuriously: its owner's lease expired")
             : qsTr("lifted: its owner removed it")
        valueColor: panel.recipe.lifted && panel.recipe.spurious ? Theme.bad : Theme.text
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "set"
            text: qsTr("Set")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.owner ? qsTr("This participant set it already") : ""
            toolTip: qsTr("Raise the barrier: whoever waits at it stops until it is removed")
            onClicked: panel.recipe.set()
        }
        WriteButton {
            objectName: "remove"
            text: qsTr("Remove")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.owner ? "" : qsTr("Only the participant that set it removes it")
            toolTip: qsTr("Lift the barrier: every waiter passes")
            onClicked: panel.recipe.remove()
        }
        WriteButton {
            objectName: "wait"
            text: qsTr("Wait")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.waiting ? qsTr("Waiting already") : ""
            toolTip: qsTr("Wait until the barrier is lifted")
            onClicked: panel.recipe.wait()
        }
    }
}
