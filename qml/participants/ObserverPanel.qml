// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// An ElectionObserver: follows an election's leader live without taking part, and reads the
// candidates again while shown. It writes nothing, so it also runs on a read-only connection.
RecipePanel {
    id: panel
    key: "observer"
    hasLease: false
    refresh: panel.active ? () => panel.recipe.refreshCandidates() : null

    Field {
        label: qsTr("Leader")
        value: panel.recipe.hasLeader ? panel.recipe.leader || panel.recipe.leaderClientId : qsTr("none")
        valueColor: panel.recipe.hasLeader ? Theme.text : Theme.mutedText
    }
    Field {
        label: qsTr("Term")
        value: panel.recipe.hasLeader ? Format.count(panel.recipe.leaderFencingToken) : "—"
        mono: true
    }
    CandidateList {
        candidates: panel.recipe.candidates
    }
    Button {
        objectName: "observe"
        text: qsTr("Observe")
        enabled: panel.recipe.state === Participant.Idle || panel.recipe.state === Participant.Closed
        onClicked: panel.recipe.start()
        ToolTip.visible: hovered
        ToolTip.delay: 600
        ToolTip.text: qsTr("Follow who leads at this path, without campaigning")
    }
}
