// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole
import QtQuick.Controls
import QtQuick.Layouts

// What a page shows instead of data: a title that says what is going on, and a line that says
// what to do next. `busy` adds an indicator while something is loading.
ColumnLayout {
    property string title
    property string detail
    property bool busy: false
    property bool error: false

    spacing: Theme.spacing
    BusyIndicator {
        visible: parent.busy
        running: visible
        Layout.alignment: Qt.AlignHCenter
    }
    Label {
        text: parent.title
        color: parent.error ? Theme.bad : Theme.text
        font.pixelSize: Theme.titleFont
        font.bold: true
        textFormat: Text.PlainText
        horizontalAlignment: Text.AlignHCenter
        Layout.alignment: Qt.AlignHCenter
    }
    Label {
        text: parent.detail
        visible: text.length > 0
        color: Theme.mutedText
        font.pixelSize: Theme.bodyFont
        wrapMode: Text.WordWrap
        textFormat: Text.PlainText
        horizontalAlignment: Text.AlignHCenter
        Layout.maximumWidth: 520
        Layout.alignment: Qt.AlignHCenter
    }
}
