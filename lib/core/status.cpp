// SPDX-License-Identifier: Apache-2.0
#include "status.h"

#include <QtCore/QMetaEnum>

namespace QEtcd {

bool Status::isTransient() const
{
    return m_code == StatusCode::Unavailable || m_code == StatusCode::Internal
        || m_code == StatusCode::DeadlineExceeded || isTooManyRequests();
}

bool Status::isLeaseNotFound() const
{
    return m_code == StatusCode::NotFound && m_message.contains(QLatin1String("lease not found"));
}

bool Status::isTooManyRequests() const
{
    return (m_code == StatusCode::ResourceExhausted || m_code == StatusCode::Unknown)
        && m_message.contains(QLatin1String("etcdserver: too many requests"));
}

Status Status::withContext(const QString &context) const
{
    if (isOk() || context.isEmpty())
        return *this;
    return Status(m_code, context + QLatin1String(": ") + m_message);
}

QString Status::codeName() const
{
    const char *key = QMetaEnum::fromType<StatusCode>().valueToKey(int(m_code));
    return key ? QString::fromLatin1(key) : QString::number(int(m_code));
}

QString Status::toString() const
{
    if (isOk())
        return QStringLiteral("Ok");
    return codeName() + QLatin1String(": ") + m_message;
}

} // namespace QEtcd
