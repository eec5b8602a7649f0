import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// The keys under a prefix, loaded a page at a time as the list scrolls and kept live by one
// watch; the selected key's value and revisions on the right.
ConsolePage {
    id: page
    property alias client: keys.client
    property bool paused: false
    readonly property alias model: keys

    title: qsTr("Keys")
    subtitle: keys.status === ModelStatus.Ready || keys.status === ModelStatus.Loading
              ? (keys.count < keys.total ? qsTr("%1 of %2 keys loaded").arg(Format.count(keys.count)).arg(Format.count(keys.total))
                                         : qsTr("%1 keys").arg(Format.count(keys.total)))
              : ""
    ready: keys.status === ModelStatus.Ready || keys.status === ModelStatus.Error
    notReadyReason: qsTr("the first page of keys has not arrived")
    summary: ({ keys: keys.total, loaded: keys.count, prefix: keys.prefix })

    tools: [
        Label { text: qsTr("Prefix"); color: Theme.mutedText },
        TextField {
            id: prefixField
            placeholderText: "/"
            font.family: Theme.monoFamily
            Layout.preferredWidth: 280
            selectByMouse: true
            onAccepted: keys.prefix = text
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Read only keys under this prefix (filtered by etcd); Enter applies it")
        }
    ]

    KeyModel { id: keys }

    SplitView {
        anchors.fill: parent
        visible: keys.count > 0

        Rectangle {
            SplitView.preferredWidth: parent.width * 0.45
            SplitView.minimumWidth: 280
            color: Theme.surface
            border.color: Theme.border
            radius: Theme.radius

            ListView {
                id: list
                anchors.fill: parent
                anchors.margins: 1
                clip: true
                model: keys
                reuseItems: true
                currentIndex: -1
                keyNavigationEnabled: true
                focus: true
                ScrollBar.vertical: ScrollBar {}
                onCurrentIndexChanged: if (currentItem) keys.selectedKey = currentItem.key

                delegate: ItemDelegate {
                    id: keyRow
                    required property int index
                    required property string key
                    required property string lease
                    required property var changedAt
                    width: ListView.view.width
                    height: 30
                    highlighted: ListView.isCurrentItem
                    onClicked: list.currentIndex = index
                    background: Rectangle {
                        color: keyRow.highlighted ? Theme.accentSoft : keyRow.hovered ? Theme.window : "transparent"
                        Rectangle {
                            anchors.fill: parent
                            color: Theme.warningSoft
                            opacity: 0
                            // New and changed keys flash once.
                            SequentialAnimation on opacity {
                                running: keyRow.changedAt > 0 && Date.now() - keyRow.changedAt < 1500
                                NumberAnimation { from: 1; to: 0; duration: 1500 }
                            }
                        }
                    }
                    contentItem: RowLayout {
                        spacing: Theme.spacing
                        Label {
                            text: keyRow.key
                            font.family: Theme.monoFamily
                            font.pixelSize: Theme.bodyFont - 1
                            color: Theme.text
                            elide: Text.ElideMiddle
                            Layout.fillWidth: true
                        }
                        Label {
                            visible: keyRow.lease.length > 0
                            text: "\u25F4 " + keyRow.lease
                            color: Theme.mutedText
                            font.family: Theme.monoFamily
                            font.pixelSize: Theme.smallFont
                        }
                    }
                }
            }
        }

        Rectangle {
            SplitView.fillWidth: true
            color: Theme.surface
            border.color: Theme.border
            radius: Theme.radius

            ColumnLayout {
                anchors.fill: parent
                anchors.margins: Theme.padding
                spacing: Theme.spacing
                visible: keys.selectedKey.length > 0

                Label {
                    text: keys.selectedKey
                    font.family: Theme.monoFamily
                    font.bold: true
                    font.pixelSize: Theme.bodyFont + 1
                    color: Theme.text
                    elide: Text.ElideMiddle
                    Layout.fillWidth: true
                }
                GridLayout {
                    columns: 4
                    columnSpacing: Theme.padding
                    rowSpacing: 2
                    Field { label: qsTr("Created at"); value: keys.selected.createRevision !== undefined ? Format.count(keys.selected.createRevision) : "—"; mono: true }
                    Field { label: qsTr("Modified at"); value: keys.selected.modRevision !== undefined ? Format.count(keys.selected.modRevision) : "—"; mono: true }
                    Field { label: qsTr("Version"); value: keys.selected.version !== undefined ? keys.selected.version : "—"; mono: true }
                    Field { label: qsTr("Lease"); value: keys.selected.lease || qsTr("none"); mono: true }
                }
                Label {
                    visible: !!keys.selected.error
                    text: keys.selected.error || ""
                    color: Theme.bad
                    wrapMode: Text.WordWrap
                    Layout.fillWidth: true
                }
                ValueView {
                    value: keys.selected.value || ""
                    size: keys.selected.size || 0
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                }
            }
            EmptyState {
                anchors.centerIn: parent
                visible: keys.selectedKey.length === 0
                title: qsTr("No key selected")
                detail: qsTr("Pick a key on the left to read its value and revisions.")
            }
        }
    }

    EmptyState {
        anchors.centerIn: parent
        visible: keys.count === 0
        busy: keys.status === ModelStatus.Loading || keys.status === ModelStatus.Null
        error: keys.status === ModelStatus.Error
        title: keys.status === ModelStatus.Error ? qsTr("The keys could not be read")
             : keys.status === ModelStatus.Ready ? qsTr("No keys under %1").arg(keys.prefix || "/")
             : qsTr("Reading the keys…")
        detail: keys.status === ModelStatus.Error ? keys.errorString
              : keys.status === ModelStatus.Ready ? qsTr("Write one with `qetcd put %1/hello world`.").arg(keys.prefix) : ""
    }
}
