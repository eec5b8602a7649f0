import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// The console window: a header with the connection, a page rail, and the pages. main.cpp sets
// the initial properties from the command line and reads `ready` for --screenshot.
ApplicationWindow {
    id: window
    width: 1280
    height: 800
    minimumWidth: 960
    minimumHeight: 600
    visible: true
    title: qsTr("qetcd console — %1").arg(endpoints.join(", "))
    color: Theme.window

    // Set by main.cpp: the client the command line asked for (the qetcd CLI's flags and
    // ETCDCTL_* variables), owned there so it outlives every model that uses it.
    required property QtObject client
    property var endpoints: []
    property bool readOnly: false
    property string initialPage: "cluster"
    property string initialKey
    property bool paused: false
    property double pausedAtMs: 0
    onPausedChanged: pausedAtMs = paused ? Date.now() : 0
    property double lastRefreshMs: 0

    ClusterModel {
        id: cluster
        client: window.client
        refreshInterval: window.paused ? 0 : 2000
        onRefreshed: window.lastRefreshMs = Date.now()
    }

    // Connecting until the cluster first answers, Unreachable while its member list cannot be
    // read, Connected otherwise.
    readonly property string connectionState: cluster.status === ModelStatus.Error ? "Unreachable"
        : cluster.status !== ModelStatus.Ready ? "Connecting"
        : "Connected"
    readonly property string connectionError: cluster.status === ModelStatus.Error ? cluster.errorString : ""

    readonly property var pages: [
        { name: "cluster", title: qsTr("Cluster"), glyph: "\u25A6", later: false },
        { name: "keys", title: qsTr("Keys"), glyph: "\u2261", later: false },
        { name: "leases", title: qsTr("Leases"), glyph: "\u25F4", later: false },
        { name: "coordination", title: qsTr("Coordination"), glyph: "\u26B7", later: false },
        { name: "timeline", title: qsTr("Timeline"), glyph: "\u2500", later: true },
        { name: "participants", title: qsTr("Participants"), glyph: "\u25C9", later: true }
    ]
    readonly property var currentPage: pageStack.children[pageStack.currentIndex]
    // A screenshot waits for the cluster to answer and for the page's data.
    readonly property var summary: currentPage ? Object.assign({ page: pages[pageStack.currentIndex].name }, currentPage.summary) : ({})
    readonly property bool reachable: connectionState !== "Connecting" && connectionState !== "Unreachable"
    readonly property bool ready: reachable && currentPage !== undefined && currentPage.ready
    readonly property string notReadyReason: !reachable
        ? qsTr("the cluster at %1 did not answer%2").arg(endpoints).arg(connectionError ? ": " + connectionError : "")
        : currentPage ? currentPage.notReadyReason : qsTr("no page is shown")

    function pageIndex(name) {
        for (let i = 0; i < pages.length; ++i) {
            if (pages[i].name === name)
                return i;
        }
        return -1;
    }
    function showPage(name) {
        const index = pageIndex(name);
        if (index >= 0)
            pageStack.currentIndex = index;
    }
    Component.onCompleted: {
        showPage(initialPage);
        if (initialKey)
            keysPage.select(initialKey);
    }

    header: ToolBar {
        implicitHeight: Theme.headerHeight
        background: Rectangle {
            color: Theme.surface
            Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Theme.border }
        }
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: Theme.padding
            anchors.rightMargin: Theme.padding
            spacing: 12
            Label {
                text: "qetcd"
                font.pixelSize: 20
                font.bold: true
                color: Theme.text
            }
            Label {
                text: window.endpoints.join(", ")
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.smallFont
                elide: Text.ElideMiddle
                Layout.maximumWidth: 360
            }
            ConnectionPill {
                state: window.connectionState
                ToolTip.visible: pillHover.hovered
                ToolTip.text: window.connectionError || qsTr("The connection to the cluster as the console sees it")
                HoverHandler { id: pillHover }
            }
            StatePill {
                visible: window.readOnly
                text: qsTr("READ-ONLY")
                foreground: Theme.warning
                background: Theme.warningSoft
            }
            Item { Layout.fillWidth: true }
            Label {
                text: cluster.status === ModelStatus.Ready ? qsTr("rev %1").arg(Format.count(cluster.revision)) : ""
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.bodyFont
            }
            ToolButton {
                text: window.paused ? qsTr("Resume") : qsTr("Pause")
                checkable: true
                checked: window.paused
                onToggled: window.paused = checked
                ToolTip.visible: hovered
                ToolTip.text: window.paused ? qsTr("Live updates are frozen; resume to catch up")
                                            : qsTr("Freeze live updates to read a moment at leisure")
            }
        }
    }

    footer: StatusBar {
        endpoint: window.client.activeEndpoint || ""
        member: cluster.count > 0 ? cluster.memberNameAt(endpoint) : ""
        leader: cluster.leaderName
        members: cluster.count
        healthy: cluster.healthyCount
        lastRefreshMs: window.lastRefreshMs
        error: window.connectionError
        paused: window.paused
        pausedAtMs: window.pausedAtMs
    }

    RowLayout {
        anchors.fill: parent
        spacing: 0
        NavigationRail {
            Layout.fillHeight: true
            model: window.pages
            currentIndex: pageStack.currentIndex
            onActivated: index => pageStack.currentIndex = index
        }
        StackLayout {
            id: pageStack
            Layout.fillWidth: true
            Layout.fillHeight: true
            ClusterPage { members: cluster }
            KeysPage { id: keysPage; client: window.client; paused: window.paused; readOnly: window.readOnly }
            LeasesPage { client: window.client; paused: window.paused; readOnly: window.readOnly }
            CoordinationPage { client: window.client; paused: window.paused }
            LaterPage { title: qsTr("Timeline"); purpose: qsTr("Lease and heal events of the console's own participants, drawn over time, arrive with the console's second part.") }
            LaterPage { title: qsTr("Participants"); purpose: qsTr("Taking part — locks, elections, barriers — from the console arrives with the console's second part.") }
        }
    }
}
