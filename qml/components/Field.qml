// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// One "label  value" line in a card; the value may be monospaced (ids, revisions, URLs). Values
// are elided, but a sentence (a wait's outcome, say) wraps: cut short, it would lose its point.
RowLayout {
    property string label
    property string value
    property bool mono: false
    property bool wraps: false
    property color valueColor: Theme.text

    spacing: Theme.spacing
    Layout.fillWidth: true
    Label {
        textFormat: Text.PlainText
        text: parent.label
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        Layout.preferredWidth: 92
        Layout.alignment: parent.wraps ? Qt.AlignBaseline : Qt.AlignVCenter
    }
    EtcdLabel {
        value: parent.value
        color: parent.valueColor
        font.pixelSize: Theme.bodyFont
        font.family: parent.mono ? Theme.monoFamily : Qt.application.font.family
        elide: parent.wraps ? Text.ElideNone : Text.ElideRight
        wrapMode: parent.wraps ? Text.WordWrap : Text.NoWrap
        Layout.fillWidth: true
        Layout.alignment: parent.wraps ? Qt.AlignBaseline : Qt.AlignVCenter
    }
}
