// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole

// The controls' colours in the dark look (Theme.dark): set on a window's palette while the look
// is dark, and the colours it had before put back when it is not, so that the light look keeps
// the style's own.
QtObject {
    id: look
    required property var palette
    // What the palette held before the first dark turn, by role.
    property var light: null

    function darkColours() {
        return {
            window: Theme.window, windowText: Theme.text, base: Theme.surface, alternateBase: Theme.window,
            text: Theme.text, button: "#2a3442", buttonText: Theme.text, brightText: "#ffffff",
            highlight: Theme.accent, highlightedText: "#0b1220", light: "#46536a", midlight: "#323d4d",
            mid: "#1a212b", dark: "#0b0f14", shadow: "#000000", toolTipBase: "#2a3441", toolTipText: Theme.text,
            placeholderText: Theme.mutedText, link: Theme.accent
        };
    }
    // Each colour group: an inactive window (a screenshot's, one behind a dialog) draws with its
    // own, and a disabled control with its muted text.
    readonly property var groups: ["active", "inactive", "disabled"]
    readonly property var textRoles: ["windowText", "text", "buttonText"]
    function apply() {
        const colours = darkColours();
        if (!light) {
            if (!Theme.dark)
                return;  // nothing to change yet
            light = {};
            for (const group of groups) {
                light[group] = {};
                for (const role of Object.keys(colours))
                    light[group][role] = String(palette[group][role]);
            }
        }
        for (const group of groups) {
            for (const role of Object.keys(colours)) {
                const darkColour = group === "disabled" && textRoles.includes(role) ? Theme.mutedText : colours[role];
                palette[group][role] = Theme.dark ? darkColour : light[group][role];
            }
        }
    }
    Component.onCompleted: apply()
    property Connections themeWatch: Connections {
        target: Theme
        function onDarkChanged() { look.apply(); }
    }
}
