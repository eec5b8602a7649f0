// SPDX-License-Identifier: Apache-2.0
#include "keyeventrecorder.h"

#include "continuation_p.h"

#include <QEtcd/client.h>
#include <QEtcd/watcher.h>

namespace QEtcd {

KeyEventRecorder::KeyEventRecorder(QObject *parent) : QObject(parent) {}

KeyEventRecorder::~KeyEventRecorder()
{
    delete m_watcher;
}

Client *KeyEventRecorder::client() const { return m_client; }
QString KeyEventRecorder::prefix() const { return m_prefix; }
EventLogModel *KeyEventRecorder::eventLog() const { return m_eventLog; }
bool KeyEventRecorder::isWatching() const { return m_watching; }
QString KeyEventRecorder::errorString() const { return m_errorString; }

void KeyEventRecorder::setClient(Client *client)
{
    if (m_client == client)
        return;
    m_client = client;
    restart();
    Q_EMIT clientChanged();
}

void KeyEventRecorder::setPrefix(const QString &prefix)
{
    if (m_prefix == prefix)
        return;
    m_prefix = prefix;
    restart();
    Q_EMIT prefixChanged();
}

void KeyEventRecorder::setEventLog(EventLogModel *log)
{
    if (m_eventLog == log)
        return;
    m_eventLog = log;
    Q_EMIT eventLogChanged();
}

void KeyEventRecorder::restart()
{
    delete std::exchange(m_watcher, nullptr);
    const quint64 generation = ++m_generation;
    setWatching(false);
    if (!m_client || m_prefix.isEmpty())
        return;
    WatchOptions options;
    options.range = KeyRange::prefix();
    m_watcher = new Watcher(m_client, m_prefix.toUtf8(), options);
    connect(m_watcher, &Watcher::eventsReceived, this, [this, generation](const QList<WatchEvent> &events) {
        if (generation != m_generation)
            return;
        for (const WatchEvent &event : events) {
            const bool deleted = event.type == WatchEvent::Type::Delete;
            record(deleted ? QStringLiteral("keyDeleted") : QStringLiteral("keyPut"), QString::fromUtf8(event.kv.key),
                   event.kv.modRevision);
        }
    });
    connect(m_watcher, &Watcher::recovery, this, [this, generation](const WatchRecoveryEvent &event) {
        if (generation != m_generation)
            return;
        if (event.kind == WatchRecoveryKind::Failed)
            setWatching(false, QStringLiteral("the watch on %1 gave up: %2").arg(m_prefix, event.cause.message()));
        else
            setWatching(event.kind != WatchRecoveryKind::Suspended);
    });
    Internal::thenOn(m_watcher->start(), this, [this, generation](const Status &status) {
        if (generation != m_generation)
            return;
        setWatching(status.isOk(), status.isOk() ? QString()
                                                 : QStringLiteral("cannot watch %1: %2").arg(m_prefix, status.message()));
    });
}

void KeyEventRecorder::record(const QString &kind, const QString &key, qint64 revision)
{
    if (m_eventLog)
        m_eventLog->append(QStringLiteral("etcd"), kind, QStringLiteral("revision %1").arg(revision), false, key);
}

void KeyEventRecorder::setWatching(bool watching, const QString &error)
{
    if (std::exchange(m_watching, watching) != watching)
        Q_EMIT watchingChanged();
    if (std::exchange(m_errorString, error) != error)
        Q_EMIT errorStringChanged();
}

} // namespace QEtcd
