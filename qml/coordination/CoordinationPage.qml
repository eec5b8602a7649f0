// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Locks, elections, barriers, semaphores, services, queues and counters, recognised from etcd's
// contents alone — whether qetcd, etcdctl, Go's concurrency package or etcd-recipes wrote them.
ConsolePage {
    id: page
    property alias client: objects.client
    // A holder's, waiter's or member's name was clicked: show \a key, read under the object's
    // \a path if the Keys page's prefix does not cover it.
    signal keyChosen(string key, string path)
    heldChanges: shown.heldChanges
    readonly property alias model: objects
    property double now: Date.now()
    property bool readOnly: false
    property alias eventLog: actions.eventLog
    // Typed before an intervention on a cluster that is not on this machine (its profile name);
    // empty on this machine.
    property string confirmationWord
    // The last intervention etcd or the client refused, in words that name what was not done.
    property string actionError
    // Where a client the console opens connects (Connection.participantOptions()), asked when
    // the operator sets a barrier.
    property var participantOptions: () => ({})
    // The barriers the operator set from this page and the console still owns, by path.
    property var ownBarriers: ({})
    // The revision the objects are shown as of (0: live), picked on the Timeline's History.
    property alias asOfRevision: objects.asOfRevision
    // Puts the as-of revision on the clock where the console sampled it (Main's RevisionClock).
    property RevisionClock revisionClock: null
    readonly property bool viewingPast: objects.asOfRevision > 0
    // The banner's "Back to live".
    signal backToLive()

    title: qsTr("Coordination")
    subtitle: objects.status !== ModelStatus.Ready ? ""
            : viewingPast ? qsTr("%n object(s) under %1 at revision %2", "", objects.count).arg(objects.prefix || "/").arg(objects.asOfRevision)
            : qsTr("%n object(s) under %1", "", objects.count).arg(objects.prefix || "/")
    // The rings wait for the leases: a screenshot shows them. The past has none to show.
    // ... and for the rows measured again after a card grew.
    ready: objects.status === ModelStatus.Error
           || (objects.status === ModelStatus.Ready && !cardGrid.relayoutPending
               && (viewingPast || leaseTimes.status === ModelStatus.Ready || leaseTimes.status === ModelStatus.Error))
    notReadyReason: qsTr("the coordination objects have not been read")
    summary: ({ objects: objects.count, prefix: objects.prefix, asOfRevision: objects.asOfRevision })

    tools: [
        Label { text: qsTr("Prefix"); color: Theme.mutedText },
        TextField {
            id: prefixField
            Accessible.name: qsTr("Prefix")
            placeholderText: "/"
            font.family: Theme.monoFamily
            Layout.preferredWidth: 240
            selectByMouse: true
            onAccepted: objects.prefix = text
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Show only objects under this prefix; Enter applies it")
        },
        WriteButton {
            objectName: "setBarrier"
            text: qsTr("Set barrier…")
            toolTip: qsTr("Set a barrier that this console owns until you lift it (asks first)")
            readOnly: page.readOnly
            blockedReason: page.viewingPast ? qsTr("Showing revision %1: go back to live to act on the cluster").arg(objects.asOfRevision) : ""
            onClicked: page.askToSetBarrier()
        }
    ]

    Component { id: operatorBarrier; OperatorBarrier {} }
    RegularExpressionValidator { id: counterValue; regularExpression: /-?[0-9]{1,19}/ }
    RegularExpressionValidator { id: barrierKey; regularExpression: /\S(.*\S)?/ }
    function askToSetBarrier() {
        confirmIntervention.title = qsTr("Set a barrier?");
        confirmIntervention.confirmText = qsTr("Set");
        confirmIntervention.inputLabel = qsTr("Barrier key");
        confirmIntervention.inputValidator = barrierKey;
        confirmIntervention.message = qsTr("The console sets a barrier at this key and owns it: every process that waits at it blocks until it is lifted.")
                + "\n\n" + qsTr("Its lease is kept alive while the console runs, and healed if it expires. Lift it from its card; it also comes down when the console closes.");
        confirmIntervention.run = () => setBarrier(confirmIntervention.inputText);
        confirmIntervention.open();
    }
    function setBarrier(path) {
        if (ownBarriers[path]) {
            actionError = qsTr("This console has set %1 already.").arg(path);
            return;
        }
        const owned = operatorBarrier.createObject(page, { path: path, options: participantOptions(), readOnly: readOnly, eventLog: eventLog });
        const next = Object.assign({}, ownBarriers);
        next[path] = owned;
        ownBarriers = next;
        owned.ended.connect(refusal => {
            if (refusal !== "")
                page.actionError = qsTr("The barrier %1 was not set: %2").arg(path).arg(refusal);
            const left = Object.assign({}, page.ownBarriers);
            delete left[path];
            page.ownBarriers = left;
            owned.destroy();
        });
        owned.set();
    }

    CoordinationActions {
        id: actions
        objectName: "coordinationActions"
        client: objects.client
        onFinished: (action, path, status, outcome) => {
            page.actionError = status.isOk ? "" : qsTr("Nothing was written to %1: %2").arg(path).arg(page.advise(status));
            if (page.peekKinds[path] && page.queueActions.indexOf(action) >= 0)
                page.peekAgain(path, page.peekKinds[path]);  // the lists as they are now
        }
        onPeeked: (path, items, status) => {
            if (!status.isOk)
                page.actionError = qsTr("The items of %1 were not read: %2").arg(path).arg(page.advise(status));
            const next = Object.assign({}, page.peeks);
            next[path] = items;
            page.peeks = next;
        }
        onDeadLettersPeeked: (path, letters, status) => {
            if (!status.isOk)
                page.actionError = qsTr("The dead letters of %1 were not read: %2").arg(path).arg(page.advise(status));
            const next = Object.assign({}, page.deadLetterPeeks);
            next[path] = letters.map(letter => Object.assign({ detail: qsTr("delivered %n time(s)", "", letter.attempts) }, letter));
            page.deadLetterPeeks = next;
        }
    }
    // A queue's first items by path, once peeked, and the kind each was peeked as.
    property var peeks: ({})
    property var peekKinds: ({})
    // A work queue's first dead letters by path, once peeked.
    property var deadLetterPeeks: ({})
    readonly property int peekCount: 5
    // The interventions after which a queue's peeked lists are read again.
    readonly property var queueActions: ["removeQueueItem", "requeueDeadLetter", "requeueDeadLetters", "purgeDeadLetters", "requeueOrphans"]
    function peek(card) {
        // A peek reads the items etcd holds now, which are not those of the past shown.
        if (viewingPast) {
            actionError = qsTr("The items of %1 are read as they are now, not as of revision %2: go back to live to peek.").arg(card.name).arg(objects.asOfRevision);
            return;
        }
        const kinds = Object.assign({}, peekKinds);
        kinds[card.name] = card.kind;
        peekKinds = kinds;
        peekAgain(card.name, card.kind);
    }
    function peekAgain(path, kind) {
        actions.peek(path, kind, peekCount);
        if (kind === "workQueue")
            actions.peekDeadLetters(path, peekCount);
    }
    ConfirmDialog {
        id: confirmIntervention
        objectName: "confirmIntervention"
        property var run: () => {}
        destructive: true
        typedConfirmation: page.confirmationWord
        onConfirmed: run()
    }

    // Who an entry is, as a sentence names it: its name and, when known, where it runs.
    function who(entry) {
        const name = DisplayText.escape(entry.clientId || entry.name || entry.key);
        return entry.host ? qsTr("%1 on %2 (pid %3)").arg(name).arg(DisplayText.escape(entry.host)).arg(entry.pid) : name;
    }
    // Opens the confirmation for an intervention of a card, saying what it will do and to whom.
    function intervene(card, action, entry) {
        const path = DisplayText.escape(card.name);
        const next = card.waiters.length > 0 ? who(card.waiters[0]) : qsTr("nobody");
        const lease = entry && entry.lease ? qsTr("lease %1").arg(entry.lease) : qsTr("no lease");
        const revokeOrDelete = qsTr("Its lease is revoked if it carries this key alone, so that any holder learns of the loss at its next renewal; otherwise only its key is deleted.");
        let title = "", message = "", confirm = "";
        switch (action) {
        case "breakHold":
            title = qsTr("Break the hold on %1?").arg(path);
            confirm = qsTr("Break hold");
            message = qsTr("%1 holds it with fencing token %2 (%3).").arg(who(entry)).arg(entry.createRevision).arg(lease)
                    + "\n\n" + revokeOrDelete
                    + "\n\n" + qsTr("The holder may still act until it learns of the loss. Writes fenced by token %1 are refused from now on.").arg(entry.createRevision)
                    + "\n\n" + qsTr("Next in line: %1.").arg(next);
            break;
        case "forceReelection":
            title = qsTr("Force a re-election of %1?").arg(path);
            confirm = qsTr("End term");
            message = qsTr("%1 leads with term %2 (%3).").arg(who(entry)).arg(entry.createRevision).arg(lease)
                    + "\n\n" + revokeOrDelete
                    + "\n\n" + qsTr("The leader may still act until it learns of the loss.")
                    + "\n\n" + qsTr("Next in line: %1.").arg(next);
            break;
        case "liftBarrier":
            title = qsTr("Lift the barrier %1?").arg(path);
            confirm = qsTr("Lift");
            if (ownBarriers[card.name] && ownBarriers[card.name].leaseId === entry.lease) {
                message = qsTr("This console set it (%1). Its key is deleted, and every process waiting at it goes on.").arg(lease);
                break;
            }
            message = qsTr("%1 set it (%2). Its key is deleted, and every process waiting at it goes on.").arg(who(entry)).arg(lease)
                    + "\n\n" + qsTr("An owner whose lease is still alive may set it again; a qetcd owner is told it was lifted by someone else, and does not.");
            break;
        case "releaseRound":
            title = qsTr("Release the round of %1?").arg(path);
            confirm = qsTr("Release");
            message = qsTr("%n member(s) arrived in the open round. They all go on now, without the full count.", "", card.members.length);
            break;
        case "removeQueueItem":
            title = qsTr("Delete an item of %1?").arg(path);
            confirm = qsTr("Delete");
            message = qsTr("The item %1 (%2 bytes: %3) is deleted: nobody will receive it.").arg(DisplayText.escape(entry.key)).arg(entry.size).arg(entry.value)
                    + (card.kind === "workQueue" ? "\n\n" + qsTr("Its delivery count goes with it.") : "");
            break;
        case "requeueDeadLetter":
            title = qsTr("Requeue a dead letter of %1?").arg(path);
            confirm = qsTr("Requeue");
            message = qsTr("The dead letter %1 (%2 bytes: %3), delivered %n time(s), goes back to be delivered again with a fresh delivery count.", "", entry.attempts)
                          .arg(DisplayText.escape(entry.key)).arg(entry.size).arg(entry.value);
            break;
        case "removeEntry":
            if (card.kind === "service") {
                title = qsTr("Deregister an instance of %1?").arg(path);
                confirm = qsTr("Deregister");
                message = qsTr("The key of %1 is deleted. qetcd's registry honours that and does not register it again; other tools may.").arg(who(entry));
            } else {
                title = card.kind === "election" ? qsTr("Withdraw a candidate from %1?").arg(path) : qsTr("Remove a waiter from %1?").arg(path);
                confirm = qsTr("Remove");
                message = qsTr("The key of %1 is deleted: its wait ends with an error, and the others keep their places.").arg(who(entry));
            }
            break;
        }
        let input = "";
        switch (action) {
        case "requeueOrphans":
            title = qsTr("Requeue the orphaned claims of %1?").arg(path);
            confirm = qsTr("Requeue");
            message = qsTr("%n claim(s) lost their consumer (its lease is gone). They are delivered again now, as the consumers' next sweep would do, each keeping its delivery count: an item at its limit goes to the dead letters instead.", "", card.orphans);
            break;
        case "requeueDeadLetters":
            title = qsTr("Requeue the dead letters of %1?").arg(path);
            confirm = qsTr("Requeue");
            message = qsTr("%n dead letter(s) go back to be delivered again, each with a fresh delivery count.", "", card.deadLetters);
            break;
        case "purgeDeadLetters":
            title = qsTr("Purge the dead letters of %1?").arg(path);
            confirm = qsTr("Purge");
            message = qsTr("%n dead letter(s) are deleted for good, with their delivery counts: nobody will receive them.", "", card.deadLetters);
            break;
        case "setCounter":
            title = qsTr("Set the counter %1?").arg(path);
            confirm = qsTr("Set");
            input = qsTr("New value");
            message = qsTr("It holds %1 now. The new value is written by compare-and-set against %1: if another client changes it first, nothing is written.").arg(card.value);
            break;
        }
        confirmIntervention.inputLabel = input;
        confirmIntervention.inputValidator = counterValue;
        confirmIntervention.title = title;
        confirmIntervention.confirmText = confirm;
        confirmIntervention.message = message;
        const shownValue = String(card.value);
        const kind = card.kind;
        confirmIntervention.run = action === "setCounter" ? () => actions.setCounter(card.name, shownValue, confirmIntervention.inputText)
                                : action === "removeQueueItem" ? () => actions.removeQueueItem(card.name, kind, entry)
                                : action === "liftBarrier" && ownBarriers[card.name] && ownBarriers[card.name].leaseId === entry.lease ? () => ownBarriers[card.name].lift()
                                : entry === null ? () => actions[action](card.name)
                                : () => actions[action](card.name, entry);
        confirmIntervention.open();
    }

    // Hidden, the page mirrors nothing: the mirror holds every key under the prefix.
    CoordinationModel { id: objects; active: page.visible }
    // What the cards show: the objects, or while paused the objects as they were.
    PauseProxyModel {
        id: shown
        source: objects
        paused: page.paused
    }
    // The holders' leases, for their rings: read again every two seconds while the page shows,
    // and counted down in between on the page's clock.
    property var deadlines: ({})
    LeaseModel {
        id: leaseTimes
        client: objects.client
        active: page.visible
        refreshInterval: page.paused ? 0 : 2000
        onRefreshed: page.deadlines = leaseTimes.deadlines()
    }
    Timer {
        interval: 250
        repeat: true
        running: !page.paused && page.visible
        onTriggered: page.now = Date.now()
    }

    Column {
        id: banners
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        spacing: Theme.spacing
        z: 1
        // The past has nobody to act on: every intervention waits for the way back.
        Banner {
            objectName: "asOfBanner"
            width: parent.width
            bad: false
            text: page.viewingPast ? qsTr("As of revision %1%2 — the objects as they were then. Nothing can be changed in the past.").arg(objects.asOfRevision).arg(Format.revisionTime(page.revisionClock, objects.asOfRevision)) : ""
            Button {
                objectName: "backToLive"
                text: qsTr("Back to live")
                onClicked: page.backToLive()
            }
        }
        Banner {
            id: errorBanner
            objectName: "actionError"
            width: parent.width
            text: page.actionError
            dismissable: true
            onDismissed: page.actionError = ""
        }
    }
    // Cards side by side, made only while in sight and reused as they scroll by: ten thousand
    // objects cost what the few shown cost. A row is as tall as its taller card.
    TableView {
        id: cardGrid
        objectName: "cards"
        anchors.fill: parent
        anchors.topMargin: banners.height > 0 ? banners.height + Theme.spacing : 0
        visible: shown.count > 0
        clip: true
        // Two columns on a desktop window, one on a narrow one.
        readonly property int columns: width >= 840 ? 2 : 1
        readonly property int count: shown.count
        // The card of the nth object, while it is in sight.
        function itemAt(index) {
            return itemAtCell(Qt.point(index % columns, Math.floor(index / columns)));
        }
        // The table measures a row when it lays it out: a card that grew asks for another, once
        // per turn of the event loop however many grew.
        property bool relayoutPending: false
        function relayout() {
            relayoutPending = false;
            forceLayout();
        }
        function relayoutSoon() {
            if (relayoutPending)
                return;
            relayoutPending = true;
            Qt.callLater(relayout);
        }
        columnSpacing: Theme.padding
        rowSpacing: Theme.padding
        columnWidthProvider: () => (width - (columns - 1) * columnSpacing) / columns
        onWidthChanged: relayoutSoon()
        ScrollBar.vertical: ScrollBar {}
        model: ListGridModel {
            source: shown
            columns: cardGrid.columns
        }
        delegate: CoordinationCard {
            id: card
            required property bool cellFilled
            visible: cellFilled
            // How long someone had waited at a past revision is not its age now: no ages there.
            now: page.viewingPast ? -1 : page.now
            deadlines: page.viewingPast ? ({}) : page.deadlines
            readOnly: page.readOnly || page.viewingPast
            peekedItems: page.peeks[card.name] || []
            peekedDeadLetters: page.deadLetterPeeks[card.name] || []
            ownLease: page.ownBarriers[card.name] ? page.ownBarriers[card.name].leaseId : ""
            onIntervene: (action, entry) => page.intervene(card, action, entry)
            onPeekRequested: page.peek(card)
            onEntryOpened: entry => page.keyChosen(entry.key, card.name)
            onImplicitHeightChanged: cardGrid.relayoutSoon()
        }
    }

    EmptyState {
        anchors.centerIn: parent
        visible: shown.count === 0
        busy: objects.status === ModelStatus.Loading || objects.status === ModelStatus.Null
        error: objects.status === ModelStatus.Error
        title: objects.status === ModelStatus.Error ? (page.viewingPast ? qsTr("Revision %1 could not be read").arg(objects.asOfRevision) : qsTr("The coordination state could not be read"))
             : objects.status === ModelStatus.Ready ? (page.viewingPast ? qsTr("No locks, elections or barriers here at revision %1").arg(objects.asOfRevision) : qsTr("No locks, elections or barriers here"))
             : qsTr("Reading the coordination state…")
        detail: objects.status === ModelStatus.Error ? qsTr("%1\n%2").arg(objects.errorString).arg(page.errorHint)
              : objects.status === ModelStatus.Ready && page.viewingPast ? ""
              : objects.status === ModelStatus.Ready ? qsTr("Take a lock with `qetcd lock %1/demo` or `etcdctl lock`, and it appears here at once.").arg(objects.prefix || "")
              : ""
    }
}
