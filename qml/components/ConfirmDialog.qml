import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Asks before a write: says what will change and what cannot be undone; `confirmed` fires only
// on the confirm button (Enter), never on Escape or Cancel.
Dialog {
    id: dialog
    property string message
    property string confirmText: qsTr("OK")
    property bool destructive: false
    signal confirmed()

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(560, parent ? parent.width - 64 : 560)
    modal: true
    focus: true
    onAccepted: confirmed()

    contentItem: Label {
        text: dialog.message
        color: Theme.text
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
    }
    footer: DialogButtonBox {
        Button {
            objectName: "confirmButton"
            text: dialog.confirmText
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
