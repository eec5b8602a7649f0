// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcd
import QEtcdConsole

// Holders, waiters, candidates or members of a coordination object, one line each: who (the
// identity qetcd writes, or the key for tools that write none), and since when.
ColumnLayout {
    id: entries
    property string heading
    property var model: []
    property bool numbered: false
    property bool showToken: false
    // What the create revision is to this object: a hold's fencing token, a leader's term.
    property string tokenName: qsTr("token")
    property bool showValue: false  // an election's proclamation says more than its key
    property double now: Date.now()
    property string emptyText
    // LeaseModel.deadlines(): with it, an entry on a lease gets a ring for the time its lease
    // has left (a holder's, a leader's, an owner's); without, none.
    property var deadlines: null
    // An intervention on each entry (break a hold, remove a waiter): a button at the row's end,
    // none when actionText is empty. The page asks before anything is written.
    property string actionText
    property string actionToolTip
    property bool readOnly: false
    signal actionRequested(var entry)
    // A click on an entry's name (or Enter on it): show its key, value and lease on the Keys page.
    signal opened(var entry)

    spacing: 2
    Layout.fillWidth: true
    visible: model.length > 0 || emptyText.length > 0

    Label {
        textFormat: Text.PlainText
        text: entries.heading
        color: Theme.mutedText
        font.pixelSize: Theme.smallFont
        font.bold: true
    }
    Label {
        visible: entries.model.length === 0
        textFormat: Text.PlainText
        text: entries.emptyText
        color: Theme.mutedText
        font.pixelSize: Theme.bodyFont
    }
    // A new list comes with every change of the object (and of the clock): its rows live in a
    // positioner, not in this layout. Qt 6.4's layouts keep a row the Repeater removed until
    // their next polish and may measure it after it is freed (the Keys page's crash, issue 32
    // §2, fixed the same way in ValueView); a Column forgets a row the moment it leaves.
    Column {
        spacing: 2
        Layout.fillWidth: true
        Repeater {
            model: entries.model
            delegate: RowLayout {
                id: entry
                required property int index
                required property var modelData
                readonly property var deadline: entries.deadlines && modelData.lease ? entries.deadlines[modelData.lease] : undefined
                readonly property real remaining: deadline ? Math.max(0, (deadline.expiresAt - entries.now) / 1000) : 0
                width: parent.width
                spacing: Theme.spacing
                Label {
                    visible: entries.numbered
                    textFormat: Text.PlainText
                    text: (index + 1) + "."
                    color: Theme.mutedText
                    Layout.preferredWidth: 18
                }
                EtcdLabel {
                    // An election's candidate is known by its proposal: say that it was too large to read.
                    value: modelData.valueTooLarge ? (entries.showValue ? qsTr("%1 (proposal too large to read: %2)")
                                                                        : qsTr("%1 (value too large to read: %2)"))
                                                         .arg(modelData.key).arg(Format.bytes(modelData.valueTooLarge))
                        : entries.showValue && modelData.value && !modelData.clientId ? modelData.value
                        : modelData.clientId || modelData.name || modelData.key
                    objectName: "entryName"
                    color: hover.hovered || activeFocus ? Theme.accent : Theme.text
                    font.bold: !entries.numbered
                    font.underline: hover.hovered || activeFocus
                    activeFocusOnTab: true
                    Layout.fillWidth: true
                    Accessible.role: Accessible.Link
                    Accessible.name: qsTr("Open %1 on the Keys page").arg(modelData.key)
                    Accessible.onPressAction: entries.opened(entry.modelData)
                    Keys.onReturnPressed: entries.opened(entry.modelData)
                    Keys.onEnterPressed: entries.opened(entry.modelData)
                    EtcdToolTip {
                        visible: hover.hovered
                        delay: 0
                        text: qsTr("key %1\nlease %2\nvalue %3\nClick to open the key on the Keys page").arg(DisplayText.escape(modelData.key)).arg(modelData.lease || "none")
                                  .arg(modelData.valueTooLarge ? qsTr("too large to read (%1)").arg(Format.bytes(modelData.valueTooLarge))
                                                               : modelData.value ? DisplayText.escape(modelData.value) : "(empty)")
                    }
                    HoverHandler { id: hover; cursorShape: Qt.PointingHandCursor }
                    TapHandler { onTapped: entries.opened(entry.modelData) }
                    FocusRing { visible: parent.activeFocus }
                }
                EtcdLabel {
                    visible: !!modelData.host
                    value: modelData.host + (modelData.pid ? ", pid " + modelData.pid : "")
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                }
                // What the row's entry says beyond its name (a dead letter's deliveries, say).
                Label {
                    visible: !!modelData.detail
                    textFormat: Text.PlainText
                    text: modelData.detail || ""
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                }
                Label {
                    visible: entries.showToken
                    textFormat: Text.PlainText
                    text: entries.tokenName + " " + Format.count(modelData.createRevision)
                    color: Theme.mutedText
                    font.family: Theme.monoFamily
                    font.pixelSize: Theme.smallFont
                }
                CountdownRing {
                    objectName: "leaseRing"
                    visible: entry.deadline !== undefined
                    remaining: entry.remaining
                    total: entry.deadline ? entry.deadline.grantedTtl : 1
                    Layout.preferredWidth: 26
                    Layout.preferredHeight: 26
                    ToolTip.visible: ringHover.hovered
                    ToolTip.text: qsTr("Lease %1: %2 s of %3 s left until etcd deletes the key, unless it is renewed")
                                      .arg(modelData.lease).arg(entry.remaining.toFixed(1)).arg(entry.deadline ? entry.deadline.grantedTtl : 0)
                    HoverHandler { id: ringHover }
                }
                Label {
                    visible: modelData.sinceMs > 0
                    textFormat: Text.PlainText
                    text: Format.duration(entries.now - modelData.sinceMs)
                    color: Theme.mutedText
                    font.pixelSize: Theme.smallFont
                    horizontalAlignment: Text.AlignRight
                    Layout.preferredWidth: 56
                }
                WriteButton {
                    objectName: "entryAction"
                    visible: entries.actionText.length > 0
                    text: entries.actionText
                    toolTip: entries.actionToolTip
                    flat: true
                    readOnly: entries.readOnly
                    font.pixelSize: Theme.smallFont
                    Layout.preferredHeight: 26
                    onClicked: entries.actionRequested(entry.modelData)
                }
            }
        }
    }
}
