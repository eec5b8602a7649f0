// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A Queue: put an item at its end, take the oldest (waiting for one when it is empty); its depth
// is read again while shown.
RecipePanel {
    id: panel
    key: "queue"
    hasLease: false
    refresh: () => panel.recipe.refreshDepth()

    Field {
        objectName: "depth"
        label: qsTr("Depth")
        value: panel.recipe.depth < 0 ? "—" : qsTr("%n item(s)", "", panel.recipe.depth)
    }
    Field {
        objectName: "lastTaken"
        label: qsTr("Last taken")
        value: panel.participant.lastTaken || "—"
        mono: panel.participant.lastTaken.length > 0
    }
    SettingField {
        id: item
        objectName: "item"
        label: qsTr("Item")
        text: qsTr("job from %1").arg(panel.participant.name)
        toolTip: qsTr("What Put appends")
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "put"
            text: qsTr("Put")
            readOnly: panel.readOnly
            blockedReason: item.field.text.length === 0 ? qsTr("Type an item first") : ""
            toolTip: qsTr("Append the item to the queue")
            onClicked: panel.recipe.put(item.field.text)
        }
        WriteButton {
            objectName: "take"
            text: qsTr("Take")
            readOnly: panel.readOnly
            blockedReason: panel.waiting ? qsTr("Taking already") : ""
            toolTip: qsTr("Take the oldest item; waits while the queue is empty")
            onClicked: panel.recipe.take()
        }
    }
}
