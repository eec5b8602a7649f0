// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's Participants page against a real etcd: two participants contending for a lock
// through the page's buttons, an election, a barrier, a counter, a queue and a service, what
// the event log says of it all (and of etcd's side, once), a read-only connection, and a
// removed participant's lock given back. On a sandbox: participants behind fault links of their
// own, cut off by their fault controls (a lock is lost for good, a transient key comes back),
// delayed and reset, and moving with the window as its sandbox starts and stops.
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
    Component {
        id: clientComponent
        EtcdClient {}
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
        // The page on a running sandbox, as the window has it then: the console's own client
        // reads the sandbox's members directly.
        function openSandboxPage() {
            sandbox = createTemporaryObject(sandboxComponent, root, { eventLog: log })
            startSandbox(sandbox)
            const sandboxClient = createTemporaryObject(clientComponent, root, { endpoints: sandbox.clientUrls })
            const page = createTemporaryObject(participantsPage, root, {
                client: sandboxClient.client,
                eventLog: log,
                sandbox: sandbox,
                participantOptions: () => ({ endpoints: [qetcdTest.endpoint] })
            })
            verify(page)
            verify(page.sandboxRunning)
            return page
        }
        // Keys under prefix in the sandbox.
        function sandboxKeys(prefix) {
            return qetcdTest.etcdctl(["--endpoints=" + sandbox.clientUrls.join(","), "get", "--prefix", "--keys-only", prefix])
                .split("\n").filter(line => line !== "")
        }
        // Presses one of name's fault controls.
        function fault(page, name, buttonName) {
            const button = findChild(findChild(card(page, name), "faultControls"), buttonName)
            verify(button, buttonName + " on " + name)
            verify(button.visible && button.enabled, buttonName + " on " + name + " can be pressed")
            mouseClick(button)
        }
        function faultMode(page, name) {
            return findChild(findChild(card(page, name), "faultControls"), "faultMode").text
        }
        // The first event of participant of this kind (and detail, when given) at row from or
        // later; -1 when there is none.
        function rowOf(participant, kind, from, detail) {
            for (let row = from; row < log.count; ++row) {
                const event = log.get(row)
                if (event.participant === participant && event.kind === kind
                        && (detail === undefined || event.detail === detail))
                    return row
            }
            return -1
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
            // The card's ✕ asks first: Cancel keeps it, Remove removes it.
            const confirmRemove = findChild(page, "confirmRemoveParticipant")
            tryVerify(function() { return card(page, "A").width > 0 }, qetcdTest.timeout(5000), "the card is laid out")
            const remove = findChild(card(page, "A"), "removeParticipant")
            waitForRendering(remove)
            mouseClick(remove)
            tryCompare(confirmRemove, "opened", true)
            verify(confirmRemove.message.indexOf("A gives back everything it holds") === 0, confirmRemove.message)
            confirmRemove.reject()
            tryCompare(confirmRemove, "visible", false)
            compare(page.participantCount, 1)
            mouseClick(findChild(card(page, "A"), "removeParticipant"))
            tryCompare(confirmRemove, "opened", true)
            mouseClick(findChild(confirmRemove.footer, "confirmButton"))
            tryCompare(page, "participantCount", 0)
            verify(!page.removeParticipant("A"))
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
            tryVerify(() => contains(kindsOf("A"), ["pending", "acquired", "released"]), qetcdTest.timeout(5000),
                      String(kindsOf("A")))
            tryVerify(() => contains(kindsOf("B"), ["pending", "acquired"]), qetcdTest.timeout(5000), String(kindsOf("B")))
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
            compare(b.barrier.waiting, true)
            // A removal before B's wait has read the barrier would leave B waiting for a new one.
            tryCompare(b.barrier, "waitPhase", Barrier.UntilRemoved, qetcdTest.timeout(10000))
            compare(findChild(card(page, "B"), "liftedLine").value, "waiting for the barrier to lift")
            click(page, "A", "remove")
            tryCompare(b.barrier, "lifted", true, qetcdTest.timeout(10000))
            compare(b.barrier.spurious, false)
            compare(findChild(card(page, "B"), "liftedLine").value, "lifted: its owner removed it")
            // With no barrier up, a wait waits for one to be set and then removed.
            click(page, "B", "wait")
            tryCompare(b.barrier, "waitPhase", Barrier.UntilSetAndRemoved, qetcdTest.timeout(10000))
            compare(findChild(card(page, "B"), "liftedLine").value, "no barrier yet: waiting for one to be set and lifted")
            click(page, "A", "set")
            tryCompare(a.barrier, "owner", true, qetcdTest.timeout(10000))
            compare(b.barrier.waiting, true)
            click(page, "A", "remove")
            tryCompare(b.barrier, "waiting", false, qetcdTest.timeout(10000))
            compare(b.barrier.lifted, true)
            compare(b.barrier.liftReason, Barrier.Removed)

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

            // The log takes in events once a frame, so the last may still be on its way.
            tryVerify(() => contains(kindsOf("A"), ["elected", "acquired", "barrierSet", "barrierRemoved", "enqueued"]),
                      qetcdTest.timeout(5000), String(kindsOf("A")))
            tryVerify(() => contains(kindsOf("B"), ["pending", "barrierLifted", "taken", "registered"]),
                      qetcdTest.timeout(5000), String(kindsOf("B")))

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


        function test_blackholedLockHolderLosesTheLockForGood() {
            const page = openSandboxPage()
            const a = add(page, "A", "/qml/faults/")
            const b = add(page, "B", "/qml/faults/")
            compare(a.link, sandbox.createLink("A"), "each participant behind its own link")
            compare(a.client.endpoints, a.link.endpoints)
            compare(b.client.endpoints, sandbox.createLink("B").endpoints)
            verify(findChild(card(page, "A"), "faultControls").visible)
            verify(!findChild(card(page, "A"), "faultsNeedSandbox").visible)
            compare(faultMode(page, "A"), "PASS")

            // Short enough that B need not wait long, long enough for etcd's minimum TTL.
            a.mutex.ttl = 2
            click(page, "A", "lock")
            tryCompare(a.mutex, "held", true, qetcdTest.timeout(10000))
            click(page, "B", "lock")
            tryCompare(b.mutex, "state", Participant.Pending, qetcdTest.timeout(10000))

            const cut = log.count
            fault(page, "A", "blackhole")
            compare(a.link.mode, FaultLink.Blackhole)
            compare(faultMode(page, "A"), "BLACKHOLE")
            tryCompare(a.mutex, "connectionState", Etcd.ConnectionState.Suspended, qetcdTest.timeout(10000))
            // An exclusive hold never heals: lost, even before the link does.
            tryCompare(a.mutex, "held", false, qetcdTest.timeout(10000))
            compare(a.mutex.state, Participant.Lost)
            compare(findChild(card(page, "A"), "recipeState").text, "LOST")
            tryCompare(b.mutex, "held", true, qetcdTest.timeout(15000))
            // The fault, then A suspended, then told it lost the lock before etcd let B in; the
            // log turns events into rows once a frame.
            tryVerify(() => rowOf("B", "acquired", cut) >= 0, qetcdTest.timeout(5000), "B's acquisition is logged")
            const blackholed = rowOf("A", "fault", cut, "blackhole")
            const suspended = rowOf("A", "connectionState", cut, "Suspended")
            const lost = rowOf("A", "lost", cut)
            const bAcquired = rowOf("B", "acquired", cut)
            verify(blackholed >= 0 && suspended > blackholed && lost > suspended && bAcquired > lost,
                   JSON.stringify([blackholed, suspended, lost, bAcquired]))

            fault(page, "A", "pass")
            compare(a.link.mode, FaultLink.Pass)
            compare(faultMode(page, "A"), "PASS")
            tryVerify(() => a.reachable, qetcdTest.timeout(15000), "A answers again once its link passes")
            click(page, "A", "unlock")
            tryVerify(() => rowOf("A", "releaseFailed", lost) >= 0, qetcdTest.timeout(5000), "unlock() said false")
            compare(findChild(card(page, "A"), "recipeError").text,
                    "unlock() said false: the lock had been lost before it was given back.")
            compare(b.mutex.held, true, "A's unlock took nothing from B")
            verify(rowOf("A", "fault", blackholed + 1, "pass") > lost)
        }

        function test_blackholedTransientKeyExpiresAndComesBack() {
            const page = openSandboxPage()
            const a = add(page, "A", "/qml/faults/")
            const key = "/qml/faults/presence/A"
            compare(a.transientKey.path, key)
            a.shownRecipe = "transientKey"
            a.transientKey.ttl = 2
            click(page, "A", "start")
            tryCompare(a.transientKey, "state", Participant.Active, qetcdTest.timeout(10000))
            compare(sandboxKeys(key), [key])

            const cut = log.count
            fault(page, "A", "blackhole")
            tryCompare(a.transientKey, "connectionState", Etcd.ConnectionState.Suspended, qetcdTest.timeout(10000))
            tryVerify(() => rowOf("A", "leaseExpired", cut) >= 0, qetcdTest.timeout(10000), "the key's lease expires")
            compare(a.transientKey.state, Participant.Pending)
            compare(findChild(card(page, "A"), "recipeState").text, "PUTTING")
            tryVerify(() => sandboxKeys(key).length === 0, qetcdTest.timeout(10000), "etcd deleted the key with its lease")

            fault(page, "A", "pass")
            tryVerify(() => rowOf("A", "leaseRestored", cut) >= 0, qetcdTest.timeout(15000), "the key's lease is restored")
            tryCompare(a.transientKey, "state", Participant.Active, qetcdTest.timeout(10000))
            compare(findChild(card(page, "A"), "recipeState").text, "LIVE")
            tryVerify(() => sandboxKeys(key).length === 1, qetcdTest.timeout(10000), "the key is back in etcd")
            const suspended = rowOf("A", "connectionState", cut, "Suspended")
            const expired = rowOf("A", "leaseExpired", cut)
            const restored = rowOf("A", "leaseRestored", cut)
            verify(suspended >= 0 && expired > suspended && restored > expired, JSON.stringify([suspended, expired, restored]))
            // etcd's side, through the console's own client: the key went and came back.
            tryVerify(() => etcdEvents("keyDeleted", key) === 1 && etcdEvents("keyPut", key) === 2, qetcdTest.timeout(10000))
        }

        function test_delayAndReset() {
            const page = openSandboxPage()
            const a = add(page, "A", "/qml/faults/delay/")
            const controls = findChild(card(page, "A"), "faultControls")
            findChild(controls, "delayMs").value = 200
            fault(page, "A", "delay")
            compare(a.link.mode, FaultLink.Delay)
            compare(a.link.delayMs, 200)
            compare(faultMode(page, "A"), "DELAY 200 ms")
            tryVerify(() => rowOf("A", "fault", 0, "delay 200 ms") >= 0, qetcdTest.timeout(5000), "the delay is logged")
            // 200 ms each way is slow, not cut off.
            compare(a.client.connectionState, Etcd.ConnectionState.Connected)

            fault(page, "A", "reset")
            compare(a.link.mode, FaultLink.Reset)
            compare(faultMode(page, "A"), "RESET")
            tryVerify(() => rowOf("A", "fault", 0, "reset") >= 0, qetcdTest.timeout(5000), "the reset is logged")
            tryCompare(a.client, "connectionState", Etcd.ConnectionState.Suspended, qetcdTest.timeout(10000))
            fault(page, "A", "pass")
            tryCompare(a.client, "connectionState", Etcd.ConnectionState.Reconnected, qetcdTest.timeout(15000))
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

        // The whole window on a sandbox: three participants, one cut off. Its loss and its fault
        // band reach the Timeline; with QETCD_SCREENSHOT_DIR set, both pages are kept as
        // pictures (scripts/screenshots: the README's).
        function test_aSandboxWindowDrawsItsParticipantsOnTheTimeline() {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint] } })
            verify(window)
            sandbox = window.sandbox
            startSandbox(sandbox)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            window.showPage("participants")
            const page = window.participantsPage
            const a = page.addParticipant("A")
            const b = page.addParticipant("B")
            const c = page.addParticipant("C")
            tryCompare(a.client, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(15000))
            for (const participant of [a, b]) {
                participant.mutex.path = "/demo/lock"
                participant.mutex.ttl = 3
            }
            a.mutex.lock()
            tryCompare(a.mutex, "held", true, qetcdTest.timeout(10000))
            b.mutex.lock()
            c.shownRecipe = "service"
            c.service.name = "api"
            c.service.address = "10.0.0.7"
            c.service.port = 8080
            c.service.registerService()
            tryCompare(c.service, "state", Participant.Active, qetcdTest.timeout(10000))
            c.link.delay(150)
            a.link.blackhole()
            tryCompare(a.mutex, "state", Participant.Lost, qetcdTest.timeout(15000))
            tryCompare(b.mutex, "held", true, qetcdTest.timeout(15000))

            window.showPage("timeline")
            tryVerify(() => window.currentPage.summary.losses === 1, qetcdTest.timeout(10000), "A's loss on the timeline")
            verify(window.currentPage.summary.bands >= 2, "A's blackhole and C's delay")
            for (const name of ["A", "B", "C"])
                verify(window.currentPage.timeline.lanes.indexOf(name) >= 0, name + "'s lane")
            const pictures = qetcdTest.setEnvironmentVariable("QETCD_SCREENSHOT_DIR", "")
            qetcdTest.setEnvironmentVariable("QETCD_SCREENSHOT_DIR", pictures)
            if (pictures.length > 0) {
                const whole = window.contentItem.parent  // header and footer included
                window.currentPage.timeline.showWholeLog()
                verify(waitForRendering(whole, qetcdTest.timeout(5000)))
                grabImage(whole).save(pictures + "/timeline.png")
                window.showPage("participants")
                verify(waitForRendering(whole, qetcdTest.timeout(5000)))
                grabImage(whole).save(pictures + "/participants-sandbox.png")
            }
            a.link.pass()
            c.link.pass()
            for (const name of ["A", "B", "C"])
                verify(page.removeParticipant(name))
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
