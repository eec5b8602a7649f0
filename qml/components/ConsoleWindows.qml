// SPDX-License-Identifier: Apache-2.0
pragma Singleton
import QtQuick

// The console's other windows (Ctrl+N), one connection each: held here so that the JavaScript
// collector never takes a window that is open, and let go of when it closes.
QtObject {
    property var windows: []
    // The first window is closing, and every other with it: what they showed stays remembered.
    property bool endingAll: false

    function opened(window) {
        windows = windows.concat([window]);
    }
    function closed(window) {
        windows = windows.filter(each => each !== window);
    }
    // The profiles the other windows show, for the console to open again at its next start.
    function profiles() {
        return windows.map(each => each.connection.profileName).filter(name => name.length > 0);
    }
}
