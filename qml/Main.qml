// SPDX-License-Identifier: Apache-2.0
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
    title: qsTr("qetcd console — %1").arg(connection.profileName || endpoints.join(", "))
    color: Theme.window

    // Set by main.cpp: the connection the command line asked for (the qetcd CLI's flags and
    // ETCDCTL_* variables), or a saved profile to open instead.
    property var commandLine: ({})
    property string initialProfile
    property string initialPage: "cluster"
    property string initialKey
    // --history PREFIX: the Timeline's History source replays it.
    property bool initialHistory: false
    property string initialHistoryPrefix
    // Set by main.cpp (--sandbox): start a sandbox and look at it.
    property bool initialSandbox: false
    // Set by main.cpp (--scenario, --autoplay): once the sandbox answers, this scenario is ready
    // to play on the Timeline page, or with autoplay plays to its end.
    property string initialScenario
    // --sandbox-seed: what the sandbox starts on itself each time it runs.
    property string initialSandboxSeed
    // --look: "light" or "dark"; empty: the system's, by its palette's window colour.
    property string initialLook
    SystemPalette { id: systemPalette }
    DarkPalette { palette: window.palette }
    property bool autoplayScenario: false
    // The scenario has ended, and how (for main.cpp: exit, export, screenshot).
    signal scenarioEnded(bool succeeded, string message)
    property bool paused: false
    property double pausedAtMs: 0
    onPausedChanged: pausedAtMs = paused ? Date.now() : 0
    property double lastRefreshMs: 0

    // The window's connection (for tests and scripts driving the window).
    readonly property alias connection: connection
    readonly property alias passwordDialog: passwordDialog
    readonly property alias profileDialog: profileDialog
    readonly property alias allowWritesDialog: allowWritesDialog
    readonly property alias shortcutsDialog: shortcutsDialog
    Connection {
        id: connection
        commandLine: window.commandLine
        onPasswordNeeded: (name, user, reason, canRemember) => passwordDialog.ask(name, user, reason, canRemember)
        onKeychainFailed: reason => window.keychainNote = reason
    }
    // Every page reads through this client; a new profile replaces it, and the pages follow.
    readonly property QtObject client: connection.client
    // The cluster's revisions on the wall clock, sampled while the console runs (a read a second).
    RevisionClock { id: revisionClock; objectName: "revisionClock"; client: window.client }
    // Off this machine, an intervention or a maintenance action is confirmed by typing the
    // cluster's name.
    readonly property string confirmationWord: connection.isOnThisMachine(connection.endpoints) ? "" : (connection.profileName || connection.endpoints[0] || "")
    readonly property var endpoints: connection.endpoints
    readonly property bool readOnly: connection.readOnly
    property string keychainNote
    // A refused call's words and what to do about them, for the pages' messages.
    function advise(status) {
        return connection.advice(status);
    }

    // What the console's participants, its sandbox and its scenarios did, oldest first; the
    // Timeline draws it (see EventLogModel for the vocabulary).
    readonly property alias eventLog: eventLog
    // The revision the Coordination and Keys pages show the cluster as of, picked on the
    // Timeline's History; 0: live. A new connection starts live.
    property double asOfRevision: 0
    property QtObject asOfClient: null
    onClientChanged: {
        if (asOfClient && client !== asOfClient)
            asOfRevision = 0;
        asOfClient = client;
        answeredOnce = false;
        troubleSinceAnswered = false;
    }
    // The Participants page, for scenarios: addParticipant(name), participant(name), removeParticipant(name).
    readonly property alias participantsPage: participantsPage
    EventLogModel { id: eventLog; objectName: "eventLog" }

    // A local 3-member cluster to try things on; while it runs the window looks at it, and
    // afterwards at what it looked at before. Participants and scenarios make their fault links
    // with window.sandbox.createLink(name).
    readonly property alias sandbox: sandbox
    Sandbox {
        id: sandbox
        objectName: "sandbox"
        eventLog: eventLog
        seedProgram: window.initialSandboxSeed
        onStateChanged: {
            if (state === Sandbox.Running)
                connection.openSandbox(clientUrls);
            else if (state !== Sandbox.Starting)
                connection.closeSandbox();
        }
    }

    // Guided scenarios on the sandbox; their narration shows above the page, their events on
    // the Timeline.
    readonly property alias scenario: scenario
    readonly property var scenarioNames: scenario.names
    // What a screenshot waits for: the scenario asked for is ready to play, or with autoplay over.
    readonly property bool scenarioSettled: !initialScenario
        || (autoplayScenario ? scenario.state === Scenario.Finished || scenario.state === Scenario.Failed
                             : scenario.name === initialScenario)
    Scenario {
        id: scenario
        objectName: "scenario"
        sandbox: window.sandbox
        cluster: cluster
        eventLog: eventLog
        // Played from any page, the story is told on the Timeline.
        property bool wasIdle: true
        onProgressChanged: {
            if (wasIdle && state === Scenario.Acting)
                window.showPage("timeline");
            wasIdle = state === Scenario.Idle || state === Scenario.Finished || state === Scenario.Failed;
        }
        onFinished: (succeeded, message) => {
            timelinePage.timeline.showWholeLog();  // the whole story, from the first step to the last
            window.scenarioEnded(succeeded, message);
        }
        onParticipantCreated: (name, participant) => timelinePage.watchLease(name, participant)
    }
    // A run, once over, as one HTML page with a PNG per step (the bar's Export story…, --export-story).
    readonly property alias storyExport: storyExport
    StoryExport {
        id: storyExport
        objectName: "storyExport"
        scenario: scenario
        timeline: timelinePage.timeline
        dark: Theme.dark  // the pictures, for slides made now, in the look of the console they are made in
    }
    function runScenario(name) {
        scenario.name = name;
        scenario.start();
    }
    // The scenario asked for at startup starts once the sandbox's members answer.
    property bool initialScenarioStarted: false
    readonly property bool sandboxAnswers: connection.sandbox && cluster.status === ModelStatus.Ready
                                           && cluster.leaderName.length > 0
    onSandboxAnswersChanged: {
        if (sandboxAnswers && initialScenario && !initialScenarioStarted) {
            initialScenarioStarted = true;
            scenario.autoplay = autoplayScenario;
            if (autoplayScenario) {
                runScenario(initialScenario);
            } else {
                scenario.name = initialScenario;  // on the page main.cpp chose: the Timeline unless --page
            }
        }
    }

    ClusterModel {
        id: cluster
        client: window.client
        eventLog: eventLog
        refreshInterval: window.paused ? 0 : 2000
        onRefreshed: window.lastRefreshMs = Date.now()
    }

    // Before the cluster first answers: Connecting, Unreachable (no answer), Refused (TLS or the
    // password turned down) or Busy ("too many requests"). Afterwards the console's client speaks
    // the recipes' words (docs/connection-state.md): Connected until the first trouble, Suspended
    // while the cluster does not answer (the pages keep what they last read), Reconnected once it
    // answers again, and Lost while one of the console's participants has lost what it held.
    readonly property string connectionState: connection.problemKind === "password" || connection.problemKind === "tls" ? "Refused"
        : connection.problemKind === "busy" ? "Busy"
        : !answeredOnce ? (connection.problem.length > 0 || cluster.status === ModelStatus.Error ? "Unreachable" : "Connecting")
        : participantsLost.length > 0 ? "Lost"
        : contactLost ? "Suspended"
        : troubleSinceAnswered ? "Reconnected"
        : "Connected"
    readonly property bool contactLost: connection.problem.length > 0 || cluster.status === ModelStatus.Error
    // Per client: a new connection starts at Connecting again.
    property bool answeredOnce: false
    property bool troubleSinceAnswered: false
    // As the recipes' state, Connected is never re-entered after trouble.
    onContactLostChanged: if (contactLost && answeredOnce) troubleSinceAnswered = true
    Connections {
        target: cluster
        function onRefreshed() {
            if (cluster.status === ModelStatus.Ready)
                window.answeredOnce = true;
        }
    }
    readonly property var participantsLost: participantsPage.lostRecipes()
    onParticipantsLostChanged: if (participantsLost.length > 0 && answeredOnce) troubleSinceAnswered = true
    readonly property string connectionStateHint: {
        switch (connectionState) {
        case "Connected": return qsTr("The console's connection answers, and has since it started");
        case "Suspended": return qsTr("The cluster stopped answering: the pages keep what they last read, and the console asks again every few seconds");
        case "Reconnected": return qsTr("The cluster answers again after it stopped for a while; the pages have caught up");
        case "Lost": return qsTr("Lost what a participant held (%1): see the Participants page").arg(participantsLost.join("; "));
        }
        return qsTr("The connection to the cluster as the console sees it");
    }
    readonly property string connectionError: connection.problem || (cluster.status === ModelStatus.Error ? cluster.errorString : "")
    // Lost after connecting: the pages keep what they last read, and the cluster model keeps asking.
    readonly property string outage: connection.problem.length === 0 && cluster.status === ModelStatus.Error
        ? qsTr("Lost contact with %1: %2. The pages keep what they last read; the console asks again every few seconds.")
              .arg(endpoints).arg(cluster.errorString)
        : ""

    readonly property var pages: [
        { name: "cluster", title: qsTr("Cluster"), glyph: "\u25A6" },
        { name: "keys", title: qsTr("Keys"), glyph: "\u2261" },
        { name: "leases", title: qsTr("Leases"), glyph: "\u25F4" },
        { name: "coordination", title: qsTr("Coordination"), glyph: "\u26B7" },
        { name: "timeline", title: qsTr("Timeline"), glyph: "\u2500" },
        { name: "participants", title: qsTr("Participants"), glyph: "\u25C9" },
        { name: "access", title: qsTr("Access"), glyph: "\u25C8" }
    ]
    readonly property var currentPage: pageStack.children[pageStack.currentIndex]
    // A screenshot waits for the cluster to answer and for the page's data.
    readonly property var summary: currentPage ? Object.assign({ page: pages[pageStack.currentIndex].name, readOnly: window.readOnly },
                                                               currentPage.summary) : ({})
    readonly property bool reachable: connectionState !== "Connecting" && connectionState !== "Unreachable"
                                      && connectionState !== "Suspended"
    // Asked for at startup, the sandbox is what a screenshot shows.
    readonly property bool onSandboxIfAsked: !initialSandbox || connection.sandbox
    // ...and, with a seed program, once the seed has put what it puts there.
    readonly property bool seededIfAsked: !initialSandboxSeed || sandbox.seedReady
    readonly property bool ready: reachable && onSandboxIfAsked && seededIfAsked && scenarioSettled && currentPage !== undefined
                                  && currentPage.ready
    readonly property string notReadyReason: sandbox.state === Sandbox.Failed ? sandbox.errorString
        : initialSandbox && !connection.sandbox ? qsTr("the sandbox has not started")
        : !seededIfAsked ? (sandbox.errorString || qsTr("the sandbox's seed program %1 has not said \"ready\"").arg(initialSandboxSeed))
        : !scenarioSettled ? qsTr("the scenario %1 has not ended (%2)").arg(initialScenario).arg(scenario.awaiting || scenario.narration)
        : !reachable
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
    // Several clusters at once: another window (Ctrl+N) has its own connection, pages, pause and
    // event log, on the profile given or the command line's connection. Closing the first window
    // ends the console; the profiles the others showed open again beside it at the next start
    // (restoresWindows: an interactive start, set by main.cpp).
    property bool restoresWindows: false
    property bool secondary: false
    function openWindow(profile) {
        const component = Qt.createComponent("Main.qml");
        const other = component.status === Component.Ready
            ? component.createObject(null, { commandLine: window.commandLine, initialProfile: profile || "", secondary: true })
            : null;
        if (!other) {
            console.warn("qetcd-console: no new window:", component.errorString());
            return null;
        }
        ConsoleWindows.opened(other);
        connection.rememberWindows(ConsoleWindows.profiles());
        return other;
    }
    onClosing: {
        if (!secondary) {
            // The others go with the first window; their profiles stay remembered.
            ConsoleWindows.endingAll = true;
            for (const other of ConsoleWindows.windows)
                other.close();
            return;
        }
        ConsoleWindows.closed(window);
        if (!ConsoleWindows.endingAll)
            connection.rememberWindows(ConsoleWindows.profiles());
        // Not while the key or click that closed it is still being delivered to it.
        window.destroy(1000);
    }
    Connections {
        target: connection
        enabled: window.secondary
        function onClientChanged() { connection.rememberWindows(ConsoleWindows.profiles()); }
    }
    Component.onCompleted: {
        // One look for every window: the first one's.
        if (!secondary) {
            Theme.dark = initialLook ? initialLook === "dark" : systemPalette.window.hslLightness < 0.5;
            ConsoleWindows.endingAll = false;
        }
        if (restoresWindows) {
            for (const profile of connection.rememberedWindows())
                openWindow(profile);
        }
        // The sandbox's connection replaces the command line's once it runs: no need to try that first.
        if (initialSandbox)
            sandbox.start();
        if (initialProfile)
            connection.open(initialProfile);
        else if (!initialSandbox)
            connection.openCommandLine();
        showPage(initialPage);
        if (initialKey)
            keysPage.select(initialKey);
        if (initialHistory)
            timelinePage.showHistory(initialHistoryPrefix);
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
            SandboxControl {
                objectName: "sandboxControl"
                sandbox: window.sandbox
            }
            ScenarioMenu {
                objectName: "scenarioMenu"
                visible: connection.sandbox
                scenario: window.scenario
                onChosen: name => {
                    window.scenario.name = name;
                    window.showPage("timeline");
                }
            }
            ComboBox {
                id: profileSelector
                objectName: "profileSelector"
                Accessible.name: qsTr("Connection")
                readonly property var choices: [qsTr("Command line")].concat(connection.profileNames)
                model: choices
                currentIndex: connection.profileName ? Math.max(0, choices.indexOf(connection.profileName)) : 0
                displayText: connection.sandbox ? qsTr("Sandbox") : currentText
                onActivated: index => index === 0 ? connection.openCommandLine() : connection.open(choices[index])
                Layout.preferredWidth: 180
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Which connection the console uses: the command line's flags, or a saved profile")
                ToolTip.delay: 600
            }
            ToolButton {
                objectName: "profilesButton"
                text: qsTr("Profiles…")
                onClicked: profileDialog.edit(connection.profileName)
                ToolTip.visible: hovered
                ToolTip.text: connection.profileName ? qsTr("Change profile %1, or make another").arg(connection.profileName)
                                                     : qsTr("Save a connection as a profile")
                ToolTip.delay: 600
            }
            Label {
                id: endpointsLabel
                objectName: "endpointsLabel"
                readonly property string via: connection.tunnelThrough ? qsTr(" via ssh %1").arg(connection.tunnelThrough) : ""
                readonly property string everyEndpoint: window.endpoints.join(", ") + via
                // Cut in the middle, a list of URLs reads as one broken URL: the first endpoint
                // and how many more, all of them in the tooltip. Plain http goes unsaid there to
                // leave room for the count; https stays, it says the link is encrypted.
                readonly property string firstAndCount: window.endpoints.length > 1
                    ? qsTr("%1 +%n", "the first endpoint and how many more", window.endpoints.length - 1)
                          .arg(window.endpoints[0].replace(/^http:\/\//, "")) + via
                    : everyEndpoint
                textFormat: Text.PlainText
                text: everyEndpointWidth.advanceWidth <= width + 1 ? everyEndpoint : firstAndCount
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.smallFont
                elide: Text.ElideRight
                // Shrinks first when the header runs short (a sandbox's three endpoints beside the
                // scenario menu), so that the revision and Pause stay in view. Sized by the whole
                // list, never by what is shown, so that the choice above cannot feed back.
                Layout.fillWidth: true
                Layout.preferredWidth: Math.ceil(everyEndpointWidth.advanceWidth)
                Layout.minimumWidth: 60
                Layout.maximumWidth: 360
                TextMetrics {
                    id: everyEndpointWidth
                    font: endpointsLabel.font
                    text: endpointsLabel.everyEndpoint
                }
                HoverHandler { id: endpointsHover }
                ToolTip.visible: endpointsHover.hovered && (endpointsLabel.text !== endpointsLabel.everyEndpoint || endpointsLabel.truncated)
                ToolTip.text: window.endpoints.join("\n") + via
                ToolTip.delay: 600
            }
            ConnectionPill {
                state: window.connectionState
                ToolTip.visible: pillHover.hovered
                ToolTip.text: window.connectionError || window.connectionStateHint
                HoverHandler { id: pillHover }
            }
            // Off needs a confirmation naming the cluster; under --read-only it cannot be turned off.
            Switch {
                objectName: "readOnlySwitch"
                text: qsTr("Read-only")
                checked: window.readOnly
                enabled: !!window.client && !connection.readOnlyLocked
                onToggled: {
                    const wantsReadOnly = checked;
                    checked = Qt.binding(() => window.readOnly);  // what the connection is, not the click
                    if (wantsReadOnly)
                        connection.allowWrites(false);
                    else
                        allowWritesDialog.open();
                }
                ToolTip.visible: hovered
                ToolTip.text: connection.readOnlyLocked ? qsTr("Started with --read-only: nothing can be written")
                    : window.readOnly ? qsTr("Nothing is written to this cluster; switch off to allow writes (asks first)")
                    : qsTr("Writes to this cluster are allowed")
                ToolTip.delay: 600
            }
            Item { Layout.fillWidth: true }
            Label {
                textFormat: Text.PlainText
                text: cluster.status === ModelStatus.Ready ? qsTr("rev %1").arg(Format.count(cluster.revision)) : ""
                color: Theme.mutedText
                font.family: Theme.monoFamily
                font.pixelSize: Theme.bodyFont
            }
            ToolButton {
                objectName: "pauseButton"
                text: window.paused ? qsTr("Resume") : qsTr("Pause")
                checkable: true
                checked: window.paused
                onToggled: window.paused = checked
                ToolTip.visible: hovered
                ToolTip.text: window.paused ? qsTr("Live updates are frozen; resume to catch up (Ctrl+P)")
                                            : qsTr("Freeze live updates to read a moment at leisure (Ctrl+P)")
            }
            ToolButton {
                objectName: "darkButton"
                text: qsTr("Dark")
                checkable: true
                checked: Theme.dark
                onToggled: Theme.dark = checked
                Accessible.name: qsTr("Dark look")
                ToolTip.visible: hovered
                ToolTip.text: Theme.dark ? qsTr("Back to the light look") : qsTr("Dark look for every page")
            }
            ToolButton {
                objectName: "shortcutsButton"
                text: "?"
                onClicked: shortcutsDialog.open()
                Accessible.name: qsTr("Keyboard shortcuts")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Keyboard shortcuts (F1)")
            }
        }
    }

    footer: StatusBar {
        // No client yet while a sandbox asked for at startup is starting.
        endpoint: (window.client && window.client.activeEndpoint) || ""
        member: cluster.count > 0 ? cluster.memberNameAt(endpoint) : ""
        leader: cluster.leaderName
        members: cluster.count
        healthy: cluster.healthyCount
        dbSize: cluster.dbSize
        keyCount: cluster.keyCount
        leaseCount: cluster.leaseCount
        lastRefreshMs: window.lastRefreshMs
        error: window.connectionError
        paused: window.paused
        pausedAtMs: window.pausedAtMs
    }

    ProfileDialog { id: profileDialog; objectName: "profileDialog"; connection: connection }
    ConfirmDialog {
        id: allowWritesDialog
        objectName: "allowWritesDialog"
        title: qsTr("Allow writes?")
        message: qsTr("Allow this console to write to the cluster at %1 (%2)? Until read-only is switched on again, "
                      + "edits, deletes, revokes and participants change that cluster.")
                     .arg(window.endpoints.join(", ")).arg(connection.profileName || qsTr("the command line's connection"))
        confirmText: qsTr("Allow writes")
        destructive: true
        onConfirmed: connection.allowWrites(true)
    }
    // Ctrl+1 … Ctrl+7: the pages in the rail's order.
    Instantiator {
        model: window.pages.length
        delegate: Shortcut {
            required property int index
            sequence: "Ctrl+" + (index + 1)
            onActivated: pageStack.currentIndex = index
        }
    }
    Shortcut {
        sequence: "Ctrl+P"
        onActivated: window.paused = !window.paused
    }
    Shortcut {
        sequences: [StandardKey.New, "Ctrl+T"]
        onActivated: window.openWindow(connection.profileName)
    }
    Shortcut {
        sequences: [StandardKey.Close]
        onActivated: window.close()
    }
    Shortcut {
        sequences: ["F5", "Ctrl+R"]
        onActivated: window.currentPage.refresh()
    }
    Shortcut {
        sequences: [StandardKey.HelpContents, "?"]
        onActivated: shortcutsDialog.open()
    }
    // Over the header, the pages and the status bar alike.
    DisabledControlTips {
        objectName: "disabledControlTips"
        parent: window.contentItem.parent
        anchors.fill: parent
        z: 1000
    }
    ShortcutsDialog {
        id: shortcutsDialog
        objectName: "shortcutsDialog"
        shortcuts: [
            { keys: "Ctrl+1 … Ctrl+" + window.pages.length, what: window.pages.map(page => page.title).join(", ") },
            { keys: "Ctrl+P", what: qsTr("Pause or resume live updates on every page") },
            { keys: "Ctrl+N  Ctrl+T", what: qsTr("Another window, on this profile: several clusters at once") },
            { keys: "Ctrl+W", what: qsTr("Close this window (the first one ends the console)") },
            { keys: "F5", what: qsTr("Read the page again (Cluster, Keys, Leases, Access; the others follow etcd live)") },
            { keys: "Ctrl+F  /", what: qsTr("Search the keys (Keys)") },
            { keys: "Ctrl+click  Space", what: qsTr("Mark a key for a bulk delete; Shift+click marks a run (Keys)") },
            { keys: "Delete", what: qsTr("Delete the marked keys, or else the selected key, once confirmed (Keys)") },
            { keys: "Esc", what: qsTr("Unmark the keys (Keys); close a dialog or a search") },
            { keys: "F1  ?", what: qsTr("This list") }
        ]
    }
    PasswordDialog {
        id: passwordDialog
        objectName: "passwordDialog"
        onPasswordGiven: (name, password, remember) => connection.openWithPassword(name, password, remember)
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
        ColumnLayout {
            spacing: 0
            Layout.fillWidth: true
            Layout.fillHeight: true
            // What went wrong connecting, and the way to fix it, above whichever page is shown.
            Banner {
                objectName: "connectionProblem"
                text: connection.problem
                      || (connection.tunnelState === "opening" ? qsTr("Opening the SSH tunnel through %1…").arg(connection.tunnelThrough) : "")
                      || window.outage || window.keychainNote
                bad: connection.problem.length > 0 || window.outage.length > 0
                dismissable: !bad
                onDismissed: window.keychainNote = ""
                Layout.fillWidth: true
                Layout.margins: Theme.spacing
                Button {
                    visible: connection.problemKind === "password"
                    text: qsTr("Enter password…")
                    onClicked: passwordDialog.ask(connection.profileName, connection.user,
                                                  qsTr("The cluster refused the password it was given."),
                                                  connection.keychainAvailable)
                }
                Button {
                    visible: connection.problem.length > 0 && connection.profileName.length > 0
                    text: qsTr("Edit profile…")
                    onClicked: profileDialog.edit(connection.profileName)
                }
                Button {
                    visible: connection.problem.length > 0
                    text: connection.checking ? qsTr("Trying…") : qsTr("Try again")
                    enabled: !connection.checking
                    onClicked: connection.check()
                }
            }
            ScenarioBar {
                objectName: "scenarioBar"
                scenario: window.scenario
                storyExport: window.storyExport
                sandboxRunning: connection.sandbox
                Layout.fillWidth: true
                Layout.leftMargin: Theme.spacing
                Layout.rightMargin: Theme.spacing
                Layout.topMargin: Theme.spacing
            }
            StackLayout {
                id: pageStack
                Layout.fillWidth: true
                Layout.fillHeight: true
                ClusterPage {
                    members: cluster; sandbox: connection.sandbox ? window.sandbox : null
                    readOnly: window.readOnly; advise: window.advise
                    confirmationWord: window.confirmationWord; revisionClock: revisionClock
                }
                KeysPage {
                    id: keysPage; client: window.client; paused: window.paused; readOnly: window.readOnly; advise: window.advise
                    asOfRevision: window.asOfRevision; onBackToLive: window.asOfRevision = 0
                    revisionClock: revisionClock; confirmationWord: window.confirmationWord
                    onLeaseChosen: lease => { window.showPage("leases"); leasesPage.reveal(lease); }
                }
                LeasesPage { id: leasesPage; client: window.client; paused: window.paused; readOnly: window.readOnly; advise: window.advise }
                CoordinationPage {
                    client: window.client; paused: window.paused; readOnly: window.readOnly; advise: window.advise
                    onKeyChosen: (key, path) => { window.showPage("keys"); keysPage.reveal(key, path); }
                    asOfRevision: window.asOfRevision; onBackToLive: window.asOfRevision = 0
                    eventLog: window.eventLog; participantOptions: () => connection.participantOptions()
                    confirmationWord: window.confirmationWord; revisionClock: revisionClock
                }
                TimelinePage {
                    id: timelinePage; eventLog: window.eventLog; paused: window.paused; client: window.client
                    asOfRevision: window.asOfRevision; revisionClock: revisionClock
                    onRevisionPicked: revision => window.asOfRevision = revision
                    onShowAsOfRequested: window.showPage("coordination")
                }
                ParticipantsPage { id: participantsPage; client: window.client; eventLog: window.eventLog; sandbox: window.sandbox; paused: window.paused; readOnly: window.readOnly; advise: window.advise; participantOptions: () => connection.participantOptions()
                                   onLeaseStarted: (name, recipe) => timelinePage.watchLease(name, recipe) }
                AccessPage {
                    client: window.client; eventLog: window.eventLog; readOnly: window.readOnly; advise: window.advise
                    confirmationWord: window.confirmationWord
                }
            }
        }
    }
}
