// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's Leases page against a real etcd: sorted by time left, revoking through its
// confirmation, and a read-only connection that neither offers a revoke nor performs one.
Item {
    id: root
    width: 1200
    height: 760

    EtcdClient { id: writer; endpoints: [qetcdTest.endpoint] }
    EtcdClient { id: reader; endpoints: [qetcdTest.endpoint]; readOnly: true }

    Component {
        id: leasesPage
        LeasesPage { anchors.fill: parent }
    }
    Component {
        id: signalSpy
        SignalSpy {}
    }

    TestCase {
        name: "LeasesPage"
        when: windowShown

        function etcdctl(args) {
            return qetcdTest.etcdctl(args).trim()
        }
        // "lease 694d7b0c0d1e0d0a granted with TTL(30s)": the ID, as the page spells it.
        function grant(ttl, key) {
            const id = etcdctl(["lease", "grant", String(ttl)]).split(" ")[1].replace(/^0+/, "")
            etcdctl(["put", "--lease=" + id, key, "held"])
            return id
        }
        function alive(id) {
            return etcdctl(["lease", "timetolive", id]).indexOf("already expired") < 0
        }
        function idsInOrder(page) {
            const ids = []
            for (let row = 0; row < page.sorted.rowCount(); ++row)
                ids.push(page.sorted.data(page.sorted.index(row, 0), LeaseModel.IdRole))
            return ids
        }
        function openPage(client, readOnly, ids) {
            const page = createTemporaryObject(leasesPage, root, { client: client, readOnly: readOnly })
            verify(page)
            tryVerify(function() {
                const shown = idsInOrder(page)
                return ids.every(function(id) { return shown.indexOf(id) >= 0 })
            }, qetcdTest.timeout(10000))
            return page
        }

        function test_sortedByTimeLeftOrById() {
            const lasting = grant(600, "/qml/leasespage/sort/long")
            const brief = grant(60, "/qml/leasespage/sort/short")
            const page = openPage(writer.client, false, [lasting, brief])
            const order = function() {
                const shown = idsInOrder(page)
                return shown.indexOf(brief) < shown.indexOf(lasting) ? "short first" : "long first"
            }
            compare(order(), "short first", "the default is least time left first")
            const choice = findChild(page, "sortChoice")
            choice.currentIndex = 1
            compare(order(), "long first")
            choice.currentIndex = 2
            const byId = idsInOrder(page)
            const numeric = byId.slice().sort(function(a, b) { return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0) })
            compare(byId, numeric)
        }

        // Another page (the Keys page's lease field) points at a lease: its row is marked.
        function test_revealMarksTheLeasePointedAt() {
            const pointed = grant(300, "/qml/leasespage/reveal/k")
            const page = openPage(writer.client, false, [pointed])
            verify(page.reveal(pointed))
            compare(page.revealed, pointed)
            verify(!page.reveal("ffffffffffff"), "a lease the page does not list")
        }

        function test_revokeIsConfirmedAndDeletesTheKeys() {
            const id = grant(600, "/qml/leasespage/revoke/held")
            const page = openPage(writer.client, false, [id])
            const button = findChild(page, "revoke_" + id)
            verify(button)
            verify(button.button.enabled)
            mouseClick(button.button)
            const dialog = findChild(page, "confirmRevoke")
            tryCompare(dialog, "opened", true)
            verify(dialog.message.indexOf("/qml/leasespage/revoke/held") >= 0, dialog.message)
            mouseClick(findChild(dialog.footer, "confirmButton"))
            tryVerify(function() { return !alive(id) }, qetcdTest.timeout(10000))
            compare(etcdctl(["get", "/qml/leasespage/revoke/held"]), "")
            tryVerify(function() { return idsInOrder(page).indexOf(id) < 0 }, qetcdTest.timeout(10000))
            compare(findChild(page, "revokeError").text, "")
        }

        function test_revokeOfAGoneLeaseSaysSo() {
            const id = grant(600, "/qml/leasespage/gone/held")
            const page = openPage(writer.client, false, [id])
            etcdctl(["lease", "revoke", id])
            const finished = createTemporaryObject(signalSpy, root, { target: page.model, signalName: "revokeFinished" })
            page.model.revoke(id)
            tryCompare(finished, "count", 1, qetcdTest.timeout(10000))
            const error = findChild(page, "revokeError")
            verify(error.visible)
            verify(error.text.indexOf(id) >= 0, error.text)
            verify(error.text.indexOf("not found") >= 0, error.text)
        }

        function test_readOnlyOffersNoRevokeAndTheClientRefusesOne() {
            const id = grant(600, "/qml/leasespage/ro/held")
            const page = openPage(reader.client, true, [id])
            const button = findChild(page, "revoke_" + id)
            verify(button)
            compare(button.button.enabled, false)
            const finished = createTemporaryObject(signalSpy, root, { target: page.model, signalName: "revokeFinished" })
            page.model.revoke(id)
            tryCompare(finished, "count", 1, qetcdTest.timeout(10000))
            const status = finished.signalArguments[0][1]
            compare(status.code, Etcd.StatusCode.ReadOnly, status.message)
            verify(status.message.indexOf(id) >= 0, status.message)
            verify(alive(id))
            compare(etcdctl(["get", "--print-value-only", "/qml/leasespage/ro/held"]), "held")
        }
    }
}
