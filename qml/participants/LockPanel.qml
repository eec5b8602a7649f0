// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// A Mutex: lock, unlock, and while held its fencing token and the time left before its loss
// deadline.
RecipePanel {
    id: panel
    key: "mutex"

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
            objectName: "lock"
            text: qsTr("Lock")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.held ? qsTr("The lock is held already") : panel.waiting ? qsTr("Waiting for the lock already") : ""
            toolTip: qsTr("Queue for the lock; it is held once everyone before has let go")
            onClicked: panel.recipe.lock()
        }
        WriteButton {
            objectName: "unlock"
            text: qsTr("Unlock")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.held || panel.recipe.state === Participant.Lost ? "" : qsTr("Nothing to unlock")
            toolTip: qsTr("Give the lock back; the next in line gets it")
            onClicked: {
                if (!panel.recipe.unlock())
                    panel.participant.say(panel.key, qsTr("unlock() said false: the lock had been lost before it was given back."));
            }
        }
    }
}
