// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's Keys page against a real etcd: what it shows, put / edit / delete through its
// dialogs, earlier values, and a read-only connection that neither offers nor performs writes.
Item {
    id: root
    width: 1200
    height: 760

    EtcdClient { id: writer; endpoints: [qetcdTest.endpoint] }
    EtcdClient { id: reader; endpoints: [qetcdTest.endpoint]; readOnly: true }
    Counter { id: counter; client: writer; path: "/qml/keyspage/recipe/deploys" }

    Component {
        id: keysPage
        KeysPage { anchors.fill: parent }
    }

    TestCase {
        name: "KeysPage"
        when: windowShown

        function etcdctl(args) {
            return qetcdTest.etcdctl(args).trim()
        }
        function valueOf(key) {
            return etcdctl(["get", key, "--print-value-only"])
        }
        function revisionOf(key) {
            return Number(JSON.parse(etcdctl(["get", key, "-w", "json"])).header.revision)
        }

        // A page on its own prefix, with `key` selected once its value has been read.
        function openPage(client, readOnly, prefix, key) {
            const page = createTemporaryObject(keysPage, root, { client: client, readOnly: readOnly })
            verify(page)
            page.model.prefix = prefix
            tryVerify(function() { return page.model.status === ModelStatus.Ready }, qetcdTest.timeout(10000))
            if (key) {
                tryVerify(function() { return page.model.indexOf(key) >= 0 }, qetcdTest.timeout(10000))
                page.select(key)
                tryVerify(function() { return page.model.selected.modRevision > 0 }, qetcdTest.timeout(10000))
            }
            return page
        }
        function control(page, name) {
            const item = findChild(page, name)
            verify(item, name)
            return item
        }
        function click(item) {
            verify(item.enabled && item.visible, item.objectName + " is not clickable")
            mouseClick(item)
        }
        // The prefix's Export / Import / Delete prefix, behind their tool-row button.
        function prefixAction(page, name) {
            click(control(page, "prefixActionsButton"))
            const popup = control(page, "prefixActions")
            tryCompare(popup, "opened", true)
            return control(popup.contentItem, name)
        }
        function confirm(page, dialogName) {
            const dialog = control(page, dialogName)
            tryCompare(dialog, "opened", true)
            click(findChild(dialog.footer, "confirmButton"))
            tryCompare(dialog, "visible", false)
        }

        function test_readOnlyOffersNoWriteAndTheClientRefusesOne() {
            etcdctl(["put", "/qml/keyspage/ro/a", "hello"])
            const before = revisionOf("/qml/keyspage/ro/a")
            const page = openPage(reader.client, true, "/qml/keyspage/ro/", "/qml/keyspage/ro/a")
            compare(page.model.selected.views.text, "hello")
            for (const name of ["newKeyButton", "editKeyButton", "deleteKeyButton", "saveKeyButton", "importButton", "deletePrefixButton", "deleteMarkedButton"])
                compare(control(page, name).button.enabled, false, name + " is enabled on a read-only connection")
            verify(control(page, "exportButton").enabled, "an export only reads")

            // The buttons are only the first line: the model's own actions reach the client,
            // which refuses each write before sending it.
            const writes = createTemporaryObject(signalSpy, root, { target: page.model, signalName: "writeFinished" })
            page.model.create("/qml/keyspage/ro/b", "x")
            page.model.update("/qml/keyspage/ro/a", "changed", page.model.selected.modRevision)
            page.model.remove("/qml/keyspage/ro/a", page.model.selected.modRevision)
            tryCompare(writes, "count", 3, qetcdTest.timeout(10000))
            for (let i = 0; i < 3; ++i) {
                const status = writes.signalArguments[i][2]
                compare(status.code, Etcd.StatusCode.ReadOnly, status.message)
                verify(status.message.indexOf(writes.signalArguments[i][1]) >= 0, "the refusal names the key: " + status.message)
            }
            // So does a bulk delete, before it counts anything.
            verify(page.transfer.deletePrefix("/qml/keyspage/ro/"))
            tryCompare(page.transfer, "running", false, qetcdTest.timeout(10000))
            compare(page.transfer.result.status.code, Etcd.StatusCode.ReadOnly, page.transfer.result.status.message)
            verify(page.transfer.deleteKeys(["/qml/keyspage/ro/a"]))
            tryCompare(page.transfer, "running", false, qetcdTest.timeout(10000))
            compare(page.transfer.result.status.code, Etcd.StatusCode.ReadOnly, page.transfer.result.status.message)
            compare(valueOf("/qml/keyspage/ro/a"), "hello")
            compare(valueOf("/qml/keyspage/ro/b"), "")
            compare(revisionOf("/qml/keyspage/ro/a"), before)
        }

        // The rows a DiffView shows, as its delegates have them: sign, kind and text.
        function diffRows(diffView) {
            const lines = findChild(diffView, "diffLines")
            verify(lines)
            const rows = []
            for (let i = 0; i < lines.count; ++i) {
                lines.positionViewAtIndex(i, ListView.Contain)
                const row = lines.itemAtIndex(i)
                verify(row, "row " + i)
                rows.push({ kind: row.kind, sign: row.sign, text: row.text })
            }
            return rows
        }

        // Another page's link to a key (a holder on the Coordination page): outside the prefix the
        // page reads the object's path instead, selects the key, reads its value and lease, and
        // scrolls the list to it.
        function test_revealAKeyFromAnotherPage() {
            const lease = etcdctl(["lease", "grant", "60"]).split(" ")[1]
            for (let i = 0; i < 60; ++i)
                etcdctl(["put", "/qml/keyspage/reveal/lock/" + (1000 + i), "w"])
            const key = "/qml/keyspage/reveal/lock/" + lease
            etcdctl(["put", key, "holder", "--lease=" + lease])
            const page = openPage(writer.client, false, "/qml/keyspage/elsewhere/")
            page.reveal(key, "/qml/keyspage/reveal/lock")
            compare(page.model.prefix, "/qml/keyspage/reveal/lock")
            compare(control(page, "prefixField").text, "/qml/keyspage/reveal/lock")
            compare(page.model.selectedKey, key)
            tryVerify(function() { return page.model.selected.value === "holder" }, qetcdTest.timeout(10000))
            compare(page.model.selected.lease, lease.replace(/^0+/, ""), "etcdctl pads the hex ID with zeros")
            const list = control(page, "keyList")
            tryVerify(function() { return list.currentIndex >= 0 && list.currentItem.key === key }, qetcdTest.timeout(10000))
            // Under a prefix that covers it, the prefix stays.
            page.reveal("/qml/keyspage/reveal/lock/1003", "/qml/keyspage/reveal/other")
            compare(page.model.prefix, "/qml/keyspage/reveal/lock")
            tryVerify(function() { return list.currentItem.key === "/qml/keyspage/reveal/lock/1003" }, qetcdTest.timeout(10000))
        }

        // The tree lists a folder at a time, the top level at once: Stop keeps what was found
        // and says so, Go on lists the rest.
        function test_treeListingStopsAndGoesOn() {
            for (let i = 0; i < 300; ++i)
                etcdctl(["put", "/qml/keyspage/listing/" + (1000 + i), "v"])
            const page = createTemporaryObject(keysPage, root, { client: writer.client })
            verify(page)
            page.layout = "tree"
            page.model.prefix = "/qml/keyspage/listing/"
            const tree = control(page, "keyTree")
            const bar = control(page, "listingBar")
            const action = control(page, "listingAction")
            // Once the page has settled, a reload lists afresh; stopped before its first page
            // lands (faster than a click could), nothing is listed, and the bar says so.
            tryVerify(function() { return page.model.count > 0 && !tree.model.listing }, qetcdTest.timeout(10000))
            page.model.reload()
            verify(tree.model.listing)
            compare(action.text, "Stop")
            tree.model.stopListing()
            compare(tree.model.listing, false)
            compare(tree.model.stopped, true)
            tryCompare(bar, "visible", true)
            // The view takes the model's reset at its next polish, not at once.
            tryCompare(tree, "rows", 0)
            compare(action.text, "Go on")
            verify(control(page, "listingText").value.indexOf("stopped") >= 0)
            click(action)
            tryVerify(function() { return tree.rows === 300 }, qetcdTest.timeout(10000),
                      "rows " + tree.rows + ", listing " + tree.model.listing + ", stopped " + tree.model.stopped + ", error " + tree.model.errorString)
            tryCompare(bar, "visible", false, qetcdTest.timeout(5000))
            compare(tree.model.stopped, false)
        }

        function test_compareAnEarlierVersionWithTheLatest() {
            const key = "/qml/keyspage/diff/config"
            etcdctl(["put", key, "{\"replicas\":2,\"image\":\"web:1\",\"zone\":\"a\"}"])
            // Re-ordered and re-indented as well as changed: only the change may show.
            etcdctl(["put", key, "{\"zone\": \"a\", \"image\": \"web:2\", \"replicas\": 2}"])
            const page = openPage(writer.client, false, "/qml/keyspage/diff/", key)
            const compareButton = control(page, "compareButton")
            verify(!compareButton.enabled, "at the latest version there is nothing to compare it with")

            const latestVersion = page.model.selected.version
            page.history.older()
            tryVerify(function() { return page.history.shown.version === latestVersion - 1 }, qetcdTest.timeout(10000))
            click(compareButton)
            const dialog = control(page, "compareDialog")
            tryCompare(dialog, "opened", true)
            const diff = findChild(dialog.contentItem, "compareDiff")
            verify(diff)
            verify(diff.model.json, "both versions are JSON objects")
            compare(diff.model.removed, 1)
            compare(diff.model.added, 1)
            const rows = diffRows(diff)
            const removed = rows.filter(function(row) { return row.kind === "removed" })
            const added = rows.filter(function(row) { return row.kind === "added" })
            compare(removed.length, 1)
            compare(added.length, 1)
            compare(removed[0].sign, "\u2212")
            verify(removed[0].text.indexOf("web:1") >= 0, removed[0].text)
            compare(added[0].sign, "+")
            verify(added[0].text.indexOf("web:2") >= 0, added[0].text)
            verify(rows.some(function(row) { return row.kind === "same" && row.text.indexOf("replicas") >= 0 }),
                   "an unchanged member is not marked: " + JSON.stringify(rows))
            compare(findChild(diff, "diffSummary").text.indexOf("1 lines removed"), 0)
            // The right side steps on its own: back to the same version, nothing differs.
            const rightStepper = findChild(dialog.contentItem, "compareStepper")
            click(findChild(rightStepper, "olderButton"))
            tryCompare(diff.model, "added", 0, qetcdTest.timeout(10000))
            compare(diff.model.removed, 0)
            dialog.close()
            tryCompare(dialog, "visible", false)
        }

        function test_saveConfirmationShowsTheDiffWithWhatEtcdHasNow() {
            const key = "/qml/keyspage/savediff/mode"
            etcdctl(["put", key, "line one\nline two"])
            const page = openPage(writer.client, false, "/qml/keyspage/savediff/", key)
            click(control(page, "editKeyButton").button)
            const editor = control(page, "valueEditor")
            editor.text = "line one\nline 2\nline three"
            click(control(page, "saveKeyButton").button)
            const dialog = control(page, "confirmSave")
            tryCompare(dialog, "opened", true)
            const diff = findChild(dialog.contentItem, "saveDiff")
            verify(diff)
            compare(diff.model.removed, 1)
            compare(diff.model.added, 2)
            const rows = diffRows(diff)
            compare(rows[0].kind, "same")
            compare(rows[0].text, "line one")
            compare(JSON.stringify(rows.slice(1)), JSON.stringify([
                { kind: "removed", sign: "\u2212", text: "line two" },
                { kind: "added", sign: "+", text: "line 2" },
                { kind: "added", sign: "+", text: "line three" }]))

            // Someone writes while the dialog is open: the diff is against what etcd has now.
            etcdctl(["put", key, "line one\nline 2\nline three"])
            tryCompare(diff.model, "added", 0, qetcdTest.timeout(10000))
            compare(diff.model.removed, 0)
            compare(findChild(diff, "diffSummary").text, "No difference")
            dialog.close()
            tryCompare(dialog, "visible", false)
        }

        function test_exportDeletePrefixAndImportItBack() {
            const prefix = "/qml/keyspage/transfer/"
            etcdctl(["put", prefix + "a", "1"])
            etcdctl(["put", prefix + "b", "2"])
            etcdctl(["put", prefix + "c", "{\"x\":1}"])
            const page = openPage(writer.client, false, prefix)
            tryCompare(page.model, "total", 3, qetcdTest.timeout(10000))
            const file = qetcdTest.temporaryPath("keyspage-export.json")

            click(prefixAction(page, "exportButton"))
            const exportDialog = control(page, "exportDialog")
            tryCompare(exportDialog, "opened", true)
            findChild(exportDialog.contentItem, "exportFilePath").text = file
            click(findChild(exportDialog.footer, "exportStart"))
            const exported = findChild(exportDialog.contentItem, "exportResult")
            tryVerify(function() { return exported.text.length > 0 }, qetcdTest.timeout(10000))
            compare(exported.text.indexOf("3 keys written to " + file), 0, exported.text)
            compare(JSON.parse(qetcdTest.readFile(file)).count, 3)
            exportDialog.close()
            tryCompare(exportDialog, "visible", false)

            // Counted and sampled first; on a cluster off this machine, confirmed by typing.
            page.confirmationWord = "far-away"
            click(prefixAction(page, "deletePrefixButton").button)
            const confirmDelete = control(page, "confirmDeletePrefix")
            tryCompare(confirmDelete, "opened", true, qetcdTest.timeout(10000))
            compare(confirmDelete.title, "Delete 3 key(s)?")
            for (const key of ["a", "b", "c"])
                verify(confirmDelete.message.indexOf(prefix + key) >= 0, confirmDelete.message)
            compare(valueOf(prefix + "a"), "1", "nothing is deleted before the confirmation")
            const deleteButton = findChild(confirmDelete.footer, "confirmButton")
            verify(!deleteButton.enabled, "the word is not typed yet")
            findChild(confirmDelete.contentItem, "typedConfirmation").text = "far-away"
            click(deleteButton)
            const deleted = control(page, "deletePrefixResult")
            tryVerify(function() { return deleted.text.indexOf("3 keys deleted") === 0 }, qetcdTest.timeout(10000))
            compare(etcdctl(["get", prefix, "--prefix", "--keys-only"]), "")

            // The dry run says what the import would do, and writes nothing.
            etcdctl(["put", prefix + "a", "changed"])
            click(prefixAction(page, "importButton").button)
            const importDialog = control(page, "importDialog")
            tryCompare(importDialog, "opened", true)
            findChild(importDialog.contentItem, "importFilePath").text = file
            const importStart = findChild(importDialog.footer, "importStart")
            verify(!importStart.button.enabled, "no import before the check")
            click(findChild(importDialog.footer, "importCheck"))
            const creates = findChild(importDialog.contentItem, "importPlan_creates")
            tryCompare(creates, "text", "Created: 2", qetcdTest.timeout(10000))
            compare(findChild(importDialog.contentItem, "importPlan_overwrites").text, "Overwritten: 1")
            compare(findChild(importDialog.contentItem, "importPlan_unchanged").text, "Unchanged: 0")
            compare(valueOf(prefix + "a"), "changed")
            compare(valueOf(prefix + "b"), "")
            compare(importStart.text, "Import 3 keys")
            click(importStart.button)
            const imported = findChild(importDialog.contentItem, "importResult")
            tryVerify(function() { return imported.text.indexOf("3 keys written") === 0 }, qetcdTest.timeout(10000))
            compare(valueOf(prefix + "a"), "1")
            compare(valueOf(prefix + "b"), "2")
            compare(valueOf(prefix + "c"), "{\"x\":1}")
            importDialog.close()
            tryCompare(importDialog, "visible", false)
        }

        // The row of `key` in the list, scrolled into view.
        function listRow(page, key) {
            const list = control(page, "keyList")
            const row = page.model.indexOf(key)
            verify(row >= 0, key + " is not loaded")
            list.positionViewAtIndex(row, ListView.Contain)
            const item = list.itemAtIndex(row)
            verify(item, key)
            return item
        }

        function test_markKeysAndDeleteThem() {
            const prefix = "/qml/keyspage/marks/"
            for (const name of ["a", "b", "c", "d", "e", "f"])
                etcdctl(["put", prefix + name, name])
            const page = openPage(writer.client, false, prefix)
            tryCompare(page.model, "count", 6, qetcdTest.timeout(10000))
            const bar = control(page, "markedBar")
            verify(!bar.visible, "nothing is marked yet")

            // Ctrl+click marks one, Shift+click the run from it, Ctrl+click again unmarks.
            mouseClick(listRow(page, prefix + "b"), 200, 15, Qt.LeftButton, Qt.ControlModifier)
            mouseClick(listRow(page, prefix + "d"), 200, 15, Qt.LeftButton, Qt.ShiftModifier)
            compare(page.model.markedKeys, [prefix + "b", prefix + "c", prefix + "d"])
            mouseClick(listRow(page, prefix + "c"), 200, 15, Qt.LeftButton, Qt.ControlModifier)
            compare(page.model.markedKeys, [prefix + "b", prefix + "d"])
            compare(page.model.selectedKey, prefix + "c", "a click shows the key it marks")
            // A plain click selects without marking; Space marks the selected row; the box
            // marks without a modifier.
            mouseClick(listRow(page, prefix + "a"), 200, 15)
            compare(page.model.markedCount, 2)
            keyClick(Qt.Key_Space)
            mouseClick(listRow(page, prefix + "f"), 8, 15)
            compare(page.model.markedKeys, [prefix + "a", prefix + "b", prefix + "d", prefix + "f"])
            verify(listRow(page, prefix + "f").marked)
            verify(bar.visible)
            compare(control(page, "markedCount").text, "4 key(s) marked")
            keyClick(Qt.Key_Escape)
            compare(page.model.markedCount, 0)

            // A key deleted by someone else is no longer marked.
            mouseClick(listRow(page, prefix + "a"), 200, 15, Qt.LeftButton, Qt.ControlModifier)
            mouseClick(listRow(page, prefix + "b"), 200, 15, Qt.LeftButton, Qt.ControlModifier)
            mouseClick(listRow(page, prefix + "e"), 200, 15, Qt.LeftButton, Qt.ControlModifier)
            etcdctl(["del", prefix + "e"])
            tryCompare(page.model, "markedCount", 2, qetcdTest.timeout(10000))

            // Counted and sampled first; on a cluster off this machine, confirmed by typing.
            page.confirmationWord = "far-away"
            click(control(page, "deleteMarkedButton").button)
            const confirmDelete = control(page, "confirmDeleteKeys")
            tryCompare(confirmDelete, "opened", true, qetcdTest.timeout(10000))
            compare(confirmDelete.title, "Delete 2 marked key(s)?")
            verify(confirmDelete.message.indexOf(prefix + "a\n" + prefix + "b") >= 0, confirmDelete.message)
            compare(valueOf(prefix + "a"), "a", "nothing is deleted before the confirmation")
            const deleteButton = findChild(confirmDelete.footer, "confirmButton")
            verify(!deleteButton.enabled, "the word is not typed yet")
            findChild(confirmDelete.contentItem, "typedConfirmation").text = "far-away"
            click(deleteButton)
            const deleted = control(page, "deletePrefixResult")
            tryVerify(function() { return deleted.text.indexOf("2 keys deleted") === 0 }, qetcdTest.timeout(10000))
            compare(etcdctl(["get", prefix, "--prefix", "--keys-only"]).split("\n").filter(line => line.length > 0),
                    [prefix + "c", prefix + "d", prefix + "f"])
            tryCompare(page.model, "markedCount", 0, qetcdTest.timeout(10000))
            verify(!bar.visible)
        }

        function clipboard() {
            const edit = createTemporaryQmlObject("import QtQuick; TextEdit {}", root)
            edit.paste()
            return edit.text
        }
        function copy(page, itemName) {
            click(control(page, "copyButton"))
            const menu = control(page, "copyMenu")
            tryCompare(menu, "opened", true)
            const item = findChild(menu, itemName) || menu.itemAt([ "copyKey", "copyValue", "copyCommand" ].indexOf(itemName))
            verify(item && item.objectName === itemName, itemName)
            verify(item.enabled, itemName + " is disabled")
            item.triggered()
            menu.close()
            tryCompare(menu, "visible", false)
        }

        function test_copyKeyValueAndCommand() {
            const key = "/qml/keyspage/copy/it's"
            etcdctl(["put", key, "first"])
            etcdctl(["put", key, "second"])
            const page = openPage(writer.client, false, "/qml/keyspage/copy/", key)
            copy(page, "copyKey")
            compare(clipboard(), key)
            copy(page, "copyValue")
            compare(clipboard(), "second")
            copy(page, "copyCommand")
            compare(clipboard(), "etcdctl get '/qml/keyspage/copy/it'\\''s'")

            // An earlier version: its value, and the command that reads it at its revision.
            page.history.older()
            tryVerify(function() { return page.history.shown.views && page.history.shown.views.text === "first" }, qetcdTest.timeout(10000))
            copy(page, "copyValue")
            compare(clipboard(), "first")
            copy(page, "copyCommand")
            const command = clipboard()
            const revision = page.history.shown.modRevision
            compare(command, "etcdctl get '/qml/keyspage/copy/it'\\''s' --rev=" + revision)
            compare(etcdctl(["get", key, "--rev=" + revision, "--print-value-only"]), "first")
        }

        function test_jsonIsValidatedBeforeSave() {
            const key = "/qml/keyspage/json/config"
            etcdctl(["put", key, "{\"a\":1}"])
            const page = openPage(writer.client, false, "/qml/keyspage/json/", key)
            click(control(page, "editKeyButton").button)
            const editor = control(page, "valueEditor")
            const save = control(page, "saveKeyButton")
            const error = control(page, "jsonError")
            editor.text = "{\"a\": 1,\n  \"b\": }"
            tryCompare(error, "visible", true)
            verify(error.text.indexOf("line 2, column ") >= 0, error.text)
            verify(!save.button.enabled, "a broken JSON value cannot be saved")
            // Columns count characters, not the UTF-8 bytes the parser counts.
            editor.text = "{\"é\": 1,\n  \"ü\": x}"
            tryVerify(function() { return error.text.indexOf("line 2, column 8:") >= 0 }, 5000, error.text)

            editor.text = "{\"a\": 1,\n  \"b\": 2}"
            tryCompare(error, "visible", false)
            verify(save.button.enabled)
            // Plain text is not held to JSON.
            editor.text = "a } plain ["
            compare(error.visible, false)
            verify(save.button.enabled)
            click(control(page, "saveKeyButton").button)
            confirm(page, "confirmSave")
            tryCompare(page, "editing", false, qetcdTest.timeout(10000))
            compare(valueOf(key), "a } plain [")
        }

        function test_createEditDelete() {
            const key = "/qml/keyspage/rw/mode"
            const page = openPage(writer.client, false, "/qml/keyspage/rw/")

            click(control(page, "newKeyButton").button)
            const dialog = findChild(page, "newKeyDialog")
            verify(dialog)
            tryCompare(dialog, "opened", true)
            findChild(dialog.contentItem, "newKeyName").text = key
            findChild(dialog.contentItem, "newKeyValue").text = "{\"mode\":\"active\"}"
            click(findChild(dialog.footer, "createKeyButton"))
            tryCompare(dialog, "visible", false, qetcdTest.timeout(10000))
            compare(valueOf(key), "{\"mode\":\"active\"}")
            tryCompare(page.model, "selectedKey", key)
            tryVerify(function() { return page.model.indexOf(key) >= 0 }, qetcdTest.timeout(10000))

            // The same key again: refused, said in the dialog, which stays open.
            click(control(page, "newKeyButton").button)
            tryCompare(dialog, "opened", true)
            findChild(dialog.contentItem, "newKeyName").text = key
            click(findChild(dialog.footer, "createKeyButton"))
            const createError = findChild(dialog.contentItem, "newKeyError")
            tryVerify(function() { return createError.text.indexOf("already exists") >= 0 }, qetcdTest.timeout(10000))
            verify(createError.text.indexOf(key) >= 0, createError.text)
            verify(dialog.visible)
            dialog.close()
            tryCompare(dialog, "visible", false)

            tryVerify(function() { return page.model.selected.modRevision > 0 }, qetcdTest.timeout(10000))
            click(control(page, "editKeyButton").button)
            const editor = control(page, "valueEditor")
            compare(editor.text, "{\"mode\":\"active\"}")
            editor.text = "{\"mode\":\"standby\"}"
            click(control(page, "saveKeyButton").button)
            confirm(page, "confirmSave")
            tryCompare(page, "editing", false, qetcdTest.timeout(10000))
            compare(valueOf(key), "{\"mode\":\"standby\"}")
            tryVerify(function() { return page.model.selected.views.text === "{\"mode\":\"standby\"}" }, qetcdTest.timeout(10000))

            // Someone else writes while the operator edits: the edit is refused, and says so.
            click(control(page, "editKeyButton").button)
            editor.text = "mine"
            etcdctl(["put", key, "theirs"])
            click(control(page, "saveKeyButton").button)
            confirm(page, "confirmSave")
            const error = control(page, "keyError")
            tryVerify(function() { return error.text.indexOf("changed at revision") >= 0 }, qetcdTest.timeout(10000))
            verify(error.text.indexOf(key) >= 0, error.text)
            verify(page.editing, "the refused edit stays open to be redone")
            compare(valueOf(key), "theirs")

            page.editing = false
            tryVerify(function() { return page.model.selected.views.text === "theirs" }, qetcdTest.timeout(10000))
            click(control(page, "deleteKeyButton").button)
            confirm(page, "confirmDelete")
            tryCompare(page.model, "selectedKey", "", qetcdTest.timeout(10000))
            compare(valueOf(key), "")
            tryCompare(page.model, "count", 0, qetcdTest.timeout(10000))
        }

        function test_earlierValuesUntilCompacted() {
            const key = "/qml/keyspage/history/config"
            for (const value of ["one", "two", "three"])
                etcdctl(["put", key, value])
            const page = openPage(writer.client, false, "/qml/keyspage/history/", key)
            const history = page.history
            compare(page.model.selected.version, 3)
            verify(history.atLatest)

            history.older()
            tryVerify(function() { return history.shown.version === 2 }, qetcdTest.timeout(10000))
            compare(history.shown.views.text, "two")
            compare(control(page, "versionLabel").text, "2 of 3")
            history.older()
            tryVerify(function() { return history.shown.version === 1 }, qetcdTest.timeout(10000))
            compare(history.shown.views.text, "one")
            verify(!history.canGoOlder, "version 1 is where the key was created")
            history.newer()
            compare(history.shown.views.text, "two")
            history.latest()
            verify(history.atLatest)

            // A key put once has nothing before it.
            etcdctl(["put", "/qml/keyspage/history/fresh", "only"])
            page.select("/qml/keyspage/history/fresh")
            tryVerify(function() { return page.model.selected.version === 1 }, qetcdTest.timeout(10000))
            verify(!history.canGoOlder)
            verify(!control(page, "olderButton").enabled)
            page.select(key)
            tryVerify(function() { return page.model.selected.version === 3 }, qetcdTest.timeout(10000))
            verify(history.canGoOlder)

            // Compacted away: said plainly, and no further step is offered.
            etcdctl(["put", key, "four"])
            etcdctl(["compaction", String(revisionOf(key))])
            tryVerify(function() { return page.model.selected.version === 4 }, qetcdTest.timeout(10000))
            history.older()
            tryCompare(history, "compacted", true, qetcdTest.timeout(10000))
            verify(!history.canGoOlder)
            verify(history.atLatest)
            const note = control(page, "historyNote")
            verify(note.visible)
            verify(note.text.indexOf("compacted") >= 0, note.text)
        }

        function test_pauseHoldsTheRowsAndTheValueStill() {
            const key = "/qml/keyspage/pause/a"
            etcdctl(["put", key, "before"])
            const page = openPage(writer.client, false, "/qml/keyspage/pause/", key)
            page.paused = true
            compare(control(page, "newKeyButton").button.enabled, false, "a paused page would not show a write")
            etcdctl(["put", key, "after"])
            etcdctl(["put", "/qml/keyspage/pause/b", "new"])
            tryVerify(function() { return page.model.heldChanges >= 2 }, qetcdTest.timeout(10000))
            compare(page.model.count, 1)
            compare(page.model.selected.views.text, "before")
            verify(control(page, "heldNote").text.indexOf("waiting") >= 0)

            page.paused = false
            tryCompare(page.model, "count", 2, qetcdTest.timeout(10000))
            tryVerify(function() { return page.model.selected.views.text === "after" }, qetcdTest.timeout(10000))
            compare(page.model.heldChanges, 0)
            verify(control(page, "newKeyButton").button.enabled)
        }

        // The list asks for the next page a couple of screens before its end, before Qt Quick's
        // own view would (it asks only once the last loaded row is built), so a steady scroll
        // never meets blank rows.
        function test_theNextPageIsAskedForBeforeTheEnd() {
            const page = createTemporaryObject(keysPage, root, { client: writer.client, readOnly: false })
            verify(page)
            page.model.prefix = "/qml/keyspage/many/"
            const writes = createTemporaryObject(signalSpy, root, { target: page.model, signalName: "writeFinished" })
            for (let i = 0; i < 100; ++i)
                page.model.create("/qml/keyspage/many/" + String(i).padStart(3, "0"), "v")
            tryCompare(writes, "count", 100, qetcdTest.timeout(15000))
            page.model.pageSize = 40
            page.model.reload()
            const list = control(page, "keyList")
            tryVerify(function() { return page.model.count >= 40 }, qetcdTest.timeout(10000))
            // 40 rows are more than a screen, and the last is nowhere near built; the rest comes
            // anyway, without a scroll.
            tryVerify(function() { return list.contentHeight > list.height + 100 }, qetcdTest.timeout(5000),
                      list.contentHeight + " vs " + list.height)
            compare(list.contentY, list.originY)
            tryCompare(page.model, "count", 100, qetcdTest.timeout(10000))
            compare(page.model.progress, 1.0)
        }

        function test_treeShowsTheKeysByFolder() {
            for (const key of ["/qml/keyspage/tree/app/a", "/qml/keyspage/tree/app/b", "/qml/keyspage/tree/top"])
                etcdctl(["put", key, "x"])
            const page = openPage(writer.client, false, "/qml/keyspage/tree/")
            tryCompare(page.model, "count", 3, qetcdTest.timeout(10000))
            click(control(page, "layout_tree"))
            const tree = control(page, "keyTree")
            tryCompare(tree, "rows", 2)  // "app" folded, "top"
            tree.expand(0)
            tryCompare(tree, "rows", 4)
            const folder = tree.itemAtCell(Qt.point(0, 0))
            verify(folder)
            compare(folder.name, "app")
            // Counted by a request of its own once the folder shows: -1 until the answer comes.
            tryCompare(folder, "keyCount", 2, qetcdTest.timeout(5000))
            mouseClick(tree.itemAtCell(Qt.point(0, 1)))
            tryCompare(page.model, "selectedKey", "/qml/keyspage/tree/app/a")
        }

        // Issue 32 §2: the value pane rebuilt its view buttons and recipe fields inside its
        // layouts with every value shown; a SplitView resize between their deletion and the
        // layouts' next polish measured the deleted items (SIGSEGV). Values of every kind,
        // selected in turn, each followed at once by a resize: the pane must survive and show
        // the value it was given.
        function test_valuesOfEveryKindWhileTheSplitResizes() {
            etcdctl(["put", "/qml/keyspage/kinds/service", "{\"name\":\"api\",\"id\":\"a1\",\"address\":\"10.0.0.1\",\"port\":80}"])
            etcdctl(["put", "/qml/keyspage/kinds/json", "{\"mode\":\"active\",\"replicas\":3}"])
            etcdctl(["put", "/qml/keyspage/kinds/text", "plain words"])
            const page = openPage(writer.client, false, "/qml/keyspage/kinds/")
            tryCompare(page.model, "count", 3, qetcdTest.timeout(10000))
            const keys = ["/qml/keyspage/kinds/service", "/qml/keyspage/kinds/json", "/qml/keyspage/kinds/text"]
            const widthBefore = root.width
            for (let i = 0; i < 60; ++i) {
                const key = keys[i % keys.length]
                page.select(key)
                tryVerify(function() { return page.model.selected.key === key && page.model.selected.modRevision > 0 },
                          qetcdTest.timeout(10000))
                root.width = widthBefore - 40 + (i % 5) * 20
                waitForRendering(page)
            }
            root.width = widthBefore
            compare(page.model.selectedKey, "/qml/keyspage/kinds/text")
            tryCompare(control(page, "valueText"), "text", "plain words")
            page.select("/qml/keyspage/kinds/service")
            tryCompare(control(page, "recipeTitle"), "text", "service instance")
        }

        function test_recipeEncodingsAreDecoded() {
            counter.add(42)
            tryCompare(counter, "value", 42, qetcdTest.timeout(10000))
            const page = openPage(writer.client, false, "/qml/keyspage/recipe/", "/qml/keyspage/recipe/deploys")
            const views = page.model.selected.views
            compare(views.isText, false, "a counter is 8 raw bytes")
            compare(views.recipe.title, "counter /qml/keyspage/recipe/deploys")
            compare(views.recipe.fields[0].value, 42)
            compare(views.hex.substring(0, 33), "00000000  00 00 00 00 00 00 00 2a")
            compare(control(page, "recipeTitle").text, views.recipe.title)
            verify(control(page, "recipeTitle").visible, "a recognised encoding is the view shown first")
            compare(control(page, "editKeyButton").button.enabled, false, "binary values are not edited as text")
            counter.close()
        }

        // The watch pane follows the page's prefix live, says who held a lock's key, holds still
        // while paused, filters, selects a row's key, and exports what it shows; it only reads,
        // so a read-only connection has it too.
        function test_watchPaneFollowsThePrefix() {
            etcdctl(["put", "/qml/keyspage/watch/seed", "s"])
            const page = openPage(reader.client, true, "/qml/keyspage/watch/")
            click(control(page, "watchButton"))
            const pane = control(page, "watchPane")
            verify(pane.visible)
            const watch = pane.model
            verify(watch.prefix, "nothing selected: the prefix")
            compare(watch.key, "/qml/keyspage/watch/")
            tryCompare(watch, "status", ModelStatus.Ready, qetcdTest.timeout(10000))

            etcdctl(["put", "/qml/keyspage/watch/a", "apple"])
            // "lease 694d… granted with TTL(60s)": the ID in hex (JSON's would lose digits in a double).
            const lease = etcdctl(["lease", "grant", "60"]).split(" ")[1]
            etcdctl(["put", "/qml/keyspage/watch/locks/l/" + lease, '{"clientId":"carol","pid":3}', "--lease", lease])
            etcdctl(["del", "/qml/keyspage/watch/a"])
            tryCompare(watch, "count", 3, qetcdTest.timeout(10000))
            const rows = control(page, "watchRows")
            tryCompare(rows, "count", 3)
            compare(watch.data(watch.index(1, 0), KeyWatchModel.WriterRole), "carol")
            verify(control(page, "watchStatus").text.indexOf("3 of 3 change(s) shown") >= 0, control(page, "watchStatus").text)

            click(control(page, "watchPause"))
            etcdctl(["put", "/qml/keyspage/watch/b", "banana"])
            tryCompare(watch, "held", 1, qetcdTest.timeout(10000))
            compare(rows.count, 3, "held still while paused")
            compare(control(page, "watchPause").text, "Resume (1)")
            click(control(page, "watchPause"))
            tryCompare(rows, "count", 4)

            control(page, "watchFilter").text = "carol"
            tryCompare(rows, "count", 1)
            // A click on the row selects its key in the page.
            const first = rows.itemAtIndex(0)
            verify(first)
            mouseClick(first)
            tryCompare(page.model, "selectedKey", "/qml/keyspage/watch/locks/l/" + lease)
            verify(watch.prefix, "the pane keeps watching the prefix it was set to")

            const path = qetcdTest.temporaryPath("watch-pane.jsonl")
            verify(pane.exportTo(path))
            const lines = qetcdTest.readFile(path).trim().split("\n")
            compare(lines.length, 1)
            compare(JSON.parse(lines[0]).writer, "carol")
            verify(pane.exportNote.indexOf("Wrote 1 change(s)") === 0, pane.exportNote)
            control(page, "watchFilter").text = ""
            tryCompare(rows, "count", 4)
        }

        // New key on a new lease of a TTL, or on an existing lease; a lease ID that is no hex is
        // refused by name, and a lease granted for a key that already exists is revoked again.
        function test_newKeyOnALease() {
            const page = openPage(writer.client, false, "/qml/keyspage/lease/")
            const dialog = findChild(page, "newKeyDialog")
            const create = function(key, choice, ttl, lease) {
                click(control(page, "newKeyButton").button)
                tryCompare(dialog, "opened", true)
                findChild(dialog.contentItem, "newKeyName").text = key
                findChild(dialog.contentItem, "newKeyLease").currentIndex = choice
                findChild(dialog.contentItem, "newKeyLeaseTtl").value = ttl
                findChild(dialog.contentItem, "newKeyLeaseId").text = lease
                click(findChild(dialog.footer, "createKeyButton"))
            }
            // The created key is selected: its lease in hex, as the page shows it.
            const leaseOf = function(key) {
                tryCompare(page.model, "selectedKey", key, qetcdTest.timeout(10000))
                tryVerify(function() { return page.model.selected.modRevision > 0 }, qetcdTest.timeout(10000))
                return page.model.selected.lease
            }
            const leases = function() { return etcdctl(["lease", "list"]).split("\n").length }

            create("/qml/keyspage/lease/new", 1, 120, "")
            tryCompare(dialog, "visible", false, qetcdTest.timeout(10000))
            const granted = leaseOf("/qml/keyspage/lease/new")
            verify(granted.length > 0, "the key is on a lease")
            const ttl = etcdctl(["lease", "timetolive", granted])
            verify(/granted with TTL\(120s\)/.test(ttl), ttl)

            const existing = etcdctl(["lease", "grant", "300"]).split(" ")[1].replace(/^0+/, "")
            create("/qml/keyspage/lease/existing", 2, 60, existing)
            tryCompare(dialog, "visible", false, qetcdTest.timeout(10000))
            compare(leaseOf("/qml/keyspage/lease/existing"), existing)

            // The lease field points the Leases page at it.
            const link = control(page, "leaseLink")
            compare(link.text, existing)
            const chosen = createTemporaryObject(signalSpy, root, { target: page, signalName: "leaseChosen" })
            click(link)
            compare(chosen.count, 1)
            compare(chosen.signalArguments[0][0], existing)

            create("/qml/keyspage/lease/bad", 2, 60, "not-hex")
            const error = findChild(dialog.contentItem, "newKeyError")
            tryVerify(function() { return error.text.indexOf("is not a lease ID") >= 0 }, qetcdTest.timeout(10000), error.text)
            dialog.close()
            tryCompare(dialog, "visible", false)
            compare(etcdctl(["get", "/qml/keyspage/lease/bad"]), "")

            const before = leases()
            create("/qml/keyspage/lease/new", 1, 120, "")
            tryVerify(function() { return error.text.indexOf("already exists") >= 0 }, qetcdTest.timeout(10000), error.text)
            tryVerify(function() { return leases() === before }, qetcdTest.timeout(10000), "the lease granted for it is revoked")
            dialog.close()
        }

        // Ctrl+F focuses the search; its hits include keys the list has not loaded, show in the
        // list's place, select their key when clicked, and Escape brings the keys back.
        function test_searchFindsKeysNotLoadedYet() {
            const hex = function(text) {
                let bytes = ""
                for (let i = 0; i < text.length; ++i)
                    bytes += text.charCodeAt(i).toString(16).padStart(2, "0")
                return bytes
            }
            // 300 keys: pages of 10, 20, 40 and 80 are the most the list loads to fill its view.
            for (let i = 0; i < 300; ++i)
                verify(qetcdTest.putBytes(hex("/qml/keyspage/search/k" + String(i).padStart(3, "0")), i === 293 ? "the needle" : "hay"))
            const page = createTemporaryObject(keysPage, root, { client: reader.client, readOnly: true })
            page.model.pageSize = 10
            page.model.prefix = "/qml/keyspage/search/"
            tryVerify(function() { return page.model.status === ModelStatus.Ready }, qetcdTest.timeout(10000))
            verify(page.model.count <= 150, "the list loaded " + page.model.count + " keys")
            const field = control(page, "searchField")
            keySequence(StandardKey.Find)
            tryVerify(function() { return field.activeFocus }, qetcdTest.timeout(5000), "Ctrl+F focuses the search")
            keyClick(Qt.Key_K)
            keyClick(Qt.Key_2)
            keyClick(Qt.Key_9)
            keyClick(Qt.Key_Return)
            const search = control(page, "searchModel")
            tryVerify(function() { return search.status === ModelStatus.Ready }, qetcdTest.timeout(10000))
            compare(search.count, 10)  // k290 to k299, none of them loaded
            compare(search.scanned, 300)
            const results = control(page, "searchResults")
            verify(results.visible)
            verify(!control(page, "keyList").visible, "the hits show in the keys' place")
            verify(control(page, "searchSummary").text.indexOf("10 hit(s) in 300 key(s)") === 0, control(page, "searchSummary").text)
            tryCompare(results, "count", 10)
            // The view makes its delegates at its next polish, not with its count.
            tryVerify(function() { return results.itemAtIndex(3) !== null }, qetcdTest.timeout(5000))
            mouseClick(results.itemAtIndex(3))
            tryCompare(page.model, "selectedKey", "/qml/keyspage/search/k293")

            control(page, "searchValues").checked = true
            field.text = "needle"
            field.forceActiveFocus()
            keyClick(Qt.Key_Return)
            tryVerify(function() { return search.status === ModelStatus.Ready && search.count === 1 }, qetcdTest.timeout(10000))
            compare(search.data(search.index(0, 0), KeySearchModel.SnippetRole), "the needle")

            control(page, "searchValues").checked = false
            control(page, "searchMode").currentIndex = KeySearchModel.RegularExpression
            field.text = "k(0"
            keyClick(Qt.Key_Return)
            tryCompare(search, "status", ModelStatus.Error)
            verify(control(page, "searchSummary").text.indexOf("not valid at character") >= 0, control(page, "searchSummary").text)

            keyClick(Qt.Key_Escape)
            tryCompare(search, "status", ModelStatus.Null)
            verify(control(page, "keyList").visible)
        }
    }

    Component {
        id: signalSpy
        SignalSpy {}
    }
}
