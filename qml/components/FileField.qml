// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import QEtcdConsole

// A file's path, typed or picked: TLS files (CA, certificate, key) in the profile dialog, or
// with `saving` a file to write (a snapshot).
RowLayout {
    id: field
    property alias text: path.text
    property alias placeholderText: path.placeholderText
    property string pickerTitle: qsTr("Choose a file")
    property bool saving: false
    property var nameFilters: [qsTr("Certificates and keys (*.pem *.crt *.cer *.key)"), qsTr("All files (*)")]
    // The picker, for tests: it has no window of its own offscreen.
    readonly property alias picker: picker

    spacing: Theme.spacing / 2
    Layout.fillWidth: true

    TextField {
        id: path
        objectName: field.objectName + "Path"
        Accessible.name: field.pickerTitle
        font.family: Theme.monoFamily
        Layout.fillWidth: true
    }
    Button {
        objectName: field.objectName + "Browse"
        text: qsTr("Browse…")
        onClicked: picker.open()
        ToolTip.visible: hovered
        ToolTip.delay: 600
        ToolTip.text: field.pickerTitle
    }
    FileDialog {
        id: picker
        title: field.pickerTitle
        fileMode: field.saving ? FileDialog.SaveFile : FileDialog.OpenFile
        nameFilters: field.nameFilters
        // A local path, as the command line's flags take it.
        onAccepted: path.text = decodeURIComponent(selectedFile.toString().replace(/^file:\/\//, ""))
    }
}
