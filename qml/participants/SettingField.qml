// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// One "label  [text]" line for a value a recipe takes: laid out as a Field line, applied when
// editing finishes.
RowLayout {
    id: line
    property string label
    property string text
    property string toolTip
    property bool mono: false
    property alias field: field
    signal edited(string text)

    spacing: Theme.spacing
    Layout.fillWidth: true
    Label {
        textFormat: Text.PlainText
        text: line.label
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        Layout.preferredWidth: 92
    }
    TextField {
        id: field
        objectName: line.objectName
        Accessible.name: line.label
        text: line.text
        font.family: line.mono ? Theme.monoFamily : Qt.application.font.family
        selectByMouse: true
        onEditingFinished: line.edited(text)
        Layout.fillWidth: true
        ToolTip.visible: hovered && line.toolTip.length > 0
        ToolTip.delay: 600
        ToolTip.text: line.toolTip
    }
}
