// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A hold's time left before its loss deadline, the moment its holder stops trusting it, as a
// ring beside the seconds, laid out as a Field line.
RowLayout {
    id: line
    property int timeLeftMs: 0
    property int ttl: 0
    readonly property real remaining: timeLeftMs / 1000

    spacing: Theme.spacing
    Layout.fillWidth: true
    Label {
        text: qsTr("Loss deadline")
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        Layout.preferredWidth: 92
    }
    CountdownRing {
        objectName: "lossRing"
        remaining: line.remaining
        total: line.ttl
        Layout.preferredWidth: 32
        Layout.preferredHeight: 32
    }
    Label {
        textFormat: Text.PlainText
        text: qsTr("%1 s of %2 s left").arg(line.remaining.toFixed(1)).arg(line.ttl)
        color: Theme.text
        font.pixelSize: Theme.bodyFont
        Layout.fillWidth: true
    }
}
