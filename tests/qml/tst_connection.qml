// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's window meeting bad input: a wrong endpoint, a CA file that is not there, a CA
// that did not sign the server's certificate, a wrong password, a key the user may not write
// and a cluster too busy to take requests. Each is said in the window with the
// endpoint or key and what to do, and the window stays usable: the next connection works.
Item {
    id: root
    width: 1280
    height: 800

    Component {
        id: consoleWindow
        Main { visible: true }
    }

    TestCase {
        name: "Connection"
        when: windowShown

        function open(commandLine) {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: commandLine })
            verify(window)
            return window
        }
        function findConnection(window) {
            return window.connection
        }
        function allowWritesDialog(window) {
            return window.allowWritesDialog
        }
        function problemBanner(window) {
            const banner = findChild(window.contentItem, "connectionProblem")
            verify(banner)
            return banner
        }
        // The window works again: a good profile connects and the cluster page fills.
        function verifyUsable(window) {
            const link = findConnection(window)
            compare(link.saveProfile({ name: "good", endpoints: [qetcdTest.endpoint] }), "")
            link.open("good")
            window.showPage("cluster")
            tryCompare(link, "problem", "", qetcdTest.timeout(10000))
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(10000))
            tryCompare(window, "ready", true, qetcdTest.timeout(10000))
            compare(window.summary.members, 1)
            verify(!problemBanner(window).visible)
        }

        function test_aProfileOffThisMachineStartsReadOnly() {
            const window = open({ endpoints: [qetcdTest.endpoint] })
            const link = findConnection(window)
            verify(link.isOnThisMachine(["http://127.0.0.1:2379", "localhost:2379", "http://[::1]:2379"]))
            verify(!link.isOnThisMachine(["http://127.0.0.1:2379", "https://etcd-1.example:2379"]))
            verify(!link.isOnThisMachine(["https://192.0.2.7:2379"]))
            const dialog = window.profileDialog
            dialog.edit("")
            tryCompare(dialog, "opened", true)
            const readOnly = findChild(dialog.contentItem, "profileReadOnly")
            compare(readOnly.checked, false, "a new profile on this machine may write")
            findChild(dialog.contentItem, "profileName").text = "remote"
            findChild(dialog.contentItem, "profileEndpoints").text = "https://etcd-1.example:2379"
            compare(readOnly.checked, true, "endpoints elsewhere make it read-only")
            dialog.save(false)
            tryCompare(dialog, "visible", false)
            compare(link.profile("remote").readOnly, true)
            compare(link.profile("remote").endpoints, ["https://etcd-1.example:2379"])

            // Deleting it asks first.
            dialog.edit("remote")
            tryCompare(dialog, "opened", true)
            const confirmDelete = findChild(dialog, "confirmDeleteProfile")
            mouseClick(findChild(dialog.footer, "profileDelete"))
            tryCompare(confirmDelete, "opened", true)
            verify(confirmDelete.message.indexOf("The profile remote is forgotten") === 0, confirmDelete.message)
            confirmDelete.reject()
            tryCompare(confirmDelete, "visible", false)
            verify(link.profileNames.indexOf("remote") >= 0, "kept when not confirmed")
            mouseClick(findChild(dialog.footer, "profileDelete"))
            tryCompare(confirmDelete, "opened", true)
            mouseClick(findChild(confirmDelete.footer, "confirmButton"))
            tryCompare(dialog, "visible", false)
            verify(link.profileNames.indexOf("remote") < 0, "deleted once confirmed")
        }

        function readOnlySwitch(window) {
            const toggle = findChild(window.header, "readOnlySwitch")
            verify(toggle)
            return toggle
        }

        // The command line and a profile for the same cluster off this machine agree: both open
        // read-only, and the header's switch allows writes only after a confirmation that names
        // the cluster. Switching back needs no confirmation.
        function test_offThisMachineOpensReadOnlyFromAnySource() {
            const remote = "http://192.0.2.7:2379"  // TEST-NET: never this machine
            const window = open({ endpoints: [remote] })
            const link = findConnection(window)
            tryVerify(function() { return link.client !== null }, qetcdTest.timeout(5000))
            compare(link.readOnly, true, "command line to another machine")
            compare(link.participantOptions().readOnly, true, "the client itself refuses writes")
            compare(window.summary.readOnly, true)

            compare(link.saveProfile({ name: "prod", endpoints: [remote], readOnly: false }), "")
            link.open("prod")
            tryCompare(link, "profileName", "prod")
            compare(link.readOnly, true, "a profile to another machine, even one saved without read-only")

            const toggle = readOnlySwitch(window)
            verify(toggle.enabled)
            compare(toggle.checked, true)
            mouseClick(toggle)
            tryVerify(function() { return allowWritesDialog(window).opened })
            compare(link.readOnly, true, "nothing changes before the operator confirms")
            compare(toggle.checked, true)
            const message = allowWritesDialog(window).message
            verify(message.indexOf(remote) >= 0, message)
            verify(message.indexOf("prod") >= 0, message)
            allowWritesDialog(window).reject()
            tryCompare(allowWritesDialog(window), "visible", false)
            compare(link.readOnly, true, "cancelled")

            mouseClick(toggle)
            tryVerify(function() { return allowWritesDialog(window).opened })
            allowWritesDialog(window).accept()
            tryCompare(link, "readOnly", false)
            compare(link.participantOptions().readOnly, false)
            compare(toggle.checked, false)
            compare(link.profileName, "prod", "the same profile, now allowed to write")

            mouseClick(toggle)
            tryCompare(link, "readOnly", true)
            compare(link.participantOptions().readOnly, true)
            verify(!allowWritesDialog(window).opened)
        }

        // --writable is the command line's own confirmation.
        function test_writableAllowsWritesOffThisMachine() {
            const remote = "http://192.0.2.7:2379"
            const window = open({ endpoints: [remote], writable: true })
            const link = findConnection(window)
            tryVerify(function() { return link.client !== null }, qetcdTest.timeout(5000))
            compare(link.readOnly, false)
            compare(link.participantOptions().readOnly, false)
            // For --profile NAME --writable, it is that profile's.
            const named = open({ endpoints: [qetcdTest.endpoint], writable: true, profile: "prod2" })
            const other = findConnection(named)
            compare(other.saveProfile({ name: "prod2", endpoints: [remote] }), "")
            compare(other.saveProfile({ name: "prod3", endpoints: ["http://192.0.2.8:2379"] }), "")
            other.open("prod3")
            tryCompare(other, "profileName", "prod3")
            compare(other.readOnly, true, "--writable is not for every profile")
            other.open("prod2")
            tryCompare(other, "profileName", "prod2")
            compare(other.readOnly, false)
        }

        // --read-only wins over everything: a profile that may write, a local cluster, the
        // header's switch, --writable.
        function test_readOnlyFromTheCommandLineWinsOverEverything() {
            const window = open({ endpoints: [qetcdTest.endpoint], readOnly: true, writable: true })
            const link = findConnection(window)
            compare(link.readOnlyLocked, true)
            tryVerify(function() { return link.client !== null }, qetcdTest.timeout(5000))
            compare(link.readOnly, true)
            compare(link.saveProfile({ name: "local-rw", endpoints: [qetcdTest.endpoint], readOnly: false }), "")
            link.open("local-rw")
            tryCompare(link, "profileName", "local-rw")
            compare(link.readOnly, true, "the profile's own flag does not undo --read-only")
            const toggle = readOnlySwitch(window)
            compare(toggle.checked, true)
            compare(toggle.enabled, false)
            link.allowWrites(true)
            compare(link.readOnly, true)
            // The client itself refuses a write, before sending it.
            window.showPage("keys")
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            const page = window.currentPage
            const writes = createTemporaryObject(spyComponent, root, { target: page.model, signalName: "writeFinished" })
            page.model.create("/readonly/k", "v")
            tryCompare(writes, "count", 1, qetcdTest.timeout(10000))
            compare(writes.signalArguments[0][2].code, Etcd.StatusCode.ReadOnly)
            verify(page.advise(writes.signalArguments[0][2]).indexOf("--read-only") >= 0)
            // A local connection without --read-only may write, and its switch makes it read-only.
            const local = open({ endpoints: [qetcdTest.endpoint] })
            const localLink = findConnection(local)
            tryVerify(function() { return localLink.client !== null }, qetcdTest.timeout(5000))
            compare(localLink.readOnly, false)
            mouseClick(readOnlySwitch(local))
            tryCompare(localLink, "readOnly", true)
        }

        // Several endpoints in a short header: the first and how many more, never a list cut in
        // the middle into what reads as one broken URL; all of them in full where they fit.
        function test_endpointsShowTheFirstAndHowManyMoreWhenShort() {
            const members = ["http://192.0.2.7:2379", "http://192.0.2.8:2379", "http://192.0.2.9:2379"]
            const window = open({ endpoints: members })
            const label = findChild(window.header, "endpointsLabel")
            verify(label)
            window.width = 1000
            tryCompare(label, "text", "192.0.2.7:2379 +2")
            compare(label.everyEndpoint, members.join(", "), "in the tooltip")
            verify(label.width <= 360, "the header keeps its room for the rest")
            const wide = open({ endpoints: members.slice(0, 2) })
            wide.width = 1900
            tryCompare(findChild(wide.header, "endpointsLabel"), "text", members.slice(0, 2).join(", "))
        }

        // --user NAME without a password: the window asks (never argv), and connects with it.
        function test_commandLineUserIsAskedForThePassword() {
            const endpoint = qetcdTest.authEndpoint()
            verify(endpoint.length > 0, "the auth-enabled etcd did not start")
            const window = open({ endpoints: [endpoint], user: "app" })
            const link = findConnection(window)
            const dialog = window.passwordDialog
            tryCompare(dialog, "opened", true, qetcdTest.timeout(10000))
            compare(dialog.profileName, "")
            compare(dialog.user, "app")
            findChild(dialog.contentItem, "passwordField").text = "apppw"
            dialog.accept()
            tryVerify(function() { return link.client !== null }, qetcdTest.timeout(5000))
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            compare(link.user, "app")
            compare(link.profileName, "")
        }

        // --command-timeout reaches the client the pages use, and the participants'.
        function test_commandTimeoutReachesTheClient() {
            const window = open({ endpoints: [qetcdTest.endpoint], commandTimeoutMs: 1234 })
            const link = findConnection(window)
            tryVerify(function() { return link.client !== null }, qetcdTest.timeout(5000))
            compare(link.participantOptions().commandTimeoutMs, 1234)
        }

        // --max-recv-bytes, and a profile's own limit, reach the client; a limit below 4 MiB is
        // refused when the profile is saved.
        function test_receiveLimitReachesTheClient() {
            const window = open({ endpoints: [qetcdTest.endpoint], maxRecvBytes: 8388608 })
            const link = findConnection(window)
            tryVerify(function() { return link.client !== null }, qetcdTest.timeout(5000))
            compare(link.participantOptions().maxRecvBytes, 8388608)

            const dialog = window.profileDialog
            dialog.edit("")
            tryCompare(dialog, "opened", true)
            const limit = findChild(dialog.contentItem, "profileMaxRecv")
            compare(limit.value, 32, "the client's default")
            findChild(dialog.contentItem, "profileName").text = "big-answers"
            findChild(dialog.contentItem, "profileEndpoints").text = qetcdTest.endpoint
            limit.value = 64
            dialog.save(true)
            tryCompare(dialog, "visible", false)
            compare(link.profile("big-answers").maxRecvBytes, 64 * 1048576)
            tryCompare(link, "profileName", "big-answers")
            tryVerify(function() { return link.participantOptions().maxRecvBytes === 64 * 1048576 }, qetcdTest.timeout(5000))
            compare(link.saveProfile({ name: "tiny", endpoints: [qetcdTest.endpoint], maxRecvBytes: 1024 }).indexOf("at least 4 MiB") >= 0, true)
            link.removeProfile("big-answers")
        }

        function test_tlsFilesAreTypedOrPicked() {
            const window = open({ endpoints: [qetcdTest.endpoint] })
            const dialog = window.profileDialog
            dialog.edit("")
            tryCompare(dialog, "opened", true)
            const ca = findChild(dialog.contentItem, "profileCaFile")
            verify(ca)
            mouseClick(findChild(dialog.contentItem, "profileCaFileBrowse"))
            tryCompare(ca.picker, "visible", true)
            const pem = qetcdTest.tlsEndpoint().caFile
            verify(pem)
            // The operator picks the file: what the dialog then says (its own view offscreen has
            // no user to click in it).
            ca.picker.currentFolder = "file://" + pem.substring(0, pem.lastIndexOf("/"))
            ca.picker.selectedFile = "file://" + pem
            tryCompare(ca.picker, "selectedFile", "file://" + pem)
            ca.picker.accepted()
            tryCompare(ca, "text", pem)
            compare(dialog.collect().caFile, pem)
            dialog.close()
        }

        function test_wrongEndpointNamesItAndWhatToDo() {
            const window = open({ endpoints: ["http://127.0.0.1:1"] })
            const link = findConnection(window)
            tryVerify(function() { return link.problem.length > 0 }, qetcdTest.timeout(15000))
            verify(link.problem.indexOf("http://127.0.0.1:1") >= 0, link.problem)
            verify(link.problem.indexOf("Check the address and port") >= 0, link.problem)
            compare(window.connectionState, "Unreachable")
            const banner = problemBanner(window)
            verify(banner.visible)
            compare(banner.text, link.problem)
            verifyUsable(window)
        }

        function test_missingCaFileNamesItAndWhatToDo() {
            const https = qetcdTest.endpoint.replace("http://", "https://")
            const profile = { name: "bad-ca", endpoints: [https], caFile: "/nonexistent/ca.pem" }
            const window = open({ endpoints: [https], caFile: "/nonexistent/ca.pem" })
            const link = findConnection(window)
            // A profile that cannot work is not saved, and saving says why.
            const refusal = link.saveProfile(profile)
            verify(refusal.indexOf("/nonexistent/ca.pem") >= 0, refusal)
            tryVerify(function() { return link.problem.length > 0 }, qetcdTest.timeout(10000))
            verify(link.problem.indexOf(https) >= 0, link.problem)
            verify(link.problem.indexOf("/nonexistent/ca.pem") >= 0, link.problem)
            verify(link.problem.indexOf("Correct the profile") >= 0, link.problem)
            verify(problemBanner(window).visible)
            verifyUsable(window)
        }

        function test_aCaThatDidNotSignTheServerIsNamedWithWhatToDo() {
            const tls = qetcdTest.tlsEndpoint()
            verify(tls.endpoint, "the TLS etcd did not start")
            const window = open({ endpoints: [tls.endpoint], caFile: tls.otherCaFile })
            const link = findConnection(window)
            tryVerify(function() { return link.problem.length > 0 }, qetcdTest.timeout(15000))
            compare(link.problemKind, "tls")
            verify(link.problem.indexOf(tls.endpoint) >= 0, link.problem)
            verify(link.problem.indexOf("Check that the CA file is the one that signed") >= 0, link.problem)
            compare(window.connectionState, "Refused")
            verify(problemBanner(window).visible)
            // The right CA connects, from a profile.
            compare(link.saveProfile({ name: "tls", endpoints: [tls.endpoint], caFile: tls.caFile }), "")
            link.open("tls")
            tryCompare(link, "problem", "", qetcdTest.timeout(15000))
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            verifyUsable(window)
        }

        function test_wrongPasswordIsAskedAgainAndAPermissionIsNamed() {
            const endpoint = qetcdTest.authEndpoint()
            verify(endpoint.length > 0, "the auth-enabled etcd did not start")
            const window = open({ endpoints: [qetcdTest.endpoint] })
            const link = findConnection(window)
            compare(link.saveProfile({ name: "app", endpoints: [endpoint], user: "app" }), "")
            verify(link.profileNames.indexOf("app") >= 0)

            // There is no keychain service here: the console asks, and says why.
            const dialog = window.passwordDialog
            link.open("app")
            tryCompare(dialog, "opened", true, qetcdTest.timeout(10000))
            verify(dialog.reason.indexOf("keychain") >= 0, dialog.reason)
            findChild(dialog.contentItem, "passwordField").text = "wrong"
            dialog.accept()
            tryVerify(function() { return link.problem.length > 0 }, qetcdTest.timeout(15000))
            compare(link.problemKind, "password")
            verify(link.problem.indexOf(endpoint) >= 0, link.problem)
            verify(link.problem.indexOf("Enter the password again") >= 0, link.problem)
            compare(window.connectionState, "Refused")

            // Asked again from the banner, the right password connects.
            dialog.ask("app", "app", "again", false)
            tryCompare(dialog, "opened", true)
            findChild(dialog.contentItem, "passwordField").text = "apppw"
            dialog.accept()
            tryCompare(link, "problem", "", qetcdTest.timeout(15000))
            compare(link.profileName, "app")

            // A key outside the user's permission: the refusal names it and what to do.
            window.showPage("keys")
            const page = window.currentPage
            compare(page.title, "Keys")
            const writes = createTemporaryObject(spyComponent, root, { target: page.model, signalName: "writeFinished" })
            page.model.create("/other/k", "v")
            tryCompare(writes, "count", 1, qetcdTest.timeout(10000))
            const status = writes.signalArguments[0][2]
            compare(status.code, Etcd.StatusCode.PermissionDenied)
            const advice = page.advise(status)
            verify(advice.indexOf("/other/k") >= 0, advice)
            verify(advice.indexOf("ask an administrator") >= 0, advice)
            // Reading where the user may not: the page says etcd's words (naming the range) and
            // what to do.
            page.model.prefix = "/other/"
            tryCompare(page.model, "status", ModelStatus.Error, qetcdTest.timeout(10000))
            const empty = findChild(page, "keysEmptyState")
            verify(empty.visible)
            verify(empty.detail.indexOf("/other/") >= 0, empty.detail)
            verify(empty.detail.indexOf("permission denied") >= 0, empty.detail)
            verify(empty.detail.indexOf("connect as a user whose role allows it") >= 0, empty.detail)
            page.model.prefix = "/app/"
            tryCompare(page.model, "status", ModelStatus.Ready, qetcdTest.timeout(10000))

            // Inside its permission the same user writes.
            page.model.create("/app/k", "v")
            tryCompare(writes, "count", 2, qetcdTest.timeout(10000))
            verify(writes.signalArguments[1][2].isOk, writes.signalArguments[1][2].message)

            verifyUsable(window)
        }

        // A profile through an SSH tunnel, against a real sshd on loopback: the console runs ssh
        // (here QETCD_SSH, a configured one) with a forward to etcd, connects through it, names the
        // cluster and the tunnel in the header, and opens read-only (127.0.0.1 there is not here).
        // Going back to the command line ends ssh.
        function test_profileThroughAnSshTunnel() {
            const sshd = qetcdTest.sshServer()
            verify(sshd.port > 0, "sshd did not start")
            const previous = qetcdTest.setEnvironmentVariable("QETCD_SSH", sshd.ssh)
            try {
                qetcdTest.etcdctl(["put", "/ssh/through", "tunnelled"])
                const window = open({ endpoints: [qetcdTest.endpoint] })
                const link = findConnection(window)
                compare(link.saveProfile({ name: "bastion", endpoints: [qetcdTest.endpoint], sshHost: "127.0.0.1",
                                           sshUser: sshd.user, sshPort: String(sshd.port) }), "")
                compare(link.profile("bastion").sshPort, sshd.port)
                link.open("bastion")
                tryCompare(link, "tunnelState", "open", qetcdTest.timeout(20000))
                compare(link.tunnelThrough, sshd.user + "@127.0.0.1:" + sshd.port)
                compare(link.endpoints, [qetcdTest.endpoint], "the header names the cluster, not the tunnel's end")
                verify(link.client.activeEndpoint.indexOf(qetcdTest.endpoint) < 0, link.client.activeEndpoint)
                compare(link.readOnly, true, "127.0.0.1 through a tunnel is another machine's")
                tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
                window.showPage("keys")
                window.currentPage.model.prefix = "/ssh/"
                tryVerify(function() { return window.currentPage.model.indexOf("/ssh/through") >= 0 }, qetcdTest.timeout(10000))
                // Allowing writes reconnects through the same tunnel.
                const ends = link.participantOptions().endpoints
                link.allowWrites(true)
                tryCompare(link, "readOnly", false, qetcdTest.timeout(5000))
                compare(link.tunnelState, "open")
                compare(link.participantOptions().endpoints, ends)
                verify(ends[0].indexOf("http://127.0.0.1:") === 0 && ends[0] !== qetcdTest.endpoint, ends[0])

                link.openCommandLine()
                tryCompare(link, "tunnelState", "", qetcdTest.timeout(5000))
                compare(link.tunnelThrough, "")
            } finally {
                qetcdTest.setEnvironmentVariable("QETCD_SSH", previous)
            }
        }

        // What goes wrong with ssh is named in the banner, and the console keeps trying.
        function test_sshTunnelFailuresAreNamed_data() {
            return [
                { tag: "unknown host key", program: "unknownHost", port: "port", words: ["host key of 127.0.0.1", "ssh 127.0.0.1"] },
                { tag: "login refused", program: "noKey", port: "port", words: ["refused the login", "no key it accepts"] },
                { tag: "port closed", program: "ssh", port: "closedPort", words: ["nothing answers ssh at"] }
            ]
        }
        function test_sshTunnelFailuresAreNamed(data) {
            const sshd = qetcdTest.sshServer()
            verify(sshd.port > 0, "sshd did not start")
            const previous = qetcdTest.setEnvironmentVariable("QETCD_SSH", sshd[data.program])
            try {
                const window = open({ endpoints: [qetcdTest.endpoint] })
                const link = findConnection(window)
                compare(link.saveProfile({ name: "broken", endpoints: [qetcdTest.endpoint], sshHost: "127.0.0.1",
                                           sshUser: sshd.user, sshPort: String(sshd[data.port]) }), "")
                link.open("broken")
                tryCompare(link, "problemKind", "ssh", qetcdTest.timeout(20000))
                for (const words of data.words)
                    verify(link.problem.indexOf(words) >= 0, link.problem)
                verify(link.problem.indexOf("tries again") >= 0, link.problem)
                compare(link.tunnelState, "failed")
                const banner = problemBanner(window)
                verify(banner.visible && banner.bad)
                compare(window.connectionState, "Unreachable")
                // The retries reopen ssh only: the pages are not told of a new client each time.
                const announced = createTemporaryObject(spyComponent, root, { target: link, signalName: "clientChanged" })
                const tunnels = createTemporaryObject(spyComponent, root, { target: link, signalName: "tunnelChanged" })
                tryVerify(function() { return tunnels.count >= 2 && link.tunnelState === "failed" }, qetcdTest.timeout(15000),
                          "a retry opened the tunnel and failed again")
                compare(announced.count, 0)
                compare(link.problemKind, "ssh")
            } finally {
                qetcdTest.setEnvironmentVariable("QETCD_SSH", previous)
            }
        }

        function test_sshFieldsAreChecked() {
            const window = open({ endpoints: [qetcdTest.endpoint] })
            const link = findConnection(window)
            verify(link.saveProfile({ name: "x", endpoints: [qetcdTest.endpoint], sshHost: "-oProxyCommand=evil" }).indexOf("may not start with") >= 0)
            verify(link.saveProfile({ name: "x", endpoints: [qetcdTest.endpoint], sshHost: "a b" }).indexOf("hold spaces") >= 0)
            verify(link.saveProfile({ name: "x", endpoints: [qetcdTest.endpoint], sshHost: "bastion", sshPort: "70000" }).indexOf("SSH port") >= 0)
            verify(link.saveProfile({ name: "x", endpoints: [qetcdTest.endpoint], sshUser: "me" }).indexOf("needs the SSH host") >= 0)
            compare(link.profileNames.indexOf("x"), -1, "nothing is half-written")
        }

        // etcd refusing work while its proposal queue is full ("too many requests") cannot be
        // produced on demand: the client's test seam answers so, before anything is sent.
        function test_tooManyRequestsIsNamedAndClearsOnceEtcdTakesWorkAgain() {
            const window = open({ endpoints: [qetcdTest.endpoint] })
            const link = findConnection(window)
            window.showPage("keys")
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            tryCompare(window, "ready", true, qetcdTest.timeout(15000))
            const page = window.currentPage

            qetcdTest.answerTooManyRequests(link.client, true)
            link.check()
            tryCompare(link, "problemKind", "busy", qetcdTest.timeout(10000))
            verify(link.problem.indexOf(qetcdTest.endpoint) >= 0, link.problem)
            verify(link.problem.indexOf("too many requests") >= 0, link.problem)
            verify(link.problem.indexOf("the console keeps trying") >= 0, link.problem)
            compare(window.connectionState, "Busy")
            verify(problemBanner(window).visible)
            // A write refused the same way says so, with the endpoint and what to do.
            const writes = createTemporaryObject(spyComponent, root, { target: page.model, signalName: "writeFinished" })
            page.model.create("/busy/k", "v")
            tryCompare(writes, "count", 1, qetcdTest.timeout(10000))
            const status = writes.signalArguments[0][2]
            compare(status.code, Etcd.StatusCode.ResourceExhausted)
            const advice = page.advise(status)
            verify(advice.indexOf(qetcdTest.endpoint) >= 0, advice)
            verify(advice.indexOf("try again in a moment") >= 0, advice)

            // Nobody presses "Try again": the console asks on its own and finds etcd willing.
            qetcdTest.answerTooManyRequests(link.client, false)
            tryCompare(link, "problem", "", qetcdTest.timeout(15000))
            // Trouble once, the connection is Reconnected from now on, as a recipe's would be.
            tryCompare(window, "connectionState", "Reconnected", qetcdTest.timeout(15000))
            verify(!problemBanner(window).visible)
        }
    }

    Component {
        id: spyComponent
        SignalSpy {}
    }
}
