import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Every lease with its countdown, its keys and what it belongs to. The countdowns run on one
// clock for the whole page, between the model's refreshes.
ConsolePage {
    id: page
    property alias client: leases.client
    property bool paused: false
    readonly property alias model: leases
    property double now: Date.now()

    title: qsTr("Leases")
    subtitle: leases.status === ModelStatus.Ready ? qsTr("%n lease(s)", "", leases.count) : ""
    ready: leases.status === ModelStatus.Ready || leases.status === ModelStatus.Error
    notReadyReason: qsTr("the lease list has not arrived")
    summary: ({ leases: leases.count })

    LeaseModel {
        id: leases
        refreshInterval: page.paused ? 0 : 2000
    }
    Timer {
        interval: 200
        repeat: true
        running: !page.paused && page.visible
        onTriggered: page.now = Date.now()
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        visible: leases.count > 0

        Rectangle {
            Layout.fillWidth: true
            implicitHeight: 32
            color: Theme.surface
            border.color: Theme.border
            RowLayout {
                anchors.fill: parent
                anchors.leftMargin: Theme.padding
                anchors.rightMargin: Theme.padding
                spacing: Theme.padding
                Repeater {
                    model: [
                        { title: qsTr("Lease"), width: 170 },
                        { title: qsTr("Time left"), width: 220 },
                        { title: qsTr("Belongs to"), width: 260 },
                        { title: qsTr("Keys"), width: -1 }
                    ]
                    Label {
                        required property var modelData
                        text: modelData.title
                        color: Theme.mutedText
                        font.pixelSize: Theme.smallFont
                        font.bold: true
                        Layout.preferredWidth: modelData.width
                        Layout.fillWidth: modelData.width < 0
                    }
                }
            }
        }

        ListView {
            id: list
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: leases
            reuseItems: true
            ScrollBar.vertical: ScrollBar {}

            delegate: Rectangle {
                id: row
                required property int index
                required property string leaseId
                required property var grantedTtl
                required property var expiresAt
                required property var keys
                required property string owner
                readonly property real remaining: Math.max(0, (expiresAt - page.now) / 1000)
                width: ListView.view.width
                height: 40
                color: index % 2 ? Theme.window : Theme.surface

                RowLayout {
                    anchors.fill: parent
                    anchors.leftMargin: Theme.padding
                    anchors.rightMargin: Theme.padding
                    spacing: Theme.padding
                    Label {
                        text: row.leaseId
                        font.family: Theme.monoFamily
                        color: Theme.text
                        Layout.preferredWidth: 170
                    }
                    RowLayout {
                        Layout.preferredWidth: 220
                        spacing: Theme.spacing
                        CountdownBar {
                            remaining: row.remaining
                            total: row.grantedTtl
                            Layout.preferredWidth: 110
                        }
                        Label {
                            text: qsTr("%1 of %2 s").arg(row.remaining.toFixed(row.remaining < 10 ? 1 : 0)).arg(row.grantedTtl)
                            color: Theme.mutedText
                            font.pixelSize: Theme.smallFont
                        }
                    }
                    Label {
                        text: row.owner || "—"
                        color: row.owner ? Theme.text : Theme.mutedText
                        elide: Text.ElideMiddle
                        font.family: Theme.monoFamily
                        Layout.preferredWidth: 260
                    }
                    Label {
                        text: row.keys.length === 0 ? qsTr("no keys") : row.keys.join("  ")
                        color: row.keys.length === 0 ? Theme.mutedText : Theme.text
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                }
            }
        }
    }

    EmptyState {
        anchors.centerIn: parent
        visible: leases.count === 0
        busy: leases.status === ModelStatus.Loading || leases.status === ModelStatus.Null
        error: leases.status === ModelStatus.Error
        title: leases.status === ModelStatus.Error ? qsTr("The leases could not be read")
             : leases.status === ModelStatus.Ready ? qsTr("No leases") : qsTr("Reading the leases…")
        detail: leases.status === ModelStatus.Error ? leases.errorString
              : leases.status === ModelStatus.Ready ? qsTr("Nothing on this cluster is kept alive by a lease right now. Locks, elections, barriers and service registrations appear here while they are held.")
              : ""
    }
}
