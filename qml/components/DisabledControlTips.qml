// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QEtcdConsole

// Qt 6.4 gives a disabled control no hover, so its tooltip, often the very reason it is
// disabled ("go back to live to write"), would never show. Laid over the window, this finds the
// disabled control under the pointer and shows that control's ToolTip.text for it; it takes no
// clicks, and an enabled control's own tooltip is left alone.
Item {
    id: tips
    // The disabled control under the pointer whose tooltip shows; null for none.
    property Item control: null
    readonly property alias tip: tip

    // The outermost disabled control with a tooltip at (x, y) of item, looking past this overlay;
    // the topmost of overlapping ones.
    function disabledControlAt(item, x, y) {
        for (let i = item.children.length - 1; i >= 0; --i) {
            const child = item.children[i];
            if (child === tips || !child.visible)
                continue;
            const at = item.mapToItem(child, x, y);
            const inside = at.x >= 0 && at.y >= 0 && at.x < child.width && at.y < child.height;
            if (child.focusPolicy !== undefined && !child.enabled && inside)
                return child.ToolTip.text.length > 0 ? child : null;
            // An item's children may lie outside it (the window's header sits above its content
            // item) unless it clips them.
            if (child.clip && !inside)
                continue;
            // Siblings may overlap (a window's background under everything): look into each.
            const found = disabledControlAt(child, at.x, at.y);
            if (found)
                return found;
        }
        return null;
    }

    HoverHandler {
        id: hover
        onPointChanged: settle.restart()
        onHoveredChanged: if (!hovered) tips.control = null
    }
    // The walk covers the whole window: it waits for the pointer to rest.
    Timer {
        id: settle
        interval: 150
        onTriggered: {
            const position = tips.mapToItem(tips.parent, hover.point.position.x, hover.point.position.y);
            tips.control = hover.hovered ? tips.disabledControlAt(tips.parent, position.x, position.y) : null;
        }
    }
    ToolTip {
        id: tip
        readonly property point below: tips.control ? tips.control.mapToItem(tips, 0, tips.control.height + 4) : Qt.point(0, 0)
        x: below.x
        y: below.y
        visible: tips.control !== null
        delay: 400
        text: tips.control ? tips.control.ToolTip.text : ""
    }
}
