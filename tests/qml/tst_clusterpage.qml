// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The Cluster page's maintenance against a real etcd: a consistency check, a compaction and
// defragmentation asked for and carried out, each written to the event log as the operator's,
// refused under read-only, and typed off this machine; NOSPACE raised for real, and disarmed
// once compaction and defragmentation freed the space; a snapshot saved (read-only too), with
// its SHA-256 at the end, an existing file kept, and a cancelled save leaving nothing; the
// leadership of a three-member cluster moved to a follower; a learner added (at a peer URL where
// nothing runs, so the one voter keeps the quorum), its promotion refused by etcd, its peer URLs
// changed and the member removed, each confirmed with what it does to the quorum.
Item {
    id: root
    width: 1200
    height: 760

    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    EventLogModel { id: log }
    ClusterModel { id: cluster; client: direct.client; eventLog: log }

    Component {
        id: clusterPage
        ClusterPage { anchors.fill: parent; members: cluster }
    }
    // A member whose 1 MiB quota is full: NOSPACE raised for real.
    EtcdClient { id: full; endpoints: [qetcdTest.noSpaceEndpoint()] }
    EventLogModel { id: fullLog }
    ClusterModel { id: fullCluster; client: full.client; eventLog: fullLog }
    Component {
        id: fullClusterPage
        ClusterPage { anchors.fill: parent; members: fullCluster }
    }

    // Three members of their own: a leadership to move.
    EtcdClient { id: trio; endpoints: qetcdTest.threeMemberEndpoints() }
    EventLogModel { id: trioLog }
    ClusterModel { id: trioCluster; client: trio.client; eventLog: trioLog }
    Component {
        id: trioClusterPage
        ClusterPage { anchors.fill: parent; members: trioCluster }
    }

    TestCase {
        name: "ClusterPage"
        when: windowShown

        function cleanup() {
            log.clear()
            trioLog.clear()
            // A membership test that failed half-way leaves no member behind for the next.
            for (const line of qetcdTest.etcdctl(["member", "list"]).trim().split("\n")) {
                const fields = line.split(", ")
                if (fields[1] === "unstarted")
                    qetcdTest.etcdctl(["member", "remove", fields[0]])
            }
        }

        function openPage(properties) {
            const page = createTemporaryObject(clusterPage, root, properties || {})
            verify(page)
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))
            tryVerify(function() { return cluster.count === 1 && cluster.healthyCount === 1 }, qetcdTest.timeout(10000))
            return page
        }
        // Clicks item once it and every item around it are laid out.
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
            const dialog = findChild(page, "confirmAction")
            verify(dialog)
            tryCompare(dialog, "opened", true, qetcdTest.timeout(5000))
            return dialog
        }
        function loggedKinds() {
            const kinds = []
            for (let i = 0; i < log.count; ++i)
                kinds.push(log.get(i).participant + ":" + log.get(i).kind + ":" + log.get(i).detail)
            return kinds
        }
        function visibleNamed(item, name) {
            let found = null
            const visit = function(each) {
                if (!found && each.objectName === name && each.visible)
                    found = each
                for (let i = 0; i < each.children.length && !found; ++i)
                    visit(each.children[i])
            }
            visit(item)
            return found
        }

        function test_consistencyCheckSaysTheMembersAgree() {
            const page = openPage()
            settledClick(findChild(page, "checkConsistency"))
            const banner = findChild(page, "maintenance")
            tryVerify(function() { return banner.text.indexOf("hold the same keys") >= 0 }, qetcdTest.timeout(10000), banner.text)
            verify(banner.good && !banner.bad)
        }

        function compactDialog(page) {
            settledClick(findChild(page, "compact"))
            const dialog = findChild(page, "compactDialog")
            verify(dialog)
            tryCompare(dialog, "opened", true, qetcdTest.timeout(5000))
            tryVerify(function() { return dialog.known }, qetcdTest.timeout(10000), "etcd said which revisions it keeps")
            return dialog
        }

        // The dialog finds which revisions etcd keeps, proposes the newest 1,000 (here: all of
        // them, so nothing to compact), counts what a revision typed discards, and compacts
        // physically when asked; opened again, it finds the history beginning there.
        function test_compactFromThePage() {
            for (let i = 0; i < 5; ++i)
                qetcdTest.etcdctl(["put", "/qml/clusterpage/k", "v" + i])
            const page = openPage()
            const actions = findChild(page, "clusterActions")
            let dialog = compactDialog(page)
            const confirm = findChild(dialog.footer, "confirmButton")
            const input = findChild(dialog, "input")
            const oldest = actions.retainedFrom
            const current = actions.retainedUntil
            verify(current >= oldest + 5, current + " " + oldest)
            verify(dialog.message.indexOf("keeps its history from revision " + oldest) >= 0, dialog.message)
            compare(input.text, String(oldest), "the newest 1,000 revisions are the whole history here")
            const summary = findChild(dialog, "compactionSummary")
            verify(summary.text.indexOf("nothing to compact") >= 0, summary.text)
            verify(!confirm.enabled, "compacting to the oldest revision does nothing")
            input.text = "soon"
            verify(!confirm.enabled, "not a revision")
            input.text = String(current + 1)
            verify(summary.text.indexOf("past the store's") >= 0, summary.text)
            verify(!confirm.enabled, "a future revision")
            const keepFrom = current - 2
            input.text = String(keepFrom)
            verify(summary.text.indexOf((keepFrom - oldest) + " revision(s) become unreadable, " + oldest + " to " + (keepFrom - 1)) === 0, summary.text)
            verify(confirm.enabled)
            findChild(dialog, "physical").checked = true
            settledClick(confirm)
            tryVerify(function() { return loggedKinds().join("\n").indexOf("operator:intervention:compacted the history before revision " + keepFrom + ", its space freed") >= 0 },
                      qetcdTest.timeout(10000), loggedKinds().join("\n"))
            // Before the revision kept from, etcd answers nothing any more; from it on, the key.
            compare(qetcdTest.etcdctl(["get", "/qml/clusterpage/k", "--rev", String(keepFrom - 1), "--print-value-only"]).trim(), "")
            compare(qetcdTest.etcdctl(["get", "/qml/clusterpage/k", "--rev", String(keepFrom), "--print-value-only"]).trim(), "v2")

            // Asked again, etcd's own answer: the history now begins where it was compacted.
            tryCompare(actions, "running", "", qetcdTest.timeout(5000))
            dialog = compactDialog(page)
            tryCompare(actions, "retainedFrom", keepFrom, qetcdTest.timeout(10000))
            verify(dialog.message.indexOf("keeps its history from revision " + keepFrom) >= 0, dialog.message)
            dialog.reject()
        }

        // With the console's revision samples, a time on the slider is the revision the store was
        // at then.
        function test_compactSinceATimeOnTheSlider() {
            const clock = createTemporaryQmlObject("import QEtcd; RevisionClock {}", root)
            clock.client = direct.client
            qetcdTest.etcdctl(["put", "/qml/clusterpage/slider", "before"])
            const before = Number(qetcdTest.etcdctl(["get", "/qml/clusterpage/slider", "-w", "json"]).match(/"revision":(\d+)/)[1])
            tryVerify(function() { return clock.revisionAt(Date.now()) >= before }, qetcdTest.timeout(10000), "a sample saw the first put")
            const sampledAt = Date.now()
            tryVerify(function() { return Date.now() > sampledAt + 1500 }, qetcdTest.timeout(5000))
            qetcdTest.etcdctl(["put", "/qml/clusterpage/slider", "after"])
            tryVerify(function() { return clock.revisionAt(Date.now()) > before }, qetcdTest.timeout(10000), "a sample saw the second put")

            const page = openPage({ revisionClock: clock })
            const dialog = compactDialog(page)
            const slider = findChild(dialog, "keepSince")
            verify(slider.enabled, "the samples reach back " + (dialog.nowMs - dialog.earliestMs) + " ms")
            compare(findChild(dialog, "sampleReach").visible, false)
            // The time between the two puts keeps the history from the first one's revision on.
            slider.value = sampledAt
            slider.moved()
            compare(findChild(dialog, "input").text, String(Math.max(before, findChild(page, "clusterActions").retainedFrom)))
            verify(findChild(dialog, "keepSinceTime").text.match(/^\d\d:\d\d:\d\d$/), findChild(dialog, "keepSinceTime").text)
            // At its end, now, it keeps only the store's newest revision.
            slider.value = slider.to
            slider.moved()
            compare(findChild(dialog, "input").text, String(clock.revisionAt(slider.to)))
            verify(clock.revisionAt(slider.to) > before)
            // It shows when the revision typed came to be; a click moves it as well.
            findChild(dialog, "input").text = String(before)
            compare(slider.value, clock.bounds(before).byMs)
            mouseClick(slider, slider.width - 4, slider.height / 2)
            verify(slider.value > slider.to - (slider.to - slider.from) / 5, slider.to - slider.value)
            compare(findChild(dialog, "input").text, String(clock.revisionAt(slider.value)))
            dialog.reject()
        }

        function test_defragmentAllThenOneMember() {
            const page = openPage()
            settledClick(findChild(page, "defragmentAll"))
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf("one at a time, the leader last") >= 0, dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { return loggedKinds().join("\n").indexOf("operator:intervention:defragmented " + qetcdTest.endpoint) >= 0 },
                      qetcdTest.timeout(20000), loggedKinds().join("\n"))
            const banner = findChild(page, "maintenance")
            // Its size before and after, read from the member.
            tryVerify(function() { return /^Defragmented 1 member\(s\): [0-9.]+ (bytes|kB|MB) before, [0-9.]+ (bytes|kB|MB) after\.$/.test(banner.text) },
                      qetcdTest.timeout(10000), banner.text)
            verify(loggedKinds().join("\n").indexOf("operator:intervention:defragmented " + qetcdTest.endpoint + ": ") >= 0, loggedKinds().join("\n"))

            log.clear()
            let one = null
            tryVerify(function() { one = visibleNamed(page, "defragment"); return one !== null }, qetcdTest.timeout(10000))
            settledClick(one)
            const asked = confirmDialog(page)
            verify(asked.message.indexOf("It leads") >= 0, "a lone member leads: the dialog says what that costs")
            settledClick(findChild(asked.footer, "confirmButton"))
            tryVerify(function() { return loggedKinds().join("\n").indexOf("defragmented " + qetcdTest.endpoint) >= 0 },
                      qetcdTest.timeout(20000), loggedKinds().join("\n"))
        }

        // "Make leader…" on a follower: asked with who leads now and who will, then the
        // leadership moves there, and the log says so as the operator's.
        function test_makeAFollowerLeader() {
            const page = createTemporaryObject(trioClusterPage, root)
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))
            tryVerify(function() { return trioCluster.count === 3 && trioCluster.healthyCount === 3 && trioCluster.leaderName !== "" },
                      qetcdTest.timeout(20000), "three healthy members and a leader")
            const leaderBefore = trioCluster.leaderName
            let buttons = []
            tryVerify(function() {
                buttons = []
                const visit = function(each) {
                    if (each.objectName === "makeLeader" && each.visible)
                        buttons.push(each)
                    for (let i = 0; i < each.children.length; ++i)
                        visit(each.children[i])
                }
                visit(page)
                return buttons.length === 2
            }, qetcdTest.timeout(10000), "a Make leader… button on each follower, none on the leader")
            settledClick(buttons[0])
            const dialog = confirmDialog(page)
            verify(dialog.message.indexOf("The leadership moves from " + leaderBefore + " to ") === 0, dialog.message)
            const target = dialog.message.substring(("The leadership moves from " + leaderBefore + " to ").length).split(" ")[0]
            verify(target !== leaderBefore && target !== "", target)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryCompare(trioCluster, "leaderName", target, qetcdTest.timeout(20000))
            tryVerify(function() {
                for (let i = 0; i < trioLog.count; ++i) {
                    if (trioLog.get(i).participant === "operator" && trioLog.get(i).kind === "intervention")
                        return true
                }
                return false
            }, qetcdTest.timeout(10000), "the move is logged as the operator's")
        }

        // Under read-only the button is there but refuses, and nothing moves.
        function test_makeLeaderRefusedUnderReadOnly() {
            const page = createTemporaryObject(trioClusterPage, root, { readOnly: true })
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))
            tryVerify(function() { return trioCluster.healthyCount === 3 && trioCluster.leaderName !== "" }, qetcdTest.timeout(20000))
            let button = null
            tryVerify(function() { button = visibleNamed(page, "makeLeader"); return button !== null }, qetcdTest.timeout(10000))
            verify(!button.button.enabled, "refused before anything is sent")
            mouseClick(button)
            verify(!findChild(page, "confirmAction").visible, "no dialog opens")
            for (let i = 0; i < trioLog.count; ++i)
                verify(trioLog.get(i).participant !== "operator", "nothing done as the operator")
        }

        // The "Member ▾" button of the card whose member is not started.
        function unstartedMemberButton(page) {
            let found = null
            tryVerify(function() {
                found = null
                const visit = function(each) {
                    if (!found && each.objectName === "membership" && each.visible) {
                        let cell = each
                        while (cell && cell.isLearner === undefined)
                            cell = cell.parent
                        if (cell && cell.name === "")
                            found = each
                    }
                    for (let i = 0; i < each.children.length && !found; ++i)
                        visit(each.children[i])
                }
                visit(page)
                return found !== null
            }, qetcdTest.timeout(10000), "the unstarted member's card")
            return found
        }
        function chooseFromMemberMenu(page, name) {
            const button = unstartedMemberButton(page)
            settledClick(button)
            const menu = findChild(button, "membershipMenu")
            tryCompare(menu, "opened", true, qetcdTest.timeout(5000))
            for (let i = 0; i < menu.count; ++i) {
                if (menu.itemAt(i).objectName === name) {
                    settledClick(menu.itemAt(i))
                    return
                }
            }
            fail("no " + name + " in the member menu")
        }
        function memberDialog(page) {
            const dialog = findChild(page, "memberDialog")
            verify(dialog)
            tryCompare(dialog, "opened", true, qetcdTest.timeout(5000))
            return dialog
        }

        function test_addPromoteMoveAndRemoveALearner() {
            const page = openPage()
            settledClick(findChild(page, "addMember"))
            let dialog = memberDialog(page)
            const confirm = findChild(dialog.footer, "confirmButton")
            verify(!confirm.enabled, "nothing to add yet")
            verify(dialog.message.indexOf("Name the new member") === 0, dialog.message)
            findChild(dialog, "memberName").text = "qml-learner"
            findChild(dialog, "memberPeerUrls").text = "127.0.0.1:9"
            verify(!confirm.enabled, "no scheme: no peer URL")
            verify(dialog.message.indexOf("“127.0.0.1:9” is not a peer URL") === 0, dialog.message)
            findChild(dialog, "memberPeerUrls").text = " http://127.0.0.1:9 "
            verify(findChild(dialog, "memberLearner").checked, "a learner unless told otherwise")
            compare(dialog.message, "Add qml-learner at http://127.0.0.1:9 as a learner: it follows the log without voting "
                                    + "(1 voting member, 1 needed to agree, as now); promote it once it has caught up.")
            // As a voter it would stop this one-member cluster: the plan says so before.
            findChild(dialog, "memberLearner").checked = false
            verify(dialog.message.indexOf("With 1 of the 2 voting members started, the cluster stops committing anything") >= 0,
                   dialog.message)
            findChild(dialog, "memberLearner").checked = true
            verify(confirm.enabled)
            settledClick(confirm)
            const banner = findChild(page, "maintenance")
            tryVerify(function() { return banner.text.indexOf("--initial-cluster-state existing") >= 0 }, qetcdTest.timeout(10000), banner.text)
            verify(banner.good, banner.text)
            verify(banner.text.indexOf("--name qml-learner --initial-cluster ") >= 0
                   && banner.text.indexOf("qml-learner=http://127.0.0.1:9") >= 0, banner.text)
            tryVerify(function() { return loggedKinds().join("\n").indexOf("operator:intervention:added qml-learner as learner ") >= 0 },
                      qetcdTest.timeout(10000), loggedKinds().join("\n"))
            // What to start it with, copied as typed into a terminal.
            settledClick(findChild(page, "copyStartFlags"))
            const pasted = createTemporaryQmlObject("import QtQuick; TextEdit {}", root)
            pasted.paste()
            verify(/^--name qml-learner --initial-cluster \S*qml-learner=http:\/\/127\.0\.0\.1:9\S* --initial-advertise-peer-urls http:\/\/127\.0\.0\.1:9 --initial-cluster-state existing$/.test(pasted.text),
                   pasted.text)
            tryCompare(cluster, "count", 2, qetcdTest.timeout(10000))
            compare(cluster.healthyCount, 1, "a member not started has no status of its own, nor another's")
            const listed = qetcdTest.etcdctl(["member", "list"])
            verify(/, unstarted, , http:\/\/127\.0\.0\.1:9, , true/.test(listed), listed)

            // Promoting it: asked with the quorum it would make, and refused by etcd, since a
            // learner that never started has not caught up.
            chooseFromMemberMenu(page, "promoteMember")
            let asked = confirmDialog(page)
            verify(/^Make learner [0-9a-f]+ \(not started, http:\/\/127\.0\.0\.1:9\) a voting member: 2 voting members, 2 needed to agree instead of 1 voting member, 1 needed to agree\./.test(asked.message),
                   asked.message)
            settledClick(findChild(asked.footer, "confirmButton"))
            tryVerify(function() { return banner.bad && banner.text.indexOf("Promote the member: ") === 0 }, qetcdTest.timeout(10000), banner.text)
            tryVerify(function() { return loggedKinds().join("\n").indexOf("operator:interventionFailed:nothing more done: ") >= 0 },
                      qetcdTest.timeout(10000), loggedKinds().join("\n"))
            verify(qetcdTest.etcdctl(["member", "list"]).indexOf(", true") >= 0, "still a learner")

            // New peer URLs, proposed from the old ones.
            tryCompare(findChild(page, "clusterActions"), "running", "", qetcdTest.timeout(5000))
            chooseFromMemberMenu(page, "updateMember")
            dialog = memberDialog(page)
            compare(findChild(dialog, "memberPeerUrls").text, "http://127.0.0.1:9")
            verify(!findChild(dialog, "memberName").visible && !findChild(dialog, "memberLearner").visible)
            findChild(dialog, "memberPeerUrls").text = "http://127.0.0.1:10"
            verify(/^Change the peer URLs of [0-9a-f]+ \(not started, http:\/\/127\.0\.0\.1:9\) to http:\/\/127\.0\.0\.1:10:/.test(dialog.message),
                   dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { return qetcdTest.etcdctl(["member", "list"]).indexOf("http://127.0.0.1:10") >= 0 }, qetcdTest.timeout(10000))
            tryVerify(function() { return loggedKinds().join("\n").indexOf(" the peer URLs http://127.0.0.1:10") >= 0 },
                      qetcdTest.timeout(10000), loggedKinds().join("\n"))
            // Its card says so at once, not at the next refresh.
            tryVerify(function() { return visibleNamed(page, "maintenance").text.indexOf("Gave member") === 0 }, qetcdTest.timeout(5000))
            let moved = unstartedMemberButton(page)
            while (moved.peerUrls === undefined)
                moved = moved.parent
            tryCompare(moved, "peerUrls", ["http://127.0.0.1:10"], qetcdTest.timeout(5000))

            // Removed: the card goes, and the cluster is its one member again.
            tryCompare(findChild(page, "clusterActions"), "running", "", qetcdTest.timeout(5000))
            chooseFromMemberMenu(page, "removeMember")
            asked = confirmDialog(page)
            verify(/^Remove [0-9a-f]+ \(not started, http:\/\/127\.0\.0\.1:10\) from the cluster/.test(asked.message), asked.message)
            verify(asked.destructive)
            settledClick(findChild(asked.footer, "confirmButton"))
            tryCompare(cluster, "count", 1, qetcdTest.timeout(10000))
            tryVerify(function() { return loggedKinds().join("\n").indexOf("operator:intervention:removed member ") >= 0 },
                      qetcdTest.timeout(10000), loggedKinds().join("\n"))
            verify(qetcdTest.etcdctl(["member", "list"]).indexOf("127.0.0.1:10") < 0)
        }

        function test_readOnlyRefusesMaintenanceButChecks() {
            const page = openPage({ readOnly: true })
            for (const name of ["compact", "defragmentAll", "addMember"]) {
                const button = findChild(page, name)
                verify(!button.button.enabled, name + " is disabled")
                mouseClick(button)
                verify(!findChild(page, "confirmAction").visible && !findChild(page, "compactDialog").visible, "no dialog opens for " + name)
            }
            let one = null
            tryVerify(function() { one = visibleNamed(page, "defragment"); return one !== null }, qetcdTest.timeout(10000))
            verify(!one.button.enabled)
            verify(!visibleNamed(page, "membership").button.enabled, "no member is promoted, moved or removed")
            verify(!findChild(page, "memberDialog").visible)
            verify(findChild(page, "checkConsistency").enabled, "a check only reads")
            compare(findChild(page, "clusterActions").running, "")
            compare(log.count, 0)
        }

        // The page's own way out of NOSPACE: compact the history away, defragment, disarm.
        function test_noSpaceAlarmDisarmedAfterFreeingSpace() {
            const fullLogged = function() {
                const kinds = []
                for (let i = 0; i < fullLog.count; ++i)
                    kinds.push(fullLog.get(i).participant + ":" + fullLog.get(i).kind + ":" + fullLog.get(i).detail)
                return kinds
            }
            const page = createTemporaryObject(fullClusterPage, root)
            verify(page)
            tryVerify(function() { return fullCluster.alarms.length === 1 }, qetcdTest.timeout(15000))
            compare(fullCluster.alarms[0].indexOf("NOSPACE"), 0)
            tryVerify(function() { return visibleNamed(page, "disarm") !== null }, qetcdTest.timeout(10000))

            let dialog = compactDialog(page)
            findChild(dialog, "input").text = String(findChild(page, "clusterActions").retainedUntil)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { return fullLogged().join("\n").indexOf("operator:intervention:compacted the history") >= 0 },
                      qetcdTest.timeout(15000), fullLogged().join("\n"))
            tryCompare(findChild(page, "clusterActions"), "running", "", qetcdTest.timeout(5000))
            settledClick(findChild(page, "defragmentAll"))
            settledClick(findChild(confirmDialog(page).footer, "confirmButton"))
            tryVerify(function() { return fullLogged().join("\n").indexOf("operator:intervention:defragmented 1 member(s)") >= 0 },
                      qetcdTest.timeout(20000), fullLogged().join("\n"))
            tryCompare(findChild(page, "clusterActions"), "running", "", qetcdTest.timeout(5000))

            // The banner's button as drawn now: each refresh of the alarms draws the banners anew.
            settledClick(visibleNamed(page, "disarm"))
            dialog = confirmDialog(page)
            verify(dialog.message.indexOf("comes back at the next write unless space was freed") >= 0, dialog.message)
            settledClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { return fullLogged().join("\n").indexOf("operator:intervention:disarmed 1 alarm") >= 0 },
                      qetcdTest.timeout(15000), fullLogged().join("\n") + "\n" + findChild(page, "maintenance").text)
            tryVerify(function() { return fullCluster.alarms.length === 0 }, qetcdTest.timeout(15000), fullCluster.alarms.join(", "))
        }

        function saveSnapshotFromThePage(page, path, replace) {
            settledClick(findChild(page, "saveSnapshot"))
            const dialog = findChild(page, "snapshotDialog")
            tryCompare(dialog, "opened", true, qetcdTest.timeout(5000))
            findChild(dialog, "snapshotFilePath").text = path
            findChild(dialog, "replaceSnapshot").checked = replace
            settledClick(findChild(dialog.footer, "snapshotSave"))
        }

        // A snapshot only reads: read-only connections save one too.
        function test_snapshotSavedWithItsHash() {
            const page = openPage({ readOnly: true })
            const path = qetcdTest.temporaryPath("page-snapshot.db")
            saveSnapshotFromThePage(page, path, false)
            tryVerify(function() { return loggedKinds().join("\n").indexOf("operator:intervention:saved a snapshot to " + path) >= 0 },
                      qetcdTest.timeout(20000), loggedKinds().join("\n"))
            const banner = findChild(page, "maintenance")
            tryVerify(function() { return banner.text.indexOf("SHA-256") >= 0 }, qetcdTest.timeout(5000), banner.text)
            // Read back as etcdctl snapshot status reads it.
            verify(/SHA-256 [0-9a-f]{64}\): revision \d+, \d+ entries\.$/.test(banner.text), banner.text)
            verify(banner.good, banner.text)
            verify(qetcdTest.readFile(path).length > 0)
            compare(qetcdTest.readFile(path + ".part"), "")

            // Once more, not replacing: the file is kept and the banner says why.
            log.clear()
            saveSnapshotFromThePage(page, path, false)
            tryVerify(function() { return banner.bad && banner.text.indexOf("exists") >= 0 }, qetcdTest.timeout(10000), banner.text)
            // The log takes its entries in batches: the banner may say it first.
            tryVerify(function() { return loggedKinds().join("\n").indexOf("operator:interventionFailed") >= 0 },
                      qetcdTest.timeout(5000), loggedKinds().join("\n"))
        }

        function test_cancelledSnapshotLeavesNothing() {
            const page = openPage()
            const actions = findChild(page, "clusterActions")
            const path = qetcdTest.temporaryPath("cancelled-snapshot.db")
            actions.saveSnapshot(path, false)
            verify(findChild(page, "cancelSnapshot").visible)
            actions.cancelSnapshot()
            tryVerify(function() { return loggedKinds().join("\n").indexOf("cancelled") >= 0 }, qetcdTest.timeout(20000), loggedKinds().join("\n"))
            compare(actions.running, "")
            compare(qetcdTest.readFile(path), "")
            compare(qetcdTest.readFile(path + ".part"), "")
        }

        function test_typedConfirmationOffThisMachine() {
            const page = openPage({ confirmationWord: "prod-eu" })
            settledClick(findChild(page, "defragmentAll"))
            const dialog = confirmDialog(page)
            const confirm = findChild(dialog.footer, "confirmButton")
            verify(!confirm.enabled, "not before the name is typed")
            findChild(dialog, "typedConfirmation").text = "prod-eu"
            verify(confirm.enabled)
            dialog.reject()
            tryCompare(dialog, "visible", false, qetcdTest.timeout(5000))

            qetcdTest.etcdctl(["put", "/qml/clusterpage/typed", "one"])
            const compacting = compactDialog(page)
            findChild(compacting, "input").text = String(findChild(page, "clusterActions").retainedUntil)
            const compact = findChild(compacting.footer, "confirmButton")
            verify(!compact.enabled, "not before the name is typed")
            findChild(compacting, "typedConfirmation").text = "prod-eu"
            verify(compact.enabled)
            compacting.reject()
            tryCompare(compacting, "visible", false, qetcdTest.timeout(5000))
            compare(findChild(page, "clusterActions").running, "")
        }
    }
}
