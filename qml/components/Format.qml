// SPDX-License-Identifier: Apache-2.0
pragma Singleton
import QtQuick

// How numbers read on every page: sizes in KB/MB, durations as "2m 13s", counts grouped.
QtObject {
    function bytes(n) {
        if (n === undefined || n < 0)
            return "—";
        const units = ["B", "KB", "MB", "GB", "TB"];
        let value = n;
        let unit = 0;
        while (value >= 1000 && unit < units.length - 1) {
            value /= 1000;
            ++unit;
        }
        return (unit === 0 ? value.toFixed(0) : value.toFixed(value < 10 ? 1 : 0)) + " " + units[unit];
    }
    // " (between 14:02:11 and 14:02:12, by this console's samples)": when a revision came to
    // be, as far as clock (a RevisionClock) sampled it; empty when nothing it sampled tells.
    function revisionTime(clock, revision) {
        const when = clock && clock.sampleCount > 0 ? clock.when(revision) : "";
        return when === "" ? "" : qsTr(" (%1, by this console's samples)").arg(when);
    }
    function count(n) {
        return Number(n).toLocaleString(Qt.locale("en_US"), "f", 0);
    }
    function duration(ms) {
        if (ms === undefined || ms < 0)
            return "—";
        const s = Math.floor(ms / 1000);
        if (s < 60)
            return ms < 10000 ? (ms / 1000).toFixed(1) + " s" : s + " s";
        const m = Math.floor(s / 60);
        if (m < 60)
            return m + "m " + (s % 60) + "s";
        const h = Math.floor(m / 60);
        return h + "h " + (m % 60) + "m";
    }
}
