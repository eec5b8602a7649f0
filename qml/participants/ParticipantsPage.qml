// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// The console taking part: named participants, each with a client of its own (behind a fault
// link of its own in a sandbox), each able to lock, campaign, set and wait at barriers,
// register, count and queue at once. Everything they do goes to eventLog under their names,
// and what etcd does with their keys goes there too, as the console's own client sees it.
//
// Scripts and tests drive it through addParticipant(name), participant(name) and
// removeParticipant(name); a participant exposes its client and its recipes (mutex,
// readWriteLock, semaphore, election, observer, barrier, countedBarrier, doubleBarrier,
// service, transientKey, counter, queue), see ConsoleParticipant.
ConsolePage {
    id: page
    // The console's own client: etcd's side of the participants' story is read through it.
    property var client: null
    property EventLogModel eventLog: null
    property bool readOnly: false
    // The window's sandbox, when there is one.
    property var sandbox: null
    // Where participants connect outside a sandbox (Connection.participantOptions()), asked at
    // each addition and each move, so that they follow the window's current connection.
    property var participantOptions: () => ({})
    readonly property bool sandboxRunning: sandbox !== undefined && sandbox !== null && sandbox.state === Sandbox.Running
    readonly property int participantCount: roster.count
    // Why the last addition was refused; empty when it was not.
    property string addError
    // A participant's recipe with a lease started, for the timeline to draw that lease.
    signal leaseStarted(string participant, QtObject recipe)

    title: qsTr("Participants")
    subtitle: roster.count > 0 ? qsTr("%n participant(s), each with a client of its own", "", roster.count) : ""
    ready: notConnected().length === 0
    notReadyReason: qsTr("participant(s) %1 did not reach the cluster").arg(notConnected().join(", "))
    summary: ({
        participants: roster.count,
        holding: inState(Participant.Active),
        waiting: inState(Participant.Pending),
        lost: inState(Participant.Lost)
    })

    tools: [
        Label { text: qsTr("Name"); color: Theme.mutedText },
        TextField {
            id: nameField
            objectName: "nameField"
            Accessible.name: qsTr("Name of the next participant")
            text: page.nextFreeName()
            selectByMouse: true
            Layout.preferredWidth: 140
            onAccepted: page.addParticipant(text)
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("What the participant is called in its events and on the timeline")
        },
        Button {
            objectName: "addButton"
            text: qsTr("Add participant")
            highlighted: roster.count === 0
            onClicked: page.addParticipant(nameField.text)
        }
    ]

    function participants() {
        const all = [];
        for (let row = 0; row < roster.count; ++row)
            all.push(roster.get(row).participant);
        return all;
    }
    function participant(name) {
        return participants().find(candidate => candidate.name === name) || null;
    }
    function nextFreeName() {
        const taken = participants().map(candidate => candidate.name);
        for (let round = 1; ; ++round) {
            for (let letter = 0; letter < 26; ++letter) {
                const name = String.fromCharCode(65 + letter) + (round > 1 ? round : "");
                if (taken.indexOf(name) < 0)
                    return name;
            }
        }
    }
    // Participants follow the cluster the window looks at, so that none is left talking to a
    // cluster the window has left: while the sandbox runs, each reaches it through a fault link
    // of its own (sandbox.createLink(name)), whether it was added before the sandbox started or
    // after; otherwise it connects as the window's connection does. When the sandbox starts or
    // stops, or the window opens another connection, every participant moves
    // (ConsoleParticipant.reach()): its busy recipes are closed on the cluster it leaves, and its
    // card says so.
    function followWindow() {
        for (const member of participants())
            member.reach(linkFor(member.name), participantOptions());
    }
    function linkFor(name) {
        return sandboxRunning ? sandbox.createLink(name) : null;
    }
    // The window reopens its connection while the sandbox's state changes: one move after both.
    onSandboxRunningChanged: Qt.callLater(followWindow)
    onClientChanged: Qt.callLater(followWindow)

    // The new participant, or null (addError says why).
    function addParticipant(name) {
        name = String(name || "").trim();
        addError = name.length === 0 ? qsTr("A participant needs a name.")
                 : participant(name) ? qsTr("There is a participant named %1 already: choose another name.").arg(name)
                 : "";
        if (addError.length > 0)
            return null;
        const added = participantComponent.createObject(page, { name: name, link: linkFor(name), options: participantOptions() });
        roster.append({ participant: added });
        list.positionViewAtEnd();
        return added;
    }
    // False when there is no such participant.
    function removeParticipant(name) {
        for (let row = 0; row < roster.count; ++row) {
            const leaving = roster.get(row).participant;
            if (leaving.name === name) {
                roster.remove(row);
                leaving.retire();
                return true;
            }
        }
        return false;
    }
    function notConnected() {
        return participants().filter(candidate => !candidate.reachable).map(candidate => candidate.name);
    }
    // "A: mutex /locks/a" for each recipe whose hold, permit, leadership or presence is lost.
    function lostRecipes() {
        const lost = [];
        for (const member of participants()) {
            for (const entry of member.recipes.filter(entry => entry.recipe.state === Participant.Lost))
                lost.push(qsTr("%1: %2 %3").arg(member.name).arg(entry.title).arg(entry.recipe.path));
        }
        return lost;
    }
    function inState(state) {
        let count = 0;
        for (const member of participants())
            count += member.recipes.filter(entry => entry.recipe.state === state).length;
        return count;
    }

    ListModel { id: roster }  // { participant: a ConsoleParticipant }, in the order they were added
    Component {
        id: participantComponent
        ConsoleParticipant {
            eventLog: page.eventLog
            readOnly: page.readOnly
            paused: page.paused
            advise: page.advise
            onRecipeStarted: path => page.recordEtcdSide(path)
            onLeaseStarted: recipe => page.leaseStarted(name, recipe)
        }
    }

    // etcd's own side of the participants' story, through the console's unpartitioned client:
    // one KeyEventRecorder per path a participant's recipe has started on. A path inside one
    // already watched is not watched again, and a wider one replaces those inside it, so no
    // etcd event is logged twice when participants share a path. The watches last as long as
    // the page: a removed or cut-off participant's keys are deleted by etcd after it is gone,
    // and that moment is what the timeline needs.
    ListModel { id: watchedPaths }  // { path }
    readonly property alias watchedPathCount: watchedPaths.count
    Instantiator {
        model: watchedPaths
        delegate: KeyEventRecorder {
            required property string path
            client: page.client
            prefix: path
            eventLog: page.eventLog
        }
    }
    function recordEtcdSide(path) {
        for (let row = 0; row < watchedPaths.count; ++row) {
            if (path.startsWith(watchedPaths.get(row).path))
                return;
        }
        // The wider watch starts before the narrower ones go: an event may be logged twice in
        // between, rather than lost.
        watchedPaths.append({ path: path });
        for (let row = watchedPaths.count - 2; row >= 0; --row) {
            if (watchedPaths.get(row).path.startsWith(path))
                watchedPaths.remove(row);
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacing

        Banner {
            objectName: "readOnlyNote"
            text: page.readOnly ? qsTr("This connection is read-only, and participants write to etcd: their locks, campaigns, barriers, "
                                       + "registrations, counters and queues are off. An observer can still follow an election. "
                                       + "Connect with a profile that may write to take part.")
                                : ""
            bad: false
            Layout.fillWidth: true
        }
        Banner {
            objectName: "addError"
            text: page.addError
            dismissable: true
            onDismissed: page.addError = ""
            Layout.fillWidth: true
        }

        ListView {
            id: list
            objectName: "participantList"
            visible: roster.count > 0
            orientation: ListView.Horizontal
            spacing: Theme.padding
            clip: true
            model: roster
            boundsBehavior: Flickable.StopAtBounds
            // As many cards of at least 330 px as fit side by side: three at 1280 px.
            readonly property int columns: Math.max(1, Math.floor((width + spacing) / (330 + spacing)))
            readonly property real cardWidth: (width - (columns - 1) * spacing) / columns
            Layout.fillWidth: true
            Layout.fillHeight: true
            ScrollBar.horizontal: ScrollBar { policy: ScrollBar.AsNeeded }

            delegate: ParticipantPanel {
                width: list.cardWidth
                height: list.height - 12  // room for the scroll bar
                onRemoveRequested: {
                    confirmRemove.name = participant.name;
                    confirmRemove.open();
                }
            }
        }
    }

    ConfirmDialog {
        id: confirmRemove
        objectName: "confirmRemoveParticipant"
        property string name
        title: qsTr("Remove the participant?")
        confirmText: qsTr("Remove")
        destructive: true
        message: qsTr("%1 gives back everything it holds — its locks, permits and leadership, its barrier keys and registrations — and closes its connection. Whoever waits next gets what it held.").arg(name)
        onConfirmed: page.removeParticipant(name)
    }
    EmptyState {
        anchors.centerIn: parent
        visible: roster.count === 0
        title: qsTr("No participants yet")
        detail: qsTr("A participant is the console taking part, with a client of its own: it can hold a lock, campaign in an "
                     + "election, set or wait at a barrier, register a service, count and queue, all at once. Add two and let "
                     + "them contend; in a sandbox, cut one off and watch the timeline.")
        Button {
            objectName: "addFirst"
            text: qsTr("Add participant %1").arg(nameField.text)
            highlighted: true
            onClicked: page.addParticipant(nameField.text)
            Layout.alignment: Qt.AlignHCenter
        }
    }
}
