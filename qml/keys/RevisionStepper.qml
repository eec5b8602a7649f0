// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Steps through a key's earlier values, one version at a time, while etcd still has them; says
// plainly when it no longer does.
ColumnLayout {
    id: stepper
    required property KeyHistory history
    property int latestVersion: 0
    readonly property int shownVersion: history.atLatest ? latestVersion : history.shown.version

    spacing: 2
    RowLayout {
        spacing: 4
        Layout.fillWidth: true
        Label {
            text: qsTr("Version")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
        }
        ToolButton {
            objectName: "olderButton"
            text: "\u25C0"
            enabled: stepper.history.canGoOlder
            onClicked: stepper.history.older()
            Accessible.name: qsTr("Older version")
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Read the value this key had before (etcd keeps earlier values until it compacts)")
        }
        Label {
            objectName: "versionLabel"
            textFormat: Text.PlainText
            text: stepper.latestVersion > 0 ? qsTr("%1 of %2").arg(stepper.shownVersion).arg(stepper.latestVersion) : "—"
            color: Theme.text
            font.family: Theme.monoFamily
            horizontalAlignment: Text.AlignHCenter
            Layout.minimumWidth: 64
        }
        ToolButton {
            objectName: "newerButton"
            text: "\u25B6"
            enabled: !stepper.history.atLatest
            onClicked: stepper.history.newer()
            Accessible.name: qsTr("Newer version")
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Back towards the current value")
        }
        StatePill {
            visible: !stepper.history.atLatest
            text: qsTr("EARLIER VALUE")
            foreground: Theme.warning
            background: Theme.warningSoft
        }
        Button {
            visible: !stepper.history.atLatest
            text: qsTr("Latest")
            flat: true
            onClicked: stepper.history.latest()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Show the current value again")
        }
        BusyIndicator {
            visible: stepper.history.status === ModelStatus.Loading
            running: visible
            Layout.preferredWidth: 20
            Layout.preferredHeight: 20
        }
        Item { Layout.fillWidth: true }
    }
    Label {
        objectName: "historyNote"
        visible: text.length > 0
        textFormat: Text.PlainText
        text: stepper.history.compacted
              ? qsTr("etcd has compacted revision %1: the values before version %2 are gone for good.")
                    .arg(Format.count(stepper.history.compactedRevision)).arg(stepper.shownVersion)
              : stepper.history.status === ModelStatus.Error ? stepper.history.errorString
              : ""
        color: stepper.history.compacted ? Theme.warning : Theme.bad
        font.pixelSize: Theme.smallFont
        wrapMode: Text.Wrap
        Layout.fillWidth: true
        Layout.leftMargin: 96
    }
}
