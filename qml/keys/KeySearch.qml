// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Searches the page's keys, loaded or not, by text, glob or regular expression, in names or
// values, and lists the hits as they come; a click on one selects its key. Enter searches,
// Escape closes the results.
ColumnLayout {
    id: search
    required property KeyModel keys
    readonly property alias model: hits
    // The results are shown in place of the keys.
    readonly property bool showing: hits.status !== ModelStatus.Null
    signal keyChosen(string key)

    function focusField() {
        field.forceActiveFocus();
        field.selectAll();
    }
    function close() {
        hits.cancel();
        hits.pattern = "";
        hits.start();  // no pattern: back to no results
        field.text = "";
    }

    spacing: 0

    KeySearchModel {
        id: hits
        objectName: "searchModel"
        keys: search.keys
        // The box's index is -1 until its model is set.
        mode: modeBox.currentIndex >= 0 ? modeBox.currentIndex : KeySearchModel.Text
        inValues: valuesBox.checked
    }

    RowLayout {
        spacing: Theme.spacing / 2
        Layout.fillWidth: true
        Layout.margins: Theme.spacing / 2
        TextField {
            id: field
            objectName: "searchField"
            Accessible.name: qsTr("Search the keys")
            placeholderText: qsTr("Search the keys (Ctrl+F or /)")
            selectByMouse: true
            font.family: Theme.monoFamily
            Layout.fillWidth: true
            onAccepted: { hits.pattern = text; hits.start(); }
            Keys.onEscapePressed: search.close()
        }
        ComboBox {
            id: modeBox
            objectName: "searchMode"
            Accessible.name: qsTr("Search mode")
            model: [qsTr("Text"), qsTr("Glob"), qsTr("Regex")]
            Layout.preferredWidth: 92
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Text: contained anywhere. Glob: the whole key, * within a segment, ** across. Regex: found anywhere.")
        }
        CheckBox {
            id: valuesBox
            objectName: "searchValues"
            text: qsTr("Values")
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Search the values too, as text: the first %1 of each").arg(Format.bytes(hits.valueLimit))
        }
    }
    RowLayout {
        visible: search.showing
        spacing: Theme.spacing
        Layout.fillWidth: true
        Layout.leftMargin: Theme.spacing
        Layout.rightMargin: Theme.spacing / 2
        Label {
            objectName: "searchSummary"
            Layout.fillWidth: true
            textFormat: Text.PlainText
            elide: Text.ElideRight
            font.pixelSize: Theme.smallFont
            color: hits.status === ModelStatus.Error ? Theme.bad : Theme.mutedText
            text: hits.status === ModelStatus.Error ? hits.errorString
                : qsTr("%1 hit(s)%2 in %3 key(s) · %4").arg(Format.count(hits.count)).arg(hits.truncated ? "+" : "")
                      .arg(Format.count(hits.scanned)).arg(hits.running ? qsTr("searching…") : Format.duration(hits.elapsedMs))
        }
        Button {
            objectName: "searchCancel"
            visible: hits.running
            text: qsTr("Cancel")
            flat: true
            onClicked: hits.cancel()
        }
        Button {
            objectName: "searchClose"
            visible: !hits.running
            text: qsTr("Close")
            flat: true
            onClicked: search.close()
        }
    }
    ListView {
        id: results
        objectName: "searchResults"
        visible: search.showing
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        model: hits
        ScrollBar.vertical: ScrollBar {}
        delegate: ItemDelegate {
            id: hit
            required property string key
            Accessible.name: key
            required property bool inValue
            required property string snippet
            width: ListView.view.width
            height: hit.inValue ? 44 : 30
            highlighted: hit.key === search.keys.selectedKey
            onClicked: search.keyChosen(hit.key)
            // As the key list marks its rows.
            background: Rectangle {
                color: hit.highlighted ? Theme.accentSoft : hit.hovered ? Theme.window : "transparent"
            }
            contentItem: ColumnLayout {
                spacing: 0
                EtcdLabel {
                    value: hit.key
                    font.family: Theme.monoFamily
                    font.pixelSize: Theme.bodyFont - 1
                    color: Theme.text
                    Layout.fillWidth: true
                }
                // Escaped by the model: plain text, never markup.
                Label {
                    visible: hit.inValue
                    text: hit.snippet
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
