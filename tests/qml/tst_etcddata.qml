// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// What etcd holds is shown as it is stored, never interpreted: markup in a key, a holder's
// identity or a proposal reads literally, in plain text; bidirectional controls show as escapes;
// and two keys that differ only in bytes that are not UTF-8 are two rows that look different,
// each of which can be selected and deleted on its own.
Item {
    id: root
    width: 1200
    height: 760

    EtcdClient { id: writer; endpoints: [qetcdTest.endpoint] }

    Component {
        id: keysPage
        KeysPage { anchors.fill: parent }
    }
    Component {
        id: coordinationPage
        CoordinationPage { anchors.fill: parent }
    }
    Component {
        id: leasesPage
        LeasesPage { anchors.fill: parent }
    }
    Component {
        id: signalSpy
        SignalSpy {}
    }

    TestCase {
        name: "EtcdData"
        when: windowShown

        // Markup no page may render: a URL nobody serves, and emphasis that fakes a leader.
        readonly property string markup: '<img src="http://127.0.0.1:9/x"><b>LEADER</b>'

        function etcdctl(args) {
            return qetcdTest.etcdctl(args).trim()
        }
        function grant() {
            return etcdctl(["lease", "grant", "600"]).split(" ")[1]
        }
        // The keys under prefix as etcd has them, in etcdctl's hex ("\\x2f\\x71..."), sorted.
        function storedKeys(prefix) {
            return etcdctl(["get", "--prefix", prefix, "--keys-only", "--hex"]).split("\n")
                .filter(function(line) { return line.length > 0 }).sort()
        }
        // bytes, a string of byte values (U+0000 to U+00FF), as etcdctl spells them in hex.
        function hex(bytes) {
            let spelt = ""
            for (let i = 0; i < bytes.length; ++i)
                spelt += "\\x" + ("0" + bytes.charCodeAt(i).toString(16)).slice(-2)
            return spelt
        }
        // Every item under item that shows text, visible or not.
        function texts(item) {
            let found = []
            if (item.text !== undefined && item.textFormat !== undefined)
                found.push(item)
            for (let i = 0; i < item.children.length; ++i)
                found = found.concat(texts(item.children[i]))
            return found
        }
        // The items showing exactly `shown`; each in plain text. And nothing under page shows
        // markup as markup.
        function shownLiterally(page, shown) {
            let showing = []
            tryVerify(function() {
                showing = texts(page).filter(function(item) { return item.visible && item.text === shown })
                return showing.length > 0
            }, qetcdTest.timeout(10000), "nothing shows " + shown)
            for (const item of texts(page)) {
                if (item.text.indexOf("<") >= 0)
                    compare(item.textFormat, Text.PlainText, item + " renders " + item.text)
            }
            return showing
        }
        function openKeys(prefix) {
            const page = createTemporaryObject(keysPage, root, { client: writer.client })
            verify(page)
            page.model.prefix = prefix
            tryCompare(page.model, "status", ModelStatus.Ready, qetcdTest.timeout(10000))
            return page
        }

        function test_keysDifferingInInvalidBytesAreTwoRows() {
            const prefix = "/qml/etcddata/bytes/"
            // Bytes FF FE, which are not UTF-8, travel through QML as U+DCFF U+DCFE.
            const invalid = prefix + "bad\uDCFF\uDCFE"
            const replacement = prefix + "bad\uFFFD\uFFFD"
            const invalidBytes = hex(prefix + "bad\u00FF\u00FE")
            const replacementBytes = hex(prefix + "bad\u00EF\u00BF\u00BD\u00EF\u00BF\u00BD")
            verify(qetcdTest.putBytes(invalidBytes.split("\\x").join(""), "one"))
            const page = openKeys(prefix)
            const written = createTemporaryObject(signalSpy, root, { target: page.model, signalName: "writeFinished" })
            // The other through the page: it writes the key it is given, byte for byte.
            page.model.create(replacement, "two")
            tryCompare(written, "count", 1, qetcdTest.timeout(10000))
            compare(storedKeys(prefix), [invalidBytes, replacementBytes].sort())

            tryCompare(page.model, "count", 2, qetcdTest.timeout(10000))
            verify(page.model.indexOf(invalid) !== page.model.indexOf(replacement))
            shownLiterally(page, prefix + "bad\\xFF\\xFE")
            shownLiterally(page, prefix + "bad\uFFFD\uFFFD")

            page.select(invalid)
            tryVerify(function() { return page.model.selected.value === "one" }, qetcdTest.timeout(10000))
            compare(findChild(page, "selectedKeyLabel").text, prefix + "bad\\xFF\\xFE")
            page.model.remove(invalid, page.model.selected.modRevision)
            tryCompare(written, "count", 2, qetcdTest.timeout(10000))
            verify(written.signalArguments[1][2].isOk, written.signalArguments[1][2].message)
            compare(storedKeys(prefix), [replacementBytes])
            tryCompare(page.model, "count", 1, qetcdTest.timeout(10000))
            compare(page.model.indexOf(replacement), 0)
        }

        function test_bidirectionalControlsAreShown() {
            const prefix = "/qml/etcddata/bidi/"
            // Shown as is, it reads "/qml/etcddata/bidi/rtlexe.png".
            etcdctl(["put", prefix + "rtl\u202Egnp.exe", "payload"])
            const page = openKeys(prefix)
            shownLiterally(page, prefix + "rtl\\u202Egnp.exe")
        }

        // In a value too, as text and as JSON; the lines stay lines, and the editor starts from
        // the value as stored.
        function test_bidirectionalControlsInValuesAreShown() {
            const prefix = "/qml/etcddata/bidivalue/"
            const text = "invoice\u202Efdp.exe\nline two"
            const json = "{\"file\":\"invoice\u202Efdp.exe\"}"
            etcdctl(["put", prefix + "text", text])
            etcdctl(["put", prefix + "json", json])
            const page = openKeys(prefix)
            page.select(prefix + "text")
            tryVerify(function() { return page.model.selected.value === text }, qetcdTest.timeout(10000))
            tryCompare(findChild(page, "valueText"), "text", "invoice\\u202Efdp.exe\nline two", qetcdTest.timeout(10000))
            compare(page.model.selected.views.text, text)
            page.select(prefix + "json")
            tryVerify(function() { return page.model.selected.value === json }, qetcdTest.timeout(10000))
            tryCompare(findChild(page, "valueText"), "text", "{\n    \"file\": \"invoice\\u202Efdp.exe\"\n}", qetcdTest.timeout(10000))
        }

        function test_markupInKeysIsShownLiterally() {
            const prefix = "/qml/etcddata/keys/"
            etcdctl(["put", prefix + markup, markup])
            const page = openKeys(prefix)
            shownLiterally(page, prefix + markup)
            page.select(prefix + markup)
            tryVerify(function() { return page.model.selected.value === markup }, qetcdTest.timeout(10000))
            compare(findChild(page, "selectedKeyLabel").text, prefix + markup)
            compare(findChild(page, "valueText").text, markup)
            compare(findChild(page, "valueText").textFormat, TextEdit.PlainText)
            compare(findChild(page, "valueEditor").textFormat, TextEdit.PlainText)
        }

        function test_markupInCoordinationIsShownLiterally() {
            const prefix = "/qml/etcddata/coordination/"
            // etcd's lock layout <name>/<lease>, valued with the identity qetcd writes.
            const holder = grant()
            etcdctl(["put", "--lease=" + holder, prefix + "lock" + markup + "/" + holder.replace(/^0+/, ""),
                     JSON.stringify({ clientId: "client" + markup, host: "host" + markup, pid: 4121,
                                      requestedAt: Date.now(), role: "lock" })])
            // An election as `etcdctl elect NAME PROPOSAL` leaves it.
            const leader = grant()
            etcdctl(["put", "--lease=" + leader, prefix + "election/" + leader.replace(/^0+/, ""), "proposal" + markup])

            const page = createTemporaryObject(coordinationPage, root, { client: writer.client })
            verify(page)
            page.model.prefix = prefix
            tryCompare(page, "ready", true, qetcdTest.timeout(10000))
            tryCompare(page.model, "count", 2, qetcdTest.timeout(10000))
            shownLiterally(page, prefix + "lock" + markup)
            shownLiterally(page, "client" + markup)
            shownLiterally(page, "host" + markup + ", pid 4121")
            shownLiterally(page, "proposal" + markup)

            const leases = createTemporaryObject(leasesPage, root, { client: writer.client })
            verify(leases)
            shownLiterally(leases, "lock " + prefix + "lock" + markup)
            shownLiterally(leases, prefix + "lock" + markup + "/" + holder.replace(/^0+/, ""))
        }
    }
}
