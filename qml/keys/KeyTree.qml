// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQml.Models
import QEtcd
import QEtcdConsole

// The keys under a KeyModel's prefix as a tree by '/', read a folder at a time: folders count
// the keys below them, keys show their lease. Arrow keys move, Left and Right fold and unfold,
// Enter or a click picks a key.
ColumnLayout {
    id: root
    required property KeyModel keyModel
    signal keyChosen(string key)

    spacing: 0

    TreeView {
        id: tree
        objectName: "keyTree"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        focus: true
        keyNavigationEnabled: true
        model: KeyTreeModel { id: treeModel; source: root.keyModel }
        selectionModel: ItemSelectionModel { model: treeModel }
        columnWidthProvider: () => tree.width
        ScrollBar.vertical: ScrollBar {}

        delegate: ItemDelegate {
            id: node
            required property TreeView treeView
            required property bool isTreeNode
            required property bool expanded
            required property bool hasChildren
            required property int depth
            required property int row
            required property bool current
            required property string name
            Accessible.name: name
            required property string key
            required property bool isKey
            required property int keyCount
            required property string lease
            implicitHeight: 30
            highlighted: node.isKey && node.key === root.keyModel.selectedKey
            onCurrentChanged: if (current && isKey) root.keyChosen(key)
            onClicked: {
                if (hasChildren)
                    treeView.toggleExpanded(row);
                if (isKey)
                    root.keyChosen(key);
            }
            background: Rectangle {
                color: node.highlighted ? Theme.accentSoft : node.current || node.hovered ? Theme.window : "transparent"
            }
            contentItem: RowLayout {
                spacing: 6
                Item { Layout.preferredWidth: node.depth * 16 }
                Label {
                    textFormat: Text.PlainText
                    text: node.hasChildren ? (node.expanded ? "\u25BE" : "\u25B8") : ""
                    color: Theme.mutedText
                    Layout.preferredWidth: 12
                }
                EtcdLabel {
                    value: node.name
                    font.family: Theme.monoFamily
                    font.pixelSize: Theme.bodyFont - 1
                    font.bold: node.hasChildren
                    color: Theme.text
                    Layout.fillWidth: true
                }
                Label {
                    // Counted by etcd once the folder shows.
                    visible: node.hasChildren && node.keyCount >= 0
                    textFormat: Text.PlainText
                    text: qsTr("%n key(s)", "", node.keyCount)
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                }
                Label {
                    visible: node.lease.length > 0
                    textFormat: Text.PlainText
                    text: "\u25F4 " + node.lease
                    color: Theme.mutedText
                    font.family: Theme.monoFamily
                    font.pixelSize: Theme.smallFont
                }
            }
        }
    }

    // A folder is listed when it is first unfolded (the top level at once), page after page;
    // the bar says which, and Stop keeps what was found until Go on.
    Rectangle {
        objectName: "listingBar"
        visible: treeModel.listing || treeModel.stopped
        Layout.fillWidth: true
        implicitHeight: 40
        color: Theme.window
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: Theme.padding
            anchors.rightMargin: Theme.spacing
            spacing: Theme.spacing
            EtcdLabel {
                objectName: "listingText"
                value: treeModel.listing ? qsTr("Listing %1 (%n found)", "", treeModel.listedChildren).arg(treeModel.listingKey)
                     : treeModel.errorString.length > 0 ? treeModel.errorString
                     : qsTr("Listing stopped: some folders show only what was found")
                color: treeModel.errorString.length > 0 ? Theme.bad : Theme.mutedText
                font.pixelSize: Theme.smallFont
                Layout.fillWidth: true
            }
            ProgressBar {
                visible: treeModel.listing
                indeterminate: true
                Accessible.name: qsTr("Listing a folder")
                Layout.preferredWidth: 120
            }
            Button {
                objectName: "listingAction"
                text: treeModel.listing ? qsTr("Stop") : qsTr("Go on")
                onClicked: treeModel.listing ? treeModel.stopListing() : treeModel.resumeListing()
                ToolTip.visible: hovered
                ToolTip.text: treeModel.listing ? qsTr("Stop listing: what was found stays")
                                                : qsTr("List the rest of the folders stopped, from where each was")
            }
        }
    }
}
