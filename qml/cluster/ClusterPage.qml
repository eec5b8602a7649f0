import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// One card per member: who leads, how healthy each is and how fast it answers, its raft
// position, database size and version; alarms across the top. Looking at the console's sandbox,
// each card also shows its member's process and the actions on it (stop, kill, pause, resume,
// restart), matched by client URL.
ConsolePage {
    id: page
    // The window's model: the header and the status bar read it too.
    required property ClusterModel members
    // The sandbox the window is connected to, or null.
    property Sandbox sandbox: null

    title: qsTr("Cluster")
    subtitle: page.members.status === ModelStatus.Ready
              ? qsTr("%1 of %2 members healthy · revision %3").arg(page.members.healthyCount).arg(page.members.count)
                    .arg(Format.count(page.members.revision))
              : ""
    ready: page.members.status === ModelStatus.Ready || page.members.status === ModelStatus.Error
    notReadyReason: qsTr("the member list has not arrived")
    summary: ({ members: page.members.count, healthy: page.members.healthyCount, leader: page.members.leaderId,
                alarms: page.members.alarms.length })

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.padding

        Repeater {
            model: page.members.alarms
            delegate: Banner {
                required property string modelData
                Layout.fillWidth: true
                text: qsTr("Alarm: %1 — the cluster refuses writes until it is disarmed").arg(modelData)
            }
        }

        GridView {
            id: grid
            visible: page.members.count > 0
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: page.members
            cellWidth: Math.max(340, width / Math.max(1, Math.floor(width / 340)))
            // Room for the sandbox's row of member actions.
            cellHeight: page.sandbox ? 300 : 236
            ScrollBar.vertical: ScrollBar {}

            delegate: Item {
                id: cell
                required property string memberId
                required property string name
                required property var clientUrls
                required property bool isLeader
                required property bool isLearner
                required property bool healthy
                required property var roundTrip
                required property var raftTerm
                required property var raftIndex
                required property var dbSize
                required property var dbSizeInUse
                required property string version
                required property string error
                width: grid.cellWidth
                height: grid.cellHeight

                Card {
                    // The cell's spare width is the gap to the next card.
                    width: parent.width - Theme.padding
                    title: cell.name || qsTr("(unstarted member)")
                    accentColor: !cell.healthy ? Theme.bad : cell.isLeader ? Theme.accent : Theme.border
                    badge: [
                        StatePill {
                            visible: cell.isLeader
                            text: qsTr("LEADER")
                            foreground: Theme.info
                            background: Theme.infoSoft
                        },
                        StatePill {
                            visible: cell.isLearner
                            text: qsTr("LEARNER")
                        },
                        StatePill {
                            text: cell.healthy ? qsTr("Healthy · %1 ms").arg(cell.roundTrip) : qsTr("No answer")
                            foreground: cell.healthy ? Theme.good : Theme.bad
                            background: cell.healthy ? Theme.goodSoft : Theme.badSoft
                        }
                    ]
                    Field { label: qsTr("ID"); value: cell.memberId; mono: true }
                    Field { label: qsTr("Client URLs"); value: cell.clientUrls.join(", "); mono: true }
                    Field { label: qsTr("Raft term"); value: cell.healthy ? Format.count(cell.raftTerm) : "—"; mono: true }
                    Field { label: qsTr("Raft index"); value: cell.healthy ? Format.count(cell.raftIndex) : "—"; mono: true }
                    Field {
                        label: qsTr("Database")
                        value: cell.healthy ? qsTr("%1 (%2 in use)").arg(Format.bytes(cell.dbSize)).arg(Format.bytes(cell.dbSizeInUse)) : "—"
                    }
                    Field { label: qsTr("Version"); value: cell.version || "—" }
                    Label {
                        visible: cell.error.length > 0
                        text: cell.error
                        textFormat: Text.PlainText
                        color: Theme.bad
                        font.pixelSize: Theme.smallFont
                        wrapMode: Text.WordWrap
                        maximumLineCount: 2
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                    // Of the sandbox's members, the one this card shows.
                    Repeater {
                        model: page.sandbox ? page.sandbox.members : null
                        delegate: Loader {
                            id: sandboxMember
                            required property var model
                            required property int index
                            active: cell.clientUrls.indexOf(model.clientUrl) >= 0
                            visible: active
                            Layout.fillWidth: true
                            sourceComponent: SandboxMemberBar {
                                sandbox: page.sandbox
                                model: sandboxMember.model
                                index: sandboxMember.index
                            }
                        }
                    }
                }
            }
        }

        EmptyState {
            visible: page.members.count === 0
            Layout.alignment: Qt.AlignCenter
            Layout.fillHeight: true
            busy: page.members.status === ModelStatus.Loading || page.members.status === ModelStatus.Null
            error: page.members.status === ModelStatus.Error
            title: page.members.status === ModelStatus.Error ? qsTr("The member list could not be read") : qsTr("Asking the cluster for its members…")
            detail: page.members.status === ModelStatus.Error
                    ? qsTr("%1\nCheck the endpoint, the CA file and the user in the connection flags.").arg(page.members.errorString)
                    : ""
        }
    }
}
