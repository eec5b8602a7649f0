// SPDX-License-Identifier: Apache-2.0
#pragma once

// The fencing oracle of the lock, semaphore and election checkers: etcd's own history of a
// queue's entries (a lock's, an election's: the oldest entry holds; a semaphore's: the
// `capacity` oldest) and of one key that holders write blindly, replayed in etcd's order. Every
// write names its writer, its sequence number, the entry it was made under and that entry's
// create revision (the fencing token); it must commit while that entry exists in that
// incarnation and is among the `capacity` oldest. A write that commits anywhere else landed
// outside its writer's hold: the fence (guardedTxn) should have refused it.

#include <QEtcd/watcher.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMap>
#include <QtCore/QSet>

#include <limits>
#include <memory>

namespace QEtcd::Testing {

// Everything etcd commits under a prefix from revision 1 on, in etcd's order, as it arrives.
struct EtcdHistory
{
    QList<WatchEvent> events;
    std::unique_ptr<Watcher> watcher;

    QFuture<Status> start(Client *client, const QByteArray &prefix)
    {
        WatchOptions everything;
        everything.range = KeyRange::prefix();
        everything.startRevision = 1;
        watcher = std::make_unique<Watcher>(client, prefix, everything);
        QObject::connect(watcher.get(), &Watcher::eventsReceived, watcher.get(),
                         [this](const QList<WatchEvent> &received) { events += received; });
        return watcher->start();
    }
};

// The value a checker participant writes to the fenced key.
inline QByteArray fencedWriteValue(const QString &writer, qint64 sequence, qint64 token, const QByteArray &entryKey)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("w"), writer},
                                     {QStringLiteral("s"), sequence},
                                     {QStringLiteral("t"), token},
                                     {QStringLiteral("k"), QString::fromUtf8(entryKey)}})
        .toJson(QJsonDocument::Compact);
}

class FencingOracle
{
public:
    FencingOracle(const QByteArray &entriesPrefix, const QByteArray &fencedKey, int capacity = 1)
        : m_entriesPrefix(entriesPrefix), m_fencedKey(fencedKey), m_capacity(capacity)
    {
    }

    // Takes etcd's next change; empty while the history is sound, else the first thing wrong
    // (it stays the verdict).
    QString take(const WatchEvent &change)
    {
        if (!m_violation.isEmpty())
            return m_violation;
        const KeyValue &kv = change.kv;
        if (kv.key.startsWith(m_entriesPrefix)) {
            if (change.type == WatchEvent::Type::Put)
                m_entries.insert(kv.key, kv.createRevision);
            else
                m_entries.remove(kv.key);
            return {};
        }
        if (kv.key != m_fencedKey)
            return {};
        if (change.type != WatchEvent::Type::Put)
            return m_violation = QStringLiteral("the fenced key was deleted at revision %1: nobody may").arg(kv.modRevision);
        const QJsonObject write = QJsonDocument::fromJson(kv.value).object();
        const QString id = write.value(QLatin1String("w")).toString() + QLatin1Char('/')
            + QString::number(write.value(QLatin1String("s")).toInteger());
        const QByteArray writerKey = write.value(QLatin1String("k")).toString().toUtf8();
        const qint64 token = write.value(QLatin1String("t")).toInteger();
        qint64 oldest = std::numeric_limits<qint64>::max();
        int older = 0;  // entries ahead of the writer's
        for (const qint64 createRevision : std::as_const(m_entries)) {
            oldest = std::min(oldest, createRevision);
            older += createRevision < token ? 1 : 0;
        }
        if (m_entries.value(writerKey, -1) != token || older >= m_capacity) {
            return m_violation = QStringLiteral("fence broken: write %1 (token %2) committed at revision %3 while its "
                                                "entry %4 %5; the oldest entry had create revision %6%7")
                                     .arg(id)
                                     .arg(token)
                                     .arg(kv.modRevision)
                                     .arg(QString::fromUtf8(writerKey))
                                     .arg(m_entries.contains(writerKey)
                                              ? QStringLiteral("had create revision %1").arg(m_entries.value(writerKey))
                                              : QStringLiteral("was gone"))
                                     .arg(oldest == std::numeric_limits<qint64>::max() ? -1 : oldest)
                                     .arg(m_capacity == 1 ? QString()
                                                          : QStringLiteral(", and %1 entries were older (%2 hold)")
                                                                .arg(older)
                                                                .arg(m_capacity));
        }
        if (m_committed.contains(id))
            return m_violation = QStringLiteral("write %1 committed twice").arg(id);
        m_committed.insert(id);
        return {};
    }

    QString takeAll(const QList<WatchEvent> &history)
    {
        for (const WatchEvent &change : history)
            take(change);
        return m_violation;
    }

    // Every write committed so far, as "<writer>/<sequence>".
    const QSet<QString> &committed() const { return m_committed; }

private:
    const QByteArray m_entriesPrefix;
    const QByteArray m_fencedKey;
    const int m_capacity;
    QMap<QByteArray, qint64> m_entries;  // present under the prefix -> create revision
    QSet<QString> m_committed;
    QString m_violation;
};

} // namespace QEtcd::Testing
