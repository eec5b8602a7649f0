// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Exports the page's prefix to a file, every key read at one revision: etcdctl's
// `get -w json` document or JSON lines. Allowed under read-only: it only reads.
Dialog {
    id: dialog
    required property KeyTransfer transfer
    property string prefix
    readonly property var exported: transfer.operation === "export" ? transfer.result : ({})

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(640, parent ? parent.width - 64 : 640)
    modal: true
    title: qsTr("Export the keys under the prefix")
    closePolicy: transfer.running ? Popup.NoAutoClose : Popup.CloseOnEscape

    contentItem: ColumnLayout {
        spacing: Theme.spacing
        Label {
            textFormat: Text.PlainText
            text: qsTr("Every key under %1, read at one revision, with its value, revisions and lease. The file is written whole or not at all.").arg(DisplayText.escape(dialog.prefix || "/"))
            color: Theme.text
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label { text: qsTr("File"); color: Theme.mutedText; font.pixelSize: Theme.smallFont }
        FileField {
            id: file
            objectName: "exportFile"
            saving: true
            pickerTitle: qsTr("Export to")
            placeholderText: "/tmp/keys.json"
            nameFilters: [qsTr("JSON (*.json *.jsonl)"), qsTr("All files (*)")]
        }
        RowLayout {
            spacing: Theme.spacing
            ButtonGroup { id: formats }
            RadioButton {
                id: etcdctlFormat
                objectName: "exportFormat_etcdctl"
                text: qsTr("etcdctl JSON")
                checked: true
                ButtonGroup.group: formats
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("What `etcdctl get PREFIX --prefix -w json` prints")
            }
            RadioButton {
                objectName: "exportFormat_jsonl"
                text: qsTr("JSON lines")
                ButtonGroup.group: formats
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("One key a line, for grep, jq -c and split")
            }
            Item { Layout.fillWidth: true }
            CheckBox {
                id: overwrite
                objectName: "exportOverwrite"
                text: qsTr("Replace an existing file")
            }
        }
        TransferProgress {
            transfer: dialog.transfer
            operations: ["export"]
            Layout.fillWidth: true
        }
        Banner {
            objectName: "exportResult"
            bad: !!dialog.exported.status && !dialog.exported.status.isOk
            good: !!dialog.exported.status && dialog.exported.status.isOk
            text: !dialog.exported.status ? ""
                : dialog.exported.status.isOk ? qsTr("%1 keys written to %2 (revision %3).").arg(Format.count(dialog.exported.keys)).arg(dialog.exported.fileName).arg(dialog.exported.revision)
                : qsTr("No file written: %1").arg(dialog.exported.status.message)
            Layout.fillWidth: true
        }
    }
    footer: DialogButtonBox {
        Button {
            objectName: "exportStart"
            text: qsTr("Export")
            highlighted: true
            enabled: file.text.length > 0 && !dialog.transfer.running
            onClicked: dialog.transfer.exportPrefix(dialog.prefix, file.text, etcdctlFormat.checked ? "etcdctl" : "jsonl", overwrite.checked)
        }
        Button {
            text: qsTr("Close")
            enabled: !dialog.transfer.running
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
}
