// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The Timeline's History source against a real etcd: a lock handed over from one holder to the
// next, and an election whose leader resigns to the next candidate, replayed from etcd's own
// history into one lane each (holders as bars, the waiter as a thinner one, the hand-over and
// the elections as marks); a click on the chart picks a revision, and the Coordination and Keys
// pages show the cluster as of it under a banner whose "Back to live" returns.
Item {
    id: root
    width: 1280
    height: 760

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    // Each test writes under a prefix of its own, so that a replay sees only its own story.
    property string base: "/qml/history/" + Date.now() + "/"
    Mutex { id: first; client: direct; path: root.base + "locks/deploy"; ttl: 9 }
    Mutex { id: second; client: direct; path: root.base + "locks/deploy"; ttl: 9 }
    Election { id: alpha; client: direct; path: root.base + "elections/primary"; ttl: 9; proclamation: "alpha" }
    Election { id: beta; client: direct; path: root.base + "elections/primary"; ttl: 9; proclamation: "beta" }

    Component {
        id: timelinePage
        TimelinePage { anchors.fill: parent; client: direct.client }
    }
    Component {
        id: coordinationPage
        CoordinationPage { anchors.fill: parent; client: direct.client }
    }
    Component {
        id: keysPage
        KeysPage { anchors.fill: parent; client: direct.client }
    }
    Component { id: signalSpy; SignalSpy {} }

    TestCase {
        name: "CoordinationHistory"
        when: windowShown

        // The revision etcd is at now.
        function storeRevision() {
            const answer = JSON.parse(qetcdTest.etcdctl(["get", "/", "--prefix", "--keys-only", "--limit", "1", "-w", "json"]))
            return Number(answer.header.revision)
        }

        function cleanup() {
            for (const participant of [second, first, beta, alpha])
                participant.close()
            root.base = "/qml/history/" + Date.now() + "/"
        }

        // first holds, second waits and is handed the lock; alpha leads, beta stands and is
        // elected when alpha resigns. Returns the revision at which first held and second
        // waited (bothThere), and first's fencing token and key.
        function scriptStory() {
            first.lock()
            tryCompare(first, "held", true, qetcdTest.timeout(10000))
            const story = { firstToken: first.fencingToken, firstKey: first.holdKey }
            second.lock()
            tryCompare(second, "state", Participant.Pending, qetcdTest.timeout(10000))
            story.bothThere = storeRevision()
            verify(first.unlock())
            tryCompare(second, "held", true, qetcdTest.timeout(10000))
            verify(second.unlock())

            alpha.campaign()
            tryCompare(alpha, "isLeader", true, qetcdTest.timeout(10000))
            beta.campaign()
            tryVerify(function() { beta.refreshCandidates(); return beta.candidates.length === 2 }, qetcdTest.timeout(10000))
            alpha.resign()
            tryCompare(beta, "isLeader", true, qetcdTest.timeout(10000))
            return story
        }

        function replayedPage() {
            const page = createTemporaryObject(timelinePage, root)
            verify(page)
            mouseClick(findChild(page, "historySource"))
            compare(page.source, "history")
            verify(findChild(page, "historyNote").text.indexOf("Replay") >= 0, "says what to do first")
            findChild(page, "historyPrefix").text = root.base
            findChild(page, "historyRange").currentIndex = 3  // all etcd keeps
            mouseClick(findChild(page, "replayButton"))
            tryCompare(page.history, "status", ModelStatus.Ready, qetcdTest.timeout(30000))
            return page
        }

        function rowOf(history, kind) {
            for (let row = 0; row < history.count; ++row) {
                if (history.data(history.index(row, 0), CoordinationHistoryModel.KindRole) === kind)
                    return row
            }
            return -1
        }

        function test_lanesForAHandOverAndAnElection() {
            const story = scriptStory()
            const page = replayedPage()
            const history = page.history
            compare(history.count, 2, "one lane for the lock, one for the election")
            verify(page.ready)
            compare(page.summary.source, "history")
            compare(page.summary.objects, 2)

            const lock = rowOf(history, "lock")
            verify(lock >= 0)
            compare(history.data(history.index(lock, 0), CoordinationHistoryModel.PathRole), root.base + "locks/deploy")
            const lockBars = history.barsOf(lock)
            const holders = lockBars.filter(bar => !bar.waiter)
            const waiters = lockBars.filter(bar => bar.waiter)
            compare(holders.length, 2, JSON.stringify(lockBars))
            compare(holders[0].token, story.firstToken)
            compare(holders[0].key, story.firstKey)
            compare(holders[0].end, "handedOn", "first's hold ended by handing the lock on")
            compare(holders[1].from, holders[0].to, "second held from the revision first let go")
            compare(holders[1].end, "deleted", "second released: its key deleted")
            compare(waiters.length, 1, "second waited")
            compare(waiters[0].to, holders[1].from, "until it was handed the lock")
            verify(waiters[0].from > holders[0].from)
            const lockMarks = history.marksOf(lock).map(mark => mark.kind)
            compare(lockMarks, ["acquired", "handedOn", "deleted"])

            const election = rowOf(history, "election")
            verify(election >= 0)
            const leaders = history.barsOf(election).filter(bar => !bar.waiter)
            compare(leaders.length, 2, JSON.stringify(history.barsOf(election)))
            compare(leaders[0].end, "handedOn", "alpha's term passed to beta")
            compare(leaders[1].to, 0, "beta still leads")
            const candidates = history.barsOf(election).filter(bar => bar.waiter)
            compare(candidates.length, 1, "beta stood behind alpha")
            compare(history.marksOf(election).map(mark => mark.kind), ["elected", "elected"])
            verify(history.describe(election, history.lastRevision).indexOf("held by") >= 0)

            // The legend names what the lanes hold; the note says what the axis counts.
            const legend = findChild(page, "historyChart").historyLayer.legend.map(entry => entry.glyph)
            for (const glyph of ["acquired", "memberResumed", "keyDeleted", "elected"])
                verify(legend.indexOf(glyph) >= 0, glyph + " in " + legend)
            verify(findChild(page, "historyNote").text.indexOf("etcd keeps no time") >= 0, findChild(page, "historyNote").text)

            // Export: the lanes as JSON lines, and a note that says where they went.
            verify(findChild(page, "historyExport").enabled)
            const path = qetcdTest.temporaryPath("history.jsonl")
            verify(page.exportHistory(path))
            const lines = qetcdTest.readFile(path).trim().split("\n").map(line => JSON.parse(line))
            compare(lines[0].record, "range")
            compare(lines[0].prefix, root.base)
            verify(lines.some(line => line.record === "event" && line.event === "handedOn" && line.path === root.base + "locks/deploy"),
                   JSON.stringify(lines))
            const note = findChild(page, "historyExportNote")
            verify(note.visible && note.text.indexOf(path) > 0, note.text)
            verify(!page.exportHistory("/nonexistent-dir/h.jsonl"))
            verify(note.text.indexOf("cannot write /nonexistent-dir/h.jsonl") === 0, note.text)
        }

        // Follow: the range is replayed, then what happens is drawn as it happens, until Stop.
        function test_followDrawsWhatHappensNow() {
            first.lock()
            tryCompare(first, "held", true, qetcdTest.timeout(10000))
            const page = createTemporaryObject(timelinePage, root)
            mouseClick(findChild(page, "historySource"))
            findChild(page, "historyPrefix").text = root.base
            findChild(page, "historyRange").currentIndex = 3
            const follow = findChild(page, "historyFollow")
            mouseClick(follow)
            verify(follow.checked)
            const button = findChild(page, "replayButton")
            mouseClick(button)
            const history = page.history
            tryCompare(history, "status", ModelStatus.Ready, qetcdTest.timeout(30000))
            verify(history.running, "still following")
            verify(history.following)
            compare(button.text, "Stop")
            verify(!follow.enabled, "not while following")
            verify(findChild(page, "historyNote").text.indexOf("following") >= 0, findChild(page, "historyNote").text)
            const replayedTo = history.lastRevision

            const lock = rowOf(history, "lock")
            verify(lock >= 0, "the lock held before the replay has its lane")
            second.lock()
            tryVerify(function() { return history.barsOf(lock).some(bar => bar.waiter) }, qetcdTest.timeout(10000),
                      "the waiter is drawn as it queues")
            verify(first.unlock())
            tryCompare(second, "held", true, qetcdTest.timeout(10000))
            tryVerify(function() { return history.marksOf(lock).map(mark => mark.kind).indexOf("handedOn") >= 0 },
                      qetcdTest.timeout(10000), "the hand-over is drawn as it happens")
            verify(history.lastRevision > replayedTo, history.lastRevision + " > " + replayedTo)
            const holders = history.barsOf(lock).filter(bar => !bar.waiter)
            compare(holders.length, 2, JSON.stringify(history.barsOf(lock)))
            compare(holders[0].end, "handedOn")
            compare(holders[1].to, 0, "second holds now")

            mouseClick(button)
            tryCompare(history, "running", false, qetcdTest.timeout(5000))
            compare(history.status, ModelStatus.Ready, "stopping a follow keeps what was drawn")
            compare(button.text, "Replay")
            const marks = history.marksOf(lock).length
            const stoppedAt = history.lastRevision
            // A live watch of its own sees the release: the stopped replay, which would have
            // seen it as soon, draws nothing more.
            const witness = createTemporaryQmlObject("import QEtcd; CoordinationModel {}", page)
            witness.client = direct.client
            witness.prefix = root.base
            tryCompare(witness, "count", 1, qetcdTest.timeout(10000))
            verify(second.unlock())
            tryCompare(witness, "count", 0, qetcdTest.timeout(10000))
            compare(history.marksOf(lock).length, marks)
            compare(history.lastRevision, stoppedAt)
        }

        function cardOf(page, kind) {
            const cards = findChild(page, "cards")
            for (let i = 0; i < cards.count; ++i) {
                if (cards.itemAt(i) && cards.itemAt(i).kind === kind)
                    return cards.itemAt(i)
            }
            return null
        }

        // The console's own samples of the revision put an as-of revision on the clock: two
        // times it lies between, said to be the console's.
        function test_asOfBannerSaysWhenFromTheConsolesSamples() {
            const clock = createTemporaryQmlObject("import QEtcd; RevisionClock {}", root)
            clock.client = direct.client
            tryVerify(function() { return clock.sampleCount > 0 }, qetcdTest.timeout(10000), "the clock sampled")
            first.lock()
            tryCompare(first, "held", true, qetcdTest.timeout(10000))
            const revision = storeRevision()
            tryVerify(function() { return clock.bounds(revision).byMs > 0 }, qetcdTest.timeout(10000), "a sample after it")
            const coordination = createTemporaryObject(coordinationPage, root, { asOfRevision: revision, revisionClock: clock })
            coordination.model.prefix = root.base
            tryCompare(coordination, "ready", true, qetcdTest.timeout(10000))
            const banner = findChild(coordination, "asOfBanner")
            verify(banner.text.indexOf("As of revision " + revision + " (between ") === 0, banner.text)
            verify(banner.text.indexOf("by this console's samples)") > 0, banner.text)
        }

        function test_pickARevisionAndGoBackToLive() {
            const story = scriptStory()
            const page = replayedPage()
            const picked = createTemporaryObject(signalSpy, root, { target: page, signalName: "revisionPicked" })
            const chart = findChild(page, "historyChart")
            const pointer = findChild(chart, "historyPointer")
            waitForRendering(chart)
            mouseClick(pointer, chart.historyLayer.xAt(story.bothThere), 10)
            compare(picked.count, 1)
            compare(picked.signalArguments[0][0], story.bothThere)
            page.asOfRevision = story.bothThere  // as the window does
            tryCompare(findChild(page, "asOfNote"), "visible", true)

            // The Coordination page as of then: first holds, second waits, nothing can be done.
            const coordination = createTemporaryObject(coordinationPage, root, { asOfRevision: story.bothThere })
            coordination.backToLive.connect(function() { coordination.asOfRevision = 0 })
            coordination.model.prefix = root.base
            tryCompare(coordination, "ready", true, qetcdTest.timeout(10000))
            const banner = findChild(coordination, "asOfBanner")
            verify(banner.visible)
            verify(banner.text.indexOf("As of revision " + story.bothThere) === 0, banner.text)
            compare(coordination.summary.asOfRevision, story.bothThere)
            tryVerify(function() { return coordination.model.count === 1 }, qetcdTest.timeout(10000), "the lock alone: the election came later")
            tryVerify(function() { return cardOf(coordination, "lock") !== null }, qetcdTest.timeout(10000))
            const past = cardOf(coordination, "lock")
            compare(past.holders.length, 1)
            compare(past.holders[0].key, story.firstKey)
            compare(past.waiters.length, 1)
            verify(past.readOnly, "no intervention on the past")
            verify(past.now < 0, "no wait measured from now at a past revision")
            verify(!findChild(coordination, "setBarrier").button.enabled)

            mouseClick(findChild(coordination, "backToLive"))
            compare(coordination.asOfRevision, 0)
            tryCompare(banner, "visible", false)
            tryCompare(coordination, "ready", true, qetcdTest.timeout(10000))
            // Live: the lock is free (no object), beta leads.
            tryVerify(function() { return cardOf(coordination, "election") !== null && cardOf(coordination, "lock") === null },
                      qetcdTest.timeout(10000), "the cluster as it is now")
            verify(!cardOf(coordination, "election").readOnly)
            verify(findChild(coordination, "setBarrier").button.enabled)
        }

        // The Keys page as of a revision: the value then, nothing to write, and back to live.
        function test_keysAsOfARevision() {
            const key = root.base + "config/mode"
            qetcdTest.etcdctl(["put", key, "one"])
            const then = storeRevision()
            qetcdTest.etcdctl(["put", key, "two"])
            qetcdTest.etcdctl(["put", root.base + "config/later", "x"])

            const page = createTemporaryObject(keysPage, root, { asOfRevision: then })
            page.backToLive.connect(function() { page.asOfRevision = 0 })
            page.model.prefix = root.base
            page.select(key)
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))
            compare(page.model.count, 1, "config/later came after")
            tryVerify(function() { return page.model.selected.value === "one" }, qetcdTest.timeout(10000), "the value then")
            compare(page.summary.asOfRevision, then)
            const banner = findChild(page, "asOfBanner")
            verify(banner.visible)
            verify(banner.text.indexOf("As of revision " + then) === 0, banner.text)
            verify(!findChild(page, "newKeyButton").button.enabled, "nothing is written in the past")

            mouseClick(findChild(page, "backToLive"))
            compare(page.asOfRevision, 0)
            tryCompare(banner, "visible", false)
            tryCompare(page.model, "count", 2, qetcdTest.timeout(10000))
            tryVerify(function() { return page.model.selected.value === "two" }, qetcdTest.timeout(10000), "the value now")
            verify(findChild(page, "newKeyButton").button.enabled)
            // Live again: a change shows, as the watch brings it.
            qetcdTest.etcdctl(["put", root.base + "config/newest", "y"])
            tryCompare(page.model, "count", 3, qetcdTest.timeout(10000))
        }

        // A revision etcd no longer keeps is said so, not shown empty.
        function test_compactedRevisionIsAnError() {
            const before = storeRevision()
            first.lock()
            tryCompare(first, "held", true, qetcdTest.timeout(10000))
            verify(first.unlock())
            qetcdTest.etcdctl(["compact", String(storeRevision())])
            const coordination = createTemporaryObject(coordinationPage, root, { asOfRevision: before })
            coordination.model.prefix = root.base
            tryCompare(coordination.model, "status", ModelStatus.Error, qetcdTest.timeout(10000))
            verify(coordination.model.errorString.indexOf("revision " + before) >= 0, coordination.model.errorString)
        }
    }
}
