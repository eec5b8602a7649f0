// SPDX-License-Identifier: Apache-2.0
pragma Singleton
import QtQuick

// One palette and one set of measures for every page, so the console reads as one app.
QtObject {
    readonly property int spacing: 8
    readonly property int padding: 16
    readonly property int radius: 6
    readonly property int railWidth: 176
    readonly property int headerHeight: 52

    readonly property color window: "#f4f5f7"
    readonly property color surface: "#ffffff"
    readonly property color border: "#dde1e6"
    readonly property color text: "#1d2430"
    readonly property color mutedText: "#5b6573"
    readonly property color accent: "#2563eb"
    readonly property color accentSoft: "#e0e9fd"

    readonly property color rail: "#1e2530"
    readonly property color railText: "#c9d1dc"
    readonly property color railSelected: "#2d3846"

    readonly property color good: "#15803d"
    readonly property color goodSoft: "#dcfce7"
    readonly property color warning: "#a16207"
    readonly property color warningSoft: "#fef3c7"
    readonly property color bad: "#b91c1c"
    readonly property color badSoft: "#fee2e2"
    readonly property color info: "#1d4ed8"
    readonly property color infoSoft: "#dbeafe"
    readonly property color neutral: "#475569"
    readonly property color neutralSoft: "#e2e8f0"

    // A countdown's colour by the fraction of its time left: amber under a third, red under a tenth.
    function countdownColor(fraction) {
        return fraction < 0.1 ? bad : fraction < 0.34 ? warning : good;
    }

    readonly property int smallFont: 11
    readonly property int bodyFont: 13
    readonly property int titleFont: 18
    readonly property string monoFamily: "DejaVu Sans Mono"
}
