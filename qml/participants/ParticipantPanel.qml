// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// One participant as a card: its name, its connection as a word, the lease of the recipe in
// view, its fault controls in a sandbox, what its other recipes are doing, and the panel of the
// recipe it shows. The participant lives on without the card.
Card {
    id: card
    required property ConsoleParticipant participant
    signal removeRequested()

    readonly property var shown: participant.shownEntry
    readonly property var leaseHolder: shown.recipe
    readonly property string connectionWord: {
        switch (participant.client.connectionState) {
        case Etcd.ConnectionState.Connected: return "Connected";
        case Etcd.ConnectionState.Reconnected: return "Reconnected";
        case Etcd.ConnectionState.Lost: return "Lost";
        }
        return "Suspended";
    }

    objectName: "participant_" + participant.name
    kindLabel: qsTr("Participant")
    title: participant.name
    accentColor: connectionWord === "Connected" ? Theme.accent : connectionWord === "Lost" ? Theme.bad
               : connectionWord === "Suspended" ? Theme.warning : Theme.info
    badge: [
        ConnectionPill {
            objectName: "connectionPill"
            state: card.connectionWord
            ToolTip.visible: pillHover.hovered
            ToolTip.text: card.participant.client.errorString
                          || qsTr("How this participant's own client reaches the cluster: %1").arg(card.participant.client.endpoints.join(", "))
            HoverHandler { id: pillHover }
        },
        ToolButton {
            objectName: "removeParticipant"
            text: "\u2715"
            onClicked: card.removeRequested()
            Accessible.name: qsTr("Remove %1").arg(card.participant.name)
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Remove %1: it gives back everything it holds").arg(card.participant.name)
        }
    ]

    // Above everything it explains: the connection, the lease and the recipes' states all
    // changed with the move.
    Banner {
        objectName: "moveNote"
        text: card.participant.moveNote
        bad: false
        dismissable: true
        onDismissed: card.participant.moveNote = ""
        Layout.fillWidth: true
    }
    RowLayout {
        objectName: "leaseLine"
        spacing: Theme.spacing
        Layout.fillWidth: true
        Layout.preferredHeight: 28
        Label {
            text: qsTr("Lease")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
        }
        CountdownRing {
            objectName: "leaseRing"
            visible: card.leaseHolder.leaseId.length > 0
            remaining: card.leaseHolder.leaseTimeLeft / 1000
            total: card.leaseHolder.leaseTtl
            Layout.preferredWidth: 26
            Layout.preferredHeight: 26
        }
        Label {
            objectName: "leaseId"
            textFormat: Text.PlainText
            text: card.leaseHolder.leaseId.length > 0 ? card.leaseHolder.leaseId
                : qsTr("none")
            color: card.leaseHolder.leaseId.length > 0 ? Theme.text : Theme.mutedText
            font.family: card.leaseHolder.leaseId.length > 0 ? Theme.monoFamily : Qt.application.font.family
            font.pixelSize: card.leaseHolder.leaseId.length > 0 ? Theme.bodyFont : Theme.smallFont
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
    }
    FaultControls {
        objectName: "faultControls"
        link: card.participant.link
    }
    Label {
        objectName: "faultsNeedSandbox"
        visible: card.participant.link === null
        text: qsTr("Fault controls need the sandbox: start one to cut this participant off, delay it or reset it.")
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        wrapMode: Text.Wrap
        Layout.fillWidth: true
    }

    // The participant's other recipes that wait or hold, one click from their panels.
    RowLayout {
        objectName: "busyElsewhere"
        visible: busyElsewhere.count > 0
        spacing: Theme.spacing
        Layout.fillWidth: true
        Label {
            text: qsTr("Also")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
            Layout.alignment: Qt.AlignTop | Qt.AlignLeft
            Layout.topMargin: 4
        }
        Flow {
            spacing: 4
            Layout.fillWidth: true
            Repeater {
                id: busyElsewhere
                model: card.participant.recipes.filter(entry => entry !== card.shown
                                                       && entry.recipe.state !== Participant.Idle
                                                       && entry.recipe.state !== Participant.Closed)
                delegate: StatePill {
                    required property var modelData
                    text: "%1 · %2".arg(modelData.title).arg(card.participant.stateWord(modelData))
                    foreground: card.participant.stateColour(modelData.recipe, false)
                    background: card.participant.stateColour(modelData.recipe, true)
                    TapHandler { onTapped: card.participant.shownRecipe = modelData.key }
                    HoverHandler { cursorShape: Qt.PointingHandCursor }
                }
            }
        }
    }

    Rectangle { color: Theme.border; Layout.fillWidth: true; Layout.preferredHeight: 1; Layout.topMargin: 4; Layout.bottomMargin: 4 }

    RowLayout {
        spacing: Theme.spacing
        Layout.fillWidth: true
        ComboBox {
            objectName: "recipeSelector"
            Accessible.name: qsTr("Recipe of %1 to show").arg(card.participant.name)
            model: card.participant.recipes
            textRole: "title"
            currentIndex: card.participant.recipes.indexOf(card.shown)
            onActivated: index => card.participant.shownRecipe = card.participant.recipes[index].key
            Layout.fillWidth: true
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Which recipe to show; the others keep what they hold")
        }
        StatePill {
            objectName: "recipeState"
            text: card.participant.stateWord(card.shown)
            foreground: card.participant.stateColour(card.shown.recipe, false)
            background: card.participant.stateColour(card.shown.recipe, true)
        }
        ToolButton {
            objectName: "closeRecipe"
            text: qsTr("Close")
            enabled: card.shown.recipe.state !== Participant.Idle && card.shown.recipe.state !== Participant.Closed
            onClicked: card.shown.recipe.close()
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Let go of whatever this recipe holds and stop its waits")
        }
    }

    // Only the panel in view is built: a card stays cheap while the page scrolls.
    Loader { active: card.shown.key === "mutex"; visible: active; Layout.fillWidth: true; sourceComponent: LockPanel { participant: card.participant } }
    Loader { active: card.shown.key === "readWriteLock"; visible: active; Layout.fillWidth: true; sourceComponent: ReadWriteLockPanel { participant: card.participant } }
    Loader { active: card.shown.key === "semaphore"; visible: active; Layout.fillWidth: true; sourceComponent: SemaphorePanel { participant: card.participant } }
    Loader { active: card.shown.key === "election"; visible: active; Layout.fillWidth: true; sourceComponent: ElectionPanel { participant: card.participant } }
    Loader { active: card.shown.key === "observer"; visible: active; Layout.fillWidth: true; sourceComponent: ObserverPanel { participant: card.participant } }
    Loader { active: card.shown.key === "barrier"; visible: active; Layout.fillWidth: true; sourceComponent: BarrierPanel { participant: card.participant } }
    Loader { active: card.shown.key === "countedBarrier"; visible: active; Layout.fillWidth: true; sourceComponent: CountedBarrierPanel { participant: card.participant } }
    Loader { active: card.shown.key === "doubleBarrier"; visible: active; Layout.fillWidth: true; sourceComponent: DoubleBarrierPanel { participant: card.participant } }
    Loader { active: card.shown.key === "service"; visible: active; Layout.fillWidth: true; sourceComponent: ServicePanel { participant: card.participant } }
    Loader { active: card.shown.key === "transientKey"; visible: active; Layout.fillWidth: true; sourceComponent: TransientKeyPanel { participant: card.participant } }
    Loader { active: card.shown.key === "counter"; visible: active; Layout.fillWidth: true; sourceComponent: CounterPanel { participant: card.participant } }
    Loader { active: card.shown.key === "queue"; visible: active; Layout.fillWidth: true; sourceComponent: QueuePanel { participant: card.participant } }
}
