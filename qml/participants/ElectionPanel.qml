// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// An Election: campaign with a proclamation, resign; the term while leading, and every
// candidate in line.
RecipePanel {
    id: panel
    key: "election"
    refresh: () => panel.recipe.refreshCandidates()

    SettingField {
        objectName: "proclamation"
        label: qsTr("Proclamation")
        text: panel.recipe.proclamation
        toolTip: qsTr("What the leader tells the others (an address, say); while campaigning, Enter proclaims it at once")
        onEdited: text => panel.recipe.proclamation = text
    }
    Field {
        label: qsTr("Term")
        value: panel.recipe.isLeader ? Format.count(panel.recipe.fencingToken) : "—"
        mono: true
    }
    LossDeadline {
        visible: panel.recipe.isLeader
        timeLeftMs: panel.recipe.leaseTimeLeft
        ttl: panel.recipe.leaseTtl
    }
    CandidateList {
        candidates: panel.recipe.candidates
        ownKey: panel.recipe.key
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "campaign"
            text: qsTr("Campaign")
            readOnly: panel.readOnly
            blockedReason: panel.active || panel.waiting ? qsTr("Campaigning already") : ""
            toolTip: qsTr("Join the line of candidates; leads once everyone before has gone")
            onClicked: panel.recipe.campaign()
        }
        WriteButton {
            objectName: "resign"
            text: qsTr("Resign")
            readOnly: panel.readOnly
            blockedReason: panel.active || panel.waiting ? "" : qsTr("Not campaigning")
            toolTip: qsTr("Leave the election; the next candidate leads")
            onClicked: panel.recipe.resign()
        }
    }
}
