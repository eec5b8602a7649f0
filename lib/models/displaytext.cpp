// SPDX-License-Identifier: Apache-2.0
#include "displaytext.h"

namespace QEtcd {

namespace {
// A byte that is not UTF-8 travels as the lone low surrogate U+DC00 + byte (U+DC80 to U+DCFF):
// a valid UTF-8 text never decodes to a lone surrogate, so the two cannot be confused.
constexpr char16_t EscapedByteBase = 0xDC00;

bool isEscapedByte(const QString &text, qsizetype i)
{
    const char16_t unit = text.at(i).unicode();
    return unit >= EscapedByteBase + 0x80 && unit <= EscapedByteBase + 0xFF
        && (i == 0 || !text.at(i - 1).isHighSurrogate());
}

// The length of the well-formed UTF-8 sequence at the start of bytes (its code point in
// *codePoint), or 0: overlong forms, encoded surrogates and code points above U+10FFFF are not.
int sequenceLength(const uchar *bytes, qsizetype available, char32_t *codePoint)
{
    const uchar lead = bytes[0];
    int length = 0;
    char32_t value = 0;
    char32_t smallest = 0;
    if (lead < 0x80) {
        *codePoint = lead;
        return 1;
    } else if ((lead & 0xE0) == 0xC0) {
        length = 2, value = lead & 0x1F, smallest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, value = lead & 0x0F, smallest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, value = lead & 0x07, smallest = 0x10000;
    } else {
        return 0;
    }
    if (available < length)
        return 0;
    for (int i = 1; i < length; ++i) {
        if ((bytes[i] & 0xC0) != 0x80)
            return 0;
        value = (value << 6) | (bytes[i] & 0x3F);
    }
    if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        return 0;
    *codePoint = value;
    return length;
}

// "\u202E", "\xFF": prefix and value in upper-case hex, width digits.
QString escapeSequence(QLatin1String prefix, uint value, int width)
{
    return prefix + QString::number(value, 16).rightJustified(width, QLatin1Char('0')).toUpper();
}

// Characters that change what a line looks like without showing themselves.
bool isDeceptive(char32_t codePoint)
{
    switch (QChar::category(codePoint)) {
    case QChar::Other_Control:  // C0, DEL, C1
    case QChar::Other_Format:  // bidirectional controls and marks, zero-width characters, BOM
    case QChar::Separator_Line:
    case QChar::Separator_Paragraph:
        return true;
    default:
        return false;
    }
}

// Lines: a value shown as a block keeps its line breaks and tabs (and the \r of a CRLF), and a
// backslash stays single, so JSON's and paths' own escapes read as written; what could still
// reorder or hide text is escaped as in a key.
QString escapeText(const QString &text, bool lines)
{
    QString shown;
    shown.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar unit = text.at(i);
        if (unit.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            const char32_t codePoint = QChar::surrogateToUcs4(unit, text.at(i + 1));
            if (isDeceptive(codePoint))
                shown += escapeSequence(QLatin1String("\\U"), codePoint, 8);
            else
                shown.append(unit).append(text.at(i + 1));
            ++i;
        } else if (unit.isSurrogate()) {
            shown += isEscapedByte(text, i) ? escapeSequence(QLatin1String("\\x"), unit.unicode() - EscapedByteBase, 2)
                                            : escapeSequence(QLatin1String("\\u"), unit.unicode(), 4);
        } else if (lines && (unit == QLatin1Char('\n') || unit == QLatin1Char('\t') || unit == QLatin1Char('\\')
                             || (unit == QLatin1Char('\r') && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('\n')))) {
            shown.append(unit);
        } else if (unit == QLatin1Char('\\')) {
            shown += QLatin1String("\\\\");
        } else if (unit == QLatin1Char('\n')) {
            shown += QLatin1String("\\n");
        } else if (unit == QLatin1Char('\t')) {
            shown += QLatin1String("\\t");
        } else if (unit == QLatin1Char('\r')) {
            shown += QLatin1String("\\r");
        } else if (isDeceptive(unit.unicode())) {
            shown += escapeSequence(QLatin1String("\\u"), unit.unicode(), 4);
        } else {
            shown.append(unit);
        }
    }
    return shown;
}
} // namespace

DisplayText::DisplayText(QObject *parent) : QObject(parent) {}

QString DisplayText::escape(const QString &text)
{
    return escapeText(text, false);
}

QString DisplayText::escapeValue(const QString &text)
{
    return escapeText(text, true);
}

QString DisplayText::fromBytes(const QByteArray &bytes)
{
    QString text;
    text.reserve(bytes.size());
    const auto *data = reinterpret_cast<const uchar *>(bytes.constData());
    for (qsizetype i = 0; i < bytes.size();) {
        char32_t codePoint = 0;
        const int length = sequenceLength(data + i, bytes.size() - i, &codePoint);
        if (length == 0) {
            text.append(QChar(char16_t(EscapedByteBase + data[i])));
            ++i;
            continue;
        }
        if (QChar::requiresSurrogates(codePoint))
            text.append(QChar(QChar::highSurrogate(codePoint))).append(QChar(QChar::lowSurrogate(codePoint)));
        else
            text.append(QChar(char16_t(codePoint)));
        i += length;
    }
    return text;
}

QByteArray DisplayText::toBytes(const QString &text)
{
    QByteArray bytes;
    qsizetype runStart = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (!isEscapedByte(text, i))
            continue;
        bytes += QStringView(text).sliced(runStart, i - runStart).toUtf8();
        bytes += char(text.at(i).unicode() - EscapedByteBase);
        runStart = i + 1;
    }
    bytes += QStringView(text).sliced(runStart).toUtf8();
    return bytes;
}

} // namespace QEtcd
