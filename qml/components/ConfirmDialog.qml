import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// Asks before a write: says what will change and what cannot be undone; `confirmed` fires only
// on the confirm button (Enter), never on Escape or Cancel. With `typedConfirmation` set (a
// cluster that is not on this machine), the button waits until that word is typed: a reflex
// click cannot break production.
Dialog {
    id: dialog
    property string message
    property string confirmText: qsTr("OK")
    property bool destructive: false
    property string typedConfirmation
    readonly property bool typedOk: typedConfirmation.length === 0 || typed.text === typedConfirmation
    signal confirmed()

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(560, parent ? parent.width - 64 : 560)
    modal: true
    focus: true
    onAboutToShow: typed.text = ""
    onOpened: if (typedConfirmation.length > 0) typed.forceActiveFocus()
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
