// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Imports a file an export wrote (or etcdctl's `get -w json`): first a dry run that says what
// would be created, overwritten and left alone, then, confirmed, the import, in guarded
// transactions that refuse a key changed since. Refused under read-only.
Dialog {
    id: dialog
    required property KeyTransfer transfer
    property bool readOnly: false
    property string blockedReason
    readonly property var plan: transfer.operation === "importCheck" && !transfer.running ? transfer.result : ({})
    readonly property bool planned: !!plan.status && plan.status.isOk && plan.fileName === file.text
    readonly property var imported: transfer.operation === "import" ? transfer.result : ({})

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(640, parent ? parent.width - 64 : 640)
    modal: true
    title: qsTr("Import keys")
    closePolicy: transfer.running ? Popup.NoAutoClose : Popup.CloseOnEscape

    function sampleText(count, sample) {
        return count === 0 ? "" : sample.join("\n") + (count > sample.length ? "\n" + qsTr("… and %1 more").arg(Format.count(count - sample.length)) : "")
    }

    contentItem: ColumnLayout {
        spacing: Theme.spacing
        Label { text: qsTr("File"); color: Theme.mutedText; font.pixelSize: Theme.smallFont }
        FileField {
            id: file
            objectName: "importFile"
            pickerTitle: qsTr("Import from")
            placeholderText: "/tmp/keys.json"
            nameFilters: [qsTr("JSON (*.json *.jsonl)"), qsTr("All files (*)")]
        }
        Label {
            textFormat: Text.PlainText
            text: qsTr("Check compares the file with the cluster and writes nothing.")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            visible: !dialog.planned
        }
        GridLayout {
            objectName: "importPlan"
            visible: dialog.planned
            columns: 3
            columnSpacing: Theme.padding
            rowSpacing: 2
            Layout.fillWidth: true
            Repeater {
                model: [{ name: "creates", title: qsTr("Created"), sample: "createSample" },
                        { name: "overwrites", title: qsTr("Overwritten"), sample: "overwriteSample" },
                        { name: "unchanged", title: qsTr("Unchanged"), sample: "unchangedSample" }]
                ColumnLayout {
                    required property var modelData
                    spacing: 2
                    Layout.fillWidth: true
                    Layout.alignment: Qt.AlignTop
                    Label {
                        objectName: "importPlan_" + modelData.name
                        textFormat: Text.PlainText
                        text: qsTr("%1: %2").arg(modelData.title).arg(Format.count(dialog.plan[modelData.name] || 0))
                        color: modelData.name === "overwrites" && dialog.plan.overwrites > 0 ? Theme.warning : Theme.text
                        font.bold: true
                    }
                    Label {
                        textFormat: Text.PlainText
                        text: dialog.planned ? dialog.sampleText(dialog.plan[modelData.name], dialog.plan[modelData.sample]) : ""
                        color: Theme.mutedText
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        elide: Text.ElideMiddle
                        Layout.fillWidth: true
                    }
                }
            }
        }
        TransferProgress {
            transfer: dialog.transfer
            operations: ["importCheck", "import"]
            Layout.fillWidth: true
        }
        Banner {
            objectName: "importResult"
            readonly property var ended: dialog.transfer.running ? ({}) : dialog.transfer.operation === "import" ? dialog.imported
                                       : dialog.transfer.operation === "importCheck" ? dialog.transfer.result : ({})
            bad: !!ended.status && !ended.status.isOk
            good: !!ended.status && ended.status.isOk
            text: !ended.status || (dialog.transfer.operation === "importCheck" && ended.status.isOk) ? ""
                : ended.status.isOk ? qsTr("%1 keys written (revision %2).").arg(Format.count(ended.written)).arg(ended.revision)
                : dialog.transfer.operation === "import" ? qsTr("The import stopped after %1 keys: %2").arg(Format.count(ended.written || 0)).arg(ended.status.message)
                : qsTr("The file was not checked: %1").arg(ended.status.message)
            Layout.fillWidth: true
        }
    }
    // Not a DialogButtonBox: it lays out buttons only, and the import is a WriteButton.
    footer: Pane {
        background: null
        RowLayout {
            anchors.fill: parent
            spacing: Theme.spacing
            Item { Layout.fillWidth: true }
            Button {
                objectName: "importCheck"
                text: qsTr("Check")
                enabled: file.text.length > 0 && !dialog.transfer.running
                onClicked: dialog.transfer.checkImport(file.text)
            }
            WriteButton {
                objectName: "importStart"
                text: dialog.planned ? qsTr("Import %1 keys").arg(Format.count(dialog.plan.creates + dialog.plan.overwrites)) : qsTr("Import")
                readOnly: dialog.readOnly
                blockedReason: dialog.blockedReason ? dialog.blockedReason
                             : dialog.transfer.running ? qsTr("Wait for the job running to end")
                             : !dialog.planned ? qsTr("Check the file first")
                             : dialog.plan.creates + dialog.plan.overwrites === 0 ? qsTr("Nothing to write: the cluster has every key as the file has it")
                             : ""
                toolTip: qsTr("Write the keys created and overwritten; a key changed since the check stops the import")
                onClicked: dialog.transfer.importFile(file.text)
            }
            Button {
                text: qsTr("Close")
                enabled: !dialog.transfer.running
                onClicked: dialog.close()
            }
        }
    }
}
