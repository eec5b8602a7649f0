// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQml.Models
import QEtcd
import QEtcdConsole

// The keys of a KeyModel as a tree by '/': folders count the keys below them, keys show their
// lease. Arrow keys move, Left and Right fold and unfold, Enter or a click picks a key.
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
                    visible: node.hasChildren
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

    // A tree needs every key to put each under its folder; a flat list can wait for scrolling.
    Rectangle {
        visible: root.keyModel.count < root.keyModel.total
        Layout.fillWidth: true
        implicitHeight: 40
        color: Theme.window
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: Theme.padding
            anchors.rightMargin: Theme.spacing
            Label {
                textFormat: Text.PlainText
                text: qsTr("%1 of %2 keys in the tree").arg(Format.count(root.keyModel.count)).arg(Format.count(root.keyModel.total))
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
                Layout.fillWidth: !root.keyModel.fetchingAll
            }
            ProgressBar {
                objectName: "loadAllProgress"
                visible: root.keyModel.fetchingAll
                value: root.keyModel.progress
                Accessible.name: qsTr("Keys read")
                Layout.fillWidth: true
            }
            Button {
                objectName: "loadAll"
                text: root.keyModel.fetchingAll ? qsTr("Stop") : qsTr("Load all")
                onClicked: root.keyModel.fetchingAll ? root.keyModel.stopFetchingAll() : root.keyModel.fetchAll()
                ToolTip.visible: hovered
                ToolTip.text: root.keyModel.fetchingAll ? qsTr("Stop reading: the keys read so far stay")
                                                        : qsTr("Read the remaining keys, a page at a time")
            }
        }
    }
}
