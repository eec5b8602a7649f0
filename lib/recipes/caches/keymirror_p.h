// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "recipe_p.h"

// The engine under every cache (PathChildrenCache, ServiceCache, NodeCache): a local copy of a
// key or a prefix kept current by a resilient watch, re-read after a compaction.

#include "client.h"
#include "recipe.h"
#include "watcher.h"

#include <QtCore/QFuture>
#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QObject>
#include <QtCore/QPromise>

#include <functional>
#include <map>
#include <optional>

namespace QEtcd::Internal {

struct MirrorChange
{
    enum class Kind { Added, Updated, Removed };
    Kind kind = Kind::Added;
    QByteArray key;
    std::optional<KeyValue> kv;  // Removed: the copy the mirror held, if it held one
    qint64 revision = 0;         // MirrorOrigin::Watch: the revision it happened at; else 0
};

// Where a batch of changes came from.
enum class MirrorOrigin {
    Snapshot,  // the first read: every entry, as Added
    Watch,     // live events
    Reconcile, // a re-read after a compaction, or rebuild(): the difference to the copy
};

// Lives on the client's dispatcher thread; handlers are called there, in etcd's order, and
// never after close() returned. Reads of the copy are safe from any thread.
class KeyMirror : public QObject
{
public:
    struct Handlers
    {
        std::function<void(const QList<MirrorChange> &changes, MirrorOrigin origin)> changed;
        std::function<void(const WatchRecoveryEvent &event)> recovery;
    };

    // maxValueBytes >= 0: larger values are not kept (nor reported): the copy holds such a key
    // with an empty value, and unreadValueBytes() tells its size. A mirror that only recognises
    // what keys make up needs small values, and a keyspace of large ones must not fill memory.
    KeyMirror(Client *client, const QByteArray &key, const KeyRange &range, const WatchResilience &resilience,
              Handlers handlers, qsizetype maxValueBytes = -1);

    // Finishes once the watch is created; with readFirst the copy is loaded before, and the
    // watch starts right after the read's revision, so nothing falls between the two.
    QFuture<Status> start(bool readFirst);
    // The range as it was at revision (0: as it is now), read in pages; the copy is not touched.
    QFuture<RangeResult> readOnce(qint64 revision);
    // Re-reads and applies the difference; changes the watch delivered meanwhile are kept.
    QFuture<Status> rebuild();
    // Forgets the copy locally; etcd is not touched and no change is reported.
    void clear();
    // Idempotent; pending futures finish with Closed.
    void close();

    QList<KeyValue> entries() const;  // sorted by key
    std::optional<KeyValue> entry(const QByteArray &key) const;
    int size() const;
    // The size of key's value when it was too large to keep; 0 when the copy holds the value.
    qsizetype unreadValueBytes(const QByteArray &key) const;

private:
    using Promise = std::shared_ptr<QPromise<Status>>;

    void begin(Promise promise, bool readFirst);
    void watchFrom(qint64 revision, Promise promise);
    // The range in pages, all at one revision: asOfRevision, or (0) the first page's.
    QFuture<RangeResult> read(qint64 asOfRevision = 0);
    void readPage(const QByteArray &from, const KeyRange &range, qint64 limit, qint64 cautiousKeys,
                  std::shared_ptr<QPromise<RangeResult>> promise, std::shared_ptr<RangeResult> gathered);
    qint64 reconcile(const RangeResult &result);
    void onEvents(const QList<WatchEvent> &events);
    void report(const QList<MirrorChange> &changes, MirrorOrigin origin);
    void settle(Promise promise, const Status &status);
    // Drops a value above maxValueBytes, noting its size; under m_mutex.
    void trim(KeyValue &kv);

    Client *const m_client;
    const QByteArray m_key;
    const KeyRange m_range;
    const WatchResilience m_resilience;

    mutable QMutex m_mutex;
    std::map<QByteArray, KeyValue> m_copy;  // written on the dispatcher thread, under m_mutex
    const qsizetype m_maxValueBytes;
    QHash<QByteArray, qsizetype> m_unreadValueBytes;  // under m_mutex

    // dispatcher thread only
    Handlers m_handlers;
    Watcher *m_watcher = nullptr;
    QList<Promise> m_pending;
    bool m_closed = false;
    int m_readsInFlight = 0;
    // Keys the watch deleted while a read was in flight, with the deleting revision: the
    // read may still show them.
    std::map<QByteArray, qint64> m_recentDeletes;
};

} // namespace QEtcd::Internal
