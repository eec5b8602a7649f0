import QtQuick
import QtQuick.Controls
import QEtcdConsole

// What the chart's marks mean: each glyph the log has so far, by name, then the lease line, the
// bands and the loss bracket.
Flow {
    id: legend
    required property TimelineModel timeline
    spacing: 14

    Repeater {
        model: legend.timeline.legendGlyphs
        delegate: Row {
            required property string modelData
            spacing: 5
            TimelineGlyph {
                name: parent.modelData
                width: 14
                height: 14
                anchors.verticalCenter: parent.verticalCenter
            }
            Label {
                anchors.verticalCenter: parent.verticalCenter
                textFormat: Text.PlainText
                text: legend.timeline.glyphTitle(parent.modelData)
                color: Theme.text
                font.pixelSize: Theme.smallFont
            }
        }
    }
    Row {
        spacing: 5
        Rectangle {
            width: 18
            height: 2
            color: "#3b82f6"
            anchors.verticalCenter: parent.verticalCenter
        }
        Label {
            text: qsTr("lease time left, 0 to TTL")
            color: Theme.text
            font.pixelSize: Theme.smallFont
        }
    }
    Row {
        spacing: 5
        Rectangle {
            width: 18
            height: 12
            color: Qt.rgba(Theme.bad.r, Theme.bad.g, Theme.bad.b, 0.11)
            border.color: Theme.bad
            anchors.verticalCenter: parent.verticalCenter
        }
        Label {
            text: qsTr("fault or outage, named in its band")
            color: Theme.text
            font.pixelSize: Theme.smallFont
        }
    }
    Row {
        spacing: 5
        Label {
            text: "|\u2190 s \u2192|"
            color: Theme.text
            font.pixelSize: Theme.smallFont
            font.bold: true
        }
        Label {
            text: qsTr("how long before etcd deleted the key its participant knew it was lost")
            color: Theme.text
            font.pixelSize: Theme.smallFont
        }
    }
}
