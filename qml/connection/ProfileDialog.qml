// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Makes or changes a connection profile. A profile for endpoints off this machine is read-only
// (Connection's rule): writes there are allowed only with the header's switch, which asks first.
Dialog {
    id: dialog
    required property Connection connection
    property string originalName
    property string error
    // The operator ticked or unticked read-only: endpoints no longer decide it.
    property bool readOnlyChosen: false
    readonly property var endpointList: endpoints.text.split(",").map(e => e.trim()).filter(e => e.length > 0)
    // Through an SSH tunnel, 127.0.0.1 is the far host's.
    readonly property bool loopback: connection.isOnThisMachine(endpointList) && sshHost.text.trim().length === 0

    // An existing profile to change, or "" for a new one.
    function edit(name) {
        const profile = name ? connection.profile(name) : ({});
        originalName = name;
        nameField.text = profile.name || "";
        endpoints.text = (profile.endpoints || ["http://127.0.0.1:2379"]).join(", ");
        caFile.text = profile.caFile || "";
        certFile.text = profile.certFile || "";
        keyFile.text = profile.keyFile || "";
        userField.text = profile.user || "";
        namespaceField.text = profile["namespace"] || "";
        sshHost.text = profile.sshHost || "";
        sshUser.text = profile.sshUser || "";
        sshPort.text = Number(profile.sshPort) > 0 ? String(profile.sshPort) : "";
        sshJump.text = profile.sshJump || "";
        receiveLimit.value = Math.round((profile.maxRecvBytes || 32 * 1048576) / 1048576);
        readOnlyChosen = name.length > 0;
        readOnly.checked = (name ? !!profile.readOnly : false) || !loopback;
        error = "";
        open();
        nameField.forceActiveFocus();
    }
    function collect() {
        return { name: nameField.text.trim(), endpoints: endpointList, caFile: caFile.text, certFile: certFile.text,
                 keyFile: keyFile.text, user: userField.text, "namespace": namespaceField.text, readOnly: readOnly.checked,
                 maxRecvBytes: receiveLimit.value * 1048576, sshHost: sshHost.text.trim(), sshUser: sshUser.text.trim(),
                 sshPort: sshPort.text.trim(), sshJump: sshJump.text.trim() };
    }
    function save(andConnect) {
        const profile = collect();
        error = connection.saveProfile(profile);
        if (error.length > 0)
            return;
        if (originalName && originalName !== profile.name)
            connection.removeProfile(originalName);
        close();
        if (andConnect)
            connection.open(profile.name);
    }
    onLoopbackChanged: if (!loopback || !readOnlyChosen) readOnly.checked = !loopback

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(620, parent ? parent.width - 64 : 620)
    modal: true
    title: originalName ? qsTr("Profile %1").arg(originalName) : qsTr("New profile")

    contentItem: GridLayout {
        columns: 2
        columnSpacing: Theme.padding
        rowSpacing: Theme.spacing
        Label { text: qsTr("Name"); color: Theme.mutedText }
        TextField { id: nameField; objectName: "profileName"; Accessible.name: qsTr("Name"); Layout.fillWidth: true; placeholderText: qsTr("production") }
        Label { text: qsTr("Endpoints"); color: Theme.mutedText }
        TextField {
            id: endpoints
            objectName: "profileEndpoints"
            Accessible.name: qsTr("Endpoints")
            font.family: Theme.monoFamily
            placeholderText: "https://etcd-1:2379, https://etcd-2:2379"
            Layout.fillWidth: true
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Comma-separated; bare host:port is http")
        }
        Label { text: qsTr("CA file"); color: Theme.mutedText }
        FileField { id: caFile; objectName: "profileCaFile"; placeholderText: qsTr("ca.pem (https only)"); pickerTitle: qsTr("The CA that signed the servers' certificates") }
        Label { text: qsTr("Certificate"); color: Theme.mutedText }
        FileField { id: certFile; objectName: "profileCertFile"; placeholderText: qsTr("client certificate, for mutual TLS"); pickerTitle: qsTr("This client's certificate") }
        Label { text: qsTr("Key"); color: Theme.mutedText }
        FileField { id: keyFile; objectName: "profileKeyFile"; placeholderText: qsTr("the certificate's private key"); pickerTitle: qsTr("The certificate's private key") }
        Label { text: qsTr("User"); color: Theme.mutedText }
        TextField {
            id: userField
            objectName: "profileUser"
            Accessible.name: qsTr("User")
            placeholderText: qsTr("none")
            Layout.fillWidth: true
            ToolTip.visible: hovered
            ToolTip.text: qsTr("The password is asked for when connecting and kept only in the system keychain")
        }
        Label { text: qsTr("Namespace"); color: Theme.mutedText }
        TextField { id: namespaceField; Accessible.name: qsTr("Namespace"); font.family: Theme.monoFamily; placeholderText: qsTr("none: every key"); Layout.fillWidth: true }
        Label { text: qsTr("SSH through"); color: Theme.mutedText }
        RowLayout {
            spacing: Theme.spacing
            Layout.fillWidth: true
            TextField {
                id: sshHost
                objectName: "profileSshHost"
                Accessible.name: qsTr("SSH host")
                placeholderText: qsTr("none: connect directly")
                Layout.fillWidth: true
                ToolTip.visible: hovered
                ToolTip.text: qsTr("A host you can ssh to that reaches the endpoints; the console runs your ssh (its config, agent and keys) with a forward for each")
            }
            TextField {
                id: sshUser
                objectName: "profileSshUser"
                Accessible.name: qsTr("SSH user")
                placeholderText: qsTr("user")
                enabled: sshHost.text.trim().length > 0
                Layout.preferredWidth: 96
            }
            TextField {
                id: sshPort
                objectName: "profileSshPort"
                Accessible.name: qsTr("SSH port")
                placeholderText: "22"
                enabled: sshHost.text.trim().length > 0
                validator: RegularExpressionValidator { regularExpression: /[0-9]{0,5}/ }
                Layout.preferredWidth: 60
            }
        }
        Label { text: qsTr("Jump host"); color: Theme.mutedText }
        TextField {
            id: sshJump
            objectName: "profileSshJump"
            Accessible.name: qsTr("Jump host")
            placeholderText: qsTr("none (ssh -J)")
            enabled: sshHost.text.trim().length > 0
            Layout.fillWidth: true
        }
        Label { text: qsTr("Largest answer"); color: Theme.mutedText }
        RowLayout {
            spacing: Theme.spacing
            Layout.fillWidth: true
            SpinBox {
                id: receiveLimit
                objectName: "profileMaxRecv"
                Accessible.name: qsTr("Largest answer in MiB")
                from: 4
                to: 2047
                value: 32
                editable: true
            }
            Label {
                textFormat: Text.PlainText
                text: qsTr("MiB. An answer over this (many keys at once, a large value) is refused; the pages read in smaller pieces")
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
        }
        Item { width: 1; height: 1 }
        CheckBox {
            id: readOnly
            objectName: "profileReadOnly"
            text: qsTr("Read-only: the client refuses every write")
            enabled: dialog.loopback
            onToggled: dialog.readOnlyChosen = true
        }
        Item { width: 1; height: 1 }
        Label {
            objectName: "profileReadOnlyNote"
            visible: !dialog.loopback
            text: qsTr("These endpoints are not on this machine, so the profile opens read-only. To write there, use the header's read-only switch, which names the cluster and asks first.")
            color: Theme.warning
            font.pixelSize: Theme.smallFont
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Banner {
            objectName: "profileError"
            text: dialog.error
            Layout.columnSpan: 2
            Layout.fillWidth: true
        }
    }
    footer: DialogButtonBox {
        Button {
            objectName: "saveAndConnect"
            text: qsTr("Save and connect")
            highlighted: true
            onClicked: dialog.save(true)
        }
        Button {
            text: qsTr("Save")
            onClicked: dialog.save(false)
        }
        Button {
            objectName: "profileDelete"
            visible: dialog.originalName.length > 0
            text: qsTr("Delete")
            onClicked: confirmDeleteProfile.open()
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
    ConfirmDialog {
        id: confirmDeleteProfile
        objectName: "confirmDeleteProfile"
        title: qsTr("Delete the profile?")
        confirmText: qsTr("Delete")
        destructive: true
        message: qsTr("The profile %1 is forgotten here, with its password in the system keychain if one is kept there. Nothing in the cluster changes.").arg(dialog.originalName)
        onConfirmed: {
            dialog.connection.removeProfile(dialog.originalName);
            dialog.close();
        }
    }
}
