// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// A screen reader can drive the console: on every page, with something on it to act on, each
// visible control (a button, a switch, a field, a list to pick from) has an accessible name in
// words, not a glyph such as "✕" or "▾", and Tab alone reaches each enabled one. A disabled
// control still tells why. The dark look
// reaches the controls' palette and the timeline's lanes, and goes back whole.
Item {
    id: root
    width: 1280
    height: 800

    Component {
        id: consoleWindow
        Main { visible: true }
    }
    EtcdClient { id: direct; endpoints: [qetcdTest.endpoint] }
    Mutex { id: holder; client: direct; path: "/qml/accessibility/locks/a"; ttl: 30 }

    TestCase {
        name: "Accessibility"
        when: windowShown

        // The console runs without an assistive technology here, so Qt never fills in the
        // accessible names; this reads them as it would. A button, a switch or a check box is named
        // by Accessible.name or else its text; a field, a list to pick from, a spin box or a slider
        // only by Accessible.name (a placeholder or the current choice says nothing of what it is).
        function kindOf(item) {
            if (item.checkable !== undefined && item.autoRepeat !== undefined)
                return "button"
            if (item.placeholderText !== undefined && item.selectByMouse !== undefined)
                return "field"
            if (item.displayText !== undefined && item.currentIndex !== undefined && item.popup !== undefined)
                return "combo box"
            if (item.from !== undefined && item.to !== undefined && item.stepSize !== undefined)
                return "range"
            return ""
        }
        function nameOf(item, kind) {
            const explicit = item.Accessible.name || ""
            return explicit.length > 0 || kind !== "button" ? explicit : (item.text || "")
        }
        property int controlsSeen: 0
        // "page: kind 'name' (objectName)" for each visible control under item without a name in words.
        function unnamedControls(item, page) {
            const found = []
            const visit = function(each) {
                if (!each.visible)
                    return
                const kind = kindOf(each)
                if (kind.length > 0) {
                    ++controlsSeen
                    const name = nameOf(each, kind)
                    if (!/[A-Za-z]{2,}/.test(name))
                        found.push(page + ": " + kind + " '" + name + "' (" + (each.objectName || each.toString())
                                   + " in " + (each.parent ? each.parent.objectName || each.parent.toString() : "nothing") + ")")
                    if (kind !== "button")
                        return  // its editor is part of it
                }
                for (let i = 0; i < each.children.length; ++i)
                    visit(each.children[i])
            }
            visit(item)
            return found
        }

        function test_everyControlHasAName() {
            qetcdTest.etcdctl(["put", "/qml/accessibility/config", "{\"mode\":\"on\"}"])
            holder.lock()
            tryCompare(holder, "held", true, qetcdTest.timeout(10000))
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint] } })
            verify(window)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            verify(window.participantsPage.addParticipant("A"))
            let unnamed = []
            for (const page of window.pages) {
                window.showPage(page.name)
                tryCompare(window, "ready", true, qetcdTest.timeout(15000), page.name + ": " + window.notReadyReason)
                unnamed = unnamed.concat(unnamedControls(window.contentItem, page.name))
            }
            holder.unlock()
            for (const line of unnamed)
                console.warn("unnamed:", line)
            verify(controlsSeen > 50, "only " + controlsSeen + " controls seen")
            compare(unnamed.length, 0, "\n" + unnamed.join("\n"))
        }

        // A disabled control gets no hover in Qt 6.4; its tooltip, often why it is disabled,
        // still shows when the pointer rests on it: here the Read-only switch under --read-only.
        function test_aDisabledControlTellsWhy() {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint], readOnly: true } })
            verify(window)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            const readOnlySwitch = findChild(window.header, "readOnlySwitch")
            verify(readOnlySwitch)
            tryCompare(readOnlySwitch, "enabled", false, qetcdTest.timeout(5000))
            const tips = findChild(window.contentItem.parent, "disabledControlTips")
            verify(tips)
            const tip = tips.tip
            compare(tip.visible, false)
            mouseMove(readOnlySwitch, readOnlySwitch.width / 2, readOnlySwitch.height / 2)
            tryCompare(tip, "visible", true, qetcdTest.timeout(5000))
            verify(tip.text.indexOf("--read-only") >= 0, tip.text)
            // Off it, the tip goes; an enabled control keeps its own tooltip.
            const pause = findChild(window.header, "pauseButton")
            mouseMove(pause, pause.width / 2, pause.height / 2)
            tryCompare(tip, "visible", false, qetcdTest.timeout(5000))
        }

        function test_darkLookAndBack() {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint] }, initialLook: "light" })
            verify(window)
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            compare(Theme.dark, false)
            const lightWindow = String(window.palette.window), lightButton = String(window.palette.button)
            const toggle = findChild(window.header, "darkButton")
            verify(toggle)
            mouseClick(toggle)
            compare(Theme.dark, true)
            compare(String(window.palette.window), String(Theme.window))
            compare(String(window.palette.text), String(Theme.text))
            verify(String(window.palette.button) !== lightButton)
            window.showPage("timeline")
            const lanes = findChild(window.currentPage, "historyLayer")
            verify(lanes)
            compare(lanes.dark, true)
            // The light look is the style's own again, not a copy of it.
            mouseClick(toggle)
            compare(Theme.dark, false)
            compare(String(window.palette.window), lightWindow)
            compare(String(window.palette.button), lightButton)
            compare(lanes.dark, false)
        }

        // Tab alone reaches every control on a page: collected by walking the focus chain from the
        // header's first control until it comes round again.
        function test_tabReachesEveryControl() {
            const window = createTemporaryObject(consoleWindow, root, { commandLine: { endpoints: [qetcdTest.endpoint] } })
            verify(window)
            window.requestActivate()
            tryVerify(function() { return window.active }, qetcdTest.timeout(5000))
            tryCompare(window, "connectionState", "Connected", qetcdTest.timeout(15000))
            for (const page of window.pages) {
                window.showPage(page.name)
                tryCompare(window, "ready", true, qetcdTest.timeout(15000), page.name + ": " + window.notReadyReason)
                const reached = []
                const start = findChild(window.header, "profileSelector")
                start.forceActiveFocus(Qt.TabFocusReason)
                for (let i = 0; i < 200; ++i) {
                    const item = window.activeFocusItem
                    if (reached.indexOf(item) >= 0)
                        break
                    reached.push(item)
                    keyClick(Qt.Key_Tab)
                }
                verify(reached.length >= 8, page.name + ": Tab went round after " + reached.length + " stops")
                const missed = []
                const visit = function(each) {
                    if (!each.visible)
                        return
                    const kind = kindOf(each)
                    if (kind.length > 0 && each.enabled && each.focusPolicy !== Qt.NoFocus) {
                        if (!reached.some(function(item) { return item === each || isAncestor(each, item) }))
                            missed.push(page.name + ": " + kind + " " + (each.objectName || nameOf(each, kind) || each.toString()))
                        if (kind !== "button")
                            return
                    }
                    for (let i = 0; i < each.children.length; ++i)
                        visit(each.children[i])
                }
                visit(window.contentItem.parent)
                for (const line of missed)
                    console.warn("missed:", line)
                compare(missed.length, 0, missed.join("\n"))
            }
        }
        function isAncestor(ancestor, item) {
            for (let each = item; each; each = each.parent) {
                if (each === ancestor)
                    return true
            }
            return false
        }
    }
}
