// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's window losing its cluster mid-session, on each page: the endpoint goes away
// (the proxy resets every connection), the window says so — Suspended, and a banner naming
// the endpoint — while the page keeps what it last read; once the endpoint is back the window
// is Reconnected without a click, and a change made meanwhile reaches the page. A participant
// that loses its lock meanwhile makes the window Lost until it lets go of the lost hold.
Item {
    id: root
    width: 1280
    height: 800

    Component {
        id: consoleWindow
        Main { visible: true }
    }

    TestCase {
        name: "Outage"
        when: windowShown

        function etcdctl(args) {
            return qetcdTest.etcdctl(args).trim()
        }

        function init() {
            qetcdTest.setFault("pass")
        }
        function cleanup() {
            qetcdTest.setFault("pass")
        }

        function test_eachPageSaysTheClusterIsGoneAndComesBack_data() {
            return [
                { tag: "cluster", page: "cluster", count: "members" },
                { tag: "keys", page: "keys", count: "loaded" },
                { tag: "leases", page: "leases", count: "leases" },
                { tag: "coordination", page: "coordination", count: "objects" }
            ]
        }
        function test_eachPageSaysTheClusterIsGoneAndComesBack(data) {
            const lease = etcdctl(["lease", "grant", "120"]).split(" ")[1]
            etcdctl(["put", "/outage/" + data.tag + "/before", "v", "--lease=" + lease])
            // A lock in etcd's layout (a key named after its lease), for the Coordination page.
            etcdctl(["put", "/outage/" + data.tag + "/lock/" + lease, "holder", "--lease=" + lease])
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.proxyEndpoint] } })
            verify(window)
            window.showPage(data.page)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            tryCompare(window, "ready", true, qetcdTest.timeout(15000))
            const banner = findChild(window.contentItem, "connectionProblem")
            verify(banner)
            verify(!banner.visible)
            // Something to keep: the member, the keys, the lease and the lock made above.
            tryVerify(function() { return window.summary[data.count] >= 1 }, qetcdTest.timeout(15000),
                      JSON.stringify(window.summary))
            const before = window.summary

            qetcdTest.setFault("reset")
            tryCompare(window, "connectionState", "Suspended", qetcdTest.timeout(20000))
            verify(banner.visible)
            verify(banner.bad)
            verify(banner.text.indexOf(qetcdTest.proxyEndpoint) >= 0, banner.text)
            verify(banner.text.indexOf("asks again") >= 0, banner.text)
            // What the page read stays on it.
            compare(window.summary.page, data.page)
            compare(window.summary[data.count], before[data.count])
            // A change made while the console cannot see the cluster...
            etcdctl(["put", "/outage/" + data.tag + "/during", "v"])

            qetcdTest.setFault("pass")
            tryCompare(window, "connectionState", "Reconnected", qetcdTest.timeout(20000))
            tryCompare(banner, "visible", false, qetcdTest.timeout(5000))
            // ...reaches the Keys page once the watch is back.
            if (data.page === "keys") {
                const model = window.currentPage.model
                tryVerify(function() { return model.indexOf("/outage/keys/during") >= 0 }, qetcdTest.timeout(20000))
            }
        }

        function test_aParticipantsLostHoldMakesTheWindowLost() {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.proxyEndpoint] } })
            verify(window)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            const member = window.participantsPage.addParticipant("A")
            verify(member)
            member.mutex.path = "/outage/lost/lock"
            member.mutex.ttl = 3
            member.mutex.lock()
            tryCompare(member.mutex, "state", Participant.Active, qetcdTest.timeout(15000))

            // Cut off, the participant's lease runs out: the window says Lost, not Suspended,
            // and its tooltip names what went.
            qetcdTest.setFault("blackhole")
            tryCompare(member.mutex, "state", Participant.Lost, qetcdTest.timeout(20000))
            tryCompare(window, "connectionState", "Lost", qetcdTest.timeout(5000))
            verify(window.connectionStateHint.indexOf("A: Lock /outage/lost/lock") >= 0, window.connectionStateHint)
            // Back in contact, the hold stays lost until the participant lets go of it.
            qetcdTest.setFault("pass")
            tryVerify(function() { return !window.contactLost }, qetcdTest.timeout(20000))
            compare(window.connectionState, "Lost")
            compare(member.mutex.unlock(), false)
            tryCompare(window, "connectionState", "Reconnected", qetcdTest.timeout(5000))
        }
    }
}
