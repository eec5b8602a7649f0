// SPDX-License-Identifier: Apache-2.0
#include "kvformat.h"

#include <QtCore/QStringDecoder>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace QEtcd::Cli {

void insertBytes(QJsonObject *object, const QString &name, const QByteArray &bytes)
{
    // Kept byte for byte: a BOM stays a character rather than being swallowed.
    QStringDecoder decoder(QStringDecoder::Utf8,
                           QStringDecoder::Flag::Stateless | QStringDecoder::Flag::ConvertInitialBom);
    const QString text = decoder(bytes);
    if (decoder.hasError())
        object->insert(name + QLatin1String("_base64"), QString::fromLatin1(bytes.toBase64()));
    else
        object->insert(name, text);
}

namespace {
// The length of the UTF-8 sequence at bytes[at] and its code point; 0 when it is not one.
int utf8Sequence(const QByteArray &bytes, qsizetype at, char32_t *codePoint)
{
    const auto byte = [&](qsizetype i) { return uchar(bytes[i]); };
    const uchar lead = byte(at);
    int length = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 0;
    if (length == 0 || at + length > bytes.size())
        return 0;
    char32_t value = length == 1 ? lead : lead & (0x7F >> length);
    for (int i = 1; i < length; ++i) {
        if ((byte(at + i) & 0xC0) != 0x80)
            return 0;
        value = (value << 6) | (byte(at + i) & 0x3F);
    }
    static constexpr char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (value < smallest[length] || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        return 0;  // overlong, out of range, a surrogate
    *codePoint = value;
    return length;
}

bool isBidiControl(char32_t c)
{
    return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}
} // namespace

QByteArray visibleControls(const QByteArray &bytes, LineBreaks lineBreaks)
{
    QByteArray shown;
    shown.reserve(bytes.size());
    for (qsizetype at = 0; at < bytes.size();) {
        char32_t c = 0;
        const int length = utf8Sequence(bytes, at, &c);
        if (length == 0) {
            shown += "\\x" + QByteArray::number(uchar(bytes[at]), 16).rightJustified(2, '0');
            ++at;
            continue;
        }
        const bool kept = lineBreaks == LineBreaks::Keep && (c == '\n' || c == '\t');
        if (!kept && (c < 0x20 || c == 0x7F))
            shown += "\\x" + QByteArray::number(uint(c), 16).rightJustified(2, '0');
        else if ((c >= 0x80 && c <= 0x9F) || isBidiControl(c))
            shown += "\\u" + QByteArray::number(uint(c), 16).rightJustified(4, '0');
        else
            shown += bytes.mid(at, length);
        at += length;
    }
    return shown;
}

QByteArray goQuoted(const QByteArray &bytes)
{
    QByteArray quoted = "\"";
    const auto escaped = [](const char *prefix, uint value, int digits) {
        return prefix + QByteArray::number(value, 16).rightJustified(digits, '0');
    };
    for (qsizetype at = 0; at < bytes.size();) {
        char32_t c = 0;
        const int length = utf8Sequence(bytes, at, &c);
        if (length == 0) {
            quoted += escaped("\\x", uchar(bytes[at]), 2);
            ++at;
            continue;
        }
        static constexpr std::pair<char32_t, const char *> named[] = {
            {'\a', "\\a"}, {'\b', "\\b"}, {'\f', "\\f"}, {'\n', "\\n"}, {'\r', "\\r"},
            {'\t', "\\t"}, {'\v', "\\v"}, {'"', "\\\""}, {'\\', "\\\\"}};
        const auto name = std::find_if(std::begin(named), std::end(named), [&](const auto &n) { return n.first == c; });
        // Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
        const bool printable = c == ' ' || (c > ' ' && QChar::isPrint(c) && QChar::category(c) != QChar::Separator_Space);
        if (name != std::end(named))
            quoted += name->second;
        else if (printable)
            quoted += bytes.mid(at, length);
        else if (c < 0x80)
            quoted += escaped("\\x", uint(c), 2);
        else if (c < 0x10000)
            quoted += escaped("\\u", uint(c), 4);
        else
            quoted += escaped("\\U", uint(c), 8);
        at += length;
    }
    return quoted + '"';
}

std::optional<QByteArray> goUnquoted(const QByteArray &text, qsizetype *at, QString *error)
{
    const qsizetype start = *at;
    if (start >= text.size() || (text[start] != '"' && text[start] != '`')) {
        *error = QStringLiteral("a quoted string was expected at \"%1\"").arg(QString::fromUtf8(text.mid(start)));
        return std::nullopt;
    }
    const char quote = text[start];
    QByteArray bytes;
    qsizetype i = start + 1;
    const auto digits = [&](int count, int base, uint *value) {
        bool ok = i + count <= text.size();
        if (ok)
            *value = text.mid(i, count).toUInt(&ok, base);
        i += count;
        return ok;
    };
    while (i < text.size() && text[i] != quote) {
        if (quote == '`' || text[i] != '\\') {
            bytes += text[i++];
            continue;
        }
        if (++i >= text.size())
            break;
        const char escape = text[i++];
        static const QByteArray named = "abfnrtv\\\"'";
        static const QByteArray meaning = "\a\b\f\n\r\t\v\\\"'";
        uint value = 0;
        if (const qsizetype n = named.indexOf(escape); n >= 0) {
            bytes += meaning[n];
        } else if (escape == 'x' && digits(2, 16, &value)) {
            bytes += char(value);
        } else if (escape >= '0' && escape <= '7' && (--i, digits(3, 8, &value)) && value < 256) {
            bytes += char(value);
        } else if ((escape == 'u' && digits(4, 16, &value)) || (escape == 'U' && digits(8, 16, &value))) {
            const char32_t rune = value;
            bytes += QString::fromUcs4(&rune, 1).toUtf8();
        } else {
            *error = QStringLiteral("%1 has an escape Go does not read at \\%2").arg(QString::fromUtf8(text.mid(start)), QChar::fromLatin1(escape));
            return std::nullopt;
        }
    }
    if (i >= text.size()) {
        *error = QStringLiteral("%1 has no closing %2").arg(QString::fromUtf8(text.mid(start)), QChar::fromLatin1(quote));
        return std::nullopt;
    }
    *at = i + 1;
    return bytes;
}

QString humanBytes(qint64 bytes)
{
    if (bytes < 10)
        return QStringLiteral("%1 B").arg(bytes);
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    const int exponent = int(std::floor(std::log(double(bytes)) / std::log(1000.0)));
    const double value = std::floor(double(bytes) / std::pow(1000.0, exponent) * 10 + 0.5) / 10;
    // printf rounds an exact half to even, as Go's fmt does ("20.5" is "20").
    char text[32];
    std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, units[exponent]);
    return QString::fromLatin1(text);
}

QByteArray hexBytes(const QByteArray &bytes)
{
    QByteArray shown;
    const QByteArray digits = bytes.toHex();
    for (qsizetype i = 0; i < digits.size(); i += 2)
        shown += "\\x" + digits.mid(i, 2);
    return shown;
}

QJsonObject keyValueJson(const KeyValue &kv)
{
    QJsonObject object{
        {QLatin1String("create_revision"), kv.createRevision},
        {QLatin1String("mod_revision"), kv.modRevision},
        {QLatin1String("version"), kv.version},
    };
    insertBytes(&object, QStringLiteral("key"), kv.key);
    insertBytes(&object, QStringLiteral("value"), kv.value);
    if (kv.lease != 0) {
        object.insert(QLatin1String("lease"), leaseHex(kv.lease));
        object.insert(QLatin1String("lease_dec"), kv.lease);
    }
    return object;
}

QByteArrayList headerFieldLines(const ResponseHeader &header)
{
    return {"\"ClusterID\" : " + QByteArray::number(header.clusterId),
            "\"MemberID\" : " + QByteArray::number(header.memberId),
            "\"Revision\" : " + QByteArray::number(header.revision),
            "\"RaftTerm\" : " + QByteArray::number(header.raftTerm)};
}

QString hexId(quint64 id)
{
    return QString::number(id, 16);
}

QString leaseHex(qint64 id)
{
    return QString::number(quint64(id), 16).rightJustified(16, QLatin1Char('0'));
}

std::optional<qint64> parseLeaseId(const QString &text, QString *error)
{
    const bool decimal = text.startsWith(QLatin1String("dec:"));
    QString digits = decimal ? text.mid(4) : text;
    if (!decimal && digits.startsWith(QLatin1String("0x"), Qt::CaseInsensitive))
        digits = digits.mid(2);
    bool ok = false;
    const qint64 id = digits.toLongLong(&ok, decimal ? 10 : 16);
    if (ok && id > 0)
        return id;
    if (error) {
        *error = decimal ? QStringLiteral("lease ID \"%1\" is not a decimal number > 0").arg(text)
                         : QStringLiteral("lease ID \"%1\" is not hexadecimal as etcdctl prints it (write a decimal "
                                          "ID as dec:NUMBER)")
                               .arg(text);
    }
    return std::nullopt;
}

} // namespace QEtcd::Cli
