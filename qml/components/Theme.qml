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

    // Dark or light: Main sets it from the system's palette at start, and the header's switch
    // turns it over. Every colour below has both, chosen for the same contrast on its surface.
    property bool dark: false

    readonly property color window: dark ? "#0f141b" : "#f4f5f7"
    readonly property color surface: dark ? "#19202a" : "#ffffff"
    readonly property color border: dark ? "#2e3846" : "#dde1e6"
    readonly property color text: dark ? "#e6eaf0" : "#1d2430"
    readonly property color mutedText: dark ? "#9aa5b4" : "#5b6573"
    readonly property color accent: dark ? "#6b9cff" : "#2563eb"
    readonly property color accentSoft: dark ? "#1e2d4d" : "#e0e9fd"

    readonly property color rail: dark ? "#0a0e13" : "#1e2530"
    readonly property color railText: "#c9d1dc"
    readonly property color railSelected: dark ? "#1f2835" : "#2d3846"

    readonly property color good: dark ? "#4ade80" : "#15803d"
    readonly property color goodSoft: dark ? "#143322" : "#dcfce7"
    readonly property color warning: dark ? "#fbbf24" : "#a16207"
    readonly property color warningSoft: dark ? "#3a2e0f" : "#fef3c7"
    readonly property color bad: dark ? "#f87171" : "#b91c1c"
    readonly property color badSoft: dark ? "#3d1717" : "#fee2e2"
    readonly property color info: dark ? "#60a5fa" : "#1d4ed8"
    readonly property color infoSoft: dark ? "#172a46" : "#dbeafe"
    readonly property color neutral: dark ? "#94a3b8" : "#475569"
    readonly property color neutralSoft: dark ? "#263140" : "#e2e8f0"
    // The timeline's lanes and grid.
    readonly property color stripe: dark ? "#19202a" : "#ffffff"
    readonly property color alternateStripe: dark ? "#1d2530" : "#f8f9fb"
    readonly property color grid: dark ? "#2e3846" : "#e4e7ec"

    // A countdown's colour by the fraction of its time left: amber under a third, red under a tenth.
    function countdownColor(fraction) {
        return fraction < 0.1 ? bad : fraction < 0.34 ? warning : good;
    }

    readonly property int smallFont: 11
    readonly property int bodyFont: 13
    readonly property int titleFont: 18
    readonly property string monoFamily: "DejaVu Sans Mono"
}
