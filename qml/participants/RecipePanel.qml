// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// What every recipe's panel shares: where the recipe lives (path, TTL), the family's own lines
// and actions (the content), and underneath, the last thing it was refused.
ColumnLayout {
    id: panel
    property ConsoleParticipant participant
    // Which of the participant's recipes (see ConsoleParticipant.recipes).
    property string key
    property bool hasLease: true
    // Called every two seconds while the panel shows, the window is not paused and the cluster
    // answers, to read again what the other participants change (a queue's depth, candidates).
    property var refresh: null
    default property alias content: body.data

    readonly property var entry: participant.entry(key)
    readonly property var recipe: entry.recipe
    readonly property bool readOnly: participant.readOnly
    readonly property bool waiting: recipe.state === Participant.Pending
    readonly property bool active: recipe.state === Participant.Active
    // Why the path and TTL cannot change now: a change drops the recipe and what it holds.
    readonly property string settingsLocked: waiting || active ? qsTr("Close first: a new path or TTL lets go of what the recipe holds") : ""

    spacing: Theme.spacing

    RowLayout {
        spacing: Theme.spacing
        Layout.fillWidth: true
        Label {
            text: qsTr("Path")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
        }
        TextField {
            objectName: "path"
            Accessible.name: qsTr("Path")
            text: panel.recipe.path
            // Read-only rather than disabled while locked: the path stays legible.
            readOnly: panel.settingsLocked.length > 0
            color: readOnly ? Theme.mutedText : Theme.text
            font.family: Theme.monoFamily
            font.pixelSize: Theme.smallFont
            selectByMouse: true
            onEditingFinished: panel.recipe.path = text
            // A long path shows from its start, as it reads, until someone edits it.
            autoScroll: activeFocus
            Layout.fillWidth: true
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: panel.settingsLocked || qsTr("Where in etcd the recipe lives; Enter applies it")
        }
    }
    CountLine {
        objectName: "ttl"
        visible: panel.hasLease
        label: qsTr("TTL (s)")
        value: panel.recipe.ttl
        to: 3600
        locked: panel.settingsLocked
        toolTip: qsTr("Seconds the recipe's lease lasts without renewals")
        onModified: value => panel.recipe.ttl = value
    }
    ColumnLayout {
        id: body
        spacing: Theme.spacing
        Layout.fillWidth: true
    }
    Banner {
        objectName: "recipeError"
        text: panel.participant.advice[panel.key] || ""
        dismissable: true
        onDismissed: panel.participant.say(panel.key, "")
        Layout.fillWidth: true
    }
    Timer {
        interval: 2000
        repeat: true
        triggeredOnStart: true
        // Not while cut off: every failed read would be another error in the event log.
        running: panel.refresh !== null && panel.visible && !panel.participant.paused && panel.participant.reachable
        onTriggered: panel.refresh()
    }
}
