// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>

#include <QtCore/QVariantMap>

namespace QEtcd::Internal {

// One key's value the ways the console shows it, all decided here rather than in QML: the
// bytes may not be UTF-8 (a counter is 8 raw bytes), and a value read as text cannot be hexed
// back. Keys of the map:
//   size       bytes of the value
//   isText     valid UTF-8 without control characters other than tab and line ends
//   text       the value as text (invalid sequences replaced), at most a display limit
//   shownText  text with controls other than line breaks and tabs escaped, as the pane shows
//              it (DisplayText::escapeValue)
//   json       pretty-printed when the value is a JSON object or array, else empty; escaped
//              as shownText
//   hex        offset / hex / ASCII dump, at most a display limit
//   truncated  the text, JSON or hex shown stops short of the whole value
//   recipe     {title, fields: [{label, value}]} when a recipe's own encoding was recognised
//              (a counter's int64, a semaphore's permits, qetcd's identity, a service
//              instance); empty title otherwise
QVariantMap describeValue(const KeyValue &kv);

} // namespace QEtcd::Internal
