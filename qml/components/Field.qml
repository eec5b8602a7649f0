import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// One "label  value" line in a card; the value may be monospaced (ids, revisions, URLs).
RowLayout {
    property string label
    property string value
    property bool mono: false
    property color valueColor: Theme.text

    spacing: Theme.spacing
    Layout.fillWidth: true
    Label {
        text: parent.label
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        Layout.preferredWidth: 92
    }
    Label {
        text: parent.value
        color: parent.valueColor
        font.pixelSize: Theme.bodyFont
        font.family: parent.mono ? Theme.monoFamily : Qt.application.font.family
        elide: Text.ElideRight
        Layout.fillWidth: true
    }
}
