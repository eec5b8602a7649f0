// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's Coordination page against a real etcd: a holder's lease as a countdown ring,
// a pause that holds the cards still while etcd changes, and an operator's interventions from
// the cards (asked first, refused under read-only, typed off this machine), each told to the
// participant it hits and written to the event log.
Item {
    id: root
    width: 1200
    height: 760

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    Mutex { id: mutex; client: direct; path: "/qml/coordinationpage/locks/deploy"; ttl: 7 }
    Mutex { id: second; client: direct; path: "/qml/coordinationpage/locks/deploy"; ttl: 7 }
    Barrier { id: gate; client: direct; path: "/qml/coordinationpage/gates/start"; ttl: 9 }
    Barrier { id: waiter; client: direct; path: "/qml/coordinationpage/gates/start"; ttl: 9 }
    Election { id: leader; client: direct; path: "/qml/coordinationpage/elections/primary"; ttl: 9; proclamation: "alpha" }
    Election { id: candidate; client: direct; path: "/qml/coordinationpage/elections/primary"; ttl: 9; proclamation: "beta" }
    Queue { id: jobs; client: direct; path: "/qml/coordinationpage/queues/jobs" }
    Counter { id: counter; client: direct; path: "/qml/coordinationpage/counters/builds" }
    EventLogModel { id: log }

    Component { id: signalSpy; SignalSpy {} }
    Component { id: cardComponent; CoordinationCard {} }
    Component {
        id: coordinationPage
        CoordinationPage { anchors.fill: parent; eventLog: log }
    }

    TestCase {
        name: "CoordinationPage"
        when: windowShown

        function cleanup() {
            second.close()
            mutex.close()
            gate.close()
            waiter.close()
            candidate.close()
            leader.close()
            log.clear()
            counter.close()
            jobs.close()
        }

        function openPage(properties) {
            const page = createTemporaryObject(coordinationPage, root, Object.assign({ client: direct.client }, properties || {}))
            verify(page)
            page.model.prefix = "/qml/coordinationpage/"
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))
            return page
        }
        function rings(page) {
            const found = []
            const visit = function(item) {
                if (item.objectName === "leaseRing" && item.visible)
                    found.push(item)
                for (let i = 0; i < item.children.length; ++i)
                    visit(item.children[i])
            }
            visit(page)
            return found
        }

        // Every visible item called name under item.
        function allNamed(item, name) {
            const found = []
            const visit = function(each) {
                if (each.objectName === name && each.visible)
                    found.push(each)
                for (let i = 0; i < each.children.length; ++i)
                    visit(each.children[i])
            }
            visit(item)
            return found
        }
        function cardOf(page, kind) {
            const cards = findChild(page, "cards")
            for (let i = 0; i < cards.count; ++i) {
                if (cards.itemAt(i) && cards.itemAt(i).kind === kind)
                    return cards.itemAt(i)
            }
            return null
        }
        // The nth entry button of the card of kind, once it shows.
        function entryAction(page, kind, nth) {
            let button = null
            tryVerify(function() {
                const card = cardOf(page, kind)
                const buttons = card ? allNamed(card, "entryAction") : []
                button = buttons.length > nth ? buttons[nth] : null
                return button !== null
            }, qetcdTest.timeout(10000), "the card's entry actions show")
            return button
        }
        // Clicks item once it and every item around it are laid out. A positioner places rows
        // the Repeater just made at its next polish: until then they share one spot, and a click
        // there lands on whichever row is on top (the flaky "Delete hit the second item").
        function settledClick(item) {
            tryVerify(function() {
                for (let each = item; each; each = each.parent) {
                    if (isPolishScheduled(each))
                        return false
                }
                return true
            }, qetcdTest.timeout(5000), "laid out before the click")
            mouseClick(item)
        }
        function confirmDialog(page) {
            const dialog = findChild(page, "confirmIntervention")
            verify(dialog)
            tryCompare(dialog, "opened", true, qetcdTest.timeout(5000))
            return dialog
        }
        function loggedKinds() {
            const kinds = []
            for (let i = 0; i < log.count; ++i)
                kinds.push(log.get(i).participant + ":" + log.get(i).kind)
            return kinds
        }

        // Breaking a hold from the card: the dialog names the holder and its token, the holder
        // is told it lost the lock, the next in line acquires, and the log says what was done.
        function test_breakHoldFromTheCard() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            second.lock()
            const page = openPage()
            tryVerify(function() { const card = cardOf(page, "lock"); return card && card.waiters.length === 1 }, qetcdTest.timeout(10000))

            settledClick(entryAction(page, "lock", 0))
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf(String(mutex.fencingToken)) >= 0, dialog.message)
            verify(dialog.message.indexOf("Next in line") >= 0, dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))

            tryCompare(mutex, "state", Participant.Lost, qetcdTest.timeout(10000))
            tryCompare(second, "held", true, qetcdTest.timeout(10000))
            tryVerify(function() { return loggedKinds().indexOf("operator:intervention") >= 0 }, qetcdTest.timeout(5000))
            compare(page.actionError, "")
        }

        // A hand-over between two holders the page only watches: the card says it happened, and
        // when; what was there before the page opened is not made up.
        function test_cardTellsAHandOverLately() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            second.lock()
            const page = openPage()
            tryVerify(function() { const card = cardOf(page, "lock"); return card && card.waiters.length === 1 }, qetcdTest.timeout(10000))
            const card = cardOf(page, "lock")
            const lately = findChild(card, "recent")
            mutex.unlock()
            tryCompare(second, "held", true, qetcdTest.timeout(10000))
            tryVerify(function() { return card.recent.length > 0 && card.recent[0].event === "handedOn" }, qetcdTest.timeout(10000))
            // The hold taken before the page opened is not told as if it had been seen.
            verify(card.recent.every(function(event) { return event.event !== "acquired" }), JSON.stringify(card.recent))
            verify(lately.visible)
            const rows = lately.children[1].children
            let line = null
            for (let i = 0; i < rows.length; ++i) {
                if (rows[i].text !== undefined && line === null)
                    line = rows[i]  // the newest
            }
            verify(line)
            verify(line.text.indexOf("ago  handed on from ") > 0, line.text)
            // The layout gives the rows their width at its next polish, not when they appear.
            tryVerify(function() { return line.width > 100 && line.width <= card.width }, qetcdTest.timeout(5000),
                      "the line fits the card: " + line.width)
            // With QETCD_SCREENSHOT_DIR set, the card as the README shows it.
            const pictures = qetcdTest.setEnvironmentVariable("QETCD_SCREENSHOT_DIR", "")
            qetcdTest.setEnvironmentVariable("QETCD_SCREENSHOT_DIR", pictures)
            if (pictures.length > 0) {
                waitForRendering(page)
                grabImage(page).save(pictures + "/coordination-lately.png")
            }
        }

        // Cancel writes nothing; the waiter's own button removes it from the queue.
        function test_cancelWritesNothingAndAWaiterCanBeRemoved() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            second.lock()
            const page = openPage()
            tryVerify(function() { const card = cardOf(page, "lock"); return card && card.waiters.length === 1 }, qetcdTest.timeout(10000))

            settledClick(entryAction(page, "lock", 0))
            let dialog = confirmDialog(page)
            dialog.reject()
            tryCompare(dialog, "visible", false, qetcdTest.timeout(5000))
            verify(mutex.held)

            settledClick(entryAction(page, "lock", 1))  // the waiter's row
            dialog = confirmDialog(page)
            verify(dialog.title.indexOf("waiter") >= 0, dialog.title)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { const card = cardOf(page, "lock"); return card && card.waiters.length === 0 }, qetcdTest.timeout(10000))
            verify(mutex.held, "the holder keeps its hold")
            tryVerify(function() { return second.errorString.length > 0 }, qetcdTest.timeout(10000), "the waiter is told")
        }

        // Lifting a barrier someone else set: the waiter passes, the owner is told.
        function test_liftBarrierReleasesTheWaiterAndTellsTheOwner() {
            gate.set()
            tryCompare(gate, "owner", true, qetcdTest.timeout(10000))
            waiter.wait()
            tryCompare(waiter, "state", Participant.Pending, qetcdTest.timeout(10000))
            const page = openPage()
            settledClick(entryAction(page, "barrier", 0))
            settledClick(findChild(confirmDialog(page).footer, "confirmButton"))
            tryCompare(waiter, "state", Participant.Active, qetcdTest.timeout(10000))
            compare(waiter.liftReason, Barrier.Deleted)
            tryCompare(gate, "owner", false, qetcdTest.timeout(10000))
            tryVerify(function() { return loggedKinds().indexOf("operator:intervention") >= 0 }, qetcdTest.timeout(5000))
        }

        // The console sets a barrier of its own from the page: a process waiting at it blocks,
        // the card says the console set it, and lifting it from there is the owner's removal.
        function test_setABarrierAndLiftItFromItsCard() {
            const page = openPage({ participantOptions: () => ({ endpoints: [qetcdTest.endpoint] }) })
            settledClick(findChild(page, "setBarrier"))
            const dialog = confirmDialog(page)
            const confirm = findChild(dialog.footer, "confirmButton")
            const input = findChild(dialog, "input")
            verify(input.visible)
            verify(!confirm.enabled, "not before a key is given")
            input.text = "  "
            verify(!confirm.enabled, "blank is not a key")
            input.text = "/qml/coordinationpage/gates/start"
            verify(confirm.enabled)
            settledClick(confirm)
            tryVerify(function() { const owned = page.ownBarriers["/qml/coordinationpage/gates/start"]; return owned && owned.leaseId !== "" },
                      qetcdTest.timeout(10000), "the console owns the barrier")
            waiter.wait()
            tryCompare(waiter, "state", Participant.Pending, qetcdTest.timeout(10000))

            let lift = null
            tryVerify(function() {
                lift = allNamed(cardOf(page, "barrier") || page, "entryAction").find(function(button) {
                    return button.parent.modelData && button.parent.modelData.detail === "set by this console"
                }) || null
                return lift !== null
            }, qetcdTest.timeout(10000), "the card says who set it")
            settledClick(lift)
            const asked = confirmDialog(page)
            verify(asked.message.indexOf("This console set it") >= 0, asked.message)
            settledClick(findChild(asked.footer, "confirmButton"))
            tryCompare(waiter, "state", Participant.Active, qetcdTest.timeout(10000))
            compare(waiter.liftReason, Barrier.Removed, "the owner's own removal, not someone else's deletion")
            tryVerify(function() { return Object.keys(page.ownBarriers).length === 0 }, qetcdTest.timeout(10000))
            // The log takes events in once a frame.
            tryVerify(function() { const logged = loggedKinds(); return logged.indexOf("operator:barrierSet") >= 0 && logged.indexOf("operator:barrierRemoved") >= 0 },
                      qetcdTest.timeout(5000), "the owner's set and removal are logged as the operator's")
        }

        // A barrier someone else has set is not taken over: the page says why nothing was set.
        function test_setBarrierWhereAnotherIsUpIsRefused() {
            gate.set()
            tryCompare(gate, "owner", true, qetcdTest.timeout(10000))
            const page = openPage({ participantOptions: () => ({ endpoints: [qetcdTest.endpoint] }) })
            settledClick(findChild(page, "setBarrier"))
            const dialog = confirmDialog(page)
            findChild(dialog, "input").text = "/qml/coordinationpage/gates/start"
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { return page.actionError.indexOf("was not set") >= 0 }, qetcdTest.timeout(10000))
            compare(Object.keys(page.ownBarriers).length, 0)
            verify(gate.owner)
        }

        function test_forceReelectionElectsTheNextCandidate() {
            leader.campaign()
            tryCompare(leader, "isLeader", true, qetcdTest.timeout(10000))
            candidate.campaign()
            const page = openPage()
            tryVerify(function() { const card = cardOf(page, "election"); return card && card.waiters.length === 1 }, qetcdTest.timeout(10000))
            settledClick(entryAction(page, "election", 0))
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf("Next in line") >= 0, dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryCompare(candidate, "isLeader", true, qetcdTest.timeout(10000))
            tryCompare(leader, "isLeader", false, qetcdTest.timeout(10000))
        }

        // Read-only: every action is disabled, and the actions object refuses before sending.
        function test_readOnlyDisablesEveryIntervention() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            const page = openPage({ readOnly: true })
            const button = entryAction(page, "lock", 0)
            verify(!button.button.enabled, "a read-only page's intervention is disabled")
            settledClick(button)
            verify(!findChild(page, "confirmIntervention").visible, "no dialog opens")
            const setBarrier = findChild(page, "setBarrier")
            verify(!setBarrier.button.enabled, "nor can a barrier be set")
            settledClick(setBarrier)
            verify(!findChild(page, "confirmIntervention").visible, "no dialog opens")
            // Had anything been sent, it would be pending from the call on.
            compare(findChild(page, "coordinationActions").pending, 0)
            verify(mutex.held)
        }

        // Every card kind's interventions, under read-only: each one shows, disabled, and a click
        // asks nothing; the same card writable enables each of them.
        function test_readOnlyCardsOfEveryKind_data() {
            const entry = (key, lease) => ({ key: key, keyBase64: Qt.btoa(key), clientId: key, lease: lease, createRevision: 7, sinceMs: Date.now() })
            const holder = [entry("/x/holder", "1a")], waiter = [entry("/x/waiter", "1b")]
            const item = [{ key: "/x/items/1", keyBase64: Qt.btoa("/x/items/1"), value: "job", size: 3, createRevision: 9 }]
            const letter = [{ key: "l1", keyBase64: Qt.btoa("l1"), value: "poison", size: 6, attempts: 5, detail: "delivered 5 time(s)" }]
            return [
                { tag: "lock", kind: "lock", holders: holder, waiters: waiter, actions: 2 },
                { tag: "readWriteLock", kind: "readWriteLock", holders: holder, waiters: waiter, actions: 2 },
                { tag: "semaphore", kind: "semaphore", holders: holder, waiters: waiter, permits: 2, actions: 2 },
                { tag: "election", kind: "election", holders: holder, waiters: waiter, actions: 2 },
                { tag: "barrier", kind: "barrier", holders: holder, set: true, actions: 1 },
                { tag: "countedBarrier", kind: "countedBarrier", holders: holder, members: waiter, set: true, actions: 1 },
                { tag: "service", kind: "service", members: holder, actions: 1 },
                { tag: "queue", kind: "queue", depth: 1, peekedItems: item, actions: 1 },
                { tag: "priorityQueue", kind: "priorityQueue", depth: 1, peekedItems: item, actions: 1 },
                { tag: "workQueue", kind: "workQueue", depth: 1, delayed: 2, deadLetters: 1, orphans: 1, peekedItems: item, peekedDeadLetters: letter, actions: 5 },
                { tag: "counter", kind: "counter", value: "5", actions: 1 },
            ]
        }
        function test_readOnlyCardsOfEveryKind(data) {
            const card = createTemporaryObject(cardComponent, root, {
                kind: data.kind, name: "/x", holders: data.holders || [], waiters: data.waiters || [], members: data.members || [], leaving: [],
                permits: data.permits || 0, set: !!data.set, depth: data.depth || 0, delayed: data.delayed || 0, oldest: 0, inFlight: 0,
                deadLetters: data.deadLetters || 0, orphans: data.orphans || 0, value: data.value, rule: "", recent: [],
                peekedItems: data.peekedItems || [], peekedDeadLetters: data.peekedDeadLetters || [], readOnly: true, width: 560 })
            verify(card)
            const asked = signalSpy.createObject(card, { target: card, signalName: "intervene" })
            const writeButtons = function() {
                const found = []
                const visit = function(item) {
                    if (item.visible && item.button !== undefined && item.readOnly !== undefined)
                        found.push(item)
                    for (let i = 0; i < item.children.length; ++i)
                        visit(item.children[i])
                }
                visit(card)
                return found
            }
            let buttons = []
            tryVerify(function() { buttons = writeButtons(); return buttons.length === data.actions }, qetcdTest.timeout(5000),
                      "each intervention of the card shows")
            for (const button of buttons) {
                verify(!button.button.enabled, button.text + " is disabled")
                settledClick(button)
            }
            compare(asked.count, 0, "no intervention is asked for")
            // Only a queue card makes a queue's parts: a card is reused for every kind.
            const delayed = findChild(card, "delayedItems")
            compare(delayed !== null, data.kind.indexOf("ueue") > 0)
            compare(delayed !== null && delayed.visible, data.kind === "workQueue")
            if (data.kind === "workQueue")
                compare(delayed.value, "2 item(s) to be delivered later")
            const peek = findChild(card, "peek")
            if (peek && peek.visible)
                verify(peek.enabled, "peeking reads, and stays enabled")

            card.readOnly = false
            for (const button of writeButtons())
                verify(button.button.enabled, button.text + " is enabled on a writable connection")
        }

        // Off this machine the confirm button waits for the cluster's name.
        function test_typedConfirmationOffThisMachine() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            const page = openPage({ confirmationWord: "prod-eu" })
            settledClick(entryAction(page, "lock", 0))
            const dialog = confirmDialog(page)
            const confirm = findChild(dialog.footer, "confirmButton")
            verify(!confirm.enabled, "not before the name is typed")
            const typed = findChild(dialog, "typedConfirmation")
            verify(typed.visible)
            typed.forceActiveFocus()
            keyClick(Qt.Key_P)
            dialog.accept()  // Enter with the wrong word: nothing is sent
            compare(findChild(page, "coordinationActions").pending, 0)
            tryCompare(dialog, "visible", false, qetcdTest.timeout(5000))
            verify(mutex.held)

            settledClick(entryAction(page, "lock", 0))
            confirmDialog(page)
            compare(typed.text, "", "each time the name is typed afresh")
            typed.text = "prod-eu"
            verify(confirm.enabled)
            settledClick(confirm)
            tryCompare(mutex, "state", Participant.Lost, qetcdTest.timeout(10000))
        }

        // A counter is set by compare-and-set against the value its card shows: the dialog asks
        // for the new value and waits until it is a whole number.
        function test_setCounterFromTheCard() {
            counter.add(5)
            tryCompare(counter, "value", 5, qetcdTest.timeout(10000))
            const page = openPage()
            let button = null
            tryVerify(function() { const card = cardOf(page, "counter"); button = card ? findChild(card, "setCounter") : null; return button && card.value === 5 },
                      qetcdTest.timeout(10000))
            settledClick(button)
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf("5") >= 0, dialog.message)
            const confirm = findChild(dialog.footer, "confirmButton")
            const input = findChild(dialog, "input")
            verify(input.visible)
            input.text = "forty-two"
            verify(!confirm.enabled, "not a number")
            input.text = "42"
            verify(confirm.enabled)
            settledClick(confirm)
            tryVerify(function() { return loggedKinds().indexOf("operator:intervention") >= 0 }, qetcdTest.timeout(10000))
            counter.refresh()
            tryCompare(counter, "value", 42, qetcdTest.timeout(10000))
        }

        // A work queue's dead letters, counted on its card, purged from it.
        function test_purgeAWorkQueuesDeadLetters() {
            for (const id of ["a", "b"])
                qetcdTest.etcdctl(["put", "/qml/coordinationpage/jobs/dlq/" + id, "letter " + id])
            const page = openPage()
            let button = null
            tryVerify(function() { const card = cardOf(page, "workQueue"); button = card ? findChild(card, "purgeDeadLetters") : null; return button && button.visible && card.deadLetters === 2 },
                      qetcdTest.timeout(10000))
            settledClick(button)
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf("2 dead letter") >= 0, dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { return cardOf(page, "workQueue") === null }, qetcdTest.timeout(10000), "the letters are gone")
            compare(qetcdTest.etcdctl(["get", "/qml/coordinationpage/jobs/", "--prefix", "--keys-only"]).trim(), "")
        }

        // Peek on a work queue lists its first dead letters too; one of them is requeued from
        // there, and only that one leaves the dead letters.
        function test_requeueOneDeadLetter() {
            for (const id of ["a", "b"])
                qetcdTest.etcdctl(["put", "/qml/coordinationpage/jobs/dlq/" + id, "letter " + id])
            const page = openPage()
            let peek = null
            tryVerify(function() { const card = cardOf(page, "workQueue"); peek = card ? findChild(card, "peek") : null; return peek && peek.visible && card.deadLetters === 2 },
                      qetcdTest.timeout(10000), "a work queue with dead letters only can be peeked")
            settledClick(peek)
            tryVerify(function() { return cardOf(page, "workQueue").peekedDeadLetters.length === 2 }, qetcdTest.timeout(10000))
            const letters = cardOf(page, "workQueue").peekedDeadLetters
            compare(letters[0].key, "a")
            compare(letters[1].value, "letter b")
            compare(letters[1].detail, "delivered 0 time(s)")

            let requeueFirst = null
            tryVerify(function() {
                requeueFirst = allNamed(cardOf(page, "workQueue"), "entryAction").find(function(button) {
                    return button.parent.modelData && button.parent.modelData.key === "a"
                }) || null
                return requeueFirst !== null
            }, qetcdTest.timeout(10000))
            compare(requeueFirst.text, "Requeue")
            settledClick(requeueFirst)
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf("letter a") >= 0 && dialog.message.indexOf("fresh delivery count") >= 0, dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { const card = cardOf(page, "workQueue"); return card && card.peekedDeadLetters.length === 1 && card.peekedDeadLetters[0].key === "b" },
                      qetcdTest.timeout(10000), "the dead letters are read again after the requeue")
            compare(qetcdTest.etcdctl(["get", "/qml/coordinationpage/jobs/items/a", "--print-value-only"]).trim(), "letter a")
            compare(qetcdTest.etcdctl(["get", "/qml/coordinationpage/jobs/dlq/", "--prefix", "--keys-only"]).trim(), "/qml/coordinationpage/jobs/dlq/b")
            tryVerify(function() { return loggedKinds().indexOf("operator:intervention") >= 0 }, qetcdTest.timeout(10000))
            qetcdTest.etcdctl(["del", "/qml/coordinationpage/jobs/", "--prefix"])
        }

        // Peek shows a queue's first items in the order they leave; one is deleted from there.
        function test_peekAndDeleteAQueueItem() {
            const enqueued = signalSpy.createObject(root, { target: jobs, signalName: "enqueued" })
            jobs.put("first")
            tryCompare(enqueued, "count", 1, qetcdTest.timeout(10000))
            jobs.put("second")
            tryCompare(enqueued, "count", 2, qetcdTest.timeout(10000))
            const page = openPage()
            let peek = null
            tryVerify(function() { const card = cardOf(page, "queue"); peek = card ? findChild(card, "peek") : null; return peek && peek.visible },
                      qetcdTest.timeout(10000))
            settledClick(peek)
            tryVerify(function() { return cardOf(page, "queue").peekedItems.length === 2 }, qetcdTest.timeout(10000))
            compare(cardOf(page, "queue").peekedItems[0].value, "first")

            // The row's own button: rows may be laid out before every one of them exists.
            let deleteFirst = null
            tryVerify(function() {
                deleteFirst = allNamed(cardOf(page, "queue"), "entryAction").find(function(button) {
                    return button.parent.modelData && button.parent.modelData.value === "first"
                }) || null
                return deleteFirst !== null
            }, qetcdTest.timeout(10000))
            settledClick(deleteFirst)
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf("first") >= 0, dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { const items = cardOf(page, "queue").peekedItems; return items.length === 1 && items[0].value === "second" },
                      qetcdTest.timeout(10000), "the list is read again after the delete")
            enqueued.destroy()
        }

        // A holder's or a waiter's name opens its key: a click, or Enter on it after Tab.
        function test_clickingAnEntryOpensItsKey() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            second.lock()
            const page = openPage()
            const chosen = signalSpy.createObject(page, { target: page, signalName: "keyChosen" })
            let names = []
            tryVerify(function() { const card = cardOf(page, "lock"); names = card ? allNamed(card, "entryName") : []; return names.length === 2 },
                      qetcdTest.timeout(10000), "the holder and the waiter show")
            settledClick(names[0])
            tryCompare(chosen, "count", 1, qetcdTest.timeout(5000))
            compare(chosen.signalArguments[0][0], mutex.holdKey)
            compare(chosen.signalArguments[0][1], mutex.path)
            names[1].forceActiveFocus()
            keyClick(Qt.Key_Return)
            compare(chosen.count, 2)
            verify(chosen.signalArguments[1][0] !== mutex.holdKey && chosen.signalArguments[1][0].startsWith(mutex.path + "/"),
                   chosen.signalArguments[1][0])
        }

        function test_holderShowsItsLeaseAsARing() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            const page = openPage()
            tryVerify(function() { return rings(page).length === 1 }, qetcdTest.timeout(10000))
            const ring = rings(page)[0]
            compare(ring.total, 7)
            verify(ring.remaining > 0 && ring.remaining <= 7, ring.remaining)
            // It counts down between the model's refreshes, and the holder's renewals refill it.
            const first = ring.remaining
            tryVerify(function() { return ring.remaining !== first }, qetcdTest.timeout(5000))

            mutex.unlock()
            tryVerify(function() { return rings(page).length === 0 }, qetcdTest.timeout(10000))
        }

        // A card's holders and waiters are a new list with every change, while the page is
        // resized: their rows must never be measured after they are gone (the Keys page's crash
        // shape, issue 32 §2, here in EntryList).
        function test_entriesComeAndGoWhileThePageResizes() {
            const page = openPage()
            const cards = findChild(page, "cards")
            const widthBefore = root.width
            const card = function() { return cards.count === 1 ? cards.itemAt(0) : null }
            for (let i = 0; i < 20; ++i) {
                mutex.lock()
                tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
                second.lock()
                tryVerify(function() { return card() && card().waiters.length === 1 }, qetcdTest.timeout(10000))
                root.width = widthBefore - 40 + (i % 5) * 20
                waitForRendering(page)
                mutex.unlock()
                tryCompare(second, "held", true, qetcdTest.timeout(10000))
                tryVerify(function() { return card() && card().waiters.length === 0 }, qetcdTest.timeout(10000))
                root.width = widthBefore + 40 - (i % 5) * 20
                waitForRendering(page)
                second.unlock()
                tryVerify(function() { return cards.count === 0 }, qetcdTest.timeout(10000))
            }
            root.width = widthBefore
        }

        // Many objects make only the cards in sight, and scrolling brings the others: the page
        // reuses its cards rather than making one per object (bench_console --cases cards).
        function test_onlyTheCardsInSightAreMade() {
            const lease = qetcdTest.etcdctl(["lease", "grant", "120"]).split(" ")[1]
            const objects = 60
            for (let i = 0; i < objects; ++i)
                qetcdTest.etcdctl(["put", "--lease=" + lease, "/qml/coordinationpage/many/lock" + String(i).padStart(2, "0") + "/" + lease,
                                   "{\"clientId\":\"c" + i + "\",\"host\":\"h\",\"pid\":1}"])
            const page = createTemporaryObject(coordinationPage, root, { client: direct.client })
            page.model.prefix = "/qml/coordinationpage/many/"
            const cards = findChild(page, "cards")
            tryCompare(cards, "count", objects, qetcdTest.timeout(10000))
            const made = function() {
                let count = 0
                const visit = function(item) {
                    if (item.kind !== undefined && item.holders !== undefined && item.visible)
                        ++count
                    for (let i = 0; i < item.children.length; ++i)
                        visit(item.children[i])
                }
                visit(cards)
                return count
            }
            tryVerify(function() { return made() > 0 }, qetcdTest.timeout(5000))
            verify(made() < objects / 2, made() + " cards shown for " + objects + " objects")
            compare(cards.itemAt(objects - 1), null, "the last card is not made before it is in sight")
            cards.positionViewAtRow(cards.rows - 1, TableView.AlignBottom)
            tryVerify(function() { return cards.itemAt(objects - 1) !== null }, qetcdTest.timeout(5000))
            compare(cards.itemAt(objects - 1).name, "/qml/coordinationpage/many/lock" + (objects - 1))
            verify(made() < objects / 2, made() + " cards shown after scrolling")
            qetcdTest.etcdctl(["lease", "revoke", lease])
            tryCompare(cards, "count", 0, qetcdTest.timeout(10000))
        }

        // Each card has the height it asks for, in the light look and the dark: a row is as tall as
        // its taller card, measured again when a card grows after it was laid out.
        function test_everyCardFitsItsRow() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            second.lock()
            leader.campaign()
            tryCompare(leader, "isLeader", true, qetcdTest.timeout(10000))
            candidate.campaign()
            gate.set()
            for (const dark of [true, false]) {
                Theme.dark = dark
                const page = openPage()
                const cards = findChild(page, "cards")
                tryVerify(function() { const card = cardOf(page, "lock"); return card && card.waiters.length === 1 }, qetcdTest.timeout(10000))
                tryVerify(function() { const card = cardOf(page, "election"); return card && card.waiters.length === 1 }, qetcdTest.timeout(10000))
                const cramped = function() {
                    const found = []
                    for (let i = 0; i < cards.count; ++i) {
                        const card = cards.itemAt(i)
                        if (card && card.height + 1 < card.implicitHeight)
                            found.push(card.name + " " + card.height + " < " + card.implicitHeight)
                    }
                    return found
                }
                tryVerify(function() { return cramped().length === 0 }, qetcdTest.timeout(5000), "dark " + dark + ": " + cramped().join(", "))
                page.destroy()
            }
        }

        function test_pauseHoldsTheCardsStill() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            const page = openPage()
            tryCompare(page.model, "count", 1, qetcdTest.timeout(10000))
            const shown = page.model.count

            page.paused = true
            gate.set()
            tryCompare(gate, "owner", true, qetcdTest.timeout(10000))
            tryCompare(page.model, "count", shown + 1, qetcdTest.timeout(10000))
            const cards = findChild(page, "cards")
            compare(cards.count, shown, "a paused page shows the objects as they were")
            verify(findChild(page, "heldNote").text.length > 0)

            page.paused = false
            tryCompare(cards, "count", shown + 1, qetcdTest.timeout(10000))
        }

        // A lock known only by a convention (a leased key under locks/, as node etcd3 writes
        // it) says so on its card; etcd's own layout needs no caption.
        function test_cardNamesTheRuleThatMatched() {
            mutex.lock()
            tryCompare(mutex, "held", true, qetcdTest.timeout(10000))
            const lease = qetcdTest.etcdctl(["lease", "grant", "60"]).split(" ")[1]
            qetcdTest.etcdctl(["put", "--lease=" + lease, "/qml/coordinationpage/clients/locks/job", "x"])
            const page = openPage()
            const cards = findChild(page, "cards")
            tryCompare(cards, "count", 2, qetcdTest.timeout(10000))
            // Sorted by path: the client's lock, then qetcd's.
            const captions = allNamed(cards.itemAt(0), "rule")
            compare(captions.length, 1)
            verify(captions[0].text.indexOf("leased key under locks/ (node etcd3 lock)") >= 0, captions[0].text)
            compare(allNamed(cards.itemAt(1), "rule").length, 0)
            qetcdTest.etcdctl(["lease", "revoke", lease])
            tryCompare(cards, "count", 1, qetcdTest.timeout(10000))
        }

        // Patroni's layout, written here by etcdctl (running Patroni needs PostgreSQL): a
        // PostgreSQL cluster card with its leader on a lease (a ring) and members as their JSON
        // describes them, and no interventions; the leader's lease ends and the card follows.
        function test_patroniClusterCard() {
            const lease = qetcdTest.etcdctl(["lease", "grant", "60"]).split(" ")[1]
            const scope = "/qml/coordinationpage/service/pg"
            qetcdTest.etcdctl(["put", scope + "/config", '{"ttl":30,"loop_wait":10}'])
            qetcdTest.etcdctl(["put", "--lease=" + lease, scope + "/members/pg-0",
                               '{"conn_url":"postgres://10.0.0.1:5432/postgres","role":"primary","state":"running"}'])
            qetcdTest.etcdctl(["put", scope + "/members/pg-1",
                               '{"conn_url":"postgres://10.0.0.2:5432/postgres","role":"replica","state":"streaming"}'])
            qetcdTest.etcdctl(["put", "--lease=" + lease, scope + "/leader", "pg-0"])
            const page = openPage()
            let card = null
            tryVerify(function() { card = cardOf(page, "postgresCluster"); return card !== null }, qetcdTest.timeout(10000))
            compare(card.kindLabel, "PostgreSQL cluster")
            compare(card.rule, "Patroni")
            const leader = findChild(card, "clusterLeader")
            const members = findChild(card, "clusterMembers")
            verify(leader.visible && members.visible)
            compare(leader.model.length, 1)
            compare(leader.model[0].name, "pg-0")
            compare(members.model.map(function(member) { return member.name }),
                    ["pg-0 (primary, running)", "pg-1 (replica, streaming)"])
            tryVerify(function() { return allNamed(leader, "leaseRing").length === 1 }, qetcdTest.timeout(10000),
                      "the leader's lease shows as a ring")
            compare(allNamed(card, "entryAction").length, 0, "Patroni decides failovers, not the card")

            qetcdTest.etcdctl(["lease", "revoke", lease])
            tryVerify(function() { return card.holders.length === 0 && card.members.length === 1 }, qetcdTest.timeout(10000))
            compare(members.model[0].name, "pg-1 (replica, streaming)")
            qetcdTest.etcdctl(["del", "--prefix", scope + "/"])
        }
    }
}
