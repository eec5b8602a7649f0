// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QEtcdConsole

// What a chart's marks mean, one entry after another: a glyph ({glyph, title}: TimelineGlyphs'
// name), a swatch ({swatch: colour, border, swatchWidth, swatchHeight, title}: a line, a band,
// a bar) or a sign in text ({sign, title}). The Participants source and the History source
// each list their own.
Flow {
    id: legend
    property var entries: []
    spacing: 14

    Repeater {
        model: legend.entries
        delegate: Row {
            id: entry
            required property var modelData
            spacing: 5
            TimelineGlyph {
                visible: !!entry.modelData.glyph
                name: entry.modelData.glyph || ""
                width: 14
                height: 14
                anchors.verticalCenter: parent.verticalCenter
            }
            Rectangle {
                visible: !!entry.modelData.swatch
                width: entry.modelData.swatchWidth || 18
                height: entry.modelData.swatchHeight || 12
                color: entry.modelData.swatch || "transparent"
                border.color: entry.modelData.border || color
                anchors.verticalCenter: parent.verticalCenter
            }
            Label {
                visible: !!entry.modelData.sign
                anchors.verticalCenter: parent.verticalCenter
                textFormat: Text.PlainText
                text: entry.modelData.sign || ""
                color: Theme.text
                font.pixelSize: Theme.smallFont
                font.bold: true
            }
            Label {
                anchors.verticalCenter: parent.verticalCenter
                textFormat: Text.PlainText
                text: entry.modelData.title
                color: Theme.text
                font.pixelSize: Theme.smallFont
            }
        }
    }
}
