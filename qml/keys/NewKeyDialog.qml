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
    signal createRequested(string key, string value)

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(600, parent ? parent.width - 64 : 600)
    modal: true
    focus: true
    title: qsTr("New key")

    function ask() {
        keyField.text = prefix;
        valueField.text = "";
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
        createRequested(keyField.text, valueField.text);
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
                font.family: Theme.monoFamily
                selectByMouse: true
                wrapMode: TextEdit.WrapAnywhere
                background: Rectangle { color: Theme.window; radius: Theme.radius; border.color: Theme.border }
            }
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
            enabled: !dialog.busy && keyField.text.length > 0
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
