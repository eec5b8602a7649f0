// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>

#include <QtCore/QJsonObject>
#include <QtCore/QString>

#include <optional>

namespace QEtcd::Cli {

// One key-value pair as JSON: "key" and "value" as text when the bytes are valid UTF-8, else
// "key_base64" / "value_base64"; "create_revision", "mod_revision", "version"; and, when the key
// is attached to a lease, "lease" in hex (as etcdctl prints it and --lease reads it) and
// "lease_dec" as a number.
QJsonObject keyValueJson(const KeyValue &kv);
// One field the way keyValueJson() writes "key" and "value": name as text when bytes are valid
// UTF-8, else name_base64.
void insertBytes(QJsonObject *object, const QString &name, const QByteArray &bytes);

// etcd's bytes made safe to show on a terminal: control characters (C0 but line breaks and tabs
// where kept, DEL, C1), bidirectional overrides and bytes that are not UTF-8 become visible
// escapes (\x1b, \u202e), so data cannot move the cursor, retitle the window or reorder a name.
enum class LineBreaks { Keep, Escape };
QByteArray visibleControls(const QByteArray &bytes, LineBreaks lineBreaks = LineBreaks::Keep);

// A string as Go's %q writes it, as etcdctl's -w fields prints keys and values: in double
// quotes, with \n, \", \\, \x for bytes that are not UTF-8 and \u for what Go does not print.
QByteArray goQuoted(const QByteArray &bytes);
// The Go string literal that starts at text[*at], as etcdctl's txn reads keys and values: in
// double quotes with Go's escapes (\n, \", \\, \x41, \101, \u00e9, \U0001f600), or in
// backquotes taken as they are. *at then points past it; nullopt with *error saying what is wrong.
std::optional<QByteArray> goUnquoted(const QByteArray &text, qsizetype *at, QString *error);
// go-humanize's Bytes(), as etcdctl sizes a database: SI units, three significant digits at
// most ("82 B", "20 kB", "1.5 MB").
QString humanBytes(qint64 bytes);
// etcdctl's --hex: every byte as \x and two hex digits ("ab" is \x61\x62).
QByteArray hexBytes(const QByteArray &bytes);

// etcdctl's -w fields lines of a response header: "ClusterID" : 123, ... "RaftTerm" : 2.
QByteArrayList headerFieldLines(const ResponseHeader &header);

// The way etcdctl prints lease IDs: 16 hex digits.
QString leaseHex(qint64 id);
// A member or cluster ID as etcdctl prints it: hex.
QString hexId(quint64 id);

// etcdctl reads lease IDs as hex, so does qetcd: "694d7b0c0d1e0d0a" or "0x694d...". A decimal ID
// (as in "lease_dec") is written "dec:7587856238879051018". The ID must be > 0.
std::optional<qint64> parseLeaseId(const QString &text, QString *error = nullptr);

} // namespace QEtcd::Cli
