// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Layouts
import QEtcdConsole

// A ReadWriteLock: its read and write sides, each locked and unlocked on its own, with their
// fencing tokens, and the time left before the nearer loss deadline.
RecipePanel {
    id: panel
    key: "readWriteLock"

    Field {
        label: qsTr("Read side")
        value: panel.recipe.readHeld ? qsTr("held · token %1").arg(Format.count(panel.recipe.readFencingToken)) : qsTr("not held")
        mono: panel.recipe.readHeld
    }
    Field {
        label: qsTr("Write side")
        value: panel.recipe.writeHeld ? qsTr("held · token %1").arg(Format.count(panel.recipe.writeFencingToken)) : qsTr("not held")
        mono: panel.recipe.writeHeld
    }
    LossDeadline {
        visible: panel.recipe.held
        timeLeftMs: panel.recipe.leaseTimeLeft
        ttl: panel.recipe.leaseTtl
    }
    GridLayout {
        columns: 2
        rowSpacing: Theme.spacing
        columnSpacing: Theme.spacing
        WriteButton {
            objectName: "lockRead"
            text: qsTr("Lock read")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.readHeld ? qsTr("The read side is held already") : ""
            toolTip: qsTr("Share the lock with other readers; waits while a writer holds or waits")
            onClicked: panel.recipe.lockRead()
        }
        WriteButton {
            objectName: "unlockRead"
            text: qsTr("Unlock read")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.readHeld ? "" : qsTr("The read side is not held")
            onClicked: {
                if (!panel.recipe.unlockRead())
                    panel.participant.say(panel.key, qsTr("unlockRead() said false: the read hold had been lost."));
            }
        }
        WriteButton {
            objectName: "lockWrite"
            text: qsTr("Lock write")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.writeHeld ? qsTr("The write side is held already") : ""
            toolTip: qsTr("Hold the lock alone; waits for every reader and writer before")
            onClicked: panel.recipe.lockWrite()
        }
        WriteButton {
            objectName: "unlockWrite"
            text: qsTr("Unlock write")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.writeHeld ? "" : qsTr("The write side is not held")
            onClicked: {
                if (!panel.recipe.unlockWrite())
                    panel.participant.say(panel.key, qsTr("unlockWrite() said false: the write hold had been lost."));
            }
        }
    }
}
