// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// A Semaphore: one permit of `permits`, acquired and released, with how many are left.
RecipePanel {
    id: panel
    key: "semaphore"
    refresh: () => panel.recipe.refreshAvailable()

    CountLine {
        label: qsTr("Permits")
        value: panel.recipe.permits
        locked: panel.settingsLocked
        toolTip: qsTr("How many participants may hold a permit at once")
        note: panel.recipe.available < 0 ? "" : qsTr("%1 available").arg(panel.recipe.available)
        onModified: value => panel.recipe.permits = value
    }
    Field {
        label: qsTr("Fencing token")
        value: panel.recipe.held ? Format.count(panel.recipe.fencingToken) : "—"
        mono: true
    }
    LossDeadline {
        visible: panel.recipe.held
        timeLeftMs: panel.recipe.leaseTimeLeft
        ttl: panel.recipe.leaseTtl
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "acquire"
            text: qsTr("Acquire")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.held ? qsTr("A permit is held already") : panel.waiting ? qsTr("Waiting for a permit already") : ""
            toolTip: qsTr("Take one permit; waits while all are taken")
            onClicked: panel.recipe.acquire()
        }
        WriteButton {
            objectName: "release"
            text: qsTr("Release")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.held || panel.recipe.state === Participant.Lost ? "" : qsTr("No permit to release")
            toolTip: qsTr("Give the permit back; the next waiter takes it")
            onClicked: {
                if (!panel.recipe.release())
                    panel.participant.say(panel.key, qsTr("release() said false: the permit had been lost before it was given back."));
            }
        }
    }
}
