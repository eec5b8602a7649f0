// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// The keys under a prefix, loaded a page at a time as the list scrolls and kept live by one
// watch; the selected key's value, its earlier values and, unless the connection is read-only,
// put, edit and delete, each confirmed.
ConsolePage {
    id: page
    property alias client: keys.client
    heldChanges: keys.heldChanges
    property bool readOnly: false
    // Typed to confirm deleting a prefix on a cluster not on this machine (Main's).
    property string confirmationWord
    readonly property alias model: keys
    readonly property alias history: history
    readonly property alias transfer: transfer
    // The last write etcd refused for what the pane shows, in words that name the key.
    property string writeError
    property bool editing: false
    // "list" or "tree": the same keys, the same pages and the same watch either way.
    property string layout: "list"
    // The watch pane below the keys is open.
    property bool watching: false
    // The revision the keys are shown as of (0: live), picked on the Timeline's History.
    property alias asOfRevision: keys.asOfRevision
    // Puts the as-of revision on the clock where the console sampled it (Main's RevisionClock).
    property RevisionClock revisionClock: null
    readonly property bool viewingPast: keys.asOfRevision > 0
    // The marked keys a bulk delete was counted for: what its confirmation deletes, whatever is
    // marked by then.
    property var keysToDelete: []
    // The row a Shift+click marks from: the last one clicked.
    property int markAnchor: -1
    // The banner's "Back to live".
    signal backToLive()
    // The lease field was clicked: show that lease (hex) on the Leases page.
    signal leaseChosen(string lease)
    // A paused page would not show what a write did; the past cannot be written.
    readonly property string pausedReason: viewingPast ? qsTr("Showing revision %1: go back to live to write").arg(keys.asOfRevision)
                                         : paused ? qsTr("Live updates are paused: resume them to write") : ""

    title: qsTr("Keys")
    subtitle: keys.status === ModelStatus.Ready || keys.status === ModelStatus.Loading
              ? (keys.count < keys.total ? qsTr("%1 of %2 keys loaded").arg(Format.count(keys.count)).arg(Format.count(keys.total))
                                         : qsTr("%1 keys").arg(Format.count(keys.total)))
              : ""
    // With a key selected, once its value (or why there is none) is in too.
    ready: (keys.status === ModelStatus.Ready || keys.status === ModelStatus.Error)
           && (keys.selectedKey.length === 0 || keys.selected.modRevision !== undefined || !!keys.selected.error)
    notReadyReason: keys.status === ModelStatus.Ready ? qsTr("the value of %1 has not arrived").arg(keys.selectedKey)
                                                      : qsTr("the first page of keys has not arrived")
    summary: ({ keys: keys.total, loaded: keys.count, prefix: keys.prefix, selected: keys.selectedKey, asOfRevision: keys.asOfRevision })

    // etcdctl reads a key given in single quotes as it is; a quote inside is closed, escaped and
    // reopened.
    function shellQuoted(text) {
        return "'" + text.replace(/'/g, "'\\''") + "'";
    }
    // A click selects the row; with Ctrl it also marks or unmarks it for a bulk action, with
    // Shift it marks every row from the last one clicked.
    function clickRow(row, key, marked, modifiers) {
        if (modifiers & Qt.ShiftModifier)
            keys.markRows(markAnchor >= 0 ? markAnchor : row, row);
        else if (modifiers & Qt.ControlModifier)
            keys.setMarked(key, !marked);
        if (!(modifiers & Qt.ShiftModifier))
            markAnchor = row;
        list.currentIndex = row;
    }
    // A bulk delete's count as its confirmation lists it: the sample, one key a line, and how
    // many more there are.
    function countedSample(counted) {
        const sample = counted.sample || [];
        return sample.map(key => DisplayText.escape(key)).join("\n")
            + ((counted.counted || 0) > sample.length ? "\n" + qsTr("… and %1 more").arg(Format.count(counted.counted - sample.length)) : "");
    }
    function deleteMarked() {
        keysToDelete = keys.markedKeys;
        transfer.countKeys(keysToDelete);
    }

    // From another page: show \a key, its value and its lease. Under a prefix that does not
    // cover it the page reads \a fallbackPrefix instead; the list scrolls to the key once the
    // page holding it has arrived.
    function reveal(key, fallbackPrefix) {
        if (!key.startsWith(keys.prefix)) {
            keys.prefix = fallbackPrefix;
            prefixField.text = fallbackPrefix;
        }
        select(key);
        revealedKey = key;
        scrollToRevealed();
    }
    property string revealedKey
    function scrollToRevealed() {
        const row = keys.indexOf(revealedKey);
        if (row < 0)
            return;
        list.currentIndex = row;
        list.positionViewAtIndex(row, ListView.Center);
        revealedKey = "";
    }
    Connections {
        target: keys
        enabled: page.revealedKey.length > 0
        function onCountChanged() { page.scrollToRevealed(); }
    }

    function select(key) {
        editing = false;
        writeError = "";
        keys.selectedKey = key;
        if (key.length === 0)
            list.currentIndex = -1;
    }

    tools: [
        Label { text: qsTr("Prefix"); color: Theme.mutedText },
        TextField {
            id: prefixField
            objectName: "prefixField"
            Accessible.name: qsTr("Prefix")
            placeholderText: "/"
            font.family: Theme.monoFamily
            Layout.preferredWidth: 280
            selectByMouse: true
            onAccepted: keys.prefix = text
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Read only keys under this prefix (filtered by etcd); Enter applies it")
        },
        Row {
            ButtonGroup { id: layoutGroup }
            Repeater {
                model: [{ name: "list", title: qsTr("List"), tip: qsTr("Every key, sorted, one per line") },
                        { name: "tree", title: qsTr("Tree"), tip: qsTr("The keys as a tree by '/'") }]
                Button {
                    required property var modelData
                    objectName: "layout_" + modelData.name
                    text: modelData.title
                    checkable: true
                    checked: page.layout === modelData.name
                    flat: !checked
                    ButtonGroup.group: layoutGroup
                    onClicked: page.layout = modelData.name
                    ToolTip.visible: hovered
                    ToolTip.text: modelData.tip
                    ToolTip.delay: 600
                }
            }
        },
        Button {
            objectName: "watchButton"
            text: qsTr("Watch")
            checkable: true
            checked: page.watching
            flat: !checked
            onClicked: page.watching = checked
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Show the changes of the selected key or the prefix as they happen, below the keys")
        },
        // Export, import and delete behind one button: the tool row keeps room for a search field.
        Button {
            id: prefixActionsButton
            objectName: "prefixActionsButton"
            text: qsTr("Prefix ▾")
            flat: true
            onClicked: prefixActions.open()
            ToolTip.visible: hovered && !prefixActions.visible
            ToolTip.delay: 600
            ToolTip.text: qsTr("Export, import or delete the keys under the prefix")
            Popup {
                id: prefixActions
                objectName: "prefixActions"
                y: prefixActionsButton.height
                padding: Theme.spacing / 2
                contentItem: ColumnLayout {
                    spacing: 2
                    Button {
                        objectName: "exportButton"
                        text: qsTr("Export…")
                        flat: true
                        Layout.fillWidth: true
                        onClicked: { prefixActions.close(); exportDialog.open(); }
                        ToolTip.visible: hovered
                        ToolTip.delay: 600
                        ToolTip.text: qsTr("Write the keys under the prefix to a file")
                    }
                    WriteButton {
                        objectName: "importButton"
                        text: qsTr("Import…")
                        flat: true
                        readOnly: page.readOnly
                        blockedReason: page.pausedReason
                        toolTip: qsTr("Write the keys of an exported file; you see what changes first")
                        Layout.fillWidth: true
                        onClicked: { prefixActions.close(); importDialog.open(); }
                    }
                    WriteButton {
                        objectName: "deletePrefixButton"
                        text: qsTr("Delete prefix…")
                        flat: true
                        readOnly: page.readOnly
                        blockedReason: page.pausedReason ? page.pausedReason
                                     : keys.prefix.length === 0 ? qsTr("Set a prefix first: the whole keyspace is not deleted from here")
                                     : transfer.running ? qsTr("Wait for the job running to end") : ""
                        toolTip: qsTr("Delete every key under the prefix; you see how many first")
                        Layout.fillWidth: true
                        onClicked: { prefixActions.close(); transfer.countPrefix(keys.prefix); }
                    }
                }
            }
        },
        WriteButton {
            objectName: "newKeyButton"
            text: qsTr("New key…")
            readOnly: page.readOnly
            blockedReason: page.pausedReason
            toolTip: qsTr("Put a key that does not exist yet")
            onClicked: newKeyDialog.ask()
        }
    ]

    Shortcut {
        sequences: [StandardKey.Find, "/"]
        enabled: page.visible
        onActivated: keySearch.focusField()
    }
    // Delete: the marked keys if there are any, else the selected key; asked first either way,
    // and only what the buttons would allow (a text field keeps its own Delete).
    Shortcut {
        sequence: StandardKey.Delete
        enabled: page.visible && !page.editing
        onActivated: {
            if (keys.markedCount > 0 && deleteMarkedButton.button.enabled)
                page.deleteMarked();
            else if (keys.markedCount === 0 && keys.selectedKey.length > 0 && deleteKeyButton.button.enabled)
                confirmDelete.open();
        }
    }
    // F5 (Main's): every key read again from the first page.
    function refresh() {
        keys.reload();
    }
    KeyModel {
        id: keys
        paused: page.paused
        // Other rows: a Shift+click starts a run afresh.
        onPrefixChanged: page.markAnchor = -1
        onAsOfRevisionChanged: page.markAnchor = -1
        onWriteFinished: (action, key, status) => {
            if (action === "create") {
                newKeyDialog.finished(status, page.advise(status));
                if (status.isOk)
                    page.select(key);
                return;
            }
            if (status.isOk) {
                page.editing = false;
                page.writeError = "";
                if (action === "remove")
                    page.select("");
                return;
            }
            page.writeError = action === "update" ? qsTr("The new value of %1 was not written: %2").arg(DisplayText.escape(key)).arg(page.advise(status))
                                                  : qsTr("%1 was not deleted: %2").arg(DisplayText.escape(key)).arg(page.advise(status));
        }
    }
    KeyHistory {
        id: history
        client: keys.client
        key: keys.selectedKey
        latestRevision: keys.selected.modRevision || 0
        latestVersion: keys.selected.version || 0
    }

    KeyTransfer {
        id: transfer
        client: keys.client
        onFinished: (operation, result) => {
            if (operation === "deleteCount" && result.status.isOk && result.counted > 0)
                confirmDeletePrefix.open();
            else if (operation === "deleteKeysCount" && result.status.isOk && result.counted > 0)
                confirmDeleteKeys.open();
            else if (operation === "deleteKeys" && result.status.isOk)
                keys.clearMarks();
        }
    }
    ExportDialog {
        id: exportDialog
        objectName: "exportDialog"
        transfer: transfer
        prefix: keys.prefix
    }
    ImportDialog {
        id: importDialog
        objectName: "importDialog"
        transfer: transfer
        readOnly: page.readOnly
        blockedReason: page.pausedReason
    }
    ConfirmDialog {
        id: confirmDeletePrefix
        objectName: "confirmDeletePrefix"
        readonly property var counted: transfer.operation === "deleteCount" ? transfer.result : ({})
        title: qsTr("Delete %n key(s)?", "", counted.counted || 0)
        confirmText: qsTr("Delete")
        destructive: true
        typedConfirmation: page.confirmationWord
        message: qsTr("Every key under %1 is deleted, at most 128 a transaction, with the keys written under it meanwhile. Leases are left alone; earlier values stay readable until etcd compacts them.").arg(DisplayText.escape(keys.prefix))
                 + "\n\n" + page.countedSample(counted)
        onConfirmed: transfer.deletePrefix(keys.prefix)
    }
    ConfirmDialog {
        id: confirmDeleteKeys
        objectName: "confirmDeleteKeys"
        readonly property var counted: transfer.operation === "deleteKeysCount" ? transfer.result : ({})
        readonly property int missing: page.keysToDelete.length - (counted.counted || 0)
        title: qsTr("Delete %n marked key(s)?", "", counted.counted || 0)
        confirmText: qsTr("Delete")
        destructive: true
        typedConfirmation: page.confirmationWord
        message: qsTr("These keys are deleted whatever their values are now, at most 128 a transaction. Leases are left alone; a key on a lease is lost to whatever holds it (a lock, a registration). Earlier values stay readable until etcd compacts them.")
                 + (missing > 0 ? "\n" + qsTr("%n of the marked keys no longer exist(s).", "", missing) : "")
                 + "\n\n" + page.countedSample(counted)
        onConfirmed: transfer.deleteKeys(page.keysToDelete)
    }
    NewKeyDialog {
        id: newKeyDialog
        objectName: "newKeyDialog"
        prefix: keys.prefix
        onCreateRequested: (key, value, leaseTtl, lease) => keys.create(key, value, leaseTtl, lease)
    }
    ConfirmDialog {
        id: confirmSave
        objectName: "confirmSave"
        title: qsTr("Write the new value?")
        confirmText: qsTr("Write")
        message: qsTr("%1 gets the value you edited (%2, was %3). It is written only if nobody changed the key since revision %4, and it keeps its lease.")
                     .arg(DisplayText.escape(keys.selectedKey)).arg(Format.bytes(editor.utf8Length)).arg(Format.bytes(keys.selected.size || 0))
                     .arg(keys.selected.modRevision || 0)
        onConfirmed: keys.update(keys.selectedKey, editor.text, keys.selected.modRevision)
        // What etcd has now (the model follows the key live) against the edited text.
        DiffView {
            objectName: "saveDiff"
            before: (keys.selected.views || {}).text || ""
            after: editor.text
            beforeTitle: qsTr("In etcd now (revision %1)").arg(keys.selected.modRevision || 0)
            afterTitle: qsTr("Your edit")
            Layout.fillWidth: true
            Layout.preferredHeight: 220
        }
    }
    Dialog {
        id: compareDialog
        objectName: "compareDialog"
        // The key stays out of the title, which a dialog renders as markup: the key is anyone's, and
        // the page shows it already.
        title: qsTr("Compare two versions of the selected key")
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(960, parent ? parent.width - 64 : 960)
        height: Math.min(600, parent ? parent.height - 64 : 600)
        modal: true
        standardButtons: Dialog.Close
        onAboutToShow: otherVersion.latest()
        // The right side: the latest, or any version its own stepper reaches.
        contentItem: ColumnLayout {
            spacing: Theme.spacing
            // Above the right side, which it steps; the left side is the page's own stepper's.
            RowLayout {
                Layout.fillWidth: true
                Item { Layout.fillWidth: true; Layout.preferredWidth: 1 }
                RevisionStepper {
                    objectName: "compareStepper"
                    history: otherVersion
                    latestVersion: keys.selected.version || 0
                    Layout.fillWidth: true
                    Layout.preferredWidth: 1
                }
            }
            DiffView {
                objectName: "compareDiff"
                before: ((history.shown || {}).views || {}).text || ""
                after: otherVersion.atLatest ? (keys.selected.views || {}).text || "" : ((otherVersion.shown || {}).views || {}).text || ""
                beforeTitle: qsTr("Version %1 (revision %2)").arg(history.shown.version || 0).arg(history.shown.modRevision || 0)
                afterTitle: otherVersion.atLatest ? qsTr("Latest: version %1 (revision %2)").arg(keys.selected.version || 0).arg(keys.selected.modRevision || 0)
                                                  : qsTr("Version %1 (revision %2)").arg(otherVersion.shown.version || 0).arg(otherVersion.shown.modRevision || 0)
                Layout.fillWidth: true
                Layout.fillHeight: true
            }
        }
    }
    // The compare dialog's second version, stepped on its own.
    KeyHistory {
        id: otherVersion
        client: keys.client
        key: compareDialog.visible ? keys.selectedKey : ""
        latestRevision: keys.selected.modRevision || 0
        latestVersion: keys.selected.version || 0
    }
    ConfirmDialog {
        id: confirmDelete
        objectName: "confirmDelete"
        title: qsTr("Delete the key?")
        confirmText: qsTr("Delete")
        destructive: true
        message: qsTr("%1 and its value (%2, revision %3) are deleted. Only if nobody changed the key since. Earlier values stay readable until etcd compacts them.")
                     .arg(DisplayText.escape(keys.selectedKey)).arg(Format.bytes(keys.selected.size || 0)).arg(keys.selected.modRevision || 0)
                 + (keys.selected.lease ? "\n\n" + qsTr("The key belongs to lease %1: whatever holds it (a lock, a registration) loses it.").arg(keys.selected.lease) : "")
        onConfirmed: keys.remove(keys.selectedKey, keys.selected.modRevision)
    }

    Banner {
        id: asOfBanner
        objectName: "asOfBanner"
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        bad: false
        text: page.viewingPast ? qsTr("As of revision %1%2 — the keys and values as they were then. Nothing can be written in the past.").arg(keys.asOfRevision).arg(Format.revisionTime(page.revisionClock, keys.asOfRevision)) : ""
        Button {
            objectName: "backToLive"
            text: qsTr("Back to live")
            onClicked: page.backToLive()
        }
    }
    ColumnLayout {
        id: deletePrefixStatus
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: asOfBanner.visible ? asOfBanner.bottom : parent.top
        anchors.topMargin: asOfBanner.visible ? Theme.spacing : 0
        visible: deletePrefixProgress.active || deletePrefixResult.visible
        spacing: Theme.spacing
        TransferProgress {
            id: deletePrefixProgress
            transfer: transfer
            operations: ["delete", "deleteCount", "deleteKeys", "deleteKeysCount"]
            Layout.fillWidth: true
        }
        Banner {
            id: deletePrefixResult
            objectName: "deletePrefixResult"
            readonly property var ended: transfer.running ? ({}) : transfer.result
            bad: !!ended.status && !ended.status.isOk
            good: !!ended.status && ended.status.isOk
            dismissable: true
            onDismissed: dismissedResult = ended
            property var dismissedResult: null
            text: !ended.status || dismissedResult === ended ? ""
                : transfer.operation === "deleteCount" ? (ended.status.isOk ? (ended.counted === 0 ? qsTr("No keys under %1: nothing to delete").arg(DisplayText.escape(keys.prefix)) : "")
                                                                          : qsTr("The keys under %1 were not counted: %2").arg(DisplayText.escape(keys.prefix)).arg(page.advise(ended.status)))
                : transfer.operation === "deleteKeysCount" ? (ended.status.isOk ? (ended.counted === 0 ? qsTr("None of the marked keys exists any more: nothing to delete") : "")
                                                                              : qsTr("The marked keys were not counted: %1").arg(page.advise(ended.status)))
                : transfer.operation !== "delete" && transfer.operation !== "deleteKeys" ? ""
                : ended.status.isOk ? qsTr("%1 keys deleted (revision %2).").arg(Format.count(ended.deleted)).arg(ended.revision)
                : qsTr("The delete stopped after %1 of %2 keys: %3").arg(Format.count(ended.deleted)).arg(Format.count(ended.counted)).arg(page.advise(ended.status))
            Layout.fillWidth: true
        }
    }
    SplitView {
        anchors.fill: parent
        anchors.topMargin: deletePrefixStatus.visible ? deletePrefixStatus.y + deletePrefixStatus.height + Theme.spacing
                         : asOfBanner.visible ? asOfBanner.height + Theme.spacing : 0
        orientation: Qt.Vertical
        visible: keys.count > 0 || keys.selectedKey.length > 0 || page.watching

        SplitView {
            SplitView.fillHeight: true
            SplitView.minimumHeight: 200
            visible: keys.count > 0 || keys.selectedKey.length > 0

            Rectangle {
                SplitView.preferredWidth: parent.width * 0.45
                SplitView.minimumWidth: 280
                color: Theme.surface
                border.color: Theme.border
                radius: Theme.radius

                ColumnLayout {
                    anchors.fill: parent
                    anchors.margins: 1
                    spacing: 0
                    KeySearch {
                        id: keySearch
                        objectName: "keySearch"
                        keys: keys
                        Layout.fillWidth: true
                        Layout.fillHeight: showing
                        onKeyChosen: key => page.select(key)
                    }
                    // What is marked for a bulk action, and the action.
                    RowLayout {
                        objectName: "markedBar"
                        visible: keys.markedCount > 0 && !keySearch.showing
                        spacing: Theme.spacing
                        Layout.fillWidth: true
                        Layout.leftMargin: Theme.spacing
                        Layout.rightMargin: Theme.spacing / 2
                        Label {
                            objectName: "markedCount"
                            textFormat: Text.PlainText
                            text: qsTr("%n key(s) marked", "", keys.markedCount)
                            color: Theme.text
                            font.pixelSize: Theme.smallFont
                            Layout.fillWidth: true
                        }
                        WriteButton {
                            id: deleteMarkedButton
                            objectName: "deleteMarkedButton"
                            text: qsTr("Delete…")
                            flat: true
                            readOnly: page.readOnly
                            blockedReason: page.pausedReason ? page.pausedReason
                                         : transfer.running ? qsTr("Wait for the job running to end") : ""
                            toolTip: qsTr("Delete the marked keys; you see how many still exist first")
                            onClicked: page.deleteMarked()
                        }
                        Button {
                            objectName: "clearMarksButton"
                            text: qsTr("Unmark")
                            flat: true
                            onClicked: keys.clearMarks()
                            ToolTip.visible: hovered
                            ToolTip.delay: 600
                            ToolTip.text: qsTr("Unmark every key (Esc in the list)")
                        }
                    }
                    // The keys, while no search shows its results in their place.
                    Item {
                        visible: !keySearch.showing
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                        clip: true
                        ListView {
                            id: list
                            objectName: "keyList"
                            visible: page.layout === "list"
                            anchors.fill: parent
                            clip: true
                            model: keys
                            reuseItems: true
                            currentIndex: -1
                            keyNavigationEnabled: true
                            focus: true
                            ScrollBar.vertical: ScrollBar {}
                            onCurrentIndexChanged: if (currentItem) page.select(currentItem.key)
                            Keys.onEscapePressed: event => {
                                event.accepted = keys.markedCount > 0;
                                keys.clearMarks();
                            }
                            // The next page is asked for two screens before the end, so that a steady
                            // scroll does not run into blank rows.
                            function fetchIfNearTheEnd() {
                                if (contentHeight - (contentY + height) < 2 * height)
                                    keys.fetchNextPage()
                            }
                            onContentYChanged: fetchIfNearTheEnd()
                            onCountChanged: fetchIfNearTheEnd()
                            onHeightChanged: fetchIfNearTheEnd()

                            delegate: ItemDelegate {
                                id: keyRow
                                required property int index
                                required property string key
                                required property string lease
                                required property var changedAt
                                required property bool marked
                                width: ListView.view.width
                                height: 30
                                Accessible.name: keyRow.key
                                highlighted: keyRow.key === keys.selectedKey
                                ToolTip.visible: rowArea.containsMouse && keys.markedCount === 0
                                ToolTip.delay: 1500
                                ToolTip.text: qsTr("Ctrl+click or Space marks keys for a bulk delete; Shift+click marks a run of them")
                                // The current row has the focus: Space would press it as a button.
                                Keys.onSpacePressed: keys.setMarked(keyRow.key, !keyRow.marked)
                                // Clicks come here for their modifiers, which a button's clicked() does not tell.
                                MouseArea {
                                    id: rowArea
                                    anchors.fill: parent
                                    hoverEnabled: true
                                    onClicked: mouse => {
                                        list.forceActiveFocus();
                                        // The box marks without a modifier.
                                        const onTheBox = mouse.x < markBox.x + markBox.width + keyRow.leftPadding;
                                        page.clickRow(keyRow.index, keyRow.key, keyRow.marked,
                                                      onTheBox && markBox.opacity > 0 ? mouse.modifiers | Qt.ControlModifier : mouse.modifiers);
                                    }
                                }
                                background: Rectangle {
                                    color: keyRow.highlighted ? Theme.accentSoft : rowArea.containsMouse ? Theme.window : "transparent"
                                    Rectangle {
                                        anchors.fill: parent
                                        color: Theme.warningSoft
                                        opacity: 0
                                        // New and changed keys flash once.
                                        SequentialAnimation on opacity {
                                            running: keyRow.changedAt > 0 && Date.now() - keyRow.changedAt < 1500
                                            NumberAnimation { from: 1; to: 0; duration: 1500 }
                                        }
                                    }
                                }
                                contentItem: RowLayout {
                                    spacing: Theme.spacing
                                    // Drawn only: the row's MouseArea takes its clicks.
                                    CheckBox {
                                        id: markBox
                                        objectName: "markBox"
                                        checked: keyRow.marked
                                        opacity: keyRow.marked || keys.markedCount > 0 || rowArea.containsMouse ? 1 : 0
                                        padding: 0
                                        focusPolicy: Qt.NoFocus
                                        Accessible.name: qsTr("Marked")
                                    }
                                    EtcdLabel {
                                        value: keyRow.key
                                        font.family: Theme.monoFamily
                                        font.pixelSize: Theme.bodyFont - 1
                                        color: Theme.text
                                        Layout.fillWidth: true
                                    }
                                    Label {
                                        visible: keyRow.lease.length > 0
                                        textFormat: Text.PlainText
                                        text: "\u25F4 " + keyRow.lease
                                        color: Theme.mutedText
                                        font.family: Theme.monoFamily
                                        font.pixelSize: Theme.smallFont
                                    }
                                }
                            }
                        }

                        Loader {
                            id: treeLoader
                            anchors.fill: parent
                            active: page.layout === "tree"
                            sourceComponent: KeyTree {
                                keyModel: keys
                                onKeyChosen: key => page.select(key)
                            }
                        }
                    }
                }
            }

            Rectangle {
                SplitView.fillWidth: true
                color: Theme.surface
                border.color: Theme.border
                radius: Theme.radius

                ColumnLayout {
                    id: detail
                    // While an earlier version is shown, its revisions and lease are shown with it.
                    readonly property var shown: history.atLatest ? keys.selected : Object.assign({}, keys.selected, history.shown)
                    anchors.fill: parent
                    anchors.margins: Theme.padding
                    spacing: Theme.spacing
                    visible: keys.selectedKey.length > 0

                    RowLayout {
                        spacing: Theme.spacing
                        Layout.fillWidth: true
                        EtcdLabel {
                            objectName: "selectedKeyLabel"
                            value: keys.selectedKey
                            font.family: Theme.monoFamily
                            font.bold: true
                            font.pixelSize: Theme.bodyFont + 1
                            color: Theme.text
                            Layout.fillWidth: true
                        }
                        Button {
                            id: copyButton
                            objectName: "copyButton"
                            text: qsTr("Copy ▾")
                            flat: true
                            onClicked: copyMenu.open()
                            ToolTip.visible: hovered && !copyMenu.visible
                            ToolTip.delay: 600
                            ToolTip.text: qsTr("Copy the key, the value shown or the etcdctl command that reads it")
                            Menu {
                                id: copyMenu
                                objectName: "copyMenu"
                                y: copyButton.height
                                MenuItem {
                                    objectName: "copyKey"
                                    text: qsTr("Key")
                                    onTriggered: Clipboard.setText(keys.selectedKey)
                                }
                                MenuItem {
                                    objectName: "copyValue"
                                    text: qsTr("Value")
                                    enabled: !!(detail.shown.views || {}).isText && !detail.shown.views.truncated
                                    onTriggered: Clipboard.setText(detail.shown.views.text)
                                }
                                MenuItem {
                                    objectName: "copyCommand"
                                    // The version shown, so an earlier one is read at its revision.
                                    readonly property string command: "etcdctl get " + page.shellQuoted(keys.selectedKey)
                                                                      + (history.atLatest ? "" : " --rev=" + history.shown.modRevision)
                                    // Not the command itself: a menu item renders its text as markup, and
                                    // the key is anyone's.
                                    text: history.atLatest ? qsTr("etcdctl command") : qsTr("etcdctl command at this revision")
                                    onTriggered: Clipboard.setText(command)
                                }
                            }
                        }
                        Button {
                            objectName: "compareButton"
                            text: qsTr("Compare…")
                            enabled: !history.atLatest && !page.editing
                            onClicked: compareDialog.open()
                            ToolTip.visible: hovered
                            ToolTip.delay: 600
                            ToolTip.text: history.atLatest ? qsTr("Step back to an earlier version with ◀ to compare it with the latest")
                                                           : qsTr("The version shown side by side with the latest")
                        }
                        WriteButton {
                            objectName: "editKeyButton"
                            text: qsTr("Edit")
                            readOnly: page.readOnly
                            toolTip: qsTr("Change the value; you confirm before it is written")
                            blockedReason: page.pausedReason ? page.pausedReason
                                         : keys.selected.modRevision === undefined ? qsTr("The key's value has not been read")
                                         : page.editing ? qsTr("Already editing: save or cancel below")
                                         : !keys.selected.views.isText ? qsTr("The value is not UTF-8 text; put binary values with `qetcd put`")
                                         : ""
                            onClicked: {
                                history.latest();
                                editor.text = keys.selected.views.text;
                                page.writeError = "";
                                page.editing = true;
                                editor.forceActiveFocus();
                            }
                        }
                        WriteButton {
                            id: deleteKeyButton
                            objectName: "deleteKeyButton"
                            text: qsTr("Delete…")
                            readOnly: page.readOnly
                            toolTip: qsTr("Delete the key; you confirm first")
                            blockedReason: page.pausedReason ? page.pausedReason
                                         : keys.selected.modRevision === undefined ? qsTr("The key's value has not been read") : ""
                            onClicked: confirmDelete.open()
                        }
                    }
                    GridLayout {
                        columns: 3
                        columnSpacing: Theme.padding
                        rowSpacing: 2
                        Field { label: qsTr("Created at"); value: detail.shown.createRevision !== undefined ? Format.count(detail.shown.createRevision) : "—"; mono: true }
                        Field { label: qsTr("Modified at"); value: detail.shown.modRevision !== undefined ? Format.count(detail.shown.modRevision) : "—"; mono: true }
                        Field {
                            label: qsTr("Lease")
                            value: detail.shown.lease || qsTr("none")
                            mono: true
                            visible: !detail.shown.lease
                        }
                        // A key's lease opens the Leases page at it.
                        RowLayout {
                            visible: !!detail.shown.lease
                            spacing: Theme.spacing
                            Label {
                                text: qsTr("Lease")
                                textFormat: Text.PlainText
                                color: Theme.mutedText
                                font.pixelSize: Theme.smallFont
                                Layout.preferredWidth: 92
                            }
                            Button {
                                objectName: "leaseLink"
                                // Hex digits only, as the model spells a lease: no markup can come in.
                                text: detail.shown.lease || ""
                                flat: true
                                font.family: Theme.monoFamily
                                palette.buttonText: Theme.accent
                                onClicked: page.leaseChosen(detail.shown.lease)
                                ToolTip.visible: hovered
                                ToolTip.delay: 600
                                ToolTip.text: qsTr("Show this lease on the Leases page")
                            }
                        }
                    }
                    RevisionStepper {
                        history: history
                        latestVersion: keys.selected.version || 0
                        enabled: !page.editing
                        Layout.fillWidth: true
                    }
                    Banner {
                        objectName: "keyError"
                        text: page.writeError || keys.selected.error || ""
                        dismissable: page.writeError.length > 0
                        onDismissed: page.writeError = ""
                        Layout.fillWidth: true
                    }
                    ValueView {
                        visible: !page.editing
                        views: detail.shown.views || ({})
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                    }
                    ScrollView {
                        visible: page.editing
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                        TextArea {
                            id: editor
                            objectName: "valueEditor"
                            Accessible.name: qsTr("New value of %1").arg(keys.selectedKey)
                            // What Format.bytes reports: the size the new value will have in etcd.
                            readonly property int utf8Length: unescape(encodeURIComponent(text)).length
                            font.family: Theme.monoFamily
                            font.pixelSize: Theme.bodyFont - 1
                            selectByMouse: true
                            wrapMode: TextEdit.WrapAnywhere
                            background: Rectangle { color: Theme.surface; radius: Theme.radius; border.color: Theme.accent }
                        }
                    }
                    Label {
                        id: jsonError
                        objectName: "jsonError"
                        // Only what starts like JSON is held to it: plain text is a value too.
                        readonly property var check: page.editing ? ValueCheck.json(editor.text) : ({ valid: true })
                        visible: page.editing && !check.valid
                        textFormat: Text.PlainText
                        text: check.valid ? "" : qsTr("Not valid JSON, line %1, column %2: %3").arg(check.line).arg(check.column).arg(check.message)
                        color: Theme.bad
                        font.pixelSize: Theme.smallFont
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                    }
                    RowLayout {
                        visible: page.editing
                        spacing: Theme.spacing
                        Item { Layout.fillWidth: true }
                        Button {
                            text: qsTr("Cancel")
                            onClicked: { page.editing = false; page.writeError = ""; }
                        }
                        WriteButton {
                            objectName: "saveKeyButton"
                            text: qsTr("Save…")
                            readOnly: page.readOnly
                            toolTip: qsTr("Write the new value; you confirm first")
                            blockedReason: page.pausedReason ? page.pausedReason
                                         : editor.text === (keys.selected.views || {}).text ? qsTr("Nothing changed yet")
                                         : !jsonError.check.valid ? qsTr("The value starts like JSON but is not: fix it first (see below the editor)")
                                         : ""
                            onClicked: confirmSave.open()
                        }
                    }
                }
                EmptyState {
                    anchors.centerIn: parent
                    visible: keys.selectedKey.length === 0
                    title: qsTr("No key selected")
                    detail: qsTr("Pick a key on the left to read its value and revisions.")
                }
            }
        }
        WatchPane {
            id: watchPane
            objectName: "watchPane"
            visible: page.watching
            keys: keys
            client: keys.client
            SplitView.preferredHeight: 240
            SplitView.minimumHeight: 140
            onKeyChosen: key => page.select(key)
        }
    }

    EmptyState {
        objectName: "keysEmptyState"
        anchors.centerIn: parent
        visible: keys.count === 0 && keys.selectedKey.length === 0
        busy: keys.status === ModelStatus.Loading || keys.status === ModelStatus.Null
        error: keys.status === ModelStatus.Error
        title: keys.status === ModelStatus.Error ? qsTr("The keys could not be read")
             : keys.status === ModelStatus.Ready ? qsTr("No keys under %1").arg(keys.prefix || "/")
             : qsTr("Reading the keys…")
        detail: keys.status === ModelStatus.Error ? qsTr("%1\n%2").arg(keys.errorString).arg(page.errorHint)
              : keys.status === ModelStatus.Ready ? (page.readOnly ? qsTr("Write one with `qetcd put %1/hello world` from a connection that may write.").arg(keys.prefix)
                                                                   : qsTr("Create one with New key…, or with `qetcd put %1/hello world`.").arg(keys.prefix))
              : ""
    }
}
