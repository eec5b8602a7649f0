// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Layouts
import QEtcdConsole

// A TransientKey: a key that lives while the participant does, kept on a lease that heals,
// from Start until Close.
RecipePanel {
    id: panel
    key: "transientKey"

    SettingField {
        objectName: "transientValue"
        label: qsTr("Value")
        text: panel.recipe.value
        toolTip: qsTr("What the key holds; takes effect at the next start")
        onEdited: text => panel.recipe.value = text
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "start"
            text: panel.active ? qsTr("Put again") : qsTr("Start")
            readOnly: panel.readOnly
            toolTip: qsTr("Put the key on a lease of its own and keep it alive")
            onClicked: panel.recipe.start()
        }
        WriteButton {
            objectName: "closeKey"
            text: qsTr("Close")
            readOnly: panel.readOnly
            blockedReason: panel.active || panel.waiting ? "" : qsTr("Not started")
            toolTip: qsTr("Let the key go: etcd deletes it with its lease")
            onClicked: panel.recipe.close()
        }
    }
}
