#include "kvformat.h"

#include <QtCore/QStringDecoder>

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
