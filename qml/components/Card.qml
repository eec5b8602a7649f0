// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A white panel with a title row (kind, title, a badge on the right) and free content below.
Rectangle {
    id: card
    property string kindLabel
    property string title
    property alias badge: badgeSlot.data
    default property alias content: body.data
    property color accentColor: Theme.accent

    color: Theme.surface
    radius: Theme.radius
    border.color: Theme.border
    implicitHeight: column.implicitHeight + 2 * Theme.padding
    implicitWidth: 320

    Rectangle {
        width: 4
        height: parent.height - 2 * parent.radius
        anchors.verticalCenter: parent.verticalCenter
        color: card.accentColor
        radius: 2
    }

    ColumnLayout {
        id: column
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.margins: Theme.padding
        spacing: Theme.spacing
        RowLayout {
            spacing: Theme.spacing
            Layout.fillWidth: true
            Label {
                visible: card.kindLabel.length > 0
                textFormat: Text.PlainText
                text: card.kindLabel.toUpperCase()
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
                font.bold: true
                font.letterSpacing: 0.5
            }
            EtcdLabel {
                value: card.title
                color: Theme.text
                font.pixelSize: Theme.bodyFont + 1
                font.bold: true
                font.family: card.kindLabel.length > 0 ? Theme.monoFamily : Qt.application.font.family
                Layout.fillWidth: true
            }
            RowLayout { id: badgeSlot; spacing: Theme.spacing }
        }
        ColumnLayout {
            id: body
            spacing: 4
            Layout.fillWidth: true
        }
    }
}
