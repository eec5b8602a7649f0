// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// The cluster's users with their roles and its roles with their permissions (each shown as the
// range of keys it means), and an operator's changes to them: add or delete a user, change a
// password, grant or revoke a role, add or delete a role, grant or revoke a permission, turn
// authentication on or off. Every change is refused on a read-only connection, confirmed first
// (typed off this machine) and written to the event log; a password goes from its dialog to etcd
// and nowhere else.
ConsolePage {
    id: page
    property var client: null
    property EventLogModel eventLog: null
    property bool readOnly: false
    // Typed before a change on a cluster that is not on this machine; empty on this machine.
    property string confirmationWord
    // What the last change said, and whether it went wrong.
    property string outcome
    property bool outcomeBad: false

    title: qsTr("Access")
    subtitle: access.status === ModelStatus.Ready
              ? qsTr("%n user(s)", "", access.users.length) + " · " + qsTr("%n role(s)", "", access.roles.length) + " · "
                + (access.authEnabled ? qsTr("authentication on") : qsTr("authentication off"))
              : ""
    ready: access.status === ModelStatus.Ready || access.status === ModelStatus.Error
    notReadyReason: qsTr("the users and roles have not arrived")
    summary: ({ users: access.users.length, roles: access.roles.length, authEnabled: access.authEnabled })

    tools: [
        WriteButton {
            objectName: "addUser"
            text: qsTr("Add user…")
            flat: true
            readOnly: page.readOnly
            blockedReason: access.running
            toolTip: qsTr("Add a user with a password (asks first)")
            onClicked: page.edit("addUser", {})
        },
        WriteButton {
            objectName: "addRole"
            text: qsTr("Add role…")
            flat: true
            readOnly: page.readOnly
            blockedReason: access.running
            toolTip: qsTr("Add a role, which grants nothing until given permissions (asks first)")
            onClicked: page.edit("addRole", {})
        },
        WriteButton {
            objectName: "switchAuth"
            text: access.authEnabled ? qsTr("Disable authentication…") : qsTr("Enable authentication…")
            flat: true
            readOnly: page.readOnly
            blockedReason: access.running || (!access.authEnabled && !access.rootReady
                                              ? qsTr("Enabling needs user root with role root: add them first") : "")
            toolTip: access.authEnabled ? qsTr("Let anyone do anything (asks first)")
                                        : qsTr("Make every client log in (asks first)")
            onClicked: page.confirm(access.authEnabled ? "disableAuth" : "enableAuth", {})
        }
    ]

    AccessControl {
        id: access
        objectName: "accessControl"
        client: page.client
        eventLog: page.eventLog
        onFinished: (action, status, outcome) => {
            page.outcomeBad = !status.isOk;
            page.outcome = status.isOk ? outcome.charAt(0).toUpperCase() + outcome.slice(1) + "."
                                       : qsTr("%1: %2").arg(page.actionTitle(action)).arg(page.advise(status));
        }
    }

    // F5 (Main's): users and roles read again.
    function refresh() {
        access.refresh();
    }
    function actionTitle(action) {
        switch (action) {
        case "addUser": return qsTr("Add user");
        case "deleteUser": return qsTr("Delete user");
        case "changePassword": return qsTr("Change password");
        case "grantRole": return qsTr("Grant role");
        case "revokeRole": return qsTr("Revoke role");
        case "addRole": return qsTr("Add role");
        case "deleteRole": return qsTr("Delete role");
        case "grantPermission": return qsTr("Grant permission");
        case "revokePermission": return qsTr("Revoke permission");
        case "enableAuth": return qsTr("Enable authentication");
        }
        return qsTr("Disable authentication");
    }

    // Opens the form for action; what it collects goes to confirm().
    function edit(action, subject) {
        form.action = action;
        form.subject = subject;
        form.open();
    }

    // Opens the confirmation for action, saying what it will do, then runs it.
    function confirm(action, args) {
        let title = "", message = "", button = "", run = () => {};
        switch (action) {
        case "addUser":
            title = qsTr("Add user %1?").arg(args.name);
            message = args.noPassword
                    ? qsTr("User %1 has no password: only a client presenting a TLS certificate whose common name is %1 acts as it (etcd's --client-cert-auth), doing what the roles granted to it allow.").arg(args.name)
                    : qsTr("User %1 can log in with the password given, and do what the roles granted to it allow.").arg(args.name);
            button = qsTr("Add");
            run = args.noPassword ? () => access.addUserWithoutPassword(args.name) : () => access.addUser(args.name, args.password);
            break;
        case "changePassword":
            title = qsTr("Change the password of %1?").arg(args.name);
            message = qsTr("Clients logged in as %1 keep working until their token expires; then they need the new password.").arg(args.name);
            button = qsTr("Change");
            run = () => access.changePassword(args.name, args.password);
            break;
        case "deleteUser":
            title = qsTr("Delete user %1?").arg(args.name);
            message = qsTr("Whoever logs in as %1 is refused from then on.").arg(args.name)
                    + (args.name === "root" && access.authEnabled ? "\n\n" + qsTr("Authentication is on: without root nobody can administer the cluster.") : "");
            button = qsTr("Delete");
            run = () => access.deleteUser(args.name);
            break;
        case "grantRole":
            title = qsTr("Grant role %1 to %2?").arg(args.role).arg(args.name);
            message = qsTr("%1 may then do what %2 allows.").arg(args.name).arg(args.role);
            button = qsTr("Grant");
            run = () => access.grantRole(args.name, args.role);
            break;
        case "revokeRole":
            title = qsTr("Revoke role %1 from %2?").arg(args.role).arg(args.name);
            message = qsTr("%1 loses what %2 allows.").arg(args.name).arg(args.role);
            button = qsTr("Revoke");
            run = () => access.revokeRole(args.name, args.role);
            break;
        case "addRole":
            title = qsTr("Add role %1?").arg(args.name);
            message = qsTr("Role %1 grants nothing until it is given permissions.").arg(args.name);
            button = qsTr("Add");
            run = () => access.addRole(args.name);
            break;
        case "deleteRole":
            title = qsTr("Delete role %1?").arg(args.name);
            message = qsTr("Every user granted %1 loses what it allows.").arg(args.name);
            button = qsTr("Delete");
            run = () => access.deleteRole(args.name);
            break;
        case "grantPermission":
            title = qsTr("Grant %1 to role %2?").arg(args.type).arg(args.name);
            message = qsTr("Role %1 may then %2 the keys %3.").arg(args.name).arg(args.type === "readwrite" ? qsTr("read and write") : args.type)
                      .arg(access.describeKeys(args.key, args.kind, args.rangeEnd));
            button = qsTr("Grant");
            run = () => access.grantPermission(args.name, args.type, args.key, args.kind, args.rangeEnd);
            break;
        case "revokePermission":
            title = qsTr("Revoke the permission of %1?").arg(args.name);
            message = qsTr("Its users lose access to %1.").arg(args.keys);
            button = qsTr("Revoke");
            run = () => access.revokePermission(args.name, args.key, args.kind, args.rangeEnd);
            break;
        case "enableAuth":
            title = qsTr("Enable authentication?");
            message = qsTr("Every client must log in from then on, this console too: its connection needs a user (root, or one whose roles allow what it shows), or its pages turn to errors.");
            button = qsTr("Enable");
            run = () => access.enableAuth();
            break;
        case "disableAuth":
            title = qsTr("Disable authentication?");
            message = qsTr("Anyone who reaches the cluster may then read and write every key and change users and roles.");
            button = qsTr("Disable");
            run = () => access.disableAuth();
            break;
        }
        confirmChange.title = title;
        confirmChange.message = message;
        confirmChange.confirmText = button;
        confirmChange.run = run;
        confirmChange.open();
    }

    ConfirmDialog {
        id: confirmChange
        objectName: "confirmChange"
        property var run: () => {}
        destructive: true
        typedConfirmation: page.confirmationWord
        onConfirmed: run()
    }

    // What a change needs typed in: a name, a password (twice, never shown), a role to grant, or
    // a permission's type and keys with the range they mean.
    Dialog {
        id: form
        objectName: "accessForm"
        property string action
        property var subject: ({})
        readonly property bool needsName: action === "addUser" || action === "addRole"
        readonly property bool needsPassword: (action === "addUser" && !noPasswordBox.checked) || action === "changePassword"
        readonly property string range: access.describeKeys(keyField.text, kindBox.currentValue || "key", endField.text)
        readonly property bool acceptable: (!needsName || nameField.text.length > 0)
                                           && (!needsPassword || (passwordField.text.length > 0 && passwordField.text === repeatField.text))
                                           && (action !== "grantRole" || roleBox.currentIndex >= 0)
                                           && (action !== "grantPermission" || range.length > 0)
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(520, parent ? parent.width - 64 : 520)
        modal: true
        focus: true
        // Not the user's or role's name: a dialog renders its title as markup, and names are etcd's
        // data. The name is the form's first line instead.
        title: page.actionTitle(action)
        onAboutToShow: {
            nameField.text = ""; passwordField.text = ""; repeatField.text = ""; noPasswordBox.checked = false
            keyField.text = ""; endField.text = ""; kindBox.currentIndex = 1; typeBox.currentIndex = 0; roleBox.currentIndex = -1
        }
        onAccepted: {
            if (!acceptable)
                return;
            const args = { name: needsName ? nameField.text : subject.name, password: passwordField.text,
                           noPassword: action === "addUser" && noPasswordBox.checked,
                           role: roleBox.currentText, type: typeBox.currentText, key: keyField.text,
                           kind: kindBox.currentValue, rangeEnd: endField.text };
            passwordField.text = ""; repeatField.text = "";
            page.confirm(action, args);
        }

        contentItem: GridLayout {
            columns: 2
            columnSpacing: Theme.spacing
            rowSpacing: Theme.spacing
            Label { visible: !!form.subject.name; text: qsTr("Of") }
            EtcdLabel {
                objectName: "formSubject"
                visible: !!form.subject.name
                value: form.subject.name || ""
                font.bold: true
                Layout.fillWidth: true
            }
            Label { visible: form.needsName; text: qsTr("Name") }
            TextField { id: nameField; objectName: "nameField"; Accessible.name: qsTr("Name"); visible: form.needsName; Layout.fillWidth: true; selectByMouse: true }
            Label { visible: form.action === "addUser"; text: qsTr("Login") }
            CheckBox {
                id: noPasswordBox
                objectName: "noPasswordBox"
                visible: form.action === "addUser"
                Layout.fillWidth: true
                text: qsTr("By TLS certificate only, no password")
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("The user is the common name of a TLS client certificate (etcd's --client-cert-auth); a login with any password fails.")
            }
            Label { visible: form.needsPassword; text: qsTr("Password") }
            TextField {
                id: passwordField; objectName: "passwordField"; Accessible.name: qsTr("Password"); visible: form.needsPassword; Layout.fillWidth: true
                echoMode: TextInput.Password
            }
            Label { visible: form.needsPassword; text: qsTr("Again") }
            TextField {
                id: repeatField; objectName: "repeatField"; Accessible.name: qsTr("Password again"); visible: form.needsPassword; Layout.fillWidth: true
                echoMode: TextInput.Password
            }
            Label { visible: form.action === "grantRole"; text: qsTr("Role") }
            ComboBox {
                id: roleBox; objectName: "roleBox"; Accessible.name: qsTr("Role"); visible: form.action === "grantRole"; Layout.fillWidth: true
                model: access.roles.map(role => role.name).filter(name => !(form.subject.roles || []).includes(name))
            }
            Label { visible: form.action === "grantPermission"; text: qsTr("Access") }
            ComboBox {
                id: typeBox; objectName: "typeBox"; Accessible.name: qsTr("Access"); visible: form.action === "grantPermission"; Layout.fillWidth: true
                model: ["read", "write", "readwrite"]
            }
            Label { visible: form.action === "grantPermission"; text: qsTr("Keys") }
            ComboBox {
                id: kindBox; objectName: "kindBox"; Accessible.name: qsTr("Keys"); visible: form.action === "grantPermission"; Layout.fillWidth: true
                textRole: "text"; valueRole: "value"
                model: [{ value: "key", text: qsTr("one key") }, { value: "prefix", text: qsTr("every key with the prefix") },
                        { value: "range", text: qsTr("a range of keys") }, { value: "fromKey", text: qsTr("the key and every key after it") }]
            }
            Label {
                visible: form.action === "grantPermission"
                textFormat: Text.PlainText
                text: kindBox.currentValue === "prefix" ? qsTr("Prefix") : qsTr("Key")
            }
            TextField { id: keyField; objectName: "keyField"; Accessible.name: kindBox.currentValue === "prefix" ? qsTr("Prefix") : qsTr("Key"); visible: form.action === "grantPermission"; Layout.fillWidth: true; font.family: Theme.monoFamily }
            Label { visible: form.action === "grantPermission" && kindBox.currentValue === "range"; text: qsTr("Up to") }
            TextField {
                id: endField; objectName: "endField"; Accessible.name: qsTr("Up to"); visible: form.action === "grantPermission" && kindBox.currentValue === "range"
                Layout.fillWidth: true; font.family: Theme.monoFamily
            }
            Label {
                objectName: "rangeShown"
                visible: form.action === "grantPermission"
                Layout.columnSpan: 2
                Layout.fillWidth: true
                textFormat: Text.PlainText
                wrapMode: Text.Wrap
                color: form.range.length > 0 ? Theme.text : Theme.mutedText
                text: form.range.length > 0 ? qsTr("Covers %1").arg(form.range) : qsTr("Choose the keys")
            }
        }
        footer: DialogButtonBox {
            Button {
                objectName: "formNext"
                text: qsTr("Next…")
                enabled: form.acceptable
                highlighted: true
                DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            }
            Button {
                text: qsTr("Cancel")
                DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
            }
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.padding

        Banner {
            objectName: "accessOutcome"
            Layout.fillWidth: true
            text: access.running !== "" ? qsTr("%1…").arg(access.running.charAt(0).toUpperCase() + access.running.slice(1)) : page.outcome
            bad: access.running === "" && page.outcomeBad
            good: access.running === "" && !page.outcomeBad
            dismissable: access.running === ""
            onDismissed: page.outcome = ""
        }
        Banner {
            objectName: "authOff"
            Layout.fillWidth: true
            visible: access.status === ModelStatus.Ready && !access.authEnabled
            bad: false
            text: access.rootReady ? qsTr("Authentication is off: anyone who reaches the cluster may do anything.")
                                   : qsTr("Authentication is off, and cannot be turned on until user root exists with role root.")
        }

        RowLayout {
            visible: access.status === ModelStatus.Ready
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: Theme.padding

            // Users, each with its roles.
            ListView {
                id: userList
                objectName: "users"
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                spacing: Theme.spacing
                model: access.users
                header: Label { text: qsTr("Users"); font.bold: true; color: Theme.text; bottomPadding: Theme.spacing }
                ScrollBar.vertical: ScrollBar {}
                delegate: Card {
                    id: userCard
                    required property var modelData
                    width: ListView.view.width - Theme.spacing
                    title: modelData.name
                    accentColor: modelData.roles.includes("root") ? Theme.accent : Theme.border
                    Flow {
                        Layout.fillWidth: true
                        spacing: Theme.spacing
                        Label {
                            visible: userCard.modelData.roles.length === 0
                            text: qsTr("no roles")
                            color: Theme.mutedText
                        }
                        Repeater {
                            model: userCard.modelData.roles
                            delegate: RowLayout {
                                required property string modelData
                                spacing: 2
                                StatePill { text: modelData; foreground: Theme.info; background: Theme.infoSoft }
                                WriteButton {
                                    objectName: "revokeRole"
                                    text: "×"
                                    flat: true
                                    implicitWidth: 28
                                    readOnly: page.readOnly
                                    blockedReason: access.running
                                    toolTip: qsTr("Revoke role %1 (asks first)").arg(modelData)
                                    onClicked: page.confirm("revokeRole", { name: userCard.modelData.name, role: modelData })
                                }
                            }
                        }
                    }
                    RowLayout {
                        spacing: Theme.spacing
                        Layout.alignment: Qt.AlignRight
                        WriteButton {
                            objectName: "grantRole"
                            text: qsTr("Grant role…"); flat: true
                            readOnly: page.readOnly; blockedReason: access.running
                            toolTip: qsTr("Grant a role to this user (asks first)")
                            onClicked: page.edit("grantRole", userCard.modelData)
                        }
                        WriteButton {
                            objectName: "changePassword"
                            text: qsTr("Password…"); flat: true
                            readOnly: page.readOnly; blockedReason: access.running
                            toolTip: qsTr("Change this user's password (asks first)")
                            onClicked: page.edit("changePassword", userCard.modelData)
                        }
                        WriteButton {
                            objectName: "deleteUser"
                            text: qsTr("Delete…"); flat: true
                            readOnly: page.readOnly; blockedReason: access.running
                            toolTip: qsTr("Delete this user (asks first)")
                            onClicked: page.confirm("deleteUser", { name: userCard.modelData.name })
                        }
                    }
                }
            }

            // Roles, each with its permissions as the ranges they mean.
            ListView {
                id: roleList
                objectName: "roles"
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                spacing: Theme.spacing
                model: access.roles
                header: Label { text: qsTr("Roles"); font.bold: true; color: Theme.text; bottomPadding: Theme.spacing }
                ScrollBar.vertical: ScrollBar {}
                delegate: Card {
                    id: roleCard
                    required property var modelData
                    width: ListView.view.width - Theme.spacing
                    title: modelData.name
                    accentColor: modelData.name === "root" ? Theme.accent : Theme.border
                    Label {
                        visible: roleCard.modelData.permissions.length === 0
                        text: roleCard.modelData.name === "root" ? qsTr("everything (the root role)") : qsTr("no permissions")
                        textFormat: Text.PlainText
                        color: Theme.mutedText
                        Layout.fillWidth: true
                    }
                    Repeater {
                        model: roleCard.modelData.permissions
                        delegate: RowLayout {
                            required property var modelData
                            Layout.fillWidth: true
                            spacing: Theme.spacing
                            StatePill {
                                text: modelData.type.toUpperCase()
                                foreground: modelData.type === "read" ? Theme.good : Theme.warning
                                background: modelData.type === "read" ? Theme.goodSoft : Theme.warningSoft
                            }
                            Label {
                                objectName: "permissionKeys"
                                text: modelData.keys
                                textFormat: Text.PlainText
                                font.family: Theme.monoFamily
                                color: Theme.text
                                elide: Text.ElideRight
                                Layout.fillWidth: true
                            }
                            WriteButton {
                                objectName: "revokePermission"
                                text: "×"
                                flat: true
                                implicitWidth: 28
                                readOnly: page.readOnly
                                blockedReason: access.running
                                toolTip: qsTr("Revoke this permission (asks first)")
                                onClicked: page.confirm("revokePermission", { name: roleCard.modelData.name, key: modelData.key,
                                                                              kind: modelData.kind, rangeEnd: modelData.rangeEnd,
                                                                              keys: modelData.keys })
                            }
                        }
                    }
                    RowLayout {
                        spacing: Theme.spacing
                        Layout.alignment: Qt.AlignRight
                        WriteButton {
                            objectName: "grantPermission"
                            // The root role may do everything already.
                            visible: roleCard.modelData.name !== "root"
                            text: qsTr("Grant permission…"); flat: true
                            readOnly: page.readOnly; blockedReason: access.running
                            toolTip: qsTr("Let this role read or write a key, a prefix or a range (asks first)")
                            onClicked: page.edit("grantPermission", roleCard.modelData)
                        }
                        WriteButton {
                            objectName: "deleteRole"
                            text: qsTr("Delete…"); flat: true
                            readOnly: page.readOnly; blockedReason: access.running
                            toolTip: qsTr("Delete this role (asks first)")
                            onClicked: page.confirm("deleteRole", { name: roleCard.modelData.name })
                        }
                    }
                }
            }
        }

        EmptyState {
            objectName: "accessEmpty"
            visible: access.status !== ModelStatus.Ready
            Layout.alignment: Qt.AlignCenter
            Layout.fillHeight: true
            busy: access.status === ModelStatus.Loading || access.status === ModelStatus.Null
            error: access.status === ModelStatus.Error
            title: access.status === ModelStatus.Error ? qsTr("The users and roles could not be read") : qsTr("Asking the cluster for its users and roles…")
            detail: access.status === ModelStatus.Error ? access.errorString : ""
        }
    }
}
