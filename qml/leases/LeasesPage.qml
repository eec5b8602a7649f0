// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Every lease with its countdown, its keys and what it belongs to, sorted by lease or by time
// left; revoking one is confirmed first. The countdowns run on one clock for the whole page,
// between the model's refreshes.
ConsolePage {
    id: page
    property alias client: leases.client
    property bool readOnly: false
    readonly property alias model: leases
    readonly property alias sorted: sorted
    property double now: Date.now()
    // The last revoke etcd refused, in words that name the lease.
    property string revokeError
    // The lease another page pointed at (hex): scrolled to and marked until another is.
    property string revealed

    // Shows leaseId's row; false while the page does not list it (not read yet, or gone).
    // F5 (Main's): every lease and its keys read again.
    function refresh() {
        leases.refresh();
    }
    function reveal(leaseId) {
        revealed = leaseId;
        for (let row = 0; row < sorted.rowCount(); ++row) {
            if (sorted.data(sorted.index(row, 0), LeaseModel.IdRole) === leaseId) {
                list.positionViewAtIndex(row, ListView.Center);
                return true;
            }
        }
        return false;
    }

    title: qsTr("Leases")
    subtitle: leases.status === ModelStatus.Ready ? qsTr("%n lease(s)", "", leases.count) : ""
    ready: leases.status === ModelStatus.Ready || leases.status === ModelStatus.Error
    notReadyReason: qsTr("the lease list has not arrived")
    summary: ({ leases: leases.count })

    tools: [
        Label { text: qsTr("Sort by"); color: Theme.mutedText },
        ComboBox {
            id: sortChoice
            objectName: "sortChoice"
            Accessible.name: qsTr("Sort by")
            textRole: "title"
            model: [
                { title: qsTr("Time left, least first"), role: "expiresAt", descending: false },
                { title: qsTr("Time left, most first"), role: "expiresAt", descending: true },
                { title: qsTr("Lease ID"), role: "", descending: false }
            ]
            Layout.preferredWidth: 220
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Order of the leases; time left is counted to each lease's deadline")
            ToolTip.delay: 600
        }
    ]

    LeaseModel {
        id: leases
        // Hidden, the page reads nothing: every refresh reads every lease's keys.
        active: page.visible
        refreshInterval: page.paused ? 0 : 2000
        onRevokeFinished: (leaseId, status) => page.revokeError = status.isOk ? "" : qsTr("Lease %1 was not revoked: %2").arg(leaseId).arg(page.advise(status))
    }
    // Sorted by time left: its deadline, which is what the countdown counts down to.
    SortProxyModel {
        id: sorted
        source: leases
        sortRole: sortChoice.model[sortChoice.currentIndex].role
        descending: sortChoice.model[sortChoice.currentIndex].descending
    }
    ConfirmDialog {
        id: confirmRevoke
        objectName: "confirmRevoke"
        property string leaseId
        property var keys: []
        property string owner
        title: qsTr("Revoke lease %1?").arg(leaseId)
        confirmText: qsTr("Revoke")
        destructive: true
        message: (keys.length === 0 ? qsTr("The lease has no keys.")
                                    : qsTr("etcd deletes its %n key(s) at once: %1.", "", keys.length).arg(DisplayText.escape(keys.slice(0, 3).join(", ")) + (keys.length > 3 ? ", …" : "")))
                 + (owner ? "\n\n" + qsTr("It belongs to %1: its holder loses it now, and the next in line may take over.").arg(DisplayText.escape(owner)) : "")
        onConfirmed: leases.revoke(leaseId)
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
                        { title: qsTr("Lease"), width: 170, sortRole: "" },
                        { title: qsTr("Time left"), width: 220, sortRole: "expiresAt" },
                        { title: qsTr("Belongs to"), width: 260 },
                        { title: qsTr("Keys"), width: -1 },
                        { title: "", width: 84 }
                    ]
                    delegate: Label {
                        required property var modelData
                        readonly property bool sortedBy: modelData.sortRole !== undefined && sorted.sortRole === modelData.sortRole
                        textFormat: Text.PlainText
                        text: modelData.title + (sortedBy ? (sorted.descending ? "  \u25BC" : "  \u25B2") : "")
                        color: sortedBy ? Theme.text : Theme.mutedText
                        font.pixelSize: Theme.smallFont
                        font.bold: true
                        Layout.preferredWidth: modelData.width
                        Layout.minimumWidth: Math.max(0, modelData.width)
                        Layout.maximumWidth: modelData.width < 0 ? Infinity : modelData.width
                        Layout.fillWidth: modelData.width < 0
                    }
                }
            }
        }

        Banner {
            objectName: "revokeError"
            text: page.revokeError
            dismissable: true
            onDismissed: page.revokeError = ""
            Layout.fillWidth: true
            Layout.topMargin: Theme.spacing
            Layout.bottomMargin: Theme.spacing
        }

        ListView {
            id: list
            objectName: "leaseList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: sorted
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
                color: row.leaseId === page.revealed ? Theme.accentSoft : index % 2 ? Theme.window : Theme.surface

                RowLayout {
                    anchors.fill: parent
                    anchors.leftMargin: Theme.padding
                    anchors.rightMargin: Theme.padding
                    spacing: Theme.padding
                    Label {
                        textFormat: Text.PlainText
                        text: row.leaseId
                        font.family: Theme.monoFamily
                        color: Theme.text
                        Layout.preferredWidth: 170
                        Layout.minimumWidth: 170
                        Layout.maximumWidth: 170
                    }
                    RowLayout {
                        Layout.preferredWidth: 220
                        Layout.minimumWidth: 220
                        Layout.maximumWidth: 220
                        spacing: Theme.spacing
                        CountdownBar {
                            remaining: row.remaining
                            total: row.grantedTtl
                            Layout.preferredWidth: 110
                        }
                        Label {
                            textFormat: Text.PlainText
                            text: qsTr("%1 of %2 s").arg(row.remaining.toFixed(row.remaining < 10 ? 1 : 0)).arg(row.grantedTtl)
                            color: Theme.mutedText
                            font.pixelSize: Theme.smallFont
                            Layout.fillWidth: true
                        }
                    }
                    EtcdLabel {
                        value: row.owner || "—"
                        color: row.owner ? Theme.text : Theme.mutedText
                        font.family: Theme.monoFamily
                        Layout.preferredWidth: 260
                        Layout.minimumWidth: 260
                        Layout.maximumWidth: 260
                    }
                    EtcdLabel {
                        value: row.keys.length === 0 ? qsTr("no keys") : row.keys.join("  ")
                        color: row.keys.length === 0 ? Theme.mutedText : Theme.text
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                    WriteButton {
                        objectName: "revoke_" + row.leaseId
                        text: qsTr("Revoke…")
                        readOnly: page.readOnly
                        toolTip: qsTr("End the lease now; etcd deletes its keys. You confirm first")
                        Layout.preferredWidth: 84
                        Layout.minimumWidth: 84
                        onClicked: {
                            confirmRevoke.leaseId = row.leaseId;
                            confirmRevoke.keys = row.keys;
                            confirmRevoke.owner = row.owner;
                            confirmRevoke.open();
                        }
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
        detail: leases.status === ModelStatus.Error ? qsTr("%1\n%2").arg(leases.errorString).arg(page.errorHint)
              : leases.status === ModelStatus.Ready ? qsTr("Nothing on this cluster is kept alive by a lease right now. Locks, elections, barriers and service registrations appear here while they are held.")
              : ""
    }
}
