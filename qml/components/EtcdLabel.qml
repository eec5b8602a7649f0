// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QEtcd

// A label for what etcd holds (a key, a holder's name, a proclamation) or a line that quotes it.
// Anyone who may write one key would otherwise reach every console that shows it: a Label's
// default AutoText renders `<img src=…>` as markup and fetches the URL, `<b>` fakes emphasis,
// and a bidirectional control reorders the line. Here the text is plain, controls and bytes that
// are not UTF-8 are written as escapes (DisplayText.escape), and a long value is elided in the
// middle, where keys differ. Set `value`, never `text`.
Label {
    property string value
    text: DisplayText.escape(value)
    textFormat: Text.PlainText
    elide: Text.ElideMiddle
}
