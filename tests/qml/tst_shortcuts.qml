// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's keyboard: Ctrl+1 … Ctrl+7 pick pages, Ctrl+P pauses, F5 reads a page again,
// F1 or ? lists the shortcuts, Delete asks before deleting the selected or the marked keys; as
// key presses into the window, against a real etcd.
Item {
    id: root
    width: 1280
    height: 800

    Component {
        id: consoleWindow
        Main { visible: true }
    }
    Component {
        id: spyComponent
        SignalSpy {}
    }

    TestCase {
        name: "Shortcuts"
        when: windowShown

        // A console on the test's etcd, its window the one key presses go to.
        function openConsole() {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint] } })
            verify(window)
            window.requestActivate()
            tryVerify(function() { return window.active }, qetcdTest.timeout(5000), "the console's window is not active")
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            return window
        }

        function test_pagesPauseAndTheList() {
            const window = openConsole()
            const names = window.pages.map(page => page.name)
            for (let i = names.length - 1; i >= 0; --i) {
                keyClick(Qt.Key_1 + i, Qt.ControlModifier)
                compare(window.pages[window.pageIndex(names[i])].name, names[i])
                compare(window.summary.page, names[i])
            }
            keyClick(Qt.Key_P, Qt.ControlModifier)
            compare(window.paused, true)
            keyClick(Qt.Key_P, Qt.ControlModifier)
            compare(window.paused, false)

            const list = window.shortcutsDialog
            keyClick(Qt.Key_F1)
            tryCompare(list, "opened", true)
            verify(list.shortcuts.length >= 8)
            verify(list.shortcuts[0].what.indexOf("Cluster, Keys, Leases") === 0, list.shortcuts[0].what)
            keyClick(Qt.Key_Escape)
            tryCompare(list, "visible", false)
            keyClick(Qt.Key_Question)
            tryCompare(list, "opened", true)
            list.close()
            tryCompare(list, "visible", false)
        }

        function test_refreshAndDeleteOnTheKeysPage() {
            const prefix = "/qml/shortcuts/"
            qetcdTest.etcdctl(["put", prefix + "a", "1"])
            qetcdTest.etcdctl(["put", prefix + "b", "2"])
            const window = openConsole()
            keyClick(Qt.Key_2, Qt.ControlModifier)
            const page = window.currentPage
            compare(window.summary.page, "keys")
            page.model.prefix = prefix
            tryCompare(page.model, "count", 2, qetcdTest.timeout(10000))

            // F5 reads every key again.
            const reloads = createTemporaryObject(spyComponent, root, { target: page.model, signalName: "statusChanged" })
            keyClick(Qt.Key_F5)
            tryVerify(function() { return reloads.count >= 2 }, qetcdTest.timeout(10000), "a reload goes Loading, then Ready")
            tryCompare(page.model, "status", ModelStatus.Ready, qetcdTest.timeout(10000))

            // Delete asks about the selected key; with keys marked, about them.
            page.select(prefix + "a")
            tryVerify(function() { return page.model.selected.modRevision > 0 }, qetcdTest.timeout(10000))
            const confirmDelete = findChild(page, "confirmDelete")
            keyClick(Qt.Key_Delete)
            tryCompare(confirmDelete, "opened", true)
            verify(confirmDelete.message.indexOf(prefix + "a") === 0, confirmDelete.message)
            confirmDelete.close()
            tryCompare(confirmDelete, "visible", false)
            page.model.setMarked(prefix + "b", true)
            keyClick(Qt.Key_Delete)
            const confirmMarked = findChild(page, "confirmDeleteKeys")
            tryCompare(confirmMarked, "opened", true, qetcdTest.timeout(10000))
            compare(confirmMarked.title, "Delete 1 marked key(s)?")
            confirmMarked.close()
            tryCompare(confirmMarked, "visible", false)
            compare(qetcdTest.etcdctl(["get", prefix, "--prefix", "--keys-only"]).split("\n").filter(line => line.length > 0),
                    [prefix + "a", prefix + "b"], "nothing is deleted unconfirmed")

            // Read-only: the shortcut opens nothing.
            window.connection.allowWrites(false)
            tryCompare(page, "readOnly", true)
            keyClick(Qt.Key_Delete)
            verify(!page.transfer.running, "no count was started")
            verify(!confirmMarked.visible && !confirmDelete.visible)
        }
    }
}
