// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// The window's bottom line: where the console is connected and which member answers, how the
// cluster is, how much it holds, and when it was last read (or why that failed, or that updates
// are paused).
Rectangle {
    id: bar
    property string endpoint
    property string member
    property string leader
    property int members: 0
    property int healthy: 0
    // The leader's database size in bytes; keys and leases counted (-1: not yet, or not allowed).
    property double dbSize: 0
    property double keyCount: -1
    property double leaseCount: -1
    property double lastRefreshMs: 0
    property string error
    property bool paused: false
    property double pausedAtMs: 0

    function clock(ms) {
        return Qt.formatTime(new Date(ms), "hh:mm:ss");
    }

    implicitHeight: 28
    color: Theme.surface
    Rectangle { width: parent.width; height: 1; color: Theme.border }

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: Theme.padding
        anchors.rightMargin: Theme.padding
        spacing: Theme.padding
        EtcdLabel {
            objectName: "statusEndpoint"
            value: bar.endpoint.length === 0 ? qsTr("No endpoint answered yet")
                : bar.member.length > 0 ? qsTr("%1 · member %2 answers").arg(bar.endpoint).arg(bar.member)
                : bar.endpoint
            color: Theme.text
            font.pixelSize: Theme.smallFont
            font.family: Theme.monoFamily
            Layout.maximumWidth: 460
        }
        EtcdLabel {
            visible: bar.members > 0
            value: qsTr("leader %1 · %2 of %3 members healthy").arg(bar.leader || qsTr("none")).arg(bar.healthy).arg(bar.members)
            color: bar.healthy < bar.members || !bar.leader ? Theme.warning : Theme.mutedText
            font.pixelSize: Theme.smallFont
        }
        Label {
            objectName: "statusSizes"
            visible: bar.dbSize > 0
            textFormat: Text.PlainText
            text: [qsTr("database %1").arg(Format.bytes(bar.dbSize)),
                   bar.keyCount >= 0 ? qsTr("%1 keys").arg(Format.count(bar.keyCount)) : "",
                   bar.leaseCount >= 0 ? qsTr("%1 leases").arg(Format.count(bar.leaseCount)) : ""]
                  .filter(part => part.length > 0).join(" · ")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
        }
        Item { Layout.fillWidth: true }
        Label {
            objectName: "statusRefresh"
            textFormat: Text.PlainText
            text: bar.paused ? qsTr("Paused at %1: live updates are frozen").arg(bar.clock(bar.pausedAtMs))
                : bar.error.length > 0 ? qsTr("Refresh failed: %1 · trying again").arg(bar.error)
                : bar.lastRefreshMs > 0 ? qsTr("Refreshed %1").arg(bar.clock(bar.lastRefreshMs))
                : qsTr("Waiting for the first answer…")
            color: bar.paused ? Theme.warning : bar.error.length > 0 ? Theme.bad : Theme.mutedText
            font.pixelSize: Theme.smallFont
            elide: Text.ElideRight
            horizontalAlignment: Text.AlignRight
            Layout.maximumWidth: 560
        }
    }
}
