// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole

// Time left of a lease as a bar: full at its granted TTL, amber under a third, red under a tenth.
Rectangle {
    property real remaining: 0   // seconds
    property real total: 1       // seconds
    readonly property real fraction: total > 0 ? Math.max(0, Math.min(1, remaining / total)) : 0

    implicitHeight: 8
    radius: height / 2
    color: Theme.neutralSoft
    Rectangle {
        width: parent.width * parent.fraction
        height: parent.height
        radius: parent.radius
        color: Theme.countdownColor(parent.fraction)
    }
}
