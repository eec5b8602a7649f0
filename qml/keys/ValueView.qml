import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A key's value as text, pretty JSON or hex, whichever the operator picks.
ColumnLayout {
    id: view
    property string value
    property int size: 0
    property string mode: looksLikeJson ? "json" : "text"
    readonly property bool looksLikeJson: /^\s*[\[{]/.test(value)

    spacing: Theme.spacing
    RowLayout {
        spacing: 4
        Repeater {
            model: [{ id: "text", title: qsTr("Text") }, { id: "json", title: qsTr("JSON") }, { id: "hex", title: qsTr("Hex") }]
            Button {
                required property var modelData
                text: modelData.title
                checkable: true
                checked: view.mode === modelData.id
                flat: !checked
                onClicked: view.mode = modelData.id
            }
        }
        Item { Layout.fillWidth: true }
        Label {
            text: Format.bytes(view.size)
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
        }
    }
    ScrollView {
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        TextArea {
            readOnly: true
            selectByMouse: true
            wrapMode: view.mode === "hex" ? TextEdit.NoWrap : TextEdit.WrapAnywhere
            font.family: Theme.monoFamily
            font.pixelSize: Theme.bodyFont - 1
            text: view.mode === "json" ? view.prettyJson(view.value)
                : view.mode === "hex" ? view.hexDump(view.value)
                : view.value
            background: Rectangle { color: Theme.window; radius: Theme.radius; border.color: Theme.border }
        }
    }

    function prettyJson(text) {
        try {
            return JSON.stringify(JSON.parse(text), null, 2);
        } catch (e) {
            return qsTr("(not JSON: %1)").arg(e.message) + "\n\n" + text;
        }
    }
    function hexDump(text) {
        const bytes = unescape(encodeURIComponent(text));  // the UTF-8 bytes, one per character
        let lines = [];
        for (let offset = 0; offset < bytes.length; offset += 16) {
            let hex = "";
            let ascii = "";
            for (let i = offset; i < Math.min(offset + 16, bytes.length); ++i) {
                const c = bytes.charCodeAt(i);
                hex += (c < 16 ? "0" : "") + c.toString(16) + " ";
                ascii += c >= 32 && c < 127 ? bytes[i] : ".";
            }
            lines.push(("0000000" + offset.toString(16)).slice(-8) + "  " + hex.padEnd(48) + " " + ascii);
        }
        return lines.join("\n");
    }
}
