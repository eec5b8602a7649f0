import QtQuick
import QtQuick.Shapes
import QEtcdConsole

// Time left of a lease as a ring with the seconds in its middle.
Item {
    id: ring
    property real remaining: 0   // seconds
    property real total: 1       // seconds
    readonly property real fraction: total > 0 ? Math.max(0, Math.min(1, remaining / total)) : 0
    readonly property color tint: fraction < 0.1 ? Theme.bad : fraction < 0.34 ? Theme.warning : Theme.good

    implicitWidth: 44
    implicitHeight: 44

    Shape {
        anchors.fill: parent
        preferredRendererType: Shape.CurveRenderer
        ShapePath {
            strokeColor: Theme.neutralSoft
            strokeWidth: 4
            fillColor: "transparent"
            PathAngleArc {
                centerX: ring.width / 2; centerY: ring.height / 2
                radiusX: ring.width / 2 - 3; radiusY: ring.height / 2 - 3
                startAngle: 0; sweepAngle: 360
            }
        }
        ShapePath {
            strokeColor: ring.tint
            strokeWidth: 4
            fillColor: "transparent"
            capStyle: ShapePath.RoundCap
            PathAngleArc {
                centerX: ring.width / 2; centerY: ring.height / 2
                radiusX: ring.width / 2 - 3; radiusY: ring.height / 2 - 3
                startAngle: -90; sweepAngle: 360 * ring.fraction
            }
        }
    }
    Text {
        anchors.centerIn: parent
        text: ring.remaining >= 10 ? Math.floor(ring.remaining) + "s" : ring.remaining.toFixed(1) + "s"
        color: Theme.text
        font.pixelSize: 10
        font.bold: true
    }
}
