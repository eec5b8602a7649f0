// SPDX-License-Identifier: Apache-2.0
#include "keymirror_p.h"

#include "client_p.h"
#include "continuation_p.h"
#include "threading_p.h"

#include <algorithm>

namespace QEtcd::Internal {

KeyMirror::KeyMirror(Client *client, const QByteArray &key, const KeyRange &range, const WatchResilience &resilience,
                     Handlers handlers, qsizetype maxValueBytes)
    : m_client(client),
      m_key(key),
      m_range(range),
      m_resilience(resilience),
      m_maxValueBytes(maxValueBytes),
      m_handlers(std::move(handlers))
{
    moveToThread(ClientPrivate::get(client)->dispatcher());
}

QFuture<Status> KeyMirror::start(bool readFirst)
{
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    QFuture<Status> future = promise->future();
    QMetaObject::invokeMethod(this, [this, promise, readFirst] { begin(promise, readFirst); }, Qt::QueuedConnection);
    return future;
}

QFuture<Status> KeyMirror::rebuild()
{
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    QFuture<Status> future = promise->future();
    QMetaObject::invokeMethod(this, [this, promise] {
        if (m_closed)
            return settle(promise, Status(StatusCode::Closed, QStringLiteral("closed")));
        m_pending.append(promise);
        thenOn(read(), this, [this, promise](const RangeResult &result) {
            if (m_closed)
                return;
            if (result.status)
                reconcile(result);
            settle(promise, result.status);
        });
    }, Qt::QueuedConnection);
    return future;
}

QFuture<RangeResult> KeyMirror::readOnce(qint64 revision)
{
    auto promise = std::make_shared<QPromise<RangeResult>>();
    promise->start();
    QFuture<RangeResult> future = promise->future();
    QMetaObject::invokeMethod(this, [this, promise, revision] {
        const auto settle = [promise](const RangeResult &result) {
            promise->addResult(result);
            promise->finish();
        };
        thenOn(read(revision), this, settle, settle);
    }, Qt::QueuedConnection);
    return future;
}

void KeyMirror::clear()
{
    runOn(this, [this] {
        QMutexLocker locker(&m_mutex);
        m_copy.clear();
        m_unreadValueBytes.clear();
    });
}

void KeyMirror::close()
{
    runOn(this, [this] {
        if (std::exchange(m_closed, true))
            return;
        // The handler that called close() may still be running: destroy it later.
        QMetaObject::invokeMethod(this, [dropped = std::exchange(m_handlers, {})] {}, Qt::QueuedConnection);
        if (m_watcher)
            m_watcher->close();
        for (const Promise &promise : QList(m_pending))
            settle(promise, Status(StatusCode::Closed, QStringLiteral("closed")));
    });
}

QList<KeyValue> KeyMirror::entries() const
{
    QMutexLocker locker(&m_mutex);
    QList<KeyValue> list;
    list.reserve(qsizetype(m_copy.size()));
    for (const auto &[key, kv] : m_copy)
        list.append(kv);
    return list;
}

std::optional<KeyValue> KeyMirror::entry(const QByteArray &key) const
{
    QMutexLocker locker(&m_mutex);
    const auto found = m_copy.find(key);
    if (found == m_copy.end())
        return std::nullopt;
    return found->second;
}

int KeyMirror::size() const
{
    QMutexLocker locker(&m_mutex);
    return int(m_copy.size());
}

qsizetype KeyMirror::unreadValueBytes(const QByteArray &key) const
{
    QMutexLocker locker(&m_mutex);
    const auto held = m_copy.find(key);
    return held != m_copy.end() && held->second.value.isEmpty() ? m_unreadValueBytes.value(key) : 0;
}

void KeyMirror::trim(KeyValue &kv)
{
    if (m_maxValueBytes < 0 || kv.value.size() <= m_maxValueBytes) {
        m_unreadValueBytes.remove(kv.key);
        return;
    }
    m_unreadValueBytes.insert(kv.key, kv.value.size());
    kv.value = QByteArray();
}

void KeyMirror::begin(Promise promise, bool readFirst)
{
    if (m_closed)
        return settle(promise, Status(StatusCode::Closed, QStringLiteral("closed before it started")));
    m_pending.append(promise);
    if (!readFirst)
        return watchFrom(0, promise);
    thenOn(read(), this, [this, promise](const RangeResult &result) {
        if (m_closed)
            return;
        if (!result.status)
            return settle(promise, result.status);
        QList<MirrorChange> loaded;
        {
            QMutexLocker locker(&m_mutex);
            m_copy.clear();
            for (const KeyValue &kv : result.kvs) {
                m_copy[kv.key] = kv;
                loaded.append({MirrorChange::Kind::Added, kv.key, kv});
            }
        }
        report(loaded, MirrorOrigin::Snapshot);
        watchFrom(result.header.revision + 1, promise);
    });
}

void KeyMirror::watchFrom(qint64 revision, Promise promise)
{
    WatchOptions options;
    options.range = m_range;
    options.startRevision = revision;
    m_watcher = new Watcher(m_client, m_key, options, m_resilience, this);
    // After a compaction the events in the gap are gone: re-read, report the difference.
    m_watcher->setResyncWith([this] {
        return thenOn(
            read(), this,
            [this](const RangeResult &result) -> qint64 {
                if (m_closed || !result.status)
                    return 0;  // a failed attempt; the watcher retries under its policy
                return reconcile(result);
            },
            [](const RangeResult &) -> qint64 { return 0; });
    });
    connect(m_watcher, &Watcher::eventsReceived, this, [this](const QList<WatchEvent> &events) { onEvents(events); });
    connect(m_watcher, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) {
        if (m_handlers.recovery)
            m_handlers.recovery(event);
    });
    thenOn(m_watcher->start(), this, [this, promise](const Status &started) {
        if (!m_closed)
            settle(promise, started);
    });
}

namespace {
// etcd refuses a put larger than its request limit, 1.5 MiB unless raised: the largest entry
// a page can bring.
constexpr qint64 LargestEntryBytes = 1536 * 1024 + 1024;
constexpr qint64 MostKeysPerPage = 1000;

// As many keys as the receive limit holds at the largest entry etcd accepts (21 under 32 MiB):
// a page of these is never refused.
qint64 safePageLimit(qint64 receiveLimit)
{
    return std::max<qint64>(1, receiveLimit / LargestEntryBytes);
}

// After a page whose largest entry was largestEntry bytes: at most twice as many keys, and no
// more than a quarter of the receive limit holds at that size.
qint64 nextPageLimit(qint64 receiveLimit, qint64 limit, qint64 largestEntry)
{
    const qint64 fits = receiveLimit / 4 / std::max<qint64>(1, largestEntry);
    return std::clamp<qint64>(std::min(limit * 2, fits), safePageLimit(receiveLimit), MostKeysPerPage);
}
} // namespace

QFuture<RangeResult> KeyMirror::read(qint64 asOfRevision)
{
    ++m_readsInFlight;
    auto promise = std::make_shared<QPromise<RangeResult>>();
    promise->start();
    // Every page is read at the gathered header's revision, once there is one.
    auto gathered = std::make_shared<RangeResult>();
    gathered->header.revision = asOfRevision;
    readPage(m_key, m_range, safePageLimit(ClientPrivate::get(m_client)->options.maxReceiveMessageSize), 0, promise,
             gathered);
    return thenOn(
        promise->future(), this,
        [this](const RangeResult &result) {
            --m_readsInFlight;
            return result;
        },
        [](const RangeResult &result) { return result; });
}

// The range is read in pages, all at the first page's revision, so that a prefix of any size
// fits under the client's receive limit. etcd marshals a page whole before the client can
// refuse it as too large (etcd counts it as sent, and holds it in memory): asking 1,000 keys
// blind over values of 1.4 MB, then half as many after each refusal, made etcd send 1.4 GB,
// 700 MB, 350 MB... before a page fit (issue 44 M2). So the first page asks for the count that
// cannot be refused, each later one at most twice the last, as the sizes seen allow
// (nextPageLimit); a page refused anyway (large values after small ones) is read again at the
// safe count, as many keys as it asked for (cautiousKeys), before the pages grow again. Below
// the safe count a refused page is halved: etcd was allowed values above 1.5 MiB.
void KeyMirror::readPage(const QByteArray &from, const KeyRange &range, qint64 limit, qint64 cautiousKeys,
                         std::shared_ptr<QPromise<RangeResult>> promise, std::shared_ptr<RangeResult> gathered)
{
    RangeOptions options;
    options.range = range;
    // Unsorted: etcd answers in key order, and applies a limit only without a sort order.
    options.limit = range.kind == KeyRange::Kind::Single ? 0 : limit;
    options.revision = gathered->header.revision;
    const auto settle = [promise](const RangeResult &result) {
        promise->addResult(result);
        promise->finish();
    };
    thenOn(m_client->get(from, options), this, [=, this](const RangeResult &page) {
        const qint64 receiveLimit = ClientPrivate::get(m_client)->options.maxReceiveMessageSize;
        if (page.status.code() == StatusCode::ResourceExhausted && limit > 1) {
            const qint64 safe = safePageLimit(receiveLimit);
            return limit > safe ? readPage(from, range, safe, std::max(cautiousKeys, limit), promise, gathered)
                                : readPage(from, range, limit / 2, cautiousKeys, promise, gathered);
        }
        if (!page.status)
            return settle(page);
        if (gathered->header.revision == 0)
            gathered->header = page.header;
        gathered->kvs.reserve(gathered->kvs.size() + page.kvs.size());
        qint64 largestEntry = 0;
        {
            // Trimmed page by page: a whole read of large values is never held at once.
            QMutexLocker locker(&m_mutex);
            for (KeyValue kv : page.kvs) {
                largestEntry = std::max<qint64>(largestEntry, kv.key.size() + kv.value.size());
                trim(kv);
                gathered->kvs.append(std::move(kv));
            }
        }
        if (!page.more || page.kvs.isEmpty()) {
            gathered->count = gathered->kvs.size();
            return settle(*gathered);
        }
        // The rest of the range, after the last key of this page.
        const KeyRange rest = m_range.kind == KeyRange::Kind::Prefix ? KeyRange::upTo(prefixRangeEnd(m_key)) : m_range;
        const qint64 stillCautious = std::max<qint64>(0, cautiousKeys - page.kvs.size());
        readPage(page.kvs.last().key + '\0', rest,
                 stillCautious > 0 ? limit : nextPageLimit(receiveLimit, limit, largestEntry), stillCautious, promise,
                 gathered);
    }, [settle](const RangeResult &) {
        RangeResult closed;
        closed.status = Status(StatusCode::Closed, QStringLiteral("closed"));
        settle(closed);
    });
}

// The copy becomes what the read saw, except where the watch already told something newer.
qint64 KeyMirror::reconcile(const RangeResult &result)
{
    const qint64 readAt = result.header.revision;
    QList<MirrorChange> changes;
    {
        QMutexLocker locker(&m_mutex);
        std::map<QByteArray, KeyValue> seen;
        for (const KeyValue &kv : result.kvs)
            seen[kv.key] = kv;
        for (auto it = m_copy.begin(); it != m_copy.end();) {
            if (!seen.count(it->first) && it->second.modRevision <= readAt) {
                m_unreadValueBytes.remove(it->first);
                changes.append({MirrorChange::Kind::Removed, it->first, it->second});
                it = m_copy.erase(it);
            } else {
                ++it;
            }
        }
        for (const auto &[key, kv] : seen) {
            const auto held = m_copy.find(key);
            if (held == m_copy.end()) {
                const auto deleted = m_recentDeletes.find(key);
                if (deleted != m_recentDeletes.end() && deleted->second > readAt)
                    continue;
                m_copy[key] = kv;
                changes.append({MirrorChange::Kind::Added, key, kv});
            } else if (held->second.modRevision < kv.modRevision) {
                held->second = kv;
                changes.append({MirrorChange::Kind::Updated, key, kv});
            }
        }
    }
    if (m_readsInFlight == 0)
        m_recentDeletes.clear();
    if (!changes.isEmpty())
        report(changes, MirrorOrigin::Reconcile);
    return readAt + 1;
}

void KeyMirror::onEvents(const QList<WatchEvent> &events)
{
    QList<MirrorChange> changes;
    {
        QMutexLocker locker(&m_mutex);
        for (const WatchEvent &event : events) {
            const QByteArray &key = event.kv.key;
            const auto held = m_copy.find(key);
            // A re-read may already have shown something newer than this event.
            if (held != m_copy.end() && held->second.modRevision >= event.kv.modRevision)
                continue;
            if (event.type == WatchEvent::Type::Put) {
                const bool added = held == m_copy.end();
                KeyValue kv = event.kv;
                trim(kv);
                m_copy[key] = kv;
                changes.append({added ? MirrorChange::Kind::Added : MirrorChange::Kind::Updated, key, kv,
                                event.kv.modRevision});
                continue;
            }
            if (m_readsInFlight > 0)
                m_recentDeletes[key] = event.kv.modRevision;
            MirrorChange removed{MirrorChange::Kind::Removed, key, std::nullopt, event.kv.modRevision};
            m_unreadValueBytes.remove(key);
            if (held != m_copy.end()) {
                removed.kv = held->second;
                m_copy.erase(held);
            }
            changes.append(removed);
        }
    }
    if (!changes.isEmpty())
        report(changes, MirrorOrigin::Watch);
}

void KeyMirror::report(const QList<MirrorChange> &changes, MirrorOrigin origin)
{
    if (m_handlers.changed)
        m_handlers.changed(changes, origin);
}

void KeyMirror::settle(Promise promise, const Status &status)
{
    if (!m_pending.removeOne(promise) && promise->future().isFinished())
        return;
    promise->addResult(status);
    promise->finish();
}


} // namespace QEtcd::Internal
