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

        // Ctrl+N: another window on the profile shown, with a connection, pause and pages of its
        // own; remembered for the next start while it is open, forgotten when Ctrl+W closes it.
        function test_anotherWindowForAnotherCluster() {
            const window = openConsole()
            compare(window.connection.saveProfile({ name: "second", endpoints: [qetcdTest.endpoint] }), "")
            window.connection.open("second")
            tryCompare(window.connection, "profileName", "second")
            keyClick(Qt.Key_N, Qt.ControlModifier)
            tryVerify(function() { return ConsoleWindows.windows.length === 1 }, qetcdTest.timeout(5000))
            const other = ConsoleWindows.windows[0]
            tryCompare(other.connection, "profileName", "second", qetcdTest.timeout(5000))
            tryCompare(other, "connectionState", "Connected", qetcdTest.timeout(15000))
            verify(other.connection !== window.connection)
            verify(other.title.indexOf("second") >= 0, other.title)
            compare(window.connection.rememberedWindows(), ["second"])
            other.paused = true
            compare(window.paused, false, "each window pauses on its own")
            other.showPage("keys")
            compare(window.summary.page, "cluster")

            other.requestActivate()
            tryVerify(function() { return other.active }, qetcdTest.timeout(5000))
            keyClick(Qt.Key_W, Qt.ControlModifier)
            tryVerify(function() { return ConsoleWindows.windows.length === 0 }, qetcdTest.timeout(5000))
            compare(window.connection.rememberedWindows(), [])
            compare(window.connection.profileName, "second", "the first window is left as it was")

            // Closing the first window closes the others and remembers them; the next start
            // opens them again.
            window.openWindow("second")
            tryVerify(function() { return ConsoleWindows.windows.length === 1 }, qetcdTest.timeout(5000))
            window.close()
            tryVerify(function() { return ConsoleWindows.windows.length === 0 }, qetcdTest.timeout(5000))
            compare(window.connection.rememberedWindows(), ["second"])
            const next = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint] }, restoresWindows: true })
            verify(next)
            tryVerify(function() { return ConsoleWindows.windows.length === 1 }, qetcdTest.timeout(5000))
            tryCompare(ConsoleWindows.windows[0].connection, "profileName", "second", qetcdTest.timeout(5000))
            ConsoleWindows.windows[0].close()
            tryVerify(function() { return ConsoleWindows.windows.length === 0 }, qetcdTest.timeout(5000))
            compare(next.connection.rememberedWindows(), [])
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
