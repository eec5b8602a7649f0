// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Every keyboard shortcut of the console, on F1 or ?: the keys on the left, what they do and
// where on the right. Main.qml and the pages define them; this list says them once for a reader.
Dialog {
    id: dialog
    // [{ keys, what }], in the order shown.
    property var shortcuts: []

    title: qsTr("Keyboard shortcuts")
    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(620, parent ? parent.width - 64 : 620)
    modal: true
    standardButtons: Dialog.Close

    contentItem: GridLayout {
        columns: 2
        columnSpacing: Theme.padding
        rowSpacing: Theme.spacing
        Repeater {
            model: dialog.shortcuts
            delegate: Label {
                required property var modelData
                required property int index
                Layout.row: index
                Layout.column: 0
                Layout.alignment: Qt.AlignTop | Qt.AlignRight
                textFormat: Text.PlainText
                text: modelData.keys
                color: Theme.text
                font.family: Theme.monoFamily
                font.pixelSize: Theme.smallFont + 1
                padding: 3
                leftPadding: 6
                rightPadding: 6
                background: Rectangle {
                    color: Theme.window
                    border.color: Theme.border
                    radius: 3
                }
            }
        }
        Repeater {
            model: dialog.shortcuts
            delegate: Label {
                required property var modelData
                required property int index
                Layout.row: index
                Layout.column: 1
                Layout.fillWidth: true
                Layout.alignment: Qt.AlignVCenter
                textFormat: Text.PlainText
                text: modelData.what
                color: Theme.text
                wrapMode: Text.WordWrap
            }
        }
    }
}
