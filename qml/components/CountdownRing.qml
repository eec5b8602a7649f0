// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Shapes
import QEtcdConsole

// Time left of a lease as a ring that empties clockwise from the top, coloured as CountdownBar
// is; the seconds left sit in its middle when it is large enough to hold them.
Item {
    id: ring
    property real remaining: 0   // seconds
    property real total: 1       // seconds
    property real thickness: 3
    readonly property real fraction: total > 0 ? Math.max(0, Math.min(1, remaining / total)) : 0
    readonly property real radius: Math.min(width, height) / 2 - thickness / 2

    implicitWidth: 28
    implicitHeight: 28

    Shape {
        anchors.fill: parent
        // The software renderer draws shapes through QPainter: antialiased already.
        ShapePath {
            strokeColor: Theme.neutralSoft
            strokeWidth: ring.thickness
            fillColor: "transparent"
            PathAngleArc {
                centerX: ring.width / 2
                centerY: ring.height / 2
                radiusX: ring.radius
                radiusY: ring.radius
                startAngle: 0
                sweepAngle: 360
            }
        }
        ShapePath {
            strokeColor: Theme.countdownColor(ring.fraction)
            strokeWidth: ring.thickness
            fillColor: "transparent"
            capStyle: ShapePath.RoundCap
            PathAngleArc {
                centerX: ring.width / 2
                centerY: ring.height / 2
                radiusX: ring.radius
                radiusY: ring.radius
                startAngle: -90
                sweepAngle: 360 * ring.fraction
            }
        }
    }
    Text {
        anchors.centerIn: parent
        visible: ring.width >= 26
        textFormat: Text.PlainText
        text: ring.remaining < 10 ? ring.remaining.toFixed(1) : Math.round(ring.remaining)
        color: Theme.text
        font.family: Qt.application.font.family
        font.pixelSize: Math.max(8, ring.width / 3.4)
    }
}
