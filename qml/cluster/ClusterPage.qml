// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// One card per member: who leads, how healthy each is and how fast it answers, its raft
// position, database size and version; alarms across the top; the maintenance actions, and a
// snapshot saved to a file with its progress, a cancel and its SHA-256 at the end. Members are
// added (as learners unless told otherwise), promoted, moved to new peer URLs and removed, each
// confirmed with what it does to the quorum. Looking at the console's sandbox,
// each card also shows its member's process and the actions on it (stop, kill, pause, resume,
// restart), matched by client URL.
ConsolePage {
    id: page
    // The window's model: the header and the status bar read it too.
    required property ClusterModel members
    // The sandbox the window is connected to, or null.
    property Sandbox sandbox: null
    property bool readOnly: false
    // Puts revisions on the clock for the compaction's slider (Main's RevisionClock).
    property RevisionClock revisionClock: null
    // Typed before a maintenance action on a cluster that is not on this machine (its profile
    // name); empty on this machine.
    property string confirmationWord
    // What the last action said, and whether it went wrong.
    property string outcome
    property bool outcomeBad: false
    // The flags a member just added is started with, offered for copying while its outcome shows.
    property string startFlags
    // What runs now, for the alarm banners: inside a Banner delegate `actions` is the banner's
    // own property, not the ClusterActions.
    readonly property string actionRunning: actions.running

    title: qsTr("Cluster")
    subtitle: page.members.status === ModelStatus.Ready
              ? qsTr("%1 of %2 members healthy · revision %3").arg(page.members.healthyCount).arg(page.members.count)
                    .arg(Format.count(page.members.revision))
              : ""
    ready: page.members.status === ModelStatus.Ready || page.members.status === ModelStatus.Error
    notReadyReason: qsTr("the member list has not arrived")
    summary: ({ members: page.members.count, healthy: page.members.healthyCount, leader: page.members.leaderId,
                alarms: page.members.alarms.length })

    tools: [
        Button {
            objectName: "checkConsistency"
            text: qsTr("Check consistency")
            flat: true
            enabled: actions.running === ""
            ToolTip.visible: hovered
            ToolTip.delay: 400
            ToolTip.text: qsTr("Hash every member's keys at one revision: a healthy cluster's members agree")
            onClicked: actions.checkConsistency()
        },
        Button {
            objectName: "saveSnapshot"
            text: qsTr("Snapshot…")
            flat: true
            enabled: actions.running === ""
            ToolTip.visible: hovered
            ToolTip.delay: 400
            ToolTip.text: qsTr("Save the database of the member in use to a file, for a backup (reads only)")
            onClicked: snapshotDialog.open()
        },
        WriteButton {
            objectName: "compact"
            text: qsTr("Compact…")
            flat: true
            readOnly: page.readOnly
            blockedReason: actions.running
            toolTip: qsTr("Discard the history before a revision (asks first)")
            onClicked: compactDialog.open()
        },
        WriteButton {
            objectName: "addMember"
            text: qsTr("Add member…")
            flat: true
            readOnly: page.readOnly
            blockedReason: actions.running
            toolTip: qsTr("Add a member to the cluster, a learner unless told otherwise (asks first)")
            onClicked: page.editMember("addMember", null)
        },
        WriteButton {
            objectName: "defragmentAll"
            text: qsTr("Defragment all…")
            flat: true
            readOnly: page.readOnly
            blockedReason: actions.running
            toolTip: qsTr("Give freed space back to the file system, one member at a time, the leader last (asks first)")
            onClicked: page.ask("defragmentAll", null)
        }
    ]

    ClusterActions {
        id: actions
        objectName: "clusterActions"
        client: page.members.client
        eventLog: page.members.eventLog
        onMemberAdded: (name, memberId, startFlags) => page.startFlags = startFlags
        onFinished: (action, status, outcome) => {
            if (action !== "addMember" || !status.isOk)
                page.startFlags = "";
            // The cards show the membership as it is now, not at the next refresh.
            if (action.endsWith("Member"))
                page.members.refresh();
            page.outcomeBad = !status.isOk;
            if (action !== "checkConsistency" || !status.isOk)
                page.outcome = status.isOk ? outcome.charAt(0).toUpperCase() + outcome.slice(1) + "."
                                           : qsTr("%1: %2").arg(page.actionTitle(action)).arg(page.advise(status));
        }
        onConsistencyChecked: (members, revision, consistent) => {
            page.outcomeBad = !consistent;
            const differing = members.filter(member => member.differs).map(member => member.endpoint);
            page.outcome = consistent ? qsTr("All %n member(s) hold the same keys at revision %1.", "", members.length).arg(Format.count(revision))
                                      : qsTr("At revision %1 the keys of %2 differ from those of %3.").arg(Format.count(revision))
                                            .arg(differing.join(", ")).arg(members[0].endpoint);
        }
    }
    // Where the snapshot goes; an existing file is replaced only when ticked.
    Dialog {
        id: snapshotDialog
        objectName: "snapshotDialog"
        title: qsTr("Save a snapshot")
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(560, parent ? parent.width - 64 : 560)
        modal: true
        focus: true
        onAboutToShow: replace.checked = false
        onAccepted: if (snapshotFile.text.length > 0) actions.saveSnapshot(snapshotFile.text, replace.checked)
        contentItem: ColumnLayout {
            spacing: Theme.spacing
            Label {
                text: qsTr("The member in use streams its whole database; it is written to FILE.part as it arrives and renamed once complete, so a cancelled or failed save leaves nothing.")
                color: Theme.text
                wrapMode: Text.Wrap
                textFormat: Text.PlainText
                Layout.fillWidth: true
            }
            FileField {
                id: snapshotFile
                objectName: "snapshotFile"
                saving: true
                placeholderText: qsTr("/var/backups/etcd/snapshot.db")
                pickerTitle: qsTr("Save the snapshot as")
                nameFilters: [qsTr("etcd snapshots (*.db)"), qsTr("All files (*)")]
            }
            CheckBox {
                id: replace
                objectName: "replaceSnapshot"
                text: qsTr("Replace the file if it exists")
            }
        }
        footer: DialogButtonBox {
            Button {
                objectName: "snapshotSave"
                text: qsTr("Save")
                enabled: snapshotFile.text.length > 0
                highlighted: true
                DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            }
            Button {
                text: qsTr("Cancel")
                DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
            }
        }
    }
    ConfirmDialog {
        id: confirmAction
        objectName: "confirmAction"
        property var run: () => {}
        destructive: true
        typedConfirmation: page.confirmationWord
        onConfirmed: run()
    }
    // Adding a member, or moving one to new peer URLs: what it does to the quorum is said above
    // the fields, as they are filled in.
    ConfirmDialog {
        id: memberDialog
        objectName: "memberDialog"
        property string action: "addMember"
        property var member: null  // updateMember: the card's
        readonly property bool adding: action === "addMember"
        readonly property var urls: peerUrlsField.text.split(",").map(url => url.trim()).filter(url => url.length > 0)
        readonly property string problem: {
            if (adding && nameField.text.trim().length === 0)
                return qsTr("Name the new member: it is started with that name.");
            if (urls.length === 0)
                return qsTr("Give its peer URLs, where the other members reach it (http://host:2380), comma-separated.");
            const wrong = urls.find(url => !/^(https?|unixs?):\/\/[^\s,]+$/.test(url));
            return wrong !== undefined ? qsTr("“%1” is not a peer URL: write it as http://host:2380.").arg(wrong) : "";
        }
        title: adding ? qsTr("Add a member") : qsTr("New peer URLs for %1").arg(member ? member.name || member.memberId : "")
        confirmText: adding ? qsTr("Add") : qsTr("Change")
        typedConfirmation: page.confirmationWord
        acceptable: problem.length === 0
        message: problem.length > 0 ? problem
               : adding ? page.members.planMemberAdd(nameField.text.trim(), urls, learnerBox.checked)
               : member ? page.members.planMemberUpdate(member.memberId, urls) : ""
        onConfirmed: adding ? actions.addMember(nameField.text.trim(), urls, learnerBox.checked)
                            : actions.updateMember(member.memberId, urls)
        // Once ConfirmDialog has placed its own focus: the first field to fill.
        Connections {
            target: memberDialog
            function onOpened() {
                (memberDialog.adding ? nameField : peerUrlsField).forceActiveFocus();
            }
        }
        Label {
            visible: memberDialog.adding
            text: qsTr("Name")
            color: Theme.mutedText
            textFormat: Text.PlainText
            Layout.topMargin: Theme.spacing
        }
        TextField {
            id: nameField
            objectName: "memberName"
            visible: memberDialog.adding
            Accessible.name: qsTr("Name")
            placeholderText: qsTr("m3")
            font.family: Theme.monoFamily
            selectByMouse: true
            Layout.fillWidth: true
        }
        Label {
            text: qsTr("Peer URLs, comma-separated")
            color: Theme.mutedText
            textFormat: Text.PlainText
            Layout.topMargin: Theme.spacing
        }
        TextField {
            id: peerUrlsField
            objectName: "memberPeerUrls"
            Accessible.name: qsTr("Peer URLs")
            placeholderText: qsTr("http://10.0.0.13:2380")
            font.family: Theme.monoFamily
            selectByMouse: true
            Layout.fillWidth: true
        }
        CheckBox {
            id: learnerBox
            objectName: "memberLearner"
            visible: memberDialog.adding
            text: qsTr("As a learner: it follows the log without voting until promoted")
        }
    }
    CompactDialog {
        id: compactDialog
        actions: actions
        revisionClock: page.revisionClock
        typedConfirmation: page.confirmationWord
    }
    // F5 (Main's): every member's status read again.
    function refresh() {
        members.refresh();
    }
    function actionTitle(action) {
        switch (action) {
        case "disarmAlarms": return qsTr("Disarm");
        case "compact": return qsTr("Compact");
        case "defragment": case "defragmentAll": return qsTr("Defragment");
        case "moveLeader": return qsTr("Move the leadership");
        case "saveSnapshot": return qsTr("Snapshot");
        case "addMember": return qsTr("Add a member");
        case "removeMember": return qsTr("Remove the member");
        case "promoteMember": return qsTr("Promote the member");
        case "updateMember": return qsTr("Change the peer URLs");
        }
        return qsTr("Check consistency");
    }
    // Opens the confirmation for action, saying what it will do; member: the card's, if any.
    function ask(action, member) {
        let title = "", message = "", confirm = "";
        switch (action) {
        case "disarmAlarms":
            title = qsTr("Disarm %n alarm(s)?", "", page.members.alarms.length);
            confirm = qsTr("Disarm");
            message = qsTr("Raised: %1. While an alarm is raised etcd refuses writes (NOSPACE) or everything but reads (CORRUPT).").arg(page.members.alarms.join(", "))
                    + "\n\n" + qsTr("A NOSPACE alarm comes back at the next write unless space was freed first: compact, then defragment every member.");
            break;
        case "defragmentAll":
            title = qsTr("Defragment every member?");
            confirm = qsTr("Defragment");
            message = qsTr("The %n member(s) are defragmented one at a time, the leader last. A member serves nothing while it defragments; on a large database that takes a while.", "", page.members.count);
            break;
        case "defragment":
            title = qsTr("Defragment %1?").arg(member.name);
            confirm = qsTr("Defragment");
            message = qsTr("%1 serves nothing while it defragments (%2 on disk, %3 in use).").arg(member.name).arg(Format.bytes(member.dbSize)).arg(Format.bytes(member.dbSizeInUse))
                    + (member.isLeader ? "\n\n" + qsTr("It leads: every write waits until it is done. Move the leadership first to avoid that.") : "");
            break;
        case "removeMember":
            title = qsTr("Remove %1 from the cluster?").arg(member.name || member.memberId);
            confirm = qsTr("Remove");
            message = page.members.planMemberRemove(member.memberId);
            break;
        case "promoteMember":
            title = qsTr("Promote %1 to a voting member?").arg(member.name || member.memberId);
            confirm = qsTr("Promote");
            message = page.members.planMemberPromote(member.memberId)
                    + "\n\n" + qsTr("etcd refuses it until the learner has caught up with the leader's log.");
            break;
        case "moveLeader":
            title = qsTr("Make %1 the leader?").arg(member.name);
            confirm = qsTr("Move");
            message = qsTr("The leadership moves from %1 to %2 (%3). Writes pause while the new leader takes over.").arg(page.members.leaderName).arg(member.name).arg(member.memberId);
            break;
        }
        confirmAction.title = title;
        confirmAction.confirmText = confirm;
        confirmAction.message = message;
        confirmAction.destructive = action !== "promoteMember";
        confirmAction.run = action === "defragment" ? () => actions.defragment(member.clientUrls)
                          : member ? () => actions[action](member.memberId)
                          : () => actions[action]();
        confirmAction.open();
    }
    // Opens the dialog that adds a member (member null) or gives one new peer URLs.
    function editMember(action, member) {
        memberDialog.member = member;
        memberDialog.action = action;
        nameField.text = "";
        learnerBox.checked = true;
        peerUrlsField.text = member ? member.peerUrls.join(",") : "";
        memberDialog.open();
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.padding

        Repeater {
            model: page.members.alarms
            delegate: Banner {
                required property string modelData
                required property int index
                Layout.fillWidth: true
                text: qsTr("Alarm: %1 — the cluster refuses writes until it is disarmed").arg(modelData)
                WriteButton {
                    objectName: "disarm"
                    visible: index === 0
                    text: qsTr("Disarm…")
                    readOnly: page.readOnly
                    blockedReason: page.actionRunning
                    toolTip: qsTr("Disarm the alarms (asks first)")
                    onClicked: page.ask("disarmAlarms", null)
                }
            }
        }
        Banner {
            objectName: "maintenance"
            Layout.fillWidth: true
            text: actions.running !== "" ? qsTr("%1…").arg(actions.running.charAt(0).toUpperCase() + actions.running.slice(1)) : page.outcome
            bad: actions.running === "" && page.outcomeBad
            good: actions.running === "" && !page.outcomeBad
            dismissable: actions.running === ""
            onDismissed: { page.outcome = ""; page.startFlags = "" }
            // A snapshot on its way: how far, and the way to stop it.
            ProgressBar {
                objectName: "snapshotProgress"
                visible: actions.running !== "" && actions.snapshotTotal > 0
                from: 0
                to: Math.max(1, actions.snapshotTotal)
                value: actions.snapshotBytes
                Layout.preferredWidth: 160
            }
            Label {
                visible: actions.running !== "" && actions.snapshotTotal > 0
                text: qsTr("%1 of %2").arg(Format.bytes(actions.snapshotBytes)).arg(Format.bytes(actions.snapshotTotal))
                color: Theme.text
                textFormat: Text.PlainText
            }
            Button {
                objectName: "copyStartFlags"
                visible: actions.running === "" && page.startFlags.length > 0
                text: qsTr("Copy start flags")
                ToolTip.visible: hovered
                ToolTip.delay: 400
                ToolTip.text: qsTr("Copy the flags to start the new member's etcd with")
                onClicked: Clipboard.setText(page.startFlags)
            }
            Button {
                objectName: "cancelSnapshot"
                visible: actions.running.indexOf(qsTr("saving a snapshot")) === 0
                text: qsTr("Cancel")
                onClicked: actions.cancelSnapshot()
            }
        }

        GridView {
            id: grid
            visible: page.members.count > 0
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: page.members
            cellWidth: Math.max(340, width / Math.max(1, Math.floor(width / 340)))
            // Room for the maintenance row, and the sandbox's row of member actions.
            cellHeight: page.sandbox ? 360 : 296
            ScrollBar.vertical: ScrollBar {}

            delegate: Item {
                id: cell
                required property string memberId
                required property string name
                required property var clientUrls
                required property var peerUrls
                required property bool isLeader
                required property bool isLearner
                required property bool healthy
                required property var roundTrip
                required property var raftTerm
                required property var raftIndex
                required property var dbSize
                required property var dbSizeInUse
                required property string version
                required property string error
                // Added to the cluster, but no etcd has started as it yet: no name, no client URL.
                readonly property bool unstarted: name === "" && clientUrls.length === 0
                width: grid.cellWidth
                height: grid.cellHeight

                Card {
                    // The cell's spare width is the gap to the next card.
                    width: parent.width - Theme.padding
                    title: cell.name || qsTr("(no name yet)")
                    accentColor: cell.unstarted ? Theme.warning : !cell.healthy ? Theme.bad : cell.isLeader ? Theme.accent : Theme.border
                    badge: [
                        StatePill {
                            visible: cell.isLeader
                            text: qsTr("LEADER")
                            foreground: Theme.info
                            background: Theme.infoSoft
                        },
                        StatePill {
                            visible: cell.isLearner
                            text: qsTr("LEARNER")
                        },
                        StatePill {
                            visible: cell.unstarted
                            text: qsTr("NOT STARTED")
                            foreground: Theme.warning
                            background: Theme.warningSoft
                        },
                        StatePill {
                            visible: !cell.unstarted
                            text: cell.healthy ? qsTr("Healthy · %1 ms").arg(cell.roundTrip) : qsTr("No answer")
                            foreground: cell.healthy ? Theme.good : Theme.bad
                            background: cell.healthy ? Theme.goodSoft : Theme.badSoft
                        }
                    ]
                    Field { label: qsTr("ID"); value: cell.memberId; mono: true }
                    Field { label: qsTr("Client URLs"); value: cell.clientUrls.join(", ") || "—"; mono: true }
                    Field { label: qsTr("Peer URLs"); value: cell.peerUrls.join(", "); mono: true }
                    Field { label: qsTr("Raft term"); value: cell.healthy ? Format.count(cell.raftTerm) : "—"; mono: true }
                    Field { label: qsTr("Raft index"); value: cell.healthy ? Format.count(cell.raftIndex) : "—"; mono: true }
                    Field {
                        label: qsTr("Database")
                        value: cell.healthy ? qsTr("%1 (%2 in use)").arg(Format.bytes(cell.dbSize)).arg(Format.bytes(cell.dbSizeInUse)) : "—"
                    }
                    Field { label: qsTr("Version"); value: cell.version || "—" }
                    Label {
                        visible: cell.error.length > 0
                        text: cell.error
                        textFormat: Text.PlainText
                        color: Theme.bad
                        font.pixelSize: Theme.smallFont
                        wrapMode: Text.WordWrap
                        maximumLineCount: 2
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                    RowLayout {
                        spacing: Theme.spacing
                        Layout.alignment: Qt.AlignRight
                        WriteButton {
                            objectName: "makeLeader"
                            visible: !cell.isLeader && !cell.isLearner && cell.healthy
                            text: qsTr("Make leader…")
                            flat: true
                            readOnly: page.readOnly
                            blockedReason: actions.running
                            toolTip: qsTr("Hand the leadership to this member (asks first)")
                            onClicked: page.ask("moveLeader", cell)
                        }
                        WriteButton {
                            objectName: "defragment"
                            visible: cell.healthy
                            text: qsTr("Defragment…")
                            flat: true
                            readOnly: page.readOnly
                            blockedReason: actions.running
                            toolTip: qsTr("Give this member's freed space back to the file system (asks first)")
                            onClicked: page.ask("defragment", cell)
                        }
                        WriteButton {
                            id: membershipButton
                            objectName: "membership"
                            text: qsTr("Member ▾")
                            flat: true
                            readOnly: page.readOnly
                            blockedReason: actions.running
                            toolTip: qsTr("Promote, move or remove this member (each asks first)")
                            onClicked: membershipMenu.open()
                            Menu {
                                id: membershipMenu
                                objectName: "membershipMenu"
                                y: membershipButton.height
                                MenuItem {
                                    objectName: "promoteMember"
                                    visible: cell.isLearner
                                    height: visible ? implicitHeight : 0
                                    text: qsTr("Promote to a voting member…")
                                    onTriggered: page.ask("promoteMember", cell)
                                }
                                MenuItem {
                                    objectName: "updateMember"
                                    text: qsTr("Change peer URLs…")
                                    onTriggered: page.editMember("updateMember", cell)
                                }
                                MenuItem {
                                    objectName: "removeMember"
                                    text: qsTr("Remove from the cluster…")
                                    onTriggered: page.ask("removeMember", cell)
                                }
                            }
                        }
                    }
                    // Of the sandbox's members, the one this card shows.
                    Repeater {
                        model: page.sandbox ? page.sandbox.members : null
                        delegate: Loader {
                            id: sandboxMember
                            required property var model
                            required property int index
                            active: cell.clientUrls.indexOf(model.clientUrl) >= 0
                            visible: active
                            Layout.fillWidth: true
                            sourceComponent: SandboxMemberBar {
                                sandbox: page.sandbox
                                model: sandboxMember.model
                                index: sandboxMember.index
                            }
                        }
                    }
                }
            }
        }

        EmptyState {
            visible: page.members.count === 0
            Layout.alignment: Qt.AlignCenter
            Layout.fillHeight: true
            busy: page.members.status === ModelStatus.Loading || page.members.status === ModelStatus.Null
            error: page.members.status === ModelStatus.Error
            title: page.members.status === ModelStatus.Error ? qsTr("The member list could not be read") : qsTr("Asking the cluster for its members…")
            detail: page.members.status === ModelStatus.Error
                    ? qsTr("%1\nCheck the endpoint, the CA file and the user in the connection flags.").arg(page.members.errorString)
                    : ""
        }
    }
}
