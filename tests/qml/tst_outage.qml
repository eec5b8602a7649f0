import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's window losing its cluster mid-session, on each page: the endpoint goes away
// (the proxy resets every connection), the window says so — Unreachable, and a banner naming
// the endpoint — while the page keeps what it last read; once the endpoint is back the window
// is Connected again without a click, and a change made meanwhile reaches the page.
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
                { tag: "cluster", page: "cluster", kept: function(summary) { return summary.members === 1 } },
                { tag: "keys", page: "keys", kept: function(summary) { return summary.loaded > 0 } },
                { tag: "leases", page: "leases", kept: function(summary) { return summary.leases >= 0 } },
                { tag: "coordination", page: "coordination", kept: function(summary) { return summary.objects >= 0 } }
            ]
        }
        function test_eachPageSaysTheClusterIsGoneAndComesBack(data) {
            const lease = etcdctl(["lease", "grant", "120"]).split(" ")[1]
            etcdctl(["put", "/outage/" + data.tag + "/before", "v", "--lease=" + lease])
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.proxyEndpoint] } })
            verify(window)
            window.showPage(data.page)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            tryCompare(window, "ready", true, qetcdTest.timeout(15000))
            const banner = findChild(window.contentItem, "connectionProblem")
            verify(banner)
            verify(!banner.visible)
            const before = window.summary
            verify(data.kept(before), JSON.stringify(before))

            qetcdTest.setFault("reset")
            tryCompare(window, "connectionState", "Unreachable", qetcdTest.timeout(20000))
            verify(banner.visible)
            verify(banner.bad)
            verify(banner.text.indexOf(qetcdTest.proxyEndpoint) >= 0, banner.text)
            verify(banner.text.indexOf("asks again") >= 0, banner.text)
            // What the page read stays on it.
            compare(window.summary.page, data.page)
            verify(data.kept(window.summary), JSON.stringify(window.summary))
            // A change made while the console cannot see the cluster...
            etcdctl(["put", "/outage/" + data.tag + "/during", "v"])

            qetcdTest.setFault("pass")
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(20000))
            tryCompare(banner, "visible", false, qetcdTest.timeout(5000))
            // ...reaches the Keys page once the watch is back.
            if (data.page === "keys") {
                const model = window.currentPage.model
                tryVerify(function() { return model.indexOf("/outage/keys/during") >= 0 }, qetcdTest.timeout(20000))
            }
        }
    }
}
