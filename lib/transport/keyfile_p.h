// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QFile>
#include <QtCore/QString>

namespace QEtcd::Internal {

// The two shapes of a key file (see KeyExport). Both carry etcdctl's `get -w json` fields: keys
// and values in base64, revisions and leases as numbers, "value" and "lease" left out when empty.
enum class KeyFileShape {
    Etcdctl,    // one document {"header":{...},"kvs":[{...},...],"count":N}, one key a line
    JsonLines   // a header line {"header":{...},"prefix":"<base64>"}, then one key a line
};

// The text the writer puts in a file, piece by piece, so that a file is written as keys arrive.
// The qetcd CLI prints its -w json with them too, as etcdctl's get, put and del print theirs.
namespace KeyFileText {
QETCD_INTERNAL_EXPORT QByteArray header(const ResponseHeader &header);
QETCD_INTERNAL_EXPORT QByteArray keyValue(const KeyValue &kv);
} // namespace KeyFileText

// Reads the keys of a file of either shape one at a time, never the whole file at once, and
// says what is wrong with it (naming the line and the entry) rather than guessing.
class KeyFileReader
{
public:
    Status open(const QString &fileName);
    // The next key; false at the end of the file or on a fault, which status() then names.
    bool next(KeyValue *kv);
    Status status() const { return m_status; }
    KeyFileShape shape() const { return m_shape; }
    // How many keys were read so far.
    qint64 entries() const { return m_entries; }

private:
    bool fail(const QString &what);
    bool skipSpace();
    bool expect(char c);
    // The raw text of the next JSON value, from the current position.
    bool scanValue(QByteArray *text);
    bool readMemberName(QByteArray *name);
    // Reads the etcdctl document up to its next key, or to its end.
    bool nextInDocument(QByteArray *text, int *line);
    bool parseEntry(const QByteArray &text, int line, KeyValue *kv);
    bool getChar(char *c);

    QFile m_file;
    Status m_status;
    KeyFileShape m_shape = KeyFileShape::Etcdctl;
    qint64 m_entries = 0;
    qint64 m_declaredCount = -1;
    int m_line = 1;
    bool m_inKvs = false;
    bool m_done = false;
};

} // namespace QEtcd::Internal
