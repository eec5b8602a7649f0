// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole
import QtQuick.Controls

// A word on a tinted background: the word carries the meaning, the colour only repeats it.
Rectangle {
    id: pill
    property string text
    property color foreground: Theme.neutral
    property color background: Theme.neutralSoft

    implicitWidth: label.implicitWidth + 20
    implicitHeight: label.implicitHeight + 8
    radius: height / 2
    color: background
    border.color: Qt.darker(background, 1.08)

    Row {
        anchors.centerIn: parent
        spacing: 6
        Rectangle {
            width: 8; height: 8; radius: 4
            anchors.verticalCenter: parent.verticalCenter
            color: pill.foreground
        }
        Label {
            id: label
            textFormat: Text.PlainText
            text: pill.text
            color: pill.foreground
            font.pixelSize: Theme.smallFont
            font.bold: true
        }
    }
}
