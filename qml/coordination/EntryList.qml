import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Holders, waiters, candidates or members of a coordination object, one line each: who (the
// identity qetcd writes, or the key for tools that write none), and since when.
ColumnLayout {
    id: entries
    property string heading
    property var model: []
    property bool numbered: false
    property bool showToken: false
    property bool showValue: false  // an election's proclamation says more than its key
    property double now: Date.now()
    property string emptyText

    spacing: 2
    Layout.fillWidth: true
    visible: model.length > 0 || emptyText.length > 0

    Label {
        text: entries.heading
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        font.bold: true
    }
    Label {
        visible: entries.model.length === 0
        text: entries.emptyText
        color: Theme.mutedText
        font.pixelSize: Theme.bodyFont
    }
    Repeater {
        model: entries.model
        delegate: RowLayout {
            required property int index
            required property var modelData
            spacing: Theme.spacing
            Layout.fillWidth: true
            Label {
                visible: entries.numbered
                text: (index + 1) + "."
                color: Theme.mutedText
                Layout.preferredWidth: 18
            }
            Label {
                text: entries.showValue && modelData.value && !modelData.clientId ? modelData.value
                    : modelData.clientId || modelData.name || modelData.key
                color: Theme.text
                font.bold: !entries.numbered
                elide: Text.ElideMiddle
                Layout.fillWidth: true
                ToolTip.visible: hover.hovered
                ToolTip.text: qsTr("key %1\nlease %2\nvalue %3").arg(modelData.key).arg(modelData.lease || "none")
                                  .arg(modelData.value || "(empty)")
                HoverHandler { id: hover }
            }
            Label {
                visible: !!modelData.host
                text: modelData.host + (modelData.pid ? ", pid " + modelData.pid : "")
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
            }
            Label {
                visible: entries.showToken
                text: qsTr("token %1").arg(Format.count(modelData.createRevision))
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.smallFont
            }
            Label {
                visible: modelData.sinceMs > 0
                text: Format.duration(entries.now - modelData.sinceMs)
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
                horizontalAlignment: Text.AlignRight
                Layout.preferredWidth: 56
            }
        }
    }
}
