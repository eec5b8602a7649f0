// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole
import QtQuick.Controls

// The page list on the left. Pages are {name, title, glyph}.
Rectangle {
    id: rail
    property alias model: list.model
    property int currentIndex: 0
    signal activated(int index)

    color: Theme.rail
    implicitWidth: Theme.railWidth

    ListView {
        id: list
        anchors.fill: parent
        anchors.topMargin: Theme.spacing
        interactive: false
        currentIndex: rail.currentIndex
        keyNavigationEnabled: true
        focus: true
        onCurrentIndexChanged: if (currentIndex !== rail.currentIndex) rail.activated(currentIndex)

        delegate: ItemDelegate {
            id: entry
            required property int index
            required property var modelData
            width: ListView.view.width
            height: 40
            highlighted: ListView.isCurrentItem
            onClicked: rail.activated(index)
            Accessible.name: modelData.title

            background: Rectangle {
                color: entry.highlighted ? Theme.railSelected : entry.hovered ? Qt.lighter(Theme.rail, 1.25) : "transparent"
                Rectangle {
                    visible: entry.highlighted
                    width: 3; height: parent.height
                    color: Theme.accent
                }
            }
            contentItem: Row {
                spacing: 12
                leftPadding: 8
                Label {
                    width: 18
                    textFormat: Text.PlainText
                    text: entry.modelData.glyph
                    horizontalAlignment: Text.AlignHCenter
                    color: entry.highlighted ? "white" : Theme.railText
                    font.pixelSize: 15
                    anchors.verticalCenter: parent.verticalCenter
                }
                Label {
                    textFormat: Text.PlainText
                    text: entry.modelData.title
                    color: entry.highlighted ? "white" : Theme.railText
                    font.pixelSize: Theme.bodyFont
                    font.bold: entry.highlighted
                    anchors.verticalCenter: parent.verticalCenter
                }
            }
        }
    }
}
