// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// The Keys page's live watch: every put and delete of the selected key or of the page's prefix,
// newest last, with who made it when the recogniser knows the key; from now or from a past
// revision while etcd keeps it. Pause holds the list still (what arrives is counted and shown on
// resume), the filter narrows it, Export writes it as JSON lines. A click on a row selects its key.
Rectangle {
    id: pane
    required property KeyModel keys
    property alias client: watch.client
    readonly property alias model: watch
    // The key to show when a row is clicked.
    signal keyChosen(string key)

    color: Theme.surface
    border.color: Theme.border
    radius: Theme.radius

    KeyWatchModel {
        id: watch
        objectName: "watchModel"
        prefix: scope.currentIndex === 1 || pane.keys.selectedKey.length === 0
        // Nothing is watched while the pane is closed.
        key: !pane.visible ? "" : prefix ? (pane.keys.prefix || "/") : pane.keys.selectedKey
        fromRevision: Number(fromField.text) || 0
        filter: filterField.text
    }
    FileDialog {
        id: saveDialog
        title: qsTr("Export the watched changes as JSON lines")
        fileMode: FileDialog.SaveFile
        defaultSuffix: "jsonl"
        nameFilters: [qsTr("JSON lines (*.jsonl)"), qsTr("All files (*)")]
        onAccepted: pane.exportTo(selectedFile.toString())
    }
    // Writes the rows shown; the note says where, or why not.
    property string exportNote
    function exportTo(path) {
        const failure = watch.exportJsonLines(path);
        exportNote = failure !== "" ? failure : qsTr("Wrote %n change(s) to %1", "", watch.count).arg(decodeURIComponent(path.replace(/^file:\/\//, "")));
        return failure === "";
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: Theme.spacing

        RowLayout {
            spacing: Theme.spacing
            Layout.fillWidth: true
            Label {
                text: qsTr("Watch")
                font.bold: true
                color: Theme.text
            }
            ComboBox {
                id: scope
                objectName: "watchScope"
                Accessible.name: qsTr("What to watch")
                // Fixed: a model that changed with the prefix would reset the choice.
                model: [qsTr("Selected key"), qsTr("Whole prefix")]
                // The prefix until the operator picks the key: a row clicked selects its key, and
                // must not end the watch that showed it.
                currentIndex: 1
                Layout.preferredWidth: 150
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("Watch the key selected on the left, or every key under the page's prefix")
            }
            Label { text: qsTr("from revision"); color: Theme.mutedText }
            TextField {
                id: fromField
                objectName: "watchFrom"
                Accessible.name: qsTr("From revision")
                placeholderText: qsTr("now")
                validator: RegularExpressionValidator { regularExpression: /[0-9]{0,16}/ }
                font.family: Theme.monoFamily
                selectByMouse: true
                Layout.preferredWidth: 96
                ToolTip.visible: hovered
                ToolTip.delay: 600
                ToolTip.text: qsTr("Begin with the changes etcd still keeps from this revision on; empty: from now")
            }
            TextField {
                id: filterField
                objectName: "watchFilter"
                Accessible.name: qsTr("Filter the watched changes")
                placeholderText: qsTr("Filter")
                selectByMouse: true
                Layout.fillWidth: true
                Layout.minimumWidth: 120
            }
            Button {
                objectName: "watchPause"
                text: watch.paused ? qsTr("Resume (%1)").arg(watch.held) : qsTr("Pause")
                onClicked: watch.paused = !watch.paused
            }
            Button {
                objectName: "watchClear"
                text: qsTr("Clear")
                flat: true
                enabled: watch.count > 0 || watch.held > 0
                onClicked: watch.clear()
            }
            Button {
                objectName: "watchExport"
                text: qsTr("Export…")
                flat: true
                enabled: watch.count > 0
                onClicked: saveDialog.open()
            }
        }
        Label {
            objectName: "watchStatus"
            Layout.fillWidth: true
            textFormat: Text.PlainText
            elide: Text.ElideRight
            font.pixelSize: Theme.smallFont
            color: watch.status === ModelStatus.Error ? Theme.bad : watch.errorString.length > 0 ? Theme.warning : Theme.mutedText
            text: {
                const what = watch.prefix ? qsTr("every key under %1").arg(DisplayText.escape(watch.key)) : DisplayText.escape(watch.key);
                const state = watch.status === ModelStatus.Loading ? qsTr("starting the watch on %1…").arg(what)
                            : watch.status === ModelStatus.Ready ? qsTr("watching %1: %2 of %n change(s) shown", "", watch.received).arg(what).arg(watch.count)
                            : watch.status === ModelStatus.Null ? qsTr("nothing to watch") : "";
                return [state, watch.errorString, pane.exportNote].filter(part => part.length > 0).join(" · ");
            }
        }
        ListView {
            id: rows
            objectName: "watchRows"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: watch
            ScrollBar.vertical: ScrollBar {}
            // New changes come at the end: stay there unless the reader scrolled up.
            property bool atEnd: true
            onMovementEnded: atEnd = atYEnd
            onCountChanged: if (atEnd) positionViewAtEnd()
            delegate: ItemDelegate {
                id: row
                required property var revision
                required property string type
                required property string key
                required property string lease
                required property string value
                required property string writer
                width: ListView.view.width
                height: 26
                Accessible.name: qsTr("%1 %2 at revision %3").arg(row.type).arg(row.key).arg(row.revision)
                onClicked: pane.keyChosen(row.key)
                contentItem: RowLayout {
                    spacing: Theme.spacing
                    Label {
                        text: Format.count(row.revision)
                        textFormat: Text.PlainText
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        color: Theme.mutedText
                        horizontalAlignment: Text.AlignRight
                        Layout.preferredWidth: 72
                    }
                    StatePill {
                        text: row.type
                        foreground: row.type === "PUT" ? Theme.good : Theme.bad
                        background: row.type === "PUT" ? Theme.goodSoft : Theme.badSoft
                        Layout.preferredWidth: 78
                    }
                    EtcdLabel {
                        value: row.key
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont + 1
                        color: Theme.text
                        Layout.preferredWidth: Math.max(160, rows.width * 0.32)
                    }
                    Label {
                        text: row.lease.length > 0 ? "\u25F4 " + row.lease : ""
                        textFormat: Text.PlainText
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        color: Theme.mutedText
                        Layout.preferredWidth: 130
                    }
                    EtcdLabel {
                        value: row.writer
                        font.pixelSize: Theme.smallFont
                        color: Theme.info
                        Layout.preferredWidth: 110
                    }
                    // Escaped by the model already: shown as plain text, never as markup.
                    Label {
                        text: row.type === "PUT" ? row.value : ""
                        textFormat: Text.PlainText
                        elide: Text.ElideRight
                        font.family: Theme.monoFamily
                        font.pixelSize: Theme.smallFont
                        color: Theme.mutedText
                        Layout.fillWidth: true
                    }
                }
            }
        }
    }
}
