// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Two values of a key side by side, the older on the left: a removed line only on the left, an
// added one only on the right, each with its sign as well as its colour (colour alone does not
// reach everyone, nor a monochrome screenshot).
ColumnLayout {
    id: view
    property alias before: diff.before
    property alias after: diff.after
    property string beforeTitle
    property string afterTitle
    readonly property alias model: diff

    spacing: 4
    ValueDiffModel { id: diff }

    RowLayout {
        spacing: Theme.spacing
        Layout.fillWidth: true
        Label {
            textFormat: Text.PlainText
            text: view.beforeTitle
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            elide: Text.ElideRight
            Layout.preferredWidth: 1
            Layout.fillWidth: true
        }
        Label {
            textFormat: Text.PlainText
            text: view.afterTitle
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            elide: Text.ElideRight
            Layout.preferredWidth: 1
            Layout.fillWidth: true
        }
    }
    Label {
        objectName: "diffSummary"
        textFormat: Text.PlainText
        text: diff.added + diff.removed === 0 ? qsTr("No difference") + (diff.json ? qsTr(" (compared as JSON, keys sorted)") : "")
            : qsTr("%1 lines removed (\u2212), %2 added (+)").arg(diff.removed).arg(diff.added)
              + (diff.json ? qsTr(" — compared as JSON, keys sorted") : "")
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
    }
    Rectangle {
        color: Theme.surface
        border.color: Theme.border
        radius: Theme.radius
        Layout.fillWidth: true
        Layout.fillHeight: true
        Layout.minimumHeight: 80

        ListView {
            id: lines
            objectName: "diffLines"
            anchors.fill: parent
            anchors.margins: 1
            clip: true
            model: diff
            boundsBehavior: Flickable.StopAtBounds
            ScrollBar.vertical: ScrollBar {}

            delegate: Row {
                id: line
                required property string kind
                required property string sign
                required property string text
                required property int oldLine
                required property int newLine
                width: ListView.view.width
                Repeater {
                    // The left half shows the old side of the line, the right half the new.
                    model: [{ shown: line.kind !== "added", number: line.oldLine, tint: Theme.badSoft },
                            { shown: line.kind !== "removed", number: line.newLine, tint: Theme.goodSoft }]
                    Rectangle {
                        required property var modelData
                        width: line.width / 2
                        height: Math.max(lineText.implicitHeight, 18)
                        color: !modelData.shown ? Theme.window : line.kind === "same" ? "transparent" : modelData.tint
                        Row {
                            visible: modelData.shown
                            spacing: 4
                            x: 4
                            Label {
                                textFormat: Text.PlainText
                                text: modelData.number
                                color: Theme.mutedText
                                font.family: Theme.monoFamily
                                font.pixelSize: Theme.smallFont
                                horizontalAlignment: Text.AlignRight
                                width: 32
                            }
                            Label {
                                textFormat: Text.PlainText
                                text: line.sign
                                color: line.kind === "removed" ? Theme.bad : line.kind === "added" ? Theme.good : Theme.mutedText
                                font.family: Theme.monoFamily
                                font.bold: true
                                width: 10
                            }
                            Label {
                                id: lineText
                                textFormat: Text.PlainText
                                text: line.text
                                color: Theme.text
                                font.family: Theme.monoFamily
                                font.pixelSize: Theme.bodyFont - 1
                                wrapMode: Text.WrapAnywhere
                                width: line.width / 2 - 60
                            }
                        }
                    }
                }
            }
        }
    }
}
