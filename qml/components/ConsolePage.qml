// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole
import QtQuick.Controls
import QtQuick.Layouts

// The frame every page shares: a title row with optional tools on the right, then the page's
// content. `ready` turns true once the page shows what etcd holds (or its error state), which
// is when `--screenshot` takes its picture; `notReadyReason` says why it is not, if it never is.
Page {
    id: page
    property string subtitle
    property bool ready: false
    property string notReadyReason: qsTr("the page is still loading")
    // What the page shows, in numbers: --screenshot prints it as one JSON line, so a test or a
    // script can check the picture against etcd.
    property var summary: ({})
    // The window's pause: a page stops its live updates while it is set, and says how many
    // changes wait for the resume.
    property bool paused: false
    property int heldChanges: 0
    // How a refused call reads on this page: the window gives etcd's words plus what to do
    // (Connection.advice); alone, a page says etcd's words.
    property var advise: status => status.message
    // What to do when a page's data cannot be read, under etcd's words.
    readonly property string errorHint: qsTr("If the cluster is unreachable, the banner above says what to try. A \"permission denied\" "
                                             + "means this user may not read here: narrow the prefix, or connect as a user whose role allows it.")
    // F5 (Main's): read again what the page shows. A page kept current by a watch has nothing
    // to read again and keeps this one.
    function refresh() {}
    default property alias content: body.data
    property alias tools: toolRow.data

    background: Rectangle { color: Theme.window }

    header: Item {
        implicitHeight: 56
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: Theme.padding + 4
            anchors.rightMargin: Theme.padding
            spacing: Theme.spacing
            ColumnLayout {
                spacing: 0
                Label {
                    textFormat: Text.PlainText
                    text: page.title
                    color: Theme.text
                    font.pixelSize: Theme.titleFont
                    font.bold: true
                }
                Label {
                    text: page.subtitle
                    textFormat: Text.PlainText
                    visible: text.length > 0
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                }
            }
            StatePill {
                objectName: "heldNote"
                visible: page.paused
                text: page.heldChanges > 0 ? qsTr("PAUSED · %n change(s) waiting", "", page.heldChanges) : qsTr("PAUSED")
                foreground: Theme.warning
                background: Theme.warningSoft
                Layout.alignment: Qt.AlignVCenter
            }
            Item { Layout.fillWidth: true }
            RowLayout { id: toolRow; spacing: Theme.spacing }
        }
    }

    Item {
        id: body
        anchors.fill: parent
        anchors.margins: Theme.padding
        anchors.topMargin: 0
    }
}
