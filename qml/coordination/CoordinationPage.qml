import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Locks, elections, barriers, semaphores, services, queues and counters, recognised from etcd's
// contents alone — whether qetcd, etcdctl, Go's concurrency package or etcd-recipes wrote them.
ConsolePage {
    id: page
    property alias client: objects.client
    heldChanges: shown.heldChanges
    readonly property alias model: objects
    property double now: Date.now()

    title: qsTr("Coordination")
    subtitle: objects.status === ModelStatus.Ready ? qsTr("%n object(s) under %1", "", objects.count).arg(objects.prefix || "/") : ""
    // The rings wait for the leases: a screenshot shows them.
    ready: objects.status === ModelStatus.Error
           || (objects.status === ModelStatus.Ready && (leaseTimes.status === ModelStatus.Ready || leaseTimes.status === ModelStatus.Error))
    notReadyReason: qsTr("the coordination objects have not been read")
    summary: ({ objects: objects.count, prefix: objects.prefix })

    tools: [
        Label { text: qsTr("Prefix"); color: Theme.mutedText },
        TextField {
            id: prefixField
            placeholderText: "/"
            font.family: Theme.monoFamily
            Layout.preferredWidth: 240
            selectByMouse: true
            onAccepted: objects.prefix = text
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Show only objects under this prefix; Enter applies it")
        }
    ]

    // Hidden, the page mirrors nothing: the mirror holds every key under the prefix.
    CoordinationModel { id: objects; active: page.visible }
    // What the cards show: the objects, or while paused the objects as they were.
    PauseProxyModel {
        id: shown
        source: objects
        paused: page.paused
    }
    // The holders' leases, for their rings: read again every two seconds while the page shows,
    // and counted down in between on the page's clock.
    property var deadlines: ({})
    LeaseModel {
        id: leaseTimes
        client: objects.client
        active: page.visible
        refreshInterval: page.paused ? 0 : 2000
        onRefreshed: page.deadlines = leaseTimes.deadlines()
    }
    Timer {
        interval: 250
        repeat: true
        running: !page.paused && page.visible
        onTriggered: page.now = Date.now()
    }

    ScrollView {
        anchors.fill: parent
        visible: shown.count > 0
        contentWidth: availableWidth
        clip: true
        Flow {
            id: flow
            width: parent.width
            // Two columns on a desktop window, one on a narrow one.
            readonly property real cardWidth: width >= 840 ? (width - spacing) / 2 : width
            spacing: Theme.padding
            Repeater {
                objectName: "cards"
                model: shown
                delegate: CoordinationCard {
                    width: flow.cardWidth
                    now: page.now
                    deadlines: page.deadlines
                }
            }
        }
    }

    EmptyState {
        anchors.centerIn: parent
        visible: shown.count === 0
        busy: objects.status === ModelStatus.Loading || objects.status === ModelStatus.Null
        error: objects.status === ModelStatus.Error
        title: objects.status === ModelStatus.Error ? qsTr("The coordination state could not be read")
             : objects.status === ModelStatus.Ready ? qsTr("No locks, elections or barriers here")
             : qsTr("Reading the coordination state…")
        detail: objects.status === ModelStatus.Error ? qsTr("%1\n%2").arg(objects.errorString).arg(page.errorHint)
              : objects.status === ModelStatus.Ready ? qsTr("Take a lock with `qetcd lock %1/demo` or `etcdctl lock`, and it appears here at once.").arg(objects.prefix || "")
              : ""
    }
}
