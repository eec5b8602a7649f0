// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A key's value as text, pretty JSON, hex, or a recipe's own encoding, whichever the operator
// picks; `views` comes decoded from the model (KeyModel.selected.views, KeyHistory.shown.views).
ColumnLayout {
    id: view
    property var views: ({})
    readonly property var recipe: views.recipe || { title: "", fields: [] }
    readonly property var modes: [
        { name: "recipe", title: qsTr("Recipe"), available: recipe.title.length > 0,
          tip: recipe.title.length > 0 ? qsTr("As the recipe that wrote it reads it: %1").arg(recipe.title)
                                       : qsTr("No recipe's encoding recognised in this value") },
        { name: "json", title: qsTr("JSON"), available: !!views.json, tip: views.json ? qsTr("Pretty-printed JSON") : qsTr("The value is not JSON") },
        { name: "text", title: qsTr("Text"), available: true, tip: views.isText ? qsTr("The value as UTF-8 text; controls that would reorder or hide text are shown as escapes (\\u202E)")
                                                                             : qsTr("Not valid text: bytes that are not UTF-8 are shown as \uFFFD") },
        { name: "hex", title: qsTr("Hex"), available: true, tip: qsTr("Every byte, with its offset") }
    ]
    // Until the operator picks one: the most telling view this value has.
    property string chosenMode: ""
    readonly property string mode: chosenMode && modes.find(m => m.name === chosenMode).available ? chosenMode
        : recipe.title.length > 0 ? "recipe" : views.json ? "json" : views.isText !== false ? "text" : "hex"

    spacing: Theme.spacing
    RowLayout {
        spacing: 4
        // The buttons are made once: `modes` is a new array with every value shown, and a
        // Repeater bound to it would destroy and rebuild them inside this layout each time.
        // Qt 6.4's layouts keep a removed child in their engine until their next polish, and a
        // SplitView resize before that polish measures the destroyed buttons (a crash: issue 32
        // §2). A Row owns them instead: a positioner forgets a child the moment it leaves.
        Row {
            spacing: 4
            Repeater {
                model: view.modes.length
                Button {
                    required property int index
                    readonly property var shows: view.modes[index]
                    objectName: "valueMode_" + shows.name
                    text: shows.title
                    enabled: shows.available
                    checkable: true
                    checked: view.mode === shows.name
                    flat: !checked
                    onClicked: view.chosenMode = shows.name
                    ToolTip.visible: hovered
                    ToolTip.text: shows.tip
                    ToolTip.delay: 600
                }
            }
        }
        Item { Layout.fillWidth: true }
        Label {
            textFormat: Text.PlainText
            text: view.views.truncated ? qsTr("%1 — too large to show whole; the beginning is shown").arg(Format.bytes(view.views.size))
                                       : Format.bytes(view.views.size)
            color: view.views.truncated ? Theme.warning : Theme.mutedText
            font.pixelSize: Theme.smallFont
        }
    }
    ScrollView {
        visible: view.mode !== "recipe"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        TextArea {
            objectName: "valueText"
            Accessible.name: qsTr("Value")
            readOnly: true
            selectByMouse: true
            wrapMode: view.mode === "hex" ? TextEdit.NoWrap : TextEdit.WrapAnywhere
            textFormat: TextEdit.PlainText
            font.family: Theme.monoFamily
            font.pixelSize: Theme.bodyFont - 1
            color: Theme.text
            text: view.mode === "json" ? view.views.json || ""
                : view.mode === "hex" ? view.views.hex || ""
                : view.views.shownText || ""
            background: Rectangle { color: Theme.window; radius: Theme.radius; border.color: Theme.border }
        }
    }
    Rectangle {
        visible: view.mode === "recipe"
        Layout.fillWidth: true
        Layout.fillHeight: true
        color: Theme.window
        radius: Theme.radius
        border.color: Theme.border
        ColumnLayout {
            anchors.left: parent.left
            anchors.right: parent.right
            anchors.top: parent.top
            anchors.margins: Theme.padding
            spacing: 4
            EtcdLabel {
                objectName: "recipeTitle"
                value: view.recipe.title
                color: Theme.text
                font.bold: true
                font.family: Theme.monoFamily
                Layout.bottomMargin: 4
            }
            // A new list of fields comes with every value: its rows live in a positioner, not
            // in the layout (see the mode buttons above).
            Column {
                spacing: 4
                Layout.fillWidth: true
                Repeater {
                    model: view.recipe.fields
                    Field {
                        required property var modelData
                        width: parent.width
                        label: modelData.label
                        value: modelData.value
                        mono: true
                    }
                }
            }
        }
    }
}
