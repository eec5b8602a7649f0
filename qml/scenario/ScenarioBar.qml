import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// The narrator of a running scenario: which step, what happens now, what it waits for, and the
// buttons to go on. Shown while a scenario runs or has just ended.
Rectangle {
    id: bar
    required property Scenario scenario

    readonly property bool running: scenario.state === Scenario.Acting || scenario.state === Scenario.Ready
    readonly property bool ended: scenario.state === Scenario.Finished || scenario.state === Scenario.Failed
    readonly property color tone: scenario.state === Scenario.Failed ? Theme.bad
                                 : scenario.state === Scenario.Finished ? Theme.good : Theme.info

    visible: running || ended
    implicitHeight: content.implicitHeight + 2 * Theme.spacing
    radius: Theme.radius
    color: scenario.state === Scenario.Failed ? Theme.badSoft
         : scenario.state === Scenario.Finished ? Theme.goodSoft : Theme.infoSoft
    border.color: tone

    RowLayout {
        id: content
        anchors.fill: parent
        anchors.leftMargin: Theme.padding
        anchors.rightMargin: Theme.spacing
        spacing: Theme.padding

        ColumnLayout {
            spacing: 2
            Layout.preferredWidth: 190
            Label {
                text: bar.scenario.title
                font.bold: true
                color: bar.tone
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            Label {
                objectName: "scenarioProgress"
                text: bar.scenario.state === Scenario.Finished ? qsTr("Done, all %1 steps").arg(bar.scenario.stepCount)
                    : bar.scenario.state === Scenario.Failed ? qsTr("Failed")
                    : qsTr("Step %1 of %2").arg(bar.scenario.step + 1).arg(bar.scenario.stepCount)
                color: Theme.mutedText
                font.pixelSize: Theme.smallFont
            }
        }
        ColumnLayout {
            spacing: 2
            Layout.fillWidth: true
            Label {
                objectName: "scenarioNarration"
                text: bar.scenario.state === Scenario.Failed ? bar.scenario.errorString : bar.scenario.narration
                color: Theme.text
                wrapMode: Text.Wrap
                textFormat: Text.PlainText
                Layout.fillWidth: true
            }
            RowLayout {
                visible: bar.scenario.state === Scenario.Acting
                spacing: 6
                BusyIndicator {
                    running: parent.visible
                    Layout.preferredWidth: 16
                    Layout.preferredHeight: 16
                }
                Label {
                    text: qsTr("Waiting for: %1").arg(bar.scenario.awaiting)
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                    Layout.fillWidth: true
                    elide: Text.ElideRight
                }
            }
        }
        Button {
            objectName: "scenarioNext"
            visible: bar.running
            text: qsTr("Next \u25B8")
            enabled: bar.scenario.state === Scenario.Ready && !bar.scenario.autoplay
            onClicked: bar.scenario.next()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Do the next step")
            ToolTip.delay: 600
        }
        CheckBox {
            objectName: "scenarioAutoplay"
            visible: bar.running
            text: qsTr("Auto-play")
            checked: bar.scenario.autoplay
            onToggled: bar.scenario.autoplay = checked
        }
        Button {
            visible: bar.ended
            text: qsTr("Run again")
            onClicked: bar.scenario.start()
        }
        ToolButton {
            text: "\u2715"
            onClicked: bar.scenario.stop()
            ToolTip.visible: hovered
            ToolTip.text: bar.running ? qsTr("Stop the scenario; its participants let go of what they hold")
                                      : qsTr("Close")
            Accessible.name: qsTr("Stop the scenario")
        }
    }
}
