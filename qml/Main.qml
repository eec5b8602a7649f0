import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
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
    title: qsTr("qetcd console — %1").arg(endpoints)
    color: Theme.window

    property string endpoints
    property bool readOnly: false
    property string connectionState: "Connecting"
    property var revision: undefined
    property bool paused: false
    property string initialPage: "cluster"

    readonly property var pages: [
        { name: "cluster", title: qsTr("Cluster"), glyph: "\u25A6", later: false },
        { name: "keys", title: qsTr("Keys"), glyph: "\u2261", later: false },
        { name: "leases", title: qsTr("Leases"), glyph: "\u25F4", later: false },
        { name: "coordination", title: qsTr("Coordination"), glyph: "\u26B7", later: false },
        { name: "timeline", title: qsTr("Timeline"), glyph: "\u2500", later: true },
        { name: "participants", title: qsTr("Participants"), glyph: "\u25C9", later: true }
    ]
    readonly property var currentPage: pageStack.children[pageStack.currentIndex]
    property string connectionError
    // A screenshot waits for the cluster to answer and for the page's data.
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
    Component.onCompleted: showPage(initialPage)

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
                text: window.endpoints
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
                text: window.revision === undefined ? "" : qsTr("rev %1").arg(Number(window.revision).toLocaleString(Qt.locale("en_US"), "f", 0))
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
            LaterPage { title: qsTr("Cluster"); purpose: qsTr("Members, leader, health and alarms arrive with the cluster model.") }
            LaterPage { title: qsTr("Keys"); purpose: qsTr("The key browser arrives with the key models.") }
            LaterPage { title: qsTr("Leases"); purpose: qsTr("Live lease countdowns arrive with the lease model.") }
            LaterPage { title: qsTr("Coordination"); purpose: qsTr("Locks, elections and barriers arrive with the recogniser.") }
            LaterPage { title: qsTr("Timeline"); purpose: qsTr("Lease and heal events of the console's own participants, drawn over time, arrive with the console's second part.") }
            LaterPage { title: qsTr("Participants"); purpose: qsTr("Taking part — locks, elections, barriers — from the console arrives with the console's second part.") }
        }
    }
}
