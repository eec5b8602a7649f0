// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QEtcdConsole

// A button that changes the cluster. Disabled on a read-only connection (the client would
// refuse the write anyway) or when `blockedReason` says why not; the tooltip tells which,
// since a disabled button gets no hover of its own.
Item {
    id: root
    property alias text: button.text
    property string toolTip
    property bool readOnly: false
    property string blockedReason
    // A quiet button inside a row (an entry's action); what it destroys is said by the dialog
    // it opens, whose confirm button is red.
    property alias flat: button.flat
    property alias font: button.font
    readonly property alias button: button
    signal clicked()

    implicitWidth: button.implicitWidth
    implicitHeight: button.implicitHeight
    activeFocusOnTab: false

    Button {
        id: button
        anchors.fill: parent
        enabled: !root.readOnly && root.blockedReason.length === 0
        onClicked: root.clicked()
        Accessible.description: hover.tip
    }
    HoverHandler {
        id: hover
        readonly property string tip: root.readOnly ? qsTr("The connection is read-only: nothing can be written")
                                                    : root.blockedReason || root.toolTip
    }
    ToolTip.visible: hover.hovered && hover.tip.length > 0
    ToolTip.text: hover.tip
    ToolTip.delay: 400
}
