// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Asks for a profile's (or the command line's --user) password, says why it asks (no keychain,
// or nothing in it yet), and offers to keep a profile's in the keychain where there is one.
Dialog {
    id: dialog
    property string profileName
    property string user
    property string reason
    property bool canRemember: false
    signal passwordGiven(string profileName, string password, bool remember)

    function ask(name, userName, why, keychain) {
        profileName = name;
        user = userName;
        reason = why;
        canRemember = keychain;
        passwordField.text = "";
        open();
        passwordField.forceActiveFocus();
    }

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(480, parent ? parent.width - 64 : 480)
    modal: true
    title: qsTr("Password for %1").arg(user)
    onAccepted: passwordGiven(profileName, passwordField.text, remember.checked)

    contentItem: ColumnLayout {
        spacing: Theme.spacing
        Label {
            // No profile name: the command line's --user, whose password is never asked for in argv.
            text: dialog.profileName ? qsTr("Profile \"%1\" connects as user \"%2\".").arg(dialog.profileName).arg(dialog.user)
                                     : qsTr("The command line connects as user \"%1\".").arg(dialog.user)
            textFormat: Text.PlainText
            color: Theme.text
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "passwordReason"
            text: dialog.reason
            textFormat: Text.PlainText
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        TextField {
            id: passwordField
            objectName: "passwordField"
            Accessible.name: qsTr("Password")
            echoMode: TextInput.Password
            placeholderText: qsTr("Password")
            Layout.fillWidth: true
            onAccepted: dialog.accept()
        }
        CheckBox {
            id: remember
            text: qsTr("Keep it in the system keychain")
            enabled: dialog.canRemember
            checked: dialog.canRemember
            ToolTip.visible: hovered
            ToolTip.text: dialog.canRemember ? qsTr("Never written to a file or a log; only the keychain holds it")
                                             : qsTr("There is no keychain service to keep it in")
        }
    }
    footer: DialogButtonBox {
        Button {
            objectName: "connectButton"
            text: qsTr("Connect")
            highlighted: true
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
}
