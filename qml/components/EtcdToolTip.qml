// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls

// A tooltip that may quote etcd: the style's own renders its text as markup when it looks like
// some (see EtcdLabel). Quote each value through DisplayText.escape; the lines stay lines.
ToolTip {
    id: tip
    delay: 600
    contentItem: Text {
        text: tip.text
        textFormat: Text.PlainText
        font: tip.font
        wrapMode: Text.Wrap
        color: tip.palette.toolTipText
    }
}
