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
    property bool paused: false
    readonly property alias model: objects
    property double now: Date.now()

    title: qsTr("Coordination")
    subtitle: objects.status === ModelStatus.Ready ? qsTr("%n object(s) under %1", "", objects.count).arg(objects.prefix || "/") : ""
    ready: objects.status === ModelStatus.Ready || objects.status === ModelStatus.Error
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

    CoordinationModel { id: objects }
    Timer {
        interval: 1000
        repeat: true
        running: !page.paused && page.visible
        onTriggered: page.now = Date.now()
    }

    ScrollView {
        anchors.fill: parent
        visible: objects.count > 0
        contentWidth: availableWidth
        clip: true
        Flow {
            id: flow
            width: parent.width
            // Two columns on a desktop window, one on a narrow one.
            readonly property real cardWidth: width >= 840 ? (width - spacing) / 2 : width
            spacing: Theme.padding
            Repeater {
                model: objects
                delegate: CoordinationCard {
                    width: flow.cardWidth
                    now: page.now
                }
            }
        }
    }

    EmptyState {
        anchors.centerIn: parent
        visible: objects.count === 0
        busy: objects.status === ModelStatus.Loading || objects.status === ModelStatus.Null
        error: objects.status === ModelStatus.Error
        title: objects.status === ModelStatus.Error ? qsTr("The coordination state could not be read")
             : objects.status === ModelStatus.Ready ? qsTr("No locks, elections or barriers here")
             : qsTr("Reading the coordination state…")
        detail: objects.status === ModelStatus.Error ? objects.errorString
              : objects.status === ModelStatus.Ready ? qsTr("Take a lock with `qetcd lock %1/demo` or `etcdctl lock`, and it appears here at once.").arg(objects.prefix || "")
              : ""
    }
}
