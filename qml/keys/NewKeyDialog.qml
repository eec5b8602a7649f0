// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Asks for a new key and its value, and puts it only where no key of that name exists. Stays
// open until etcd has answered, so a refusal is read next to what was typed.
Dialog {
    id: dialog
    property string prefix
    property bool busy: false
    property string error
    // leaseTtl > 0: on a new lease of that many seconds; lease (hex): on that existing lease.
    signal createRequested(string key, string value, int leaseTtl, string lease)

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(600, parent ? parent.width - 64 : 600)
    modal: true
    focus: true
    title: qsTr("New key")

    function ask() {
        keyField.text = prefix;
        valueField.text = "";
        leaseChoice.currentIndex = 0;
        leaseField.text = "";
        error = "";
        busy = false;
        open();
        keyField.forceActiveFocus();
    }
    function submit() {
        if (busy || keyField.text.length === 0)
            return;
        error = "";
        busy = true;
        createRequested(keyField.text, valueField.text, leaseChoice.currentIndex === 1 ? ttl.value : 0,
                        leaseChoice.currentIndex === 2 ? leaseField.text : "");
    }
    // KeyModel.writeFinished for a create: close on success, say why not (and what to do)
    // otherwise.
    function finished(status, advice) {
        busy = false;
        if (status.isOk)
            close();
        else
            error = qsTr("%1 was not created: %2").arg(keyField.text).arg(advice);
    }

    contentItem: ColumnLayout {
        spacing: Theme.spacing
        Label { text: qsTr("Key"); color: Theme.mutedText; font.pixelSize: Theme.smallFont }
        TextField {
            id: keyField
            objectName: "newKeyName"
            Accessible.name: qsTr("Key")
            font.family: Theme.monoFamily
            placeholderText: "/app/config/mode"
            selectByMouse: true
            Layout.fillWidth: true
            onAccepted: dialog.submit()
        }
        Label { text: qsTr("Value (UTF-8 text)"); color: Theme.mutedText; font.pixelSize: Theme.smallFont }
        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: 160
            TextArea {
                id: valueField
                objectName: "newKeyValue"
                Accessible.name: qsTr("Value")
                font.family: Theme.monoFamily
                selectByMouse: true
                wrapMode: TextEdit.WrapAnywhere
                background: Rectangle { color: Theme.window; radius: Theme.radius; border.color: Theme.border }
            }
        }
        RowLayout {
            spacing: Theme.spacing
            Label { text: qsTr("Lease"); color: Theme.mutedText; font.pixelSize: Theme.smallFont }
            ComboBox {
                id: leaseChoice
                objectName: "newKeyLease"
                Accessible.name: qsTr("Lease")
                model: [qsTr("None"), qsTr("A new lease of"), qsTr("The existing lease")]
                Layout.preferredWidth: 180
            }
            SpinBox {
                id: ttl
                objectName: "newKeyLeaseTtl"
                Accessible.name: qsTr("New lease's TTL in seconds")
                visible: leaseChoice.currentIndex === 1
                from: 1
                to: 315360000  // ten years: etcd caps a lease at its own maximum TTL anyway
                value: 60
                editable: true
            }
            Label {
                visible: leaseChoice.currentIndex === 1
                text: qsTr("s")
                color: Theme.text
            }
            TextField {
                id: leaseField
                objectName: "newKeyLeaseId"
                Accessible.name: qsTr("Existing lease ID")
                visible: leaseChoice.currentIndex === 2
                placeholderText: qsTr("lease ID in hex, as on the Leases page")
                font.family: Theme.monoFamily
                selectByMouse: true
                Layout.fillWidth: true
            }
        }
        Label {
            visible: leaseChoice.currentIndex === 1
            text: qsTr("Nothing keeps the new lease alive: the key is deleted when it ends, %1 from now, unless something renews it.").arg(Format.duration(ttl.value * 1000))
            textFormat: Text.PlainText
            color: Theme.warning
            font.pixelSize: Theme.smallFont
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            text: qsTr("The key is written only if it does not exist yet; an existing key is edited from its detail pane.")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Banner {
            objectName: "newKeyError"
            text: dialog.error
            Layout.fillWidth: true
        }
    }
    footer: DialogButtonBox {
        Button {
            objectName: "createKeyButton"
            text: dialog.busy ? qsTr("Creating…") : qsTr("Create")
            highlighted: true
            enabled: !dialog.busy && keyField.text.length > 0 && (leaseChoice.currentIndex !== 2 || leaseField.text.length > 0)
            // Apply, not Accept: the dialog closes when etcd says yes, not when clicked.
            DialogButtonBox.buttonRole: DialogButtonBox.ApplyRole
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
    onApplied: submit()
}
