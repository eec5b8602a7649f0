// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Asks before a write: says what will change and what cannot be undone; `confirmed` fires only
// on the confirm button (Enter), never on Escape or Cancel. With `typedConfirmation` set (a
// cluster that is not on this machine), the button waits until that word is typed: a reflex
// click cannot break production. Controls of a dialog's own (a compaction's slider) go below the
// value to enter; `acceptable` says whether they make sense.
Dialog {
    id: dialog
    property string message
    property string confirmText: qsTr("OK")
    property bool destructive: false
    property string typedConfirmation
    // With inputLabel set, a value to enter (a counter's new value): the button waits until it
    // is acceptable to inputValidator.
    property string inputLabel
    property alias inputValidator: input.validator
    // Emptied each time the dialog opens: a dialog that proposes a value sets it after.
    property alias inputText: input.text
    property bool acceptable: true
    default property alias details: detailsColumn.data
    readonly property bool typedOk: (typedConfirmation.length === 0 || typed.text === typedConfirmation)
                                    && (inputLabel.length === 0 || (input.text.length > 0 && input.acceptableInput))
                                    && acceptable
    signal confirmed()

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(560, parent ? parent.width - 64 : 560)
    modal: true
    focus: true
    onAboutToShow: { typed.text = ""; input.text = "" }
    onOpened: inputLabel.length > 0 ? input.forceActiveFocus() : typedConfirmation.length > 0 ? typed.forceActiveFocus() : undefined
    onAccepted: if (typedOk) confirmed()

    contentItem: ColumnLayout {
        spacing: Theme.spacing
        Label {
            text: dialog.message
            color: Theme.text
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            Layout.fillWidth: true
        }
        Label {
            visible: dialog.inputLabel.length > 0
            text: dialog.inputLabel
            color: Theme.mutedText
            textFormat: Text.PlainText
            Layout.topMargin: Theme.spacing
        }
        TextField {
            id: input
            objectName: "input"
            Accessible.name: dialog.inputLabel
            visible: dialog.inputLabel.length > 0
            font.family: Theme.monoFamily
            selectByMouse: true
            Layout.fillWidth: true
            onAccepted: if (dialog.typedOk) dialog.accept()
        }
        ColumnLayout {
            id: detailsColumn
            visible: children.length > 0
            spacing: Theme.spacing
            Layout.fillWidth: true
        }
        Label {
            visible: dialog.typedConfirmation.length > 0
            text: qsTr("This cluster is not on this machine. Type %1 to confirm.").arg(dialog.typedConfirmation)
            color: Theme.mutedText
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            Layout.fillWidth: true
            Layout.topMargin: Theme.spacing
        }
        TextField {
            id: typed
            objectName: "typedConfirmation"
            Accessible.name: qsTr("Type %1 to confirm").arg(dialog.typedConfirmation)
            visible: dialog.typedConfirmation.length > 0
            placeholderText: dialog.typedConfirmation
            font.family: Theme.monoFamily
            selectByMouse: true
            Layout.fillWidth: true
            onAccepted: if (dialog.typedOk) dialog.accept()
        }
    }
    footer: DialogButtonBox {
        Button {
            objectName: "confirmButton"
            text: dialog.confirmText
            enabled: dialog.typedOk
            highlighted: true
            palette.highlight: dialog.destructive ? Theme.bad : Theme.accent
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
}
