// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Asks which history to keep before a compaction, and says what goes: the revision to keep from
// (proposed: the newest `proposedKept` revisions), or a time on a slider that the console's own
// revision samples put on the clock, the revisions that become unreadable, and whether to wait
// until etcd has freed their space.
ConfirmDialog {
    id: dialog
    required property ClusterActions actions
    property RevisionClock revisionClock: null
    property int proposedKept: 1000
    readonly property bool physical: physicalBox.checked
    // What the choice means, once etcd said which revisions it keeps.
    readonly property bool known: actions.retainedUntil > 0
    readonly property real keepFrom: inputText.length > 0 ? Number(inputText) : 0
    readonly property real discarded: known ? Math.max(0, keepFrom - actions.retainedFrom) : 0
    // The console's samples reach back to here: the slider goes no further, and never before
    // the oldest revision etcd keeps.
    readonly property real earliestMs: {
        if (!revisionClock || revisionClock.sampleCount === 0 || !known)
            return -1
        const kept = revisionClock.bounds(actions.retainedFrom)
        return Math.max(revisionClock.firstSampleMs, kept.byMs)
    }
    property real nowMs: 0

    objectName: "compactDialog"
    title: qsTr("Compact the history?")
    confirmText: qsTr("Compact")
    destructive: true
    inputLabel: qsTr("Keep the history from revision")
    inputValidator: RegularExpressionValidator { regularExpression: /[0-9]{1,16}/ }
    acceptable: known && keepFrom > actions.retainedFrom && keepFrom <= actions.retainedUntil
    message: !known
             ? (actions.retainedHistoryError.length > 0
                ? qsTr("Which revisions etcd keeps could not be read: %1").arg(actions.retainedHistoryError)
                : qsTr("Finding the oldest revision etcd keeps…"))
             : qsTr("The store is at revision %1 and keeps its history from revision %2 (%n revision(s)). Compacting discards the versions of keys older than the revision you keep from: reads and watches cannot reach back past it, and `qetcd history` begins there.",
                    "", actions.retainedUntil - actions.retainedFrom + 1)
                   .arg(Format.count(actions.retainedUntil)).arg(Format.count(actions.retainedFrom))

    onAboutToShow: {
        physicalBox.checked = false
        nowMs = Date.now()
        actions.findRetainedHistory()
    }
    onConfirmed: actions.compact(inputText, physical)
    // A revision typed puts the slider where the samples say it came to be. (keepFrom's binding
    // may not have seen the new text yet.)
    onInputTextChanged: {
        const typed = Number(inputText)
        if (since.enabled && !since.pressed && typed > 0) {
            const came = revisionClock.bounds(typed)
            since.value = came.byMs > 0 ? came.byMs : since.to
        }
    }

    Connections {
        target: dialog.actions
        // The proposal waits for etcd's answer; whatever the operator typed meanwhile stays.
        function onRetainedHistoryChanged() {
            if (dialog.opened && dialog.known && dialog.inputText.length === 0)
                dialog.inputText = String(Math.max(dialog.actions.retainedFrom, dialog.actions.retainedUntil - dialog.proposedKept + 1))
        }
    }

    RowLayout {
        spacing: Theme.spacing
        Layout.fillWidth: true
        Label {
            text: qsTr("Keep since")
            color: Theme.mutedText
            textFormat: Text.PlainText
        }
        Slider {
            id: since
            objectName: "keepSince"
            Accessible.name: qsTr("Keep since")
            enabled: dialog.earliestMs > 0 && dialog.earliestMs < dialog.nowMs
            from: dialog.earliestMs
            to: dialog.nowMs
            stepSize: 1000
            Layout.fillWidth: true
            onMoved: {
                const revision = dialog.revisionClock.revisionAt(value)
                if (revision > 0)
                    dialog.inputText = String(Math.min(dialog.actions.retainedUntil, Math.max(revision, dialog.actions.retainedFrom)))
            }
        }
        Label {
            objectName: "keepSinceTime"
            text: since.enabled ? new Date(since.value).toLocaleTimeString(Qt.locale(), "HH:mm:ss") : "—"
            color: Theme.text
            font.family: Theme.monoFamily
            textFormat: Text.PlainText
        }
    }
    Label {
        objectName: "sampleReach"
        visible: !since.enabled && dialog.known
        text: qsTr("The slider needs this console's revision samples, which begin when it connects: until then, give a revision.")
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        Layout.fillWidth: true
    }
    Label {
        objectName: "compactionSummary"
        visible: dialog.known && dialog.inputText.length > 0
        text: dialog.keepFrom > dialog.actions.retainedUntil
              ? qsTr("Revision %1 is past the store's %2.").arg(Format.count(dialog.keepFrom)).arg(Format.count(dialog.actions.retainedUntil))
              : dialog.keepFrom <= dialog.actions.retainedFrom
                ? qsTr("etcd keeps nothing older than revision %1 already: nothing to compact.").arg(Format.count(dialog.actions.retainedFrom))
                : qsTr("%n revision(s) become unreadable, %1 to %2; every key keeps its version as of revision %3%4.", "", dialog.discarded)
                      .arg(Format.count(dialog.actions.retainedFrom)).arg(Format.count(dialog.keepFrom - 1))
                      .arg(Format.count(dialog.keepFrom)).arg(Format.revisionTime(dialog.revisionClock, dialog.keepFrom))
        color: dialog.acceptable ? Theme.text : Theme.bad
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        Layout.fillWidth: true
    }
    CheckBox {
        id: physicalBox
        objectName: "physical"
        text: qsTr("Wait until etcd has freed their space (physical)")
        ToolTip.visible: hovered
        ToolTip.delay: 400
        ToolTip.text: qsTr("The answer comes once the old versions are gone from the database file, not merely marked; defragment to give the space back to the file system.")
    }
}
