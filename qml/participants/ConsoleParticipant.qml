// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcd
import QEtcdConsole

// One participant the console plays: a client of its own (through a fault link of its own in
// a sandbox) and one object of every recipe, all alive at once, so that it can hold a lock
// while it campaigns. Every recipe writes its events to eventLog under the participant's name.
// Its panel is only a view of it: the panel may come and go as the page scrolls.
QtObject {
    id: participant
    required property string name
    property EventLogModel eventLog
    property bool readOnly: false
    property bool paused: false
    // How the client reaches the cluster outside a sandbox: Connection.participantOptions().
    // Given at creation, changed by reach().
    property var options: ({})
    // In a sandbox, the FaultLink its traffic goes through; null outside one. Given at creation,
    // changed by reach().
    property var link: null
    // Where the last reach() took it and what it closed on the cluster it left; empty before
    // any move, and once read.
    property string moveNote
    // How a refused call reads (the window's advise).
    property var advise: status => status.message
    // Whether its client answers: reads and refreshes are worth sending.
    readonly property bool reachable: client.connectionState === Etcd.ConnectionState.Connected
                                      || client.connectionState === Etcd.ConnectionState.Reconnected
    // The key (see recipes) of the recipe its panel shows.
    property string shownRecipe: "mutex"
    readonly property var shownEntry: entry(shownRecipe)
    // What the queue last handed over.
    property string lastTaken
    // Each recipe's last refused action in words that say what to do, by key; cleared when
    // the recipe next waits or holds.
    property var advice: ({})

    // A recipe began to wait, to hold or to write at path: etcd's side of it is worth recording.
    signal recipeStarted(string path)
    // A recipe with a lease of its own started: the one whose lease a timeline should follow.
    signal leaseStarted(QtObject recipe)

    readonly property EtcdClient client: ConsoleClient {
        id: etcdClient
        objectName: "client"
        options: participant.options
        link: participant.link
        readOnly: participant.readOnly
    }

    readonly property Mutex mutex: Mutex {
        objectName: "mutex"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/lock"; ttl: 5
    }
    readonly property ReadWriteLock readWriteLock: ReadWriteLock {
        objectName: "readWriteLock"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/rwlock"; ttl: 5
    }
    readonly property Semaphore semaphore: Semaphore {
        objectName: "semaphore"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/semaphore"; ttl: 5; permits: 2
    }
    readonly property Election election: Election {
        objectName: "election"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/leader"; ttl: 5; proclamation: participant.name
    }
    readonly property ElectionObserver observer: ElectionObserver {
        objectName: "observer"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/leader"
    }
    readonly property Barrier barrier: Barrier {
        objectName: "barrier"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/barrier"; ttl: 5
    }
    readonly property CountedBarrier countedBarrier: CountedBarrier {
        objectName: "countedBarrier"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/counted"; ttl: 5; memberCount: 2
    }
    readonly property DoubleBarrier doubleBarrier: DoubleBarrier {
        objectName: "doubleBarrier"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/double"; ttl: 5; memberCount: 2
    }
    readonly property ServiceRegistration service: ServiceRegistration {
        objectName: "service"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/services"; ttl: 5; name: "api"; address: "127.0.0.1"; port: 8080
    }
    readonly property TransientKey transientKey: TransientKey {
        objectName: "transientKey"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        // Each participant's own key: two on one path would take it from each other.
        path: "/demo/presence/" + participant.name; ttl: 5; value: participant.name
    }
    readonly property Counter counter: Counter {
        objectName: "counter"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/counter"
    }
    readonly property Queue queue: Queue {
        objectName: "queue"; client: etcdClient; participantName: participant.name; eventLog: participant.eventLog
        path: "/demo/queue"
        // Nothing changes state as an item goes in: the put is what starts the queue's story.
        onEnqueued: participant.recipeStarted(path)
        onTaken: (key, value) => participant.lastTaken = value
    }

    // Every recipe as its selector and its panel name it, with the words for its states (a
    // barrier is active both for its owner, set, and for a waiter it let pass).
    readonly property var recipes: [
        { key: "mutex", title: qsTr("Lock"), recipe: mutex, idle: qsTr("FREE"), pending: qsTr("WAITING"), active: qsTr("HELD") },
        { key: "readWriteLock", title: qsTr("Read/write lock"), recipe: readWriteLock, idle: qsTr("FREE"), pending: qsTr("WAITING"), active: qsTr("HELD") },
        { key: "semaphore", title: qsTr("Semaphore"), recipe: semaphore, idle: qsTr("NO PERMIT"), pending: qsTr("WAITING"), active: qsTr("PERMIT HELD") },
        { key: "election", title: qsTr("Election"), recipe: election, idle: qsTr("NOT RUNNING"), pending: qsTr("CAMPAIGNING"), active: qsTr("LEADER") },
        { key: "observer", title: qsTr("Observe election"), recipe: observer, idle: qsTr("NOT WATCHING"), pending: qsTr("STARTING"), active: qsTr("WATCHING") },
        { key: "barrier", title: qsTr("Barrier"), recipe: barrier, idle: qsTr("IDLE"), pending: qsTr("WAITING"), active: qsTr("SET"), passed: qsTr("LIFTED") },
        { key: "countedBarrier", title: qsTr("Counted barrier"), recipe: countedBarrier, idle: qsTr("IDLE"), pending: qsTr("WAITING"), active: qsTr("PASSED") },
        { key: "doubleBarrier", title: qsTr("Double barrier"), recipe: doubleBarrier, idle: qsTr("OUTSIDE"), pending: qsTr("WAITING"), active: qsTr("PASSED") },
        { key: "service", title: qsTr("Service"), recipe: service, idle: qsTr("NOT REGISTERED"), pending: qsTr("REGISTERING"), active: qsTr("REGISTERED") },
        { key: "transientKey", title: qsTr("Transient key"), recipe: transientKey, idle: qsTr("NOT STARTED"), pending: qsTr("PUTTING"), active: qsTr("LIVE") },
        { key: "counter", title: qsTr("Counter"), recipe: counter, idle: qsTr("IDLE"), pending: qsTr("WRITING"), active: qsTr("IDLE") },
        { key: "queue", title: qsTr("Queue"), recipe: queue, idle: qsTr("IDLE"), pending: qsTr("TAKING"), active: qsTr("IDLE") }
    ]

    function entry(key) {
        return recipes.find(candidate => candidate.key === key);
    }
    function stateWord(entry) {
        switch (entry.recipe.state) {
        case Participant.Pending: return entry.pending;
        case Participant.Active: return entry.recipe === barrier && !barrier.owner ? entry.passed : entry.active;
        case Participant.Lost: return qsTr("LOST");
        case Participant.Closed: return qsTr("CLOSED");
        }
        return entry.idle;
    }
    // A recipe's state as a colour, repeating its word: the pill's text, or its background when soft.
    function stateColour(recipe, soft) {
        switch (recipe.state) {
        case Participant.Pending: return soft ? Theme.warningSoft : Theme.warning;
        case Participant.Active: return soft ? Theme.goodSoft : Theme.good;
        case Participant.Lost: return soft ? Theme.badSoft : Theme.bad;
        }
        return soft ? Theme.neutralSoft : Theme.neutral;
    }
    // A note under a recipe's panel: what went wrong, and what to do.
    function say(key, text) {
        advice = Object.assign({}, advice, { [key]: text });
    }
    // Makes the client reach the cluster through newLink, or as newOptions say without one.
    // What its recipes hold, wait for or keep belongs to the cluster it leaves: the busy ones
    // are closed first (their holds given back if that cluster still answers, else gone with
    // their leases), as a new client would drop them anyway, and moveNote says which. The same
    // way in again is no move.
    function reach(newLink, newOptions) {
        if (newLink ? newLink === link : !link && JSON.stringify(newOptions) === JSON.stringify(options))
            return;
        const busy = recipes.filter(entry => entry.recipe.state === Participant.Pending
                                    || entry.recipe.state === Participant.Active
                                    || entry.recipe.state === Participant.Lost);
        for (const entry of busy)
            entry.recipe.close();
        link = newLink;
        options = newOptions;
        const where = newLink ? qsTr("Moved into the sandbox, through a fault link of its own.")
                              : qsTr("Moved to the window's connection (%1).").arg((newOptions.endpoints || []).join(", "));
        moveNote = busy.length === 0 ? where
                 : qsTr("%1 Closed on the cluster it left: %2.").arg(where).arg(busy.map(entry => entry.title).join(", "));
    }
    // Gives back everything it holds. The object (and its client) goes a little later, so the
    // revokes of those releases reach etcd before the client cancels its calls.
    function retire() {
        for (const entry of recipes)
            entry.recipe.close();
        retirement.start();
    }

    readonly property Timer retirement: Timer {
        interval: 2000
        onTriggered: participant.destroy()
    }
    // A recipe that waits or holds has started on its path, and its last refusal is past news.
    readonly property Instantiator recipeWatch: Instantiator {
        model: participant.recipes
        delegate: Connections {
            required property var modelData
            target: modelData.recipe
            function onStateChanged() {
                const state = modelData.recipe.state;
                if (state !== Participant.Pending && state !== Participant.Active)
                    return;
                participant.recipeStarted(modelData.recipe.path);
                if (modelData.recipe !== participant.counter && modelData.recipe !== participant.queue
                        && modelData.recipe !== participant.observer)
                    participant.leaseStarted(modelData.recipe);
                if (participant.advice[modelData.key])
                    participant.say(modelData.key, "");
            }
            function onErrorOccurred(status) {
                participant.say(modelData.key, participant.advise(status));
            }
        }
    }
}
