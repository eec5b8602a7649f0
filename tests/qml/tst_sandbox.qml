// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's sandbox against real etcd: three members started on loopback, a participant's
// fault link cutting its client off and healing it, members killed, restarted, paused and
// resumed (each in the event log), wrong calls refused without effect, the Cluster page's
// per-member buttons acting on the sandbox, and a scenario that keeps to the sandbox while the
// window looks at another cluster.
Item {
    id: root
    width: 1280
    height: 800

    Component {
        id: sandboxComponent
        Sandbox {}
    }
    Component {
        id: eventLogComponent
        EventLogModel {}
    }
    Component {
        id: clientComponent
        EtcdClient { healthCheckInterval: 200 }
    }
    Component {
        id: scenarioBarComponent
        ScenarioBar { width: 1000; sandboxRunning: true }
    }
    Component {
        id: scenarioComponent
        Scenario {}
    }
    Component {
        id: scenarioMenuComponent
        ScenarioMenu {}
    }
    EventLogModel { id: playLog }
    Scenario { id: playScenario; name: "lock-partition"; eventLog: playLog }
    Component {
        id: consoleWindow
        Main { visible: true }
    }

    TestCase {
        name: "Sandbox"
        when: windowShown

        // A start waits for three members to be healthy; a restart for one.
        readonly property int startTimeout: qetcdTest.timeout(60000)

        function memberRole(sandbox, member, role) {
            const members = sandbox.members
            return members.data(members.index(member, 0), role)
        }
        function memberState(sandbox, member) {
            return memberRole(sandbox, member, SandboxMemberModel.StateRole)
        }
        // The log's rows as "participant kind detail" lines.
        function logLines(log) {
            const lines = []
            for (let row = 0; row < log.count; ++row) {
                const at = log.index(row, 0)
                lines.push([log.data(at, EventLogModel.ParticipantRole), log.data(at, EventLogModel.KindRole),
                            log.data(at, EventLogModel.DetailRole)].join(" ").trim())
            }
            return lines
        }
        function verifyLogged(log, line) {
            tryVerify(function() { return logLines(log).indexOf(line) >= 0 }, qetcdTest.timeout(5000),
                      "\"" + line + "\" in the log: " + JSON.stringify(logLines(log)))
        }
        function startSandbox(sandbox) {
            verify(sandbox.start(), sandbox.errorString)
            compare(sandbox.state, Sandbox.Starting)
            tryCompare(sandbox, "state", Sandbox.Running, startTimeout)
            compare(sandbox.errorString, "")
        }

        // QETCD_ETCD_BINARY as the run had it, while a test points it elsewhere.
        property var etcdBinary: undefined
        function cleanup() {
            if (etcdBinary !== undefined)
                qetcdTest.setEnvironmentVariable("QETCD_ETCD_BINARY", etcdBinary)
            etcdBinary = undefined
        }

        function test_membersAndLinks() {
            const log = createTemporaryObject(eventLogComponent, root)
            const sandbox = createTemporaryObject(sandboxComponent, root, { eventLog: log })
            compare(sandbox.state, Sandbox.Stopped)
            compare(sandbox.clientUrls, [])

            // A link made before the sandbox runs keeps its endpoints and follows it once it does.
            const link = sandbox.createLink("A")
            verify(link)
            compare(link.name, "A")
            compare(link.endpoints.length, 3)
            compare(sandbox.createLink("A"), link, "one link per participant")
            const endpoints = link.endpoints

            startSandbox(sandbox)
            compare(sandbox.clientUrls.length, 3)
            compare(sandbox.members.count, 3)
            for (let member = 0; member < 3; ++member) {
                compare(memberState(sandbox, member), SandboxMemberModel.Running)
                compare(memberRole(sandbox, member, SandboxMemberModel.NameRole), "m" + member)
                compare(memberRole(sandbox, member, SandboxMemberModel.ClientUrlRole), sandbox.clientUrls[member])
                verify(memberRole(sandbox, member, SandboxMemberModel.PidRole) > 0)
            }
            compare(link.endpoints, endpoints)

            // A participant's client through its link: cut off, then healed.
            const client = createTemporaryObject(clientComponent, root, { endpoints: link.endpoints })
            tryCompare(client, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(15000))
            link.blackhole()
            compare(link.mode, FaultLink.Blackhole)
            tryCompare(client, "connectionState", Etcd.ConnectionState.Suspended, qetcdTest.timeout(20000))
            link.pass()
            tryVerify(function() {
                return client.connectionState === Etcd.ConnectionState.Reconnected
                    || client.connectionState === Etcd.ConnectionState.Connected
            }, qetcdTest.timeout(20000), "the client is back after the blackhole")
            link.delay(250)
            compare(link.mode, FaultLink.Delay)
            compare(link.delayMs, 250)
            link.reset()
            link.pass()
            link.pass()  // no change, no event
            const faults = ["A fault blackhole", "A fault pass", "A fault delay 250 ms", "A fault reset", "A fault pass"]
            tryVerify(function() { return logLines(log).filter(line => line.startsWith("A fault")).length === faults.length },
                      qetcdTest.timeout(5000), JSON.stringify(logLines(log)))
            compare(logLines(log).filter(line => line.startsWith("A fault")), faults)

            verify(sandbox.killMember(1), sandbox.errorString)
            compare(memberRole(sandbox, 1, SandboxMemberModel.BusyRole), true)
            compare(memberRole(sandbox, 1, SandboxMemberModel.ActionRole), SandboxMemberModel.Kill)
            tryVerify(function() { return memberState(sandbox, 1) === SandboxMemberModel.Killed }, startTimeout)
            compare(memberRole(sandbox, 1, SandboxMemberModel.BusyRole), false)
            compare(memberRole(sandbox, 1, SandboxMemberModel.PidRole), 0)
            verifyLogged(log, "m1 memberKilled")
            // The client fails over to the members left.
            tryVerify(function() {
                return client.connectionState === Etcd.ConnectionState.Reconnected
                    || client.connectionState === Etcd.ConnectionState.Connected
            }, qetcdTest.timeout(20000), "the client is connected with m1 gone")

            verify(sandbox.restartMember(1), sandbox.errorString)
            tryVerify(function() { return memberState(sandbox, 1) === SandboxMemberModel.Running
                                          && !memberRole(sandbox, 1, SandboxMemberModel.BusyRole) }, startTimeout)
            verifyLogged(log, "m1 memberRestarted")

            verify(sandbox.pauseMember(2), sandbox.errorString)
            tryVerify(function() { return memberState(sandbox, 2) === SandboxMemberModel.Paused }, startTimeout)
            verifyLogged(log, "m2 memberPaused")
            verify(sandbox.resumeMember(2), sandbox.errorString)
            tryVerify(function() { return memberState(sandbox, 2) === SandboxMemberModel.Running }, startTimeout)
            verifyLogged(log, "m2 memberResumed")

            // Wrong calls say what is wrong and change nothing.
            const linesBefore = logLines(log).length
            verify(!sandbox.killMember(7))
            verify(sandbox.errorString.indexOf("no member 7") >= 0, sandbox.errorString)
            verify(!sandbox.resumeMember(0))
            verify(sandbox.errorString.indexOf("only a paused member") >= 0, sandbox.errorString)
            verify(!sandbox.start())
            verify(sandbox.errorString.indexOf("runs already") >= 0, sandbox.errorString)
            compare(sandbox.state, Sandbox.Running)
            for (let member = 0; member < 3; ++member) {
                compare(memberState(sandbox, member), SandboxMemberModel.Running)
                compare(memberRole(sandbox, member, SandboxMemberModel.BusyRole), false)
            }

            // The next event in the log is the next action's: the refused ones left none.
            verify(sandbox.stopMember(0), sandbox.errorString)
            compare(sandbox.errorString, "")
            tryVerify(function() { return memberState(sandbox, 0) === SandboxMemberModel.Stopped }, startTimeout)
            verifyLogged(log, "m0 memberStopped")
            compare(logLines(log).slice(linesBefore), ["m0 memberStopped"])

            verify(sandbox.stop())
            compare(sandbox.state, Sandbox.Stopping)
            tryCompare(sandbox, "state", Sandbox.Stopped, startTimeout)
            compare(sandbox.clientUrls, [])
            compare(sandbox.members.count, 0)
            compare(link.endpoints, endpoints)

            // Started again (new ports behind it), the link's endpoints lead to the new members.
            startSandbox(sandbox)
            compare(link.endpoints, endpoints)
            const again = createTemporaryObject(clientComponent, root, { endpoints: link.endpoints })
            tryCompare(again, "connectionState", Etcd.ConnectionState.Connected, qetcdTest.timeout(15000))
            verify(sandbox.stop())
            tryCompare(sandbox, "state", Sandbox.Stopped, startTimeout)
        }

        // --sandbox-seed: the program gets the members' URLs once they run, and SIGTERM when
        // they stop; one that cannot start or fails is named in errorString.
        function test_aSeedProgramRunsWhileTheSandboxRuns() {
            const dir = qetcdTest.temporaryPath("seed")
            qetcdTest.setEnvironmentVariable("QETCD_SEED_DIR", dir)
            const seed = Qt.resolvedUrl("sandboxseed.sh").toString().replace("file://", "")
            const sandbox = createTemporaryObject(sandboxComponent, root, { seedProgram: seed })
            startSandbox(sandbox)
            tryVerify(function() { return qetcdTest.readFile(dir + "/urls").trim() === sandbox.clientUrls.join(",") },
                      qetcdTest.timeout(10000), qetcdTest.readFile(dir + "/urls"))
            tryCompare(sandbox, "seedReady", true, qetcdTest.timeout(10000))
            compare(qetcdTest.readFile(dir + "/stopped"), "")
            verify(sandbox.stop())
            compare(sandbox.seedReady, false)
            tryVerify(function() { return qetcdTest.readFile(dir + "/stopped").trim() === "stopped" }, qetcdTest.timeout(10000))
            tryCompare(sandbox, "state", Sandbox.Stopped, startTimeout)
            compare(sandbox.errorString, "")
        }
        function test_aSeedThatFailsIsNamed_data() {
            return [
                { tag: "missing", program: "/nonexistent/seed", words: ["/nonexistent/seed", "did not start"] },
                { tag: "failing", program: "/bin/false", words: ["/bin/false", "exit code 1"] }
            ]
        }
        function test_aSeedThatFailsIsNamed(data) {
            const sandbox = createTemporaryObject(sandboxComponent, root, { seedProgram: data.program })
            verify(sandbox.start(), sandbox.errorString)
            tryCompare(sandbox, "state", Sandbox.Running, startTimeout)
            tryVerify(function() { return data.words.every(function(words) { return sandbox.errorString.indexOf(words) >= 0 }) },
                      qetcdTest.timeout(10000), sandbox.errorString)
            compare(sandbox.clientUrls.length, 3, "the sandbox runs on without its seed")
            compare(sandbox.seedReady, false)
            verify(sandbox.stop())
            tryCompare(sandbox, "state", Sandbox.Stopped, startTimeout)
        }

        function test_aMissingEtcdSaysWhatToInstall() {
            const sandbox = createTemporaryObject(sandboxComponent, root)
            etcdBinary = qetcdTest.setEnvironmentVariable("QETCD_ETCD_BINARY", "/nonexistent/etcd")
            verify(sandbox.start())
            tryCompare(sandbox, "state", Sandbox.Failed, startTimeout)
            for (const words of ["did not start", "QETCD_ETCD_BINARY", "etcd-server"])
                verify(sandbox.errorString.indexOf(words) >= 0, sandbox.errorString)
            compare(sandbox.clientUrls, [])
            verify(!sandbox.killMember(0))
            verify(sandbox.errorString.indexOf("not running") >= 0, sandbox.errorString)
            verify(sandbox.stop())
            compare(sandbox.state, Sandbox.Stopped)
            compare(sandbox.errorString, "")
        }

        function test_clusterPageActsOnMembers() {
            const window = createTemporaryObject(consoleWindow, root, { initialSandbox: true })
            verify(window)
            const sandbox = window.sandbox
            verify(sandbox)
            tryCompare(sandbox, "state", Sandbox.Running, startTimeout)
            tryCompare(window.connection, "sandbox", true)
            compare(window.connection.endpoints, sandbox.clientUrls)
            compare(window.readOnly, false)
            tryCompare(window, "ready", true, qetcdTest.timeout(20000))
            tryVerify(function() { return window.summary.members === 3 }, qetcdTest.timeout(20000),
                      "three member cards")

            for (const name of ["m0", "m1", "m2"]) {
                tryVerify(function() { return findChild(window.contentItem, "pauseMember-" + name) !== null },
                          qetcdTest.timeout(10000), "a Pause button on " + name + "'s card")
                for (const action of ["stop", "kill", "resume", "restart"])
                    verify(findChild(window.contentItem, action + "Member-" + name), action + " on " + name)
            }
            const pause = findChild(window.contentItem, "pauseMember-m1")
            const resume = findChild(window.contentItem, "resumeMember-m1")
            verify(pause.button.enabled)
            verify(!resume.button.enabled, "a running member cannot be resumed")
            mouseClick(pause.button)
            tryVerify(function() { return memberState(sandbox, 1) === SandboxMemberModel.Paused }, startTimeout)
            tryCompare(resume.button, "enabled", true)
            compare(pause.button.enabled, false)
            compare(findChild(window.contentItem, "memberState-m1").text, "Paused")
            verifyLogged(window.eventLog, "m1 memberPaused")
            mouseClick(resume.button)
            tryVerify(function() { return memberState(sandbox, 1) === SandboxMemberModel.Running }, startTimeout)
            verifyLogged(window.eventLog, "m1 memberResumed")

            // Stopped, the window goes back to the command line's connection, and the cards lose
            // their sandbox actions.
            sandbox.stop()
            tryCompare(window.connection, "sandbox", false)
            tryCompare(sandbox, "state", Sandbox.Stopped, startTimeout)
            tryVerify(function() { return findChild(window.contentItem, "pauseMember-m1") === null })
        }

        // The window switched to another cluster (here the test's own etcd, standing for a real
        // one) while the sandbox runs: a scenario started then still reads and writes only the
        // sandbox. registration-heal writes an operator's value itself, the one write a story makes
        // outside its participants.
        function test_aScenarioWritesOnlyToTheSandbox() {
            const window = createTemporaryObject(consoleWindow, root, {
                initialSandbox: true, commandLine: { endpoints: [qetcdTest.proxyEndpoint] } })
            verify(window)
            const sandbox = window.sandbox
            tryCompare(sandbox, "state", Sandbox.Running, startTimeout)
            tryCompare(window.connection, "sandbox", true)
            window.connection.openCommandLine()
            tryCompare(window.connection, "sandbox", false)
            compare(window.connection.endpoints, [qetcdTest.proxyEndpoint])

            const scenario = window.scenario
            scenario.autoplay = true
            window.runScenario("registration-heal")
            tryVerify(function() { return scenario.state === Scenario.Finished || scenario.state === Scenario.Failed },
                      qetcdTest.timeout(120000), "the scenario ends")
            compare(scenario.errorString, "")
            compare(scenario.state, Scenario.Finished)
            compare(qetcdTest.etcdctl(["get", "--prefix", "--keys-only", "/demo/"]).trim(), "",
                    "nothing written to the window's cluster")

            // Export story… writes the run as a page and a picture per step, in the console's look;
            // a second export to the same place asks first, naming the files it would replace, and
            // an earlier, longer export's last picture, which it removes.
            const bar = findChild(window, "scenarioBar")
            bar.sandboxRunning = true  // shown as it is while the window looks at the sandbox
            verify(findChild(bar, "exportStory").visible)
            const page = qetcdTest.temporaryPath("registration-heal.html")
            bar.storySaveDialog.selectedFile = "file://" + page
            bar.storySaveDialog.accepted()
            compare(window.storyExport.errorString, "")
            verify(window.storyExport.written.indexOf("registration-heal.html and 9 step picture(s)") === 0,
                   window.storyExport.written)
            compare(window.storyExport.existingFilesFor(page).length, scenario.stepCount + 1)
            verify(qetcdTest.readFile(page).indexOf("<li class=\"step\"") > 0)
            verify(findChild(bar, "storyExportNote").visible)
            const wasDark = Theme.dark
            Theme.dark = !wasDark
            compare(window.storyExport.dark, !wasDark)
            Theme.dark = wasDark
            const stale = qetcdTest.temporaryPath("registration-heal-step-12.png")
            verify(qetcdTest.writeTextFile(stale, "an earlier export's"))
            compare(window.storyExport.staleFilesFor(page), [stale])
            bar.storySaveDialog.accepted()
            tryCompare(bar.confirmOverwrite, "opened", true)
            verify(bar.confirmOverwrite.message.indexOf(page) > 0, bar.confirmOverwrite.message)
            verify(bar.confirmOverwrite.message.indexOf("registration-heal-step-9.png") > 0, bar.confirmOverwrite.message)
            verify(bar.confirmOverwrite.message.indexOf("would be removed:\n" + stale) > 0, bar.confirmOverwrite.message)
            mouseClick(findChild(bar.confirmOverwrite.footer, "confirmButton"))
            tryCompare(bar.confirmOverwrite, "visible", false)
            compare(window.storyExport.errorString, "")
            compare(window.storyExport.staleFilesFor(page), [])
            sandbox.stop()
            tryCompare(sandbox, "state", Sandbox.Stopped, startTimeout)
        }

        // Every built-in story is a file among the console's resources that reads: the menu has
        // a title for each. Open story… hands the picked file on as a local path.
        function test_theMenuOffersTheBuiltInStoriesAndAFileOfOnesOwn() {
            const scenario = playScenario  // outlives the menu, whose items read it
            const menu = createTemporaryObject(scenarioMenuComponent, root, { scenario: scenario })
            compare(scenario.names.length, 6)
            for (const name of scenario.names)
                verify(scenario.titleOf(name).length > 0, name)
            compare(scenario.titleOf("consumer-partition"), "A consumer is partitioned mid-claim")
            const chosen = createTemporaryQmlObject("import QtTest; SignalSpy { signalName: \"chosen\" }", root)
            chosen.target = menu
            const file = Qt.resolvedUrl("../console/stories/misspelt-action.json")
            menu.storyPicker.selectedFile = file
            menu.storyPicker.accepted()
            compare(chosen.count, 1)
            compare("file://" + chosen.signalArguments[0][0], file.toString())
        }

        // A story file that cannot be read (picked with Open story…): the bar says where it is
        // wrong, offers nothing to play, and nothing starts.
        function test_aStoryThatCannotBeReadStartsNothing() {
            // Temporary objects go in the order they came: the bar before the scenario it reads.
            const bar = createTemporaryObject(scenarioBarComponent, root, { scenario: playScenario })
            const log = createTemporaryObject(eventLogComponent, root)
            const scenario = createTemporaryObject(scenarioComponent, root, { eventLog: log })
            bar.scenario = scenario
            const file = Qt.resolvedUrl("../console/stories/misspelt-action.json")
            scenario.name = file
            compare(scenario.state, Scenario.Failed)
            compare(scenario.stepCount, 0)
            const where = decodeURIComponent(file.toString().replace(/^file:\/\//, ""))
            compare(scenario.errorString, where + ":16: steps[1].action.do: unknown action \"blackhol\" (known: call, "
                    + "blackhole, delay, reset, pass, stop, kill, pause, resume, restart, put, read, intervene)")
            verify(bar.visible)
            compare(findChild(bar, "scenarioNarration").text, scenario.errorString)
            verify(!findChild(bar, "scenarioPlay").visible, "nothing to play")
            verify(!scenario.start())
            compare(scenario.state, Scenario.Failed)
            compare(log.count, 0, "nothing started")
        }

        // Play clears the event log: with events in it, only once confirmed.
        function test_playAsksBeforeClearingTheEventLog() {
            const log = playLog
            const scenario = playScenario
            const bar = createTemporaryObject(scenarioBarComponent, root, { scenario: scenario })
            log.append("A", "acquired", "the lock")
            tryCompare(log, "count", 1)
            const play = findChild(bar, "scenarioPlay")
            verify(play.visible)
            const confirmClear = findChild(bar, "confirmClearLog")
            mouseClick(play)
            tryCompare(confirmClear, "opened", true)
            verify(confirmClear.message.indexOf("the 1 event(s) in the log now are cleared") > 0, confirmClear.message)
            confirmClear.reject()
            tryCompare(confirmClear, "visible", false)
            compare(scenario.state, Scenario.Idle, "not started unless confirmed")
            compare(log.count, 1)
            mouseClick(play)
            tryCompare(confirmClear, "opened", true)
            mouseClick(findChild(confirmClear.footer, "confirmButton"))
            // Started (and, with no sandbox here, failed saying so).
            tryCompare(scenario, "state", Scenario.Failed)
            verify(scenario.errorString.indexOf("sandbox") >= 0, scenario.errorString)
        }
    }
}
