// SPDX-License-Identifier: Apache-2.0
#include "valuecheck.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonParseError>

namespace QEtcd {

ValueCheck::ValueCheck(QObject *parent)
    : QObject(parent)
{
}

QVariantMap ValueCheck::json(const QString &text)
{
    const QString trimmed = text.trimmed();
    const bool looksLikeJson = trimmed.startsWith(QLatin1Char('{')) || trimmed.startsWith(QLatin1Char('['));
    QVariantMap answer{{QStringLiteral("looksLikeJson"), looksLikeJson}, {QStringLiteral("valid"), true}};
    if (!looksLikeJson)
        return answer;
    const QByteArray utf8 = text.toUtf8();
    QJsonParseError error;
    QJsonDocument::fromJson(utf8, &error);
    if (error.error == QJsonParseError::NoError)
        return answer;
    // The parser counts UTF-8 bytes; the operator counts characters on the line.
    const QString before = QString::fromUtf8(utf8.left(error.offset));
    const qsizetype lineStart = before.lastIndexOf(QLatin1Char('\n')) + 1;
    answer.insert(QStringLiteral("valid"), false);
    answer.insert(QStringLiteral("message"), error.errorString());
    answer.insert(QStringLiteral("line"), int(before.count(QLatin1Char('\n')) + 1));
    answer.insert(QStringLiteral("column"), int(before.size() - lineStart + 1));
    return answer;
}

} // namespace QEtcd
