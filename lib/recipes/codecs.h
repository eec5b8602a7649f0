#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QString>
#include <QtCore/QStringDecoder>

#include <optional>

namespace QEtcd {

// How a typed recipe turns its values into etcd bytes and back. decode() yields nothing for
// bytes that are not a valid encoding, so a caller can tell "absent" from "unreadable".
struct StringCodec
{
    using Type = QString;
    static QByteArray encode(const QString &value) { return value.toUtf8(); }
    static std::optional<QString> decode(const QByteArray &bytes)
    {
        auto toUtf16 = QStringDecoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        QString text = toUtf16(bytes);
        if (toUtf16.hasError())
            return std::nullopt;
        return text;
    }
};

struct JsonCodec
{
    using Type = QJsonDocument;
    static QByteArray encode(const QJsonDocument &value) { return value.toJson(QJsonDocument::Compact); }
    static std::optional<QJsonDocument> decode(const QByteArray &bytes)
    {
        QJsonParseError error;
        QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
        if (error.error != QJsonParseError::NoError)
            return std::nullopt;
        return document;
    }
};

struct BytesCodec
{
    using Type = QByteArray;
    static QByteArray encode(const QByteArray &value) { return value; }
    static std::optional<QByteArray> decode(const QByteArray &bytes) { return bytes; }
};

} // namespace QEtcd
