// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// One recognised coordination object. What a card shows depends on its kind: a lock's holder
// and queue, an election's leader and candidates, a barrier's state, a queue's depth.
Card {
    id: card
    required property string kind
    required property string name
    required property var holders
    required property var waiters
    required property var members
    required property var leaving  // a double barrier's members on their way out
    required property var permits
    required property var set
    required property var depth
    required property var delayed  // a work queue's items parked until a time to come
    required property var oldest
    required property var inFlight
    required property var deadLetters
    required property var orphans
    required property var value
    required property string rule  // the client convention that made this object, if one did
    // What happened to it lately, newest first (CoordinationModel's `recent`): any process's.
    required property var recent
    property double now: Date.now()
    property var deadlines: null  // LeaseModel.deadlines(): rings for the holders' leases
    property bool readOnly: false
    // A queue's first items, as the page last peeked them (CoordinationActions.peek()).
    property var peekedItems: []
    // A work queue's first dead letters, as the page last read them (peekDeadLetters()).
    property var peekedDeadLetters: []
    // The lease of the barrier at this path that this console set, in hex; empty when it set none.
    property string ownLease
    signal peekRequested()
    // An operator's intervention on one of the card's entries: the page asks, then acts.
    // action: breakHold, removeEntry, liftBarrier, forceReelection, releaseRound.
    signal intervene(string action, var entry)
    // An entry's name was clicked: its key is to be shown on the Keys page.
    signal entryOpened(var entry)

    readonly property bool isLockLike: kind === "lock" || kind === "readWriteLock" || kind === "semaphore"
    readonly property bool isBarrier: kind === "barrier" || kind === "countedBarrier" || kind === "doubleBarrier"

    title: name
    accentColor: kind === "election" ? Theme.info
               : isLockLike ? (holders.length > 0 ? Theme.warning : Theme.good)
               : isBarrier ? (set ? Theme.bad : Theme.good)
               : Theme.neutral
    badge: [
        StatePill {
            visible: card.kind === "semaphore" && card.permits > 0
            text: qsTr("%1 of %2 permits").arg(card.holders.length).arg(card.permits)
        },
        StatePill {
            visible: card.isLockLike && card.kind !== "semaphore"
            text: card.holders.length > 0 ? qsTr("HELD") : qsTr("FREE")
            foreground: card.holders.length > 0 ? Theme.warning : Theme.good
            background: card.holders.length > 0 ? Theme.warningSoft : Theme.goodSoft
        },
        StatePill {
            visible: card.kind === "barrier"
            text: card.set ? qsTr("SET") : qsTr("LIFTED")
            foreground: card.set ? Theme.bad : Theme.good
            background: card.set ? Theme.badSoft : Theme.goodSoft
        },
        StatePill {
            visible: card.kind === "countedBarrier"
            // etcd does not store how many members a round needs: say how many are in.
            text: qsTr("%n arrived", "", card.members.length)
            foreground: Theme.warning
            background: Theme.warningSoft
        }
    ]
    kindLabel: kindTitle(card.kind)

    function kindTitle(kind) {
        switch (kind) {
        case "lock": return qsTr("Lock");
        case "readWriteLock": return qsTr("Read/write lock");
        case "semaphore": return qsTr("Semaphore");
        case "election": return qsTr("Election");
        case "barrier": return qsTr("Barrier");
        case "countedBarrier": return qsTr("Counted barrier");
        case "doubleBarrier": return qsTr("Double barrier");
        case "service": return qsTr("Service");
        case "queue": return qsTr("Queue");
        case "priorityQueue": return qsTr("Priority queue");
        case "workQueue": return qsTr("Work queue");
        case "counter": return qsTr("Counter");
        case "postgresCluster": return qsTr("PostgreSQL cluster");
        }
        return kind;
    }

    // Only the parts of the card's kind are made: a card is made for the objects in sight and
    // reused for others, of any kind, as the page scrolls.
    component KindSection: Loader {
        property bool shows
        active: shows
        visible: shows
        Layout.fillWidth: true
    }

    Label {
        objectName: "rule"
        visible: card.rule !== ""
        text: qsTr("Recognised by rule: %1").arg(card.rule)
        textFormat: Text.PlainText
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        Layout.fillWidth: true
        elide: Text.ElideRight
    }
    KindSection {
        shows: card.isLockLike || card.kind === "election"
        sourceComponent: ColumnLayout {
            spacing: 4
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                visible: card.isLockLike
                heading: card.kind === "semaphore" ? qsTr("HOLDERS") : qsTr("HOLDER")
                model: card.holders
                showToken: true
                now: card.now
                deadlines: card.deadlines
                emptyText: qsTr("nobody")
                actionText: qsTr("Break hold")
                actionToolTip: qsTr("Take the hold away from this holder (asks first)")
                readOnly: card.readOnly
                onActionRequested: entry => card.intervene("breakHold", entry)
            }
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                visible: card.kind === "election"
                heading: qsTr("LEADER")
                model: card.holders
                showValue: true
                showToken: true
                tokenName: qsTr("term")
                now: card.now
                deadlines: card.deadlines
                emptyText: qsTr("no leader")
                actionText: qsTr("Force re-election")
                actionToolTip: qsTr("End this leader's term; the next in line leads (asks first)")
                readOnly: card.readOnly
                onActionRequested: entry => card.intervene("forceReelection", entry)
            }
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                visible: card.isLockLike || card.kind === "election"
                heading: card.kind === "election" ? qsTr("NEXT IN LINE") : qsTr("WAITING")
                model: card.waiters
                showValue: card.kind === "election"
                numbered: true
                now: card.now
                emptyText: qsTr("nobody")
                actionText: qsTr("Remove")
                actionToolTip: card.kind === "election" ? qsTr("Withdraw this candidate from the election (asks first)")
                                                        : qsTr("Take this waiter out of the queue (asks first)")
                readOnly: card.readOnly
                onActionRequested: entry => card.intervene("removeEntry", entry)
            }
        }
    }
    KindSection {
        shows: card.isBarrier || card.kind === "service"
        sourceComponent: ColumnLayout {
            spacing: 4
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                visible: card.kind === "barrier"
                heading: qsTr("OWNER")
                model: card.ownLease === "" ? card.holders
                                            : card.holders.map(owner => owner.lease === card.ownLease ? Object.assign({ detail: qsTr("set by this console") }, owner) : owner)
                now: card.now
                deadlines: card.deadlines
                actionText: qsTr("Lift")
                actionToolTip: qsTr("Delete the barrier's key: every waiter goes on (asks first)")
                readOnly: card.readOnly
                onActionRequested: entry => card.intervene("liftBarrier", entry)
            }
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                visible: card.kind === "countedBarrier" || card.kind === "doubleBarrier" || card.kind === "service"
                heading: card.kind === "service" ? qsTr("INSTANCES") : card.kind === "doubleBarrier" ? qsTr("ENTERED") : qsTr("MEMBERS")
                model: card.members
                now: card.now
                deadlines: card.deadlines
                emptyText: qsTr("none")
                actionText: card.kind === "service" ? qsTr("Deregister") : ""
                actionToolTip: qsTr("Delete this instance's key: qetcd's registry honours that and does not register it again (asks first)")
                readOnly: card.readOnly
                onActionRequested: entry => card.intervene("removeEntry", entry)
            }
            // A double barrier's leave side: who has done its work and waits for the others to finish.
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                objectName: "leavingMembers"
                visible: card.kind === "doubleBarrier"
                heading: qsTr("LEAVING")
                model: card.leaving
                now: card.now
                deadlines: card.deadlines
                emptyText: qsTr("none yet")
            }
            WriteButton {
                objectName: "releaseRound"
                visible: card.kind === "countedBarrier" && card.set && card.holders.length > 0
                text: qsTr("Release round")
                flat: true
                toolTip: qsTr("Let the members waiting in this round go on without the full count (asks first)")
                readOnly: card.readOnly
                Layout.alignment: Qt.AlignRight
                onClicked: card.intervene("releaseRound", card.holders[0])
            }
        }
    }
    // Patroni's cluster: facts of its layout only; Patroni itself decides failovers.
    KindSection {
        shows: card.kind === "postgresCluster"
        sourceComponent: ColumnLayout {
            spacing: 4
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                objectName: "clusterLeader"
                visible: card.kind === "postgresCluster"
                heading: qsTr("LEADER")
                model: card.holders
                now: card.now
                deadlines: card.deadlines
                emptyText: qsTr("no leader")
            }
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                objectName: "clusterMembers"
                visible: card.kind === "postgresCluster"
                heading: qsTr("MEMBERS")
                // Each member as its own JSON describes it: "pg-1 (replica, streaming)".
                model: card.kind !== "postgresCluster" ? [] : card.members.map(member => {
                    const says = [member.role, member.state].filter(text => text !== "").join(", ");
                    return Object.assign({}, member, { name: says === "" ? member.name : qsTr("%1 (%2)").arg(member.name).arg(says) });
                })
                now: card.now
                deadlines: card.deadlines
                emptyText: qsTr("none")
            }
        }
    }
    KindSection {
        shows: card.kind.indexOf("ueue") > 0
        sourceComponent: ColumnLayout {
            spacing: 4
            Field {
                visible: card.kind.indexOf("ueue") > 0
                label: qsTr("Depth")
                value: qsTr("%1 item(s)%2").arg(card.depth).arg(card.oldest > 0 ? qsTr(", oldest %1").arg(Format.duration(card.now - card.oldest)) : "")
            }
            Field {
                objectName: "delayedItems"
                visible: card.kind === "workQueue" && card.delayed > 0
                label: qsTr("Delayed")
                value: qsTr("%n item(s) to be delivered later", "", card.delayed)
            }
            Field {
                visible: card.kind.indexOf("ueue") > 0 && card.inFlight > 0
                label: qsTr("In flight")
                value: card.inFlight
            }
            Field {
                visible: card.kind.indexOf("ueue") > 0 && card.deadLetters > 0
                label: qsTr("Dead letters")
                value: card.deadLetters
                valueColor: Theme.bad
            }
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                visible: card.kind === "workQueue" && card.deadLetters > 0 && card.peekedDeadLetters.length > 0
                heading: qsTr("FIRST DEAD LETTERS")
                model: card.peekedDeadLetters
                numbered: true
                showValue: true
                now: card.now
                actionText: qsTr("Requeue")
                actionToolTip: qsTr("Deliver this dead letter again, with a fresh delivery count (asks first)")
                readOnly: card.readOnly
                onActionRequested: entry => card.intervene("requeueDeadLetter", entry)
            }
            EntryList {
                onOpened: entry => card.entryOpened(entry)
                visible: card.kind.indexOf("ueue") > 0 && card.peekedItems.length > 0
                heading: qsTr("FIRST ITEMS")
                model: card.peekedItems
                numbered: true
                showValue: true
                now: card.now
                actionText: qsTr("Delete")
                actionToolTip: qsTr("Take this item out of the queue unreceived (asks first)")
                readOnly: card.readOnly
                onActionRequested: entry => card.intervene("removeQueueItem", entry)
            }
            Field {
                visible: card.kind.indexOf("ueue") > 0 && card.orphans > 0
                label: qsTr("Orphaned")
                value: qsTr("%n claim(s) whose consumer is gone", "", card.orphans)
                valueColor: Theme.warning
            }
        }
    }
    KindSection {
        shows: card.kind === "counter"
        sourceComponent: ColumnLayout {
            spacing: 4
            Field {
                visible: card.kind === "counter"
                label: qsTr("Value")
                value: card.value === undefined ? "—" : card.value
                mono: true
            }
        }
    }
    // Hand-overs, endings and heals as they happened, whoever made them: the holder may be a
    // process the console knows nothing of, and a heal is over before anyone looks.
    ColumnLayout {
        objectName: "recent"
        visible: card.recent.length > 0
        spacing: 2
        Layout.fillWidth: true
        Label {
            textFormat: Text.PlainText
            text: qsTr("LATELY")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            font.bold: true
        }
        // Rows in a positioner, as in EntryList: a new list comes with every event.
        Column {
            spacing: 2
            Layout.fillWidth: true
            Repeater {
                model: card.recent
                delegate: Label {
                    required property var modelData
                    width: parent.width
                    textFormat: Text.PlainText
                    text: qsTr("%1 ago  %2").arg(Format.duration(Math.max(0, card.now - modelData.timeMs))).arg(modelData.text)
                    color: modelData.event === "healed" ? Theme.good
                         : modelData.cause === "leaseEnded" ? Theme.warning
                         : Theme.text
                    font.pixelSize: Theme.smallFont
                    wrapMode: Text.Wrap
                    maximumLineCount: 2
                    elide: Text.ElideRight
                }
            }
        }
    }
    // A work queue's and a counter's interventions: for the whole object, not one entry.
    KindSection {
        shows: card.kind.indexOf("ueue") > 0 || card.kind === "counter"
        Layout.fillWidth: false
        Layout.alignment: Qt.AlignRight
        sourceComponent: RowLayout {
            spacing: Theme.spacing
            Button {
                objectName: "peek"
                visible: card.kind.indexOf("ueue") > 0 && (card.depth > 0 || card.deadLetters > 0)
                text: card.peekedItems.length > 0 || card.peekedDeadLetters.length > 0 ? qsTr("Peek again") : qsTr("Peek")
                flat: true
                ToolTip.visible: hovered
                ToolTip.delay: 400
                ToolTip.text: card.kind === "workQueue" ? qsTr("Read the first items waiting, in the order they leave, and the first dead letters")
                                                        : qsTr("Read the first items waiting, in the order they leave")
                onClicked: card.peekRequested()
            }
            WriteButton {
                objectName: "requeueOrphans"
                visible: card.kind === "workQueue" && card.orphans > 0
                text: qsTr("Requeue orphans")
                toolTip: qsTr("Deliver the orphaned claims again now, as the consumers' next sweep would (asks first)")
                flat: true
                readOnly: card.readOnly
                onClicked: card.intervene("requeueOrphans", null)
            }
            WriteButton {
                objectName: "requeueDeadLetters"
                visible: card.kind === "workQueue" && card.deadLetters > 0
                text: qsTr("Requeue dead letters")
                toolTip: qsTr("Put every dead letter back, each with a fresh delivery count (asks first)")
                flat: true
                readOnly: card.readOnly
                onClicked: card.intervene("requeueDeadLetters", null)
            }
            WriteButton {
                objectName: "purgeDeadLetters"
                visible: card.kind === "workQueue" && card.deadLetters > 0
                text: qsTr("Purge dead letters")
                toolTip: qsTr("Delete every dead letter for good (asks first)")
                flat: true
                readOnly: card.readOnly
                onClicked: card.intervene("purgeDeadLetters", null)
            }
            WriteButton {
                objectName: "setCounter"
                visible: card.kind === "counter"
                text: qsTr("Set…")
                toolTip: qsTr("Set a new value by compare-and-set against the one shown (asks first)")
                flat: true
                readOnly: card.readOnly
                onClicked: card.intervene("setCounter", null)
            }
        }
    }
}
