// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// An election's candidates, leader first, as Election.candidates and ElectionObserver.candidates
// give them: each with its proclamation and its term (the create revision of its key).
ColumnLayout {
    id: list
    property var candidates: []
    // The key of the participant looking: its own line is marked.
    property string ownKey

    spacing: 2
    Layout.fillWidth: true
    Label {
        text: qsTr("CANDIDATES")
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        font.bold: true
    }
    Label {
        visible: list.candidates.length === 0
        text: qsTr("nobody campaigns")
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
    }
    Repeater {
        model: list.candidates.slice(0, 5)
        delegate: EtcdLabel {
            required property var modelData
            required property int index
            value: "%1. %2%3  ·  term %4".arg(index + 1).arg(modelData.value || modelData.clientId)
                  .arg(modelData.key === list.ownKey ? qsTr(" (this participant)") : "").arg(Format.count(modelData.createRevision))
            color: modelData.isLeader ? Theme.text : Theme.mutedText
            font.pixelSize: Theme.smallFont
            font.bold: modelData.isLeader
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
    }
    Label {
        visible: list.candidates.length > 5
        textFormat: Text.PlainText
        text: qsTr("and %n more", "", list.candidates.length - 5)
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
    }
}
