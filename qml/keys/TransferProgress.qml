// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// How far a KeyTransfer job has got, with its Cancel; shown while `operations` has the running
// one. What is done stays done after a cancel: the label says so for writes.
RowLayout {
    id: bar
    required property KeyTransfer transfer
    property var operations: []
    readonly property bool active: transfer.running && operations.indexOf(transfer.operation) >= 0

    visible: active
    spacing: Theme.spacing
    ProgressBar {
        objectName: "transferProgressBar"
        from: 0
        to: Math.max(1, bar.transfer.total)
        value: bar.transfer.done
        indeterminate: bar.transfer.total === 0
        Layout.fillWidth: true
    }
    Label {
        objectName: "transferProgressLabel"
        textFormat: Text.PlainText
        text: bar.transfer.total > 0 ? qsTr("%1 of %2 keys").arg(Format.count(bar.transfer.done)).arg(Format.count(bar.transfer.total))
                                     : qsTr("%1 keys").arg(Format.count(bar.transfer.done))
        color: Theme.mutedText
        font.family: Theme.monoFamily
        font.pixelSize: Theme.smallFont
    }
    Button {
        objectName: "transferCancel"
        text: qsTr("Stop")
        onClicked: bar.transfer.cancel()
        ToolTip.visible: hovered
        ToolTip.delay: 600
        ToolTip.text: qsTr("Stop after the step in flight; what was written or deleted by then stays so")
    }
}
