// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A line across a pane that must be read: an alarm, a write etcd refused. The text says what
// happened and what to do; the colour only repeats whether it is bad news.
Rectangle {
    id: banner
    property string text
    property bool bad: true
    // Good news (a check that passed): neither bad nor a warning.
    property bool good: false
    // Shown when set: the banner can be put away once read.
    property bool dismissable: false
    // Buttons that fix what the banner says, on its right.
    default property alias actions: actionRow.data
    signal dismissed()

    visible: text.length > 0
    implicitHeight: row.implicitHeight + 2 * Theme.spacing
    radius: Theme.radius
    color: bad ? Theme.badSoft : good ? Theme.goodSoft : Theme.warningSoft
    border.color: bad ? Theme.bad : good ? Theme.good : Theme.warning

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.leftMargin: Theme.padding
        anchors.rightMargin: Theme.spacing
        spacing: Theme.spacing
        Label {
            text: banner.text
            color: banner.bad ? Theme.bad : banner.good ? Theme.good : Theme.warning
            font.bold: true
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            Layout.fillWidth: true
        }
        RowLayout { id: actionRow; spacing: Theme.spacing }
        ToolButton {
            visible: banner.dismissable
            text: "\u2715"
            onClicked: banner.dismissed()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Dismiss")
            Accessible.name: qsTr("Dismiss")
        }
    }
}
