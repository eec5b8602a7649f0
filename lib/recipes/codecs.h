// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QString>
#include <QtCore/QStringDecoder>

#include <optional>

namespace QEtcd {

/// How a typed recipe turns its values into etcd bytes and back. decode() yields nothing for
/// bytes that are not a valid encoding, so a caller can tell "absent" from "unreadable".
///
/// This one keeps text as UTF-8.
struct StringCodec
{
    using Type = QString;  ///< The type of the values.
    /// The value as UTF-8.
    static QByteArray encode(const QString &value) { return value.toUtf8(); }
    /// The text; nothing for bytes that are not valid UTF-8.
    static std::optional<QString> decode(const QByteArray &bytes)
    {
        auto toUtf16 = QStringDecoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        QString text = toUtf16(bytes);
        if (toUtf16.hasError())
            return std::nullopt;
        return text;
    }
};

/// Keeps a JSON document, written compact.
struct JsonCodec
{
    using Type = QJsonDocument;  ///< The type of the values.
    /// The document as compact JSON.
    static QByteArray encode(const QJsonDocument &value) { return value.toJson(QJsonDocument::Compact); }
    /// The document; nothing for bytes that are not JSON.
    static std::optional<QJsonDocument> decode(const QByteArray &bytes)
    {
        QJsonParseError error;
        QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
        if (error.error != QJsonParseError::NoError)
            return std::nullopt;
        return document;
    }
};

/// Keeps the bytes as they are.
struct BytesCodec
{
    using Type = QByteArray;  ///< The type of the values.
    /// The bytes themselves.
    static QByteArray encode(const QByteArray &value) { return value; }
    /// The bytes themselves; never nothing.
    static std::optional<QByteArray> decode(const QByteArray &bytes) { return bytes; }
};

} // namespace QEtcd
