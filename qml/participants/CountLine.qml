// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A count a recipe is built with (a semaphore's permits, a barrier's members), laid out as a
// Field line, with what it amounts to right now beside it.
RowLayout {
    id: line
    property string label
    property int value
    property int to: 1000
    property string toolTip
    // Why the count cannot change now (a change rebuilds the recipe); empty when it can.
    property string locked
    property string note
    signal modified(int value)

    spacing: Theme.spacing
    Layout.fillWidth: true
    Label {
        textFormat: Text.PlainText
        text: line.label
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        Layout.preferredWidth: 92
    }
    SpinBox {
        objectName: "count"
        Accessible.name: line.label
        from: 1
        to: line.to
        value: line.value
        editable: true
        enabled: line.locked.length === 0
        onValueModified: line.modified(value)
        Layout.preferredWidth: 96
        ToolTip.visible: hovered
        ToolTip.delay: 600
        ToolTip.text: line.locked || line.toolTip
    }
    Label {
        objectName: "countNote"
        text: line.note
        textFormat: Text.PlainText
        color: Theme.text
        font.pixelSize: Theme.smallFont
        elide: Text.ElideRight
        Layout.fillWidth: true
    }
}
