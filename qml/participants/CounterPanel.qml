// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A Counter: a 64-bit value every participant changes by compare-and-set; shown as last read
// or written.
RecipePanel {
    id: panel
    key: "counter"
    hasLease: false

    Field {
        objectName: "counterValue"
        label: qsTr("Value")
        value: Format.count(panel.recipe.value)
        mono: true
    }
    RowLayout {
        spacing: Theme.spacing
        Label {
            text: qsTr("Add")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
        }
        SpinBox {
            id: delta
            objectName: "delta"
            Accessible.name: qsTr("Add to the counter")
            from: -1000000
            to: 1000000
            value: 10
            editable: true
            Layout.preferredWidth: 120
        }
        WriteButton {
            objectName: "add"
            text: qsTr("Add")
            readOnly: panel.readOnly
            toolTip: qsTr("Add this amount (negative subtracts)")
            onClicked: panel.recipe.add(delta.value)
        }
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "increment"
            text: "+1"
            readOnly: panel.readOnly
            toolTip: qsTr("Increment")
            onClicked: panel.recipe.increment()
        }
        WriteButton {
            objectName: "decrement"
            text: "\u22121"
            readOnly: panel.readOnly
            toolTip: qsTr("Decrement")
            onClicked: panel.recipe.decrement()
        }
        WriteButton {
            objectName: "read"
            text: qsTr("Read")
            readOnly: panel.readOnly
            // The first use of a counter creates its key.
            toolTip: qsTr("Read the value again (creates the counter at 0 if it does not exist)")
            onClicked: panel.recipe.refresh()
        }
    }
}
