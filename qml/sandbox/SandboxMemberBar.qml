// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A sandbox member's process at the foot of its Cluster page card: its state, its pid, and the
// actions that make sense now; the others are disabled and their tooltips say why. A delegate
// of Sandbox.members.
ColumnLayout {
    id: bar
    required property Sandbox sandbox
    // The member's row: name, clientUrl, pid, state, action, busy, blockedReasons.
    required property var model
    required property int index
    readonly property string name: model.name

    spacing: Theme.spacing

    // The five share the row equally.
    component ActionButton: WriteButton {
        button.font.pixelSize: Theme.smallFont
        Layout.fillWidth: true
        Layout.preferredWidth: 1
    }

    readonly property var stateWords: ({
        [SandboxMemberModel.Running]: qsTr("Running"),
        [SandboxMemberModel.Paused]: qsTr("Paused"),
        [SandboxMemberModel.Stopped]: qsTr("Stopped"),
        [SandboxMemberModel.Killed]: qsTr("Killed"),
        [SandboxMemberModel.Exited]: qsTr("Exited")
    })
    readonly property var actionWords: ({
        [SandboxMemberModel.Stop]: qsTr("Stopping…"),
        [SandboxMemberModel.Kill]: qsTr("Killing…"),
        [SandboxMemberModel.Pause]: qsTr("Pausing…"),
        [SandboxMemberModel.Resume]: qsTr("Resuming…"),
        [SandboxMemberModel.Restart]: qsTr("Restarting…")
    })
    readonly property color tone: model.busy ? Theme.info
        : model.state === SandboxMemberModel.Running ? Theme.good
        : model.state === SandboxMemberModel.Paused ? Theme.warning
        : model.state === SandboxMemberModel.Stopped ? Theme.neutral
        : Theme.bad
    readonly property color softTone: model.busy ? Theme.infoSoft
        : model.state === SandboxMemberModel.Running ? Theme.goodSoft
        : model.state === SandboxMemberModel.Paused ? Theme.warningSoft
        : model.state === SandboxMemberModel.Stopped ? Theme.neutralSoft
        : Theme.badSoft

    Rectangle {
        color: Theme.border
        implicitHeight: 1
        Layout.fillWidth: true
        Layout.topMargin: 4
    }
    RowLayout {
        spacing: Theme.spacing
        Layout.fillWidth: true
        Label {
            text: qsTr("Sandbox")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
        }
        StatePill {
            objectName: "memberState-" + bar.name
            text: bar.model.busy ? bar.actionWords[bar.model.action] : bar.stateWords[bar.model.state]
            foreground: bar.tone
            background: bar.softTone
        }
        Label {
            textFormat: Text.PlainText
            text: bar.model.pid > 0 ? qsTr("pid %1").arg(bar.model.pid) : ""
            color: Theme.mutedText
            font.family: Theme.monoFamily
            font.pixelSize: Theme.smallFont
            Layout.fillWidth: true
        }
    }
    RowLayout {
        spacing: 4
        Layout.fillWidth: true
        ActionButton {
            objectName: "stopMember-" + bar.name
            text: qsTr("Stop")
            toolTip: qsTr("Stop %1 gracefully (SIGTERM); a leader hands over first").arg(bar.name)
            blockedReason: bar.model.blockedReasons.stop
            onClicked: bar.sandbox.stopMember(bar.index)
        }
        ActionButton {
            objectName: "killMember-" + bar.name
            text: qsTr("Kill")
            toolTip: qsTr("Kill %1 at once (SIGKILL), as a crash would").arg(bar.name)
            blockedReason: bar.model.blockedReasons.kill
            onClicked: bar.sandbox.killMember(bar.index)
        }
        ActionButton {
            objectName: "pauseMember-" + bar.name
            text: qsTr("Pause")
            toolTip: qsTr("Freeze %1 (SIGSTOP): its connections stay open and nothing answers on them").arg(bar.name)
            blockedReason: bar.model.blockedReasons.pause
            onClicked: bar.sandbox.pauseMember(bar.index)
        }
        ActionButton {
            objectName: "resumeMember-" + bar.name
            text: qsTr("Resume")
            toolTip: qsTr("Let %1 run again (SIGCONT)").arg(bar.name)
            blockedReason: bar.model.blockedReasons.resume
            onClicked: bar.sandbox.resumeMember(bar.index)
        }
        ActionButton {
            objectName: "restartMember-" + bar.name
            text: qsTr("Restart")
            toolTip: qsTr("Start %1 again on its ports and data, and wait until it answers").arg(bar.name)
            blockedReason: bar.model.blockedReasons.restart
            onClicked: bar.sandbox.restartMember(bar.index)
        }
    }
}
