// SPDX-License-Identifier: Apache-2.0
#include "keyhistory.h"

#include "compacted_p.h"

#include "continuation_p.h"
#include "displaytext.h"
#include "valuedescription_p.h"

namespace QEtcd {

KeyHistory::KeyHistory(QObject *parent) : QObject(parent) {}

KeyHistory::~KeyHistory() = default;

Client *KeyHistory::client() const
{
    return m_client;
}

void KeyHistory::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
    latest();
}

QString KeyHistory::key() const
{
    return DisplayText::fromBytes(m_key);
}

void KeyHistory::setKey(const QString &key)
{
    const QByteArray bytes = DisplayText::toBytes(key);
    if (bytes == m_key)
        return;
    m_key = bytes;
    Q_EMIT keyChanged();
    latest();
}

qint64 KeyHistory::latestRevision() const
{
    return m_latest;
}

void KeyHistory::setLatestRevision(qint64 revision)
{
    if (revision == m_latest)
        return;
    // A change while the operator reads an older version leaves them where they are; the walk
    // they made still holds, and only the way back to the latest is longer.
    m_latest = revision;
    Q_EMIT latestRevisionChanged();
    Q_EMIT changed();
}

void KeyHistory::setLatestVersion(qint64 version)
{
    if (version == m_latestVersion)
        return;
    m_latestVersion = version;
    Q_EMIT latestRevisionChanged();
    Q_EMIT changed();
}

QVariantMap KeyHistory::shown() const
{
    return m_shownSteps.isEmpty() ? QVariantMap() : m_shownSteps.constLast();
}

qint64 KeyHistory::nextOlderRevision() const
{
    return (m_steps.isEmpty() ? m_latest : m_steps.constLast().modRevision) - 1;
}

bool KeyHistory::canGoOlder() const
{
    if (!m_client || m_key.isEmpty() || m_latest <= 0 || compacted() || m_status == ModelStatus::Loading)
        return false;
    // Version 1 is the key's creation: before it the key did not exist (or was another key).
    return (m_steps.isEmpty() ? m_latestVersion : m_steps.constLast().version) > 1;
}

void KeyHistory::older()
{
    if (!canGoOlder())
        return;
    m_status = ModelStatus::Loading;
    m_error.clear();
    Q_EMIT changed();
    RangeOptions options;
    options.revision = nextOlderRevision();
    Internal::thenOn(m_client->get(m_key, options), this,
                     [this, generation = m_generation, revision = options.revision](const RangeResult &result) {
        if (generation != m_generation)
            return;
        m_status = ModelStatus::Ready;
        if (!result.status) {
            if (Internal::isCompacted(result.status)) {
                m_compactedRevision = revision;
            } else {
                m_status = ModelStatus::Error;
                m_error = result.status.message();
            }
        } else if (result.kvs.isEmpty()) {
            m_status = ModelStatus::Error;
            m_error = QStringLiteral("%1 did not exist at revision %2").arg(key()).arg(revision);
        } else {
            const KeyValue &kv = result.kvs.constFirst();
            m_steps.append(kv);
            m_shownSteps.append(QVariantMap{{QStringLiteral("modRevision"), kv.modRevision},
                                 {QStringLiteral("createRevision"), kv.createRevision},
                                 {QStringLiteral("version"), kv.version},
                                 {QStringLiteral("lease"), kv.lease ? QString::number(quint64(kv.lease), 16) : QString()},
                                 {QStringLiteral("views"), Internal::describeValue(kv)}});
        }
        Q_EMIT changed();
    });
}

void KeyHistory::newer()
{
    if (m_steps.isEmpty())
        return;
    ++m_generation;
    m_steps.removeLast();
    m_shownSteps.removeLast();
    m_compactedRevision = 0;
    m_status = ModelStatus::Ready;
    m_error.clear();
    Q_EMIT changed();
}

void KeyHistory::latest()
{
    ++m_generation;
    m_steps.clear();
    m_shownSteps.clear();
    m_compactedRevision = 0;
    m_status = ModelStatus::Ready;
    m_error.clear();
    Q_EMIT changed();
}

} // namespace QEtcd
