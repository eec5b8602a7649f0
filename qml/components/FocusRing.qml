// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole

// Where the keyboard is, around an item that is not a control with a focus look of its own (a
// clickable name, a card): set `visible` to the item's activeFocus.
Rectangle {
    anchors.fill: parent
    anchors.margins: -2
    color: "transparent"
    radius: Theme.radius / 2
    border.width: 2
    border.color: Theme.accent
}
