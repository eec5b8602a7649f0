// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// What a sandbox's FaultLink does to one participant's traffic, as a word, and the faults to
// put on it: Pass, Blackhole (drop everything), Delay (by some milliseconds), Reset (cut every
// connection). Hidden without a link.
ColumnLayout {
    id: controls
    property var link: null
    readonly property bool linked: link !== undefined && link !== null
    readonly property bool blackholed: linked && link.mode === FaultLink.Blackhole
    readonly property bool delayed: linked && link.mode === FaultLink.Delay
    readonly property bool resetting: linked && link.mode === FaultLink.Reset

    visible: linked
    spacing: Theme.spacing / 2
    Layout.fillWidth: true

    RowLayout {
        spacing: Theme.spacing
        Label {
            text: qsTr("Network")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
        }
        StatePill {
            objectName: "faultMode"
            text: controls.blackholed ? qsTr("BLACKHOLE")
                : controls.delayed ? qsTr("DELAY %1 ms").arg(controls.link.delayMs)
                : controls.resetting ? qsTr("RESET")
                : qsTr("PASS")
            foreground: controls.blackholed ? Theme.bad : controls.delayed || controls.resetting ? Theme.warning : Theme.good
            background: controls.blackholed ? Theme.badSoft : controls.delayed || controls.resetting ? Theme.warningSoft : Theme.goodSoft
        }
    }
    // One grid whose columns share the card's width evenly (equal preferred widths), so that
    // the buttons line up with the card's other lines and Delay sits under Reset.
    GridLayout {
        columns: 3
        columnSpacing: Theme.spacing / 2
        rowSpacing: Theme.spacing / 2
        Layout.fillWidth: true
        Button {
            objectName: "pass"
            text: qsTr("Pass")
            onClicked: controls.link.pass()
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Let the participant's traffic through again")
        }
        Button {
            objectName: "blackhole"
            text: qsTr("Blackhole")
            onClicked: controls.link.blackhole()
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Drop everything between the participant and the cluster: a partition")
        }
        Button {
            objectName: "reset"
            text: qsTr("Reset")
            onClicked: controls.link.reset()
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Cut every connection the participant has open")
        }
        SpinBox {
            id: delayMs
            objectName: "delayMs"
            Accessible.name: qsTr("Delay in milliseconds")
            from: 10
            to: 60000
            stepSize: 100
            value: 500
            editable: true
            Layout.columnSpan: 2
            Layout.fillWidth: true
            Layout.preferredWidth: 2
        }
        Button {
            objectName: "delay"
            text: qsTr("Delay (ms)")
            onClicked: controls.link.delay(delayMs.value)
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("Hold every packet back by this many milliseconds")
        }
    }
}
