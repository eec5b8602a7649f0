// SPDX-License-Identifier: Apache-2.0
#include "keyfile_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace QEtcd::Internal {

namespace KeyFileText {
// Numbers are written as text, not through QJsonValue: cluster and member IDs and lease IDs
// exceed a double's 53 bits.
// Its zero fields left out, as Go leaves them: the header of an answer inside a transaction
// carries the revision alone.
QByteArray header(const ResponseHeader &header)
{
    QByteArrayList fields;
    for (const auto &[name, value] : {std::pair{"cluster_id", header.clusterId}, std::pair{"member_id", header.memberId},
                                      std::pair{"revision", quint64(header.revision)}, std::pair{"raft_term", header.raftTerm}}) {
        if (value != 0)
            fields.append('"' + QByteArray(name) + "\":" + QByteArray::number(value));
    }
    return '{' + fields.join(',') + '}';
}

// etcdctl's field order, and its omissions: no "value" for an empty one, no "lease" for none.
QByteArray keyValue(const KeyValue &kv)
{
    QByteArray text = "{\"key\":\"" + kv.key.toBase64() + "\",\"create_revision\":" + QByteArray::number(kv.createRevision)
        + ",\"mod_revision\":" + QByteArray::number(kv.modRevision) + ",\"version\":" + QByteArray::number(kv.version);
    if (!kv.value.isEmpty())
        text += ",\"value\":\"" + kv.value.toBase64() + '"';
    if (kv.lease != 0)
        text += ",\"lease\":" + QByteArray::number(kv.lease);
    return text + '}';
}
} // namespace KeyFileText

namespace {
// The first line, to tell the shapes apart: a header line is far shorter.
constexpr qint64 firstLinePeek = 4096;

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
} // namespace

Status KeyFileReader::open(const QString &fileName)
{
    m_file.setFileName(fileName);
    if (!m_file.open(QIODevice::ReadOnly)) {
        m_status = Status(StatusCode::InvalidArgument, QStringLiteral("cannot open %1: %2").arg(fileName, m_file.errorString()));
        return m_status;
    }
    const QByteArray start = m_file.peek(firstLinePeek);
    const qsizetype newline = start.indexOf('\n');
    const QJsonObject firstLine = QJsonDocument::fromJson(newline < 0 ? start : start.left(newline)).object();
    if (firstLine.contains(QLatin1String("header")) && !firstLine.contains(QLatin1String("kvs"))) {
        m_shape = KeyFileShape::JsonLines;
        m_file.readLine();
        ++m_line;
        return m_status;
    }
    if (!firstLine.isEmpty() && !firstLine.contains(QLatin1String("kvs")) && !firstLine.contains(QLatin1String("count"))) {
        fail(QStringLiteral("expected a header ({\"header\":...}) first: a key file starts with one, in either shape"));
        return m_status;
    }
    m_shape = KeyFileShape::Etcdctl;
    if (skipSpace())
        expect('{');
    return m_status;
}

bool KeyFileReader::next(KeyValue *kv)
{
    if (!m_status || m_done)
        return false;
    QByteArray text;
    int line = m_line;
    if (m_shape == KeyFileShape::JsonLines) {
        do {
            if (m_file.atEnd()) {
                m_done = true;
                return false;
            }
            line = m_line++;
            text = m_file.readLine().trimmed();
        } while (text.isEmpty());
    } else if (!nextInDocument(&text, &line)) {
        return false;
    }
    ++m_entries;
    return parseEntry(text, line, kv);
}

bool KeyFileReader::fail(const QString &what)
{
    m_status = Status(StatusCode::InvalidArgument, QStringLiteral("%1 line %2: %3").arg(m_file.fileName()).arg(m_line).arg(what));
    return false;
}

bool KeyFileReader::getChar(char *c)
{
    if (!m_file.getChar(c))
        return fail(QStringLiteral("the file ends in the middle of etcdctl's document (truncated?)"));
    if (*c == '\n')
        ++m_line;
    return true;
}

bool KeyFileReader::skipSpace()
{
    char c = 0;
    do {
        if (!getChar(&c))
            return false;
    } while (isJsonSpace(c));
    m_file.ungetChar(c);
    return true;
}

bool KeyFileReader::expect(char expected)
{
    char c = 0;
    if (!skipSpace() || !getChar(&c))
        return false;
    if (c != expected)
        return fail(QStringLiteral("expected '%1', found '%2'").arg(QString(QLatin1Char(expected)), QString(QLatin1Char(c))));
    return true;
}

bool KeyFileReader::scanValue(QByteArray *text)
{
    text->clear();
    char c = 0;
    if (!skipSpace() || !getChar(&c))
        return false;
    text->append(c);
    if (c != '{' && c != '[' && c != '"') {
        while (m_file.getChar(&c)) {
            if (c == ',' || c == ']' || c == '}' || isJsonSpace(c)) {
                m_file.ungetChar(c);
                break;
            }
            text->append(c);
        }
        return true;
    }
    int depth = c == '"' ? 0 : 1;
    bool inString = c == '"';
    while (getChar(&c)) {
        text->append(c);
        if (inString) {
            if (c == '\\') {
                if (!getChar(&c))
                    return false;
                text->append(c);
            } else if (c == '"') {
                inString = false;
                if (depth == 0)
                    return true;
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return true;
        }
    }
    return false;
}

bool KeyFileReader::readMemberName(QByteArray *name)
{
    QByteArray text;
    if (!scanValue(&text))
        return false;
    if (!text.startsWith('"'))
        return fail(QStringLiteral("expected a field name in quotes, found %1").arg(QString::fromUtf8(text.left(40))));
    *name = text.mid(1, text.size() - 2);
    return expect(':');
}

bool KeyFileReader::nextInDocument(QByteArray *text, int *line)
{
    char c = 0;
    for (;;) {
        if (!skipSpace() || !getChar(&c))
            return false;
        if (m_inKvs) {
            if (c == ']') {
                m_inKvs = false;
                continue;
            }
            if (m_entries > 0) {
                if (c != ',')
                    return fail(QStringLiteral("expected ',' or ']' after entry %1 of \"kvs\"").arg(m_entries));
                if (!skipSpace())
                    return false;
            } else {
                m_file.ungetChar(c);
            }
            *line = m_line;
            return scanValue(text);
        }
        if (c == '}') {
            QByteArray rest = m_file.read(firstLinePeek).trimmed();
            if (!rest.isEmpty())
                return fail(QStringLiteral("text after the end of etcdctl's document"));
            if (m_declaredCount >= 0 && m_declaredCount != m_entries) {
                return fail(QStringLiteral("the document says \"count\":%1 but holds %2 keys").arg(m_declaredCount).arg(m_entries));
            }
            m_done = true;
            return false;
        }
        if (c != ',')
            m_file.ungetChar(c);
        QByteArray name;
        if (!readMemberName(&name))
            return false;
        if (name == "kvs") {
            if (!expect('['))
                return false;
            m_inKvs = true;
            continue;
        }
        QByteArray value;
        if (!scanValue(&value))
            return false;
        if (name == "count") {
            bool ok = false;
            m_declaredCount = value.toLongLong(&ok);
            if (!ok)
                return fail(QStringLiteral("\"count\" is not a number: %1").arg(QString::fromUtf8(value.left(40))));
        }
    }
}

bool KeyFileReader::parseEntry(const QByteArray &text, int line, KeyValue *kv)
{
    const auto bad = [&](const QString &what) {
        m_status = Status(StatusCode::InvalidArgument,
                          QStringLiteral("%1 line %2, entry %3: %4").arg(m_file.fileName()).arg(line).arg(m_entries).arg(what));
        return false;
    };
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError)
        return bad(QStringLiteral("not JSON (%1 at offset %2)").arg(error.errorString()).arg(error.offset));
    if (!document.isObject())
        return bad(QStringLiteral("expected an object {\"key\":...}"));
    const QJsonObject object = document.object();
    const auto bytes = [&](const char *field, QByteArray *out) {
        const QJsonValue value = object.value(QLatin1String(field));
        out->clear();
        if (value.isUndefined())
            return true;
        if (!value.isString())
            return bad(QStringLiteral("\"%1\" is not a string").arg(QLatin1String(field)));
        auto decoded = QByteArray::fromBase64Encoding(value.toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return bad(QStringLiteral("\"%1\" is not base64").arg(QLatin1String(field)));
        *out = std::move(decoded.decoded);
        return true;
    };
    const auto number = [&](const char *field, qint64 *out) {
        const QJsonValue value = object.value(QLatin1String(field));
        *out = 0;
        if (value.isUndefined())
            return true;
        if (!value.isDouble() || value.toInteger(-1) < 0)
            return bad(QStringLiteral("\"%1\" is not a whole number >= 0").arg(QLatin1String(field)));
        *out = value.toInteger();
        return true;
    };
    if (!object.contains(QLatin1String("key")))
        return bad(QStringLiteral("no \"key\""));
    *kv = KeyValue();
    if (!bytes("key", &kv->key) || !bytes("value", &kv->value) || !number("create_revision", &kv->createRevision)
        || !number("mod_revision", &kv->modRevision) || !number("version", &kv->version) || !number("lease", &kv->lease))
        return false;
    if (kv->key.isEmpty())
        return bad(QStringLiteral("the key is empty"));
    return true;
}

} // namespace QEtcd::Internal
