import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's Participants page against a real etcd: two participants contending for a lock
// through the page's buttons, an election, a barrier, a counter, a queue and a service, what
// the event log says of it all (and of etcd's side, once), a read-only connection, and a
// removed participant's lock given back, and participants moving with the window as its sandbox
// starts and stops.
Item {
    id: root
    width: 1104
    height: 720

    // The console's own, unpartitioned client.
    EtcdClient { id: consoleClient; endpoints: [qetcdTest.endpoint] }
    EventLogModel { id: log }

    Component {
        id: participantsPage
        ParticipantsPage { anchors.fill: parent }
    }
    Component {
        id: consoleWindow
        Main { visible: true }
    }
    Component {
        id: sandboxComponent
        Sandbox {}
    }

    TestCase {
        name: "ParticipantsPage"
        when: windowShown

        // The sandbox a test started, stopped after it.
        property var sandbox: null

        function init() {
            log.clear()
        }
        function cleanup() {
            if (sandbox && sandbox.state !== Sandbox.Stopped) {
                sandbox.stop()
                tryCompare(sandbox, "state", Sandbox.Stopped, qetcdTest.timeout(30000))
            }
            sandbox = null
        }

        function openPage(readOnly) {
            const page = createTemporaryObject(participantsPage, root, {
                client: consoleClient.client,
                eventLog: log,
                readOnly: readOnly,
                participantOptions: () => ({ endpoints: [qetcdTest.endpoint] })
            })
            verify(page)
            return page
        }
        function startSandbox(running) {
            verify(running.start(), running.errorString)
            tryCompare(running, "state", Sandbox.Running, qetcdTest.timeout(60000))
        }
        // A participant whose recipes live under prefix, once its client answers.
        function add(page, name, prefix) {
            const participant = page.addParticipant(name)
            verify(participant, page.addError)
            for (const entry of participant.recipes)
                entry.recipe.path = prefix + entry.recipe.path.replace("/demo/", "")
            tryCompare(participant.client, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(10000))
            return participant
        }
        function card(page, name) {
            const found = findChild(page, "participant_" + name)
            verify(found, "no card for " + name)
            return found
        }
        // Clicks a WriteButton of name's card, once it may be clicked.
        function click(page, name, buttonName) {
            const button = findChild(card(page, name), buttonName)
            verify(button, buttonName + " on " + name)
            tryCompare(button.button, "enabled", true, qetcdTest.timeout(5000))
            mouseClick(button.button)
        }
        function keys(prefix) {
            return qetcdTest.etcdctl(["get", "--prefix", "--keys-only", prefix]).split("\n")
                .filter(line => line !== "")
        }
        // The kinds logged for participant, in order; a map of etcd's events by key.
        function kindsOf(participant) {
            const kinds = []
            for (let row = 0; row < log.count; ++row) {
                const event = log.get(row)
                if (event.participant === participant)
                    kinds.push(event.kind)
            }
            return kinds
        }
        function etcdEvents(kind, key) {
            let count = 0
            for (let row = 0; row < log.count; ++row) {
                const event = log.get(row)
                if (event.participant === "etcd" && event.kind === kind && event.key === key)
                    ++count
            }
            return count
        }
        function contains(list, wanted) {
            let from = 0
            for (const kind of wanted) {
                from = list.indexOf(kind, from)
                if (from < 0)
                    return false
                ++from
            }
            return true
        }

        function test_namesAndTheEmptyState() {
            const page = openPage(false)
            compare(page.participantCount, 0)
            verify(findChild(page, "addFirst").visible)
            compare(findChild(page, "nameField").text, "A")
            verify(page.addParticipant("A"))
            compare(findChild(page, "nameField").text, "B", "the next free letter")
            compare(page.addParticipant("A"), null)
            verify(page.addError.indexOf("A") >= 0, page.addError)
            compare(page.participant("A").name, "A")
            compare(page.participant("Z"), null)
            compare(page.participantCount, 1)
            verify(findChild(card(page, "A"), "faultsNeedSandbox").visible, "outside a sandbox the card says what faults need")
            verify(!findChild(card(page, "A"), "faultControls").visible)
            verify(page.removeParticipant("A"))
            verify(!page.removeParticipant("A"))
            compare(page.participantCount, 0)
        }

        function test_lockHandsOffBetweenParticipants() {
            const page = openPage(false)
            const a = add(page, "A", "/qml/participants/")
            const b = add(page, "B", "/qml/participants/")
            compare(a.mutex.path, "/qml/participants/lock")
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))

            click(page, "A", "lock")
            tryCompare(a.mutex, "held", true, qetcdTest.timeout(10000))
            verify(a.mutex.fencingToken > 0)
            const ring = findChild(card(page, "A"), "lossRing")
            verify(ring.visible)
            compare(ring.total, 5)
            tryVerify(() => ring.remaining > 0 && ring.remaining <= 5, qetcdTest.timeout(5000))
            compare(findChild(card(page, "A"), "leaseId").text, a.mutex.leaseId)
            compare(findChild(card(page, "A"), "recipeState").text, "HELD")
            const heldKey = a.mutex.holdKey

            click(page, "B", "lock")
            tryCompare(b.mutex, "state", Participant.Pending, qetcdTest.timeout(10000))
            tryVerify(() => keys("/qml/participants/lock/").length === 2, qetcdTest.timeout(10000))
            compare(findChild(card(page, "B"), "recipeState").text, "WAITING")
            compare(page.summary.holding, 1)
            compare(page.summary.waiting, 1)

            click(page, "A", "unlock")
            tryCompare(b.mutex, "held", true, qetcdTest.timeout(10000))
            verify(b.mutex.fencingToken > a.mutex.fencingToken || a.mutex.fencingToken === 0)
            compare(a.mutex.held, false)

            // Each participant's story, and etcd's once, though both watch the same path.
            tryVerify(() => etcdEvents("keyDeleted", heldKey) === 1, qetcdTest.timeout(10000))
            verify(contains(kindsOf("A"), ["pending", "acquired", "released"]), kindsOf("A"))
            verify(contains(kindsOf("B"), ["pending", "acquired"]), kindsOf("B"))
            verify(etcdEvents("keyPut", heldKey) <= 1)
            compare(page.watchedPathCount, 1)
            click(page, "B", "unlock")
            tryCompare(b.mutex, "held", false)
        }

        function test_electionBarrierCounterQueueService() {
            const page = openPage(false)
            const a = add(page, "A", "/qml/participants/more/")
            const b = add(page, "B", "/qml/participants/more/")

            a.shownRecipe = "election"
            click(page, "A", "campaign")
            tryCompare(a.election, "isLeader", true, qetcdTest.timeout(10000))
            tryVerify(() => a.election.candidates.length === 1, qetcdTest.timeout(10000))
            compare(a.election.candidates[0].value, "A")
            // The lock is a different recipe of the same participant: both at once.
            a.shownRecipe = "mutex"
            click(page, "A", "lock")
            tryCompare(a.mutex, "held", true, qetcdTest.timeout(10000))
            compare(a.election.isLeader, true)

            a.shownRecipe = "barrier"
            b.shownRecipe = "barrier"
            click(page, "A", "set")
            tryCompare(a.barrier, "owner", true, qetcdTest.timeout(10000))
            click(page, "B", "wait")
            tryCompare(b.barrier, "waiting", true, qetcdTest.timeout(10000))
            click(page, "A", "remove")
            tryCompare(b.barrier, "lifted", true, qetcdTest.timeout(10000))
            compare(b.barrier.spurious, false)
            compare(findChild(card(page, "B"), "liftedLine").value, "lifted: its owner removed it")

            a.shownRecipe = "counter"
            findChild(card(page, "A"), "delta").value = 5
            click(page, "A", "add")
            tryCompare(a.counter, "value", 5, qetcdTest.timeout(10000))
            tryCompare(findChild(card(page, "A"), "counterValue"), "value", "5")

            a.shownRecipe = "queue"
            b.shownRecipe = "queue"
            click(page, "A", "put")
            tryVerify(() => kindsOf("A").indexOf("enqueued") >= 0, qetcdTest.timeout(10000))
            click(page, "B", "take")
            tryCompare(b, "lastTaken", "job from A", qetcdTest.timeout(10000))
            tryCompare(findChild(card(page, "B"), "lastTaken"), "value", "job from A")

            b.shownRecipe = "service"
            click(page, "B", "register")
            tryCompare(b.service, "state", Participant.Active, qetcdTest.timeout(10000))
            const instance = b.service.instanceKey
            verify(keys(instance).length === 1, instance)

            verify(contains(kindsOf("A"), ["elected", "acquired", "barrierSet", "barrierRemoved", "enqueued"]), kindsOf("A"))
            verify(contains(kindsOf("B"), ["pending", "barrierLifted", "taken", "registered"]), kindsOf("B"))

            verify(page.removeParticipant("A"))
            verify(page.removeParticipant("B"))
            tryVerify(() => keys("/qml/participants/more/").filter(key => key.indexOf("counter") < 0).length === 0,
                      qetcdTest.timeout(10000))
            tryVerify(() => etcdEvents("keyDeleted", instance) === 1, qetcdTest.timeout(10000))
        }

        function test_readOnlyDisablesEveryAction() {
            const page = openPage(true)
            verify(findChild(page, "readOnlyNote").visible)
            const a = add(page, "A", "/qml/participants/readonly/")
            for (const entry of a.recipes) {
                a.shownRecipe = entry.key
                for (const name of ["lock", "unlock", "lockRead", "lockWrite", "acquire", "campaign", "set", "wait", "enter",
                                    "register", "start", "add", "increment", "put", "take"]) {
                    const button = findChild(card(page, "A"), name)
                    if (button)
                        verify(!button.button.enabled, entry.key + ": " + name)
                }
            }
            // An observer writes nothing: it may follow an election on a read-only connection.
            a.shownRecipe = "observer"
            verify(findChild(card(page, "A"), "observe").enabled)
            compare(a.client.readOnly, true, "the library refuses the writes too")
        }

        function test_removingAParticipantGivesBackItsLock() {
            const page = openPage(false)
            const a = add(page, "A", "/qml/participants/removal/")
            // Far longer than the wait below: the key goes because it is given back, not by expiry.
            a.mutex.ttl = 60
            click(page, "A", "lock")
            tryCompare(a.mutex, "held", true, qetcdTest.timeout(10000))
            const heldKey = a.mutex.holdKey
            compare(keys("/qml/participants/removal/lock/"), [heldKey])

            verify(page.removeParticipant("A"))
            compare(page.participantCount, 0)
            tryVerify(() => keys("/qml/participants/removal/lock/").length === 0, qetcdTest.timeout(10000))
            tryVerify(() => etcdEvents("keyDeleted", heldKey) === 1, qetcdTest.timeout(10000))
        }


        // In the window, participants follow its cluster: into the sandbox through links of their
        // own as it starts, back to the window's connection as it stops, each time closing what
        // they held on the cluster they left.
        function test_windowParticipantsFollowItsSandbox() {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint] } })
            verify(window)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(10000))
            window.showPage("participants")
            const page = window.participantsPage
            const a = page.addParticipant("A")
            verify(a)
            compare(a.link, null)
            compare(a.client.endpoints, [qetcdTest.endpoint])
            a.mutex.path = "/qml/faults/follow/lock"
            // Far longer than the waits below: the key goes because it is given back.
            a.mutex.ttl = 60
            a.mutex.lock()
            tryCompare(a.mutex, "held", true, qetcdTest.timeout(10000))
            compare(keys("/qml/faults/follow/lock/"), [a.mutex.holdKey])
            verify(findChild(card(page, "A"), "faultsNeedSandbox").visible)

            sandbox = window.sandbox
            startSandbox(sandbox)
            tryCompare(a, "link", sandbox.createLink("A"), qetcdTest.timeout(5000))
            compare(a.client.endpoints, a.link.endpoints)
            compare(a.mutex.state, Participant.Closed)
            compare(a.moveNote, "Moved into the sandbox, through a fault link of its own. Closed on the cluster it left: Lock.")
            verify(findChild(card(page, "A"), "moveNote").visible)
            verify(findChild(card(page, "A"), "faultControls").visible)
            verify(!findChild(card(page, "A"), "faultsNeedSandbox").visible)
            tryVerify(() => keys("/qml/faults/follow/lock/").length === 0, qetcdTest.timeout(10000),
                      "the lock was given back on the cluster A left")
            tryCompare(a.client, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(15000))
            // Added while the sandbox runs, B is in it from the start.
            const b = page.addParticipant("B")
            compare(b.link, sandbox.createLink("B"))
            compare(b.moveNote, "")

            verify(sandbox.stop(), sandbox.errorString)
            tryCompare(a, "link", null, qetcdTest.timeout(30000))
            compare(a.client.endpoints, [qetcdTest.endpoint], "back on the window's connection, not the sandbox's")
            compare(a.moveNote, "Moved to the window's connection (%1).".arg(qetcdTest.endpoint))
            compare(b.client.endpoints, [qetcdTest.endpoint])
            tryCompare(a.client, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(15000))
            verify(!findChild(card(page, "A"), "faultControls").visible)
            tryCompare(sandbox, "state", Sandbox.Stopped, qetcdTest.timeout(30000))
            verify(page.removeParticipant("A"))
            verify(page.removeParticipant("B"))
        }

        // In the window, a participant connects as the window does, user and password included,
        // and writes to the window's event log.
        function test_windowParticipantsConnectAsTheWindowDoes() {
            const endpoint = qetcdTest.authEndpoint()
            verify(endpoint.length > 0, "the authenticated member did not start")
            const window = createTemporaryObject(consoleWindow, root, {
                commandLine: { endpoints: [endpoint], user: "app", password: "apppw" }
            })
            verify(window)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(10000))
            window.showPage("participants")
            const page = window.participantsPage
            compare(window.currentPage, page)
            const a = page.addParticipant("A")
            verify(a)
            compare(a.client.endpoints, [endpoint])
            compare(a.client.user, "app")
            compare(a.client.password, "apppw")
            // The app role may write only under /app/.
            a.mutex.path = "/app/qml-participants/lock"
            a.mutex.lock()
            tryCompare(a.mutex, "held", true, qetcdTest.timeout(10000))
            tryCompare(window, "ready", true, qetcdTest.timeout(10000))
            compare(window.summary.page, "participants")
            compare(window.summary.holding, 1)
            tryVerify(() => {
                for (let row = 0; row < window.eventLog.count; ++row) {
                    if (window.eventLog.get(row).participant === "A" && window.eventLog.get(row).kind === "acquired")
                        return true
                }
                return false
            }, qetcdTest.timeout(5000))
            verify(page.removeParticipant("A"))
        }
    }
}
