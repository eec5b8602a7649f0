// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// The header's sandbox button: what the sandbox is doing in a word, and a menu to start and
// stop it. A failed start turns the word red; the menu and the tooltip say what failed.
ToolButton {
    id: control
    required property Sandbox sandbox
    readonly property int sandboxState: sandbox.state
    readonly property bool settling: sandboxState === Sandbox.Starting || sandboxState === Sandbox.Stopping

    text: sandboxState === Sandbox.Running ? qsTr("sandbox · %1 members").arg(sandbox.members.count)
        : sandboxState === Sandbox.Starting ? qsTr("sandbox: starting…")
        : sandboxState === Sandbox.Stopping ? qsTr("sandbox: stopping…")
        : sandboxState === Sandbox.Failed ? qsTr("sandbox: failed")
        : qsTr("sandbox: off")
    readonly property color tone: sandboxState === Sandbox.Running ? Theme.good
        : sandboxState === Sandbox.Failed ? Theme.bad
        : settling ? Theme.info
        : Theme.neutral

    contentItem: RowLayout {
        spacing: 6
        Rectangle {
            width: 8
            height: 8
            radius: 4
            color: control.tone
            // Starting and stopping take a few seconds: the dot breathes meanwhile.
            SequentialAnimation on opacity {
                running: control.settling
                loops: Animation.Infinite
                alwaysRunToEnd: true
                NumberAnimation { from: 1; to: 0.25; duration: 500 }
                NumberAnimation { from: 0.25; to: 1; duration: 500 }
            }
        }
        Label {
            textFormat: Text.PlainText
            text: control.text
            color: control.sandboxState === Sandbox.Failed ? Theme.bad : Theme.text
            font.pixelSize: Theme.bodyFont
        }
        Label {
            text: "\u25BE"
            color: Theme.mutedText
            font.pixelSize: Theme.bodyFont
        }
    }

    onClicked: menu.open()
    ToolTip.visible: hovered && !menu.visible
    ToolTip.delay: 600
    ToolTip.text: sandboxState === Sandbox.Failed ? sandbox.errorString
        : sandboxState === Sandbox.Running ? qsTr("A local etcd cluster with throw-away data; the console is connected to %1")
                                                 .arg(sandbox.clientUrls.join(", "))
        : qsTr("A local 3-member etcd cluster with throw-away data, to stop, kill, pause and partition")

    Menu {
        id: menu
        y: control.height
        MenuItem {
            objectName: "startSandbox"
            text: qsTr("Start sandbox")
            enabled: control.sandboxState === Sandbox.Stopped || control.sandboxState === Sandbox.Failed
            onTriggered: control.sandbox.start()
        }
        MenuItem {
            objectName: "stopSandbox"
            text: qsTr("Stop sandbox")
            enabled: control.sandboxState === Sandbox.Starting || control.sandboxState === Sandbox.Running
            onTriggered: control.sandbox.stop()
        }
        // What went wrong last, in full (a start that failed names what to install).
        Label {
            visible: control.sandbox.errorString.length > 0
            height: visible ? implicitHeight : 0
            width: 380
            padding: 12
            textFormat: Text.PlainText
            text: control.sandbox.errorString
            color: Theme.bad
            wrapMode: Text.Wrap
            font.pixelSize: Theme.smallFont
        }
    }
}
