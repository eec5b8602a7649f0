// SPDX-License-Identifier: Apache-2.0
#include "keyindex_p.h"

#include "continuation_p.h"
#include "freedmemory_p.h"

#include <QtCore/QDateTime>

#include <algorithm>
#include <cstring>

namespace QEtcd::Internal {

namespace {
bool keyLess(const KeyEntry &entry, const QByteArray &key)
{
    return entry.key < key;
}

KeyEntry entryOf(KeyBlocks &blocks, const KeyValue &kv)
{
    return {blocks.keep(kv.key), kv.createRevision, kv.modRevision, kv.version, kv.lease};
}
} // namespace

QByteArray KeyBlocks::keep(const QByteArray &key)
{
    const qsizetype needed = key.size() + 1;
    // A long key fills a block too fast to be worth sharing one; it keeps the block it came in.
    if (needed > BlockBytes / 64)
        return key;
    if (!m_block.d_ptr() || m_used + needed > m_block.constAllocatedCapacity()) {
        m_block = QByteArray::DataPointer(QTypedArrayData<char>::allocate(BlockBytes));
        m_used = 0;
    }
    char *copy = m_block.data() + m_used;
    std::memcpy(copy, key.constData(), size_t(key.size()));
    copy[key.size()] = '\0';
    m_used += needed;
    m_block.d_ptr()->ref();
    return QByteArray(QByteArray::DataPointer(m_block.d_ptr(), copy, key.size()));
}

QString leaseHex(qint64 lease)
{
    return lease == 0 ? QString() : QString::number(quint64(lease), 16);
}

KeyIndex::KeyIndex(QObject *parent) : QObject(parent)
{
    m_frame.setInterval(std::chrono::milliseconds(16));
    m_frame.setSingleShot(true);
    connect(&m_frame, &QTimer::timeout, this, &KeyIndex::applyPending);
}

KeyIndex::~KeyIndex()
{
    delete m_watcher;
}

void KeyIndex::setClient(Client *client)
{
    m_client = client;
}

void KeyIndex::setPrefix(const QByteArray &prefix)
{
    m_prefix = prefix;
}

void KeyIndex::setPageSize(int pageSize)
{
    m_pageSize = std::max(1, pageSize);
}

QByteArray KeyIndex::startKey() const
{
    // etcd's spelling of "from the first key" when there is no prefix.
    return m_prefix.isEmpty() ? QByteArray(1, '\0') : m_prefix;
}

void KeyIndex::reload()
{
    ++m_generation;
    delete std::exchange(m_watcher, nullptr);
    Q_EMIT aboutToReset();
    // Given back, not merely emptied: a million keys' entries are tens of MiB.
    std::vector<KeyEntry>().swap(m_entries);
    m_keyBlocks.startAfresh();
    m_changedAtMs.clear();
    m_changes.clear();
    m_pending.clear();
    m_pendingAt.clear();
    m_ahead.clear();
    // A read of the selected key on its way through an earlier client may never come back.
    m_selectedFetching = false;
    ++m_selectedFetchGeneration;
    m_frame.stop();
    m_complete = false;
    m_fetching = false;
    m_total = -1;
    m_limit = m_pageSize;
    m_limitCeiling = MaxPageKeys;
    m_continuation = startKey();
    setStatus(m_client ? ModelStatus::Loading : ModelStatus::Null);
    // A view (or QAbstractItemModelTester) may ask for the first page from inside reset().
    Q_EMIT reset();
    if (!m_client)
        return;
    fetchMore();
}

bool KeyIndex::canFetchMore() const
{
    return m_client && m_status != ModelStatus::Error && !m_complete && !m_fetching;
}

void KeyIndex::fetchMore()
{
    if (canFetchMore())
        requestPage();
}

int KeyIndex::indexOf(const QByteArray &key) const
{
    const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), key, keyLess);
    return it != m_entries.end() && it->key == key ? int(it - m_entries.begin()) : -1;
}

double KeyIndex::progress() const
{
    if (m_complete)
        return 1.0;
    if (m_total <= 0)
        return 0.0;
    return std::min(1.0, double(m_entries.size()) / double(m_total));
}

void KeyIndex::requestPage()
{
    m_fetching = true;
    RangeOptions page;
    page.range = KeyRange::upTo(prefixRangeEnd(m_prefix));
    page.keysOnly = true;
    page.limit = m_limit;
    page.revision = m_revision;
    // No sort: etcd answers in key order anyway, and with a sort order it reads the whole rest
    // of the range for every page and truncates afterwards. Without one, etcd 3.4 still walks
    // its index over the whole rest of the range before applying the limit, whatever the
    // limit: pages start at pageSize and double up to MaxPageKeys, so that the whole index
    // costs etcd a few dozen walks instead of one per thousand keys.
    thenOn(m_client->get(m_continuation, page), this, [this, generation = m_generation](const RangeResult &result) {
        onPage(generation, result);
    });
}

void KeyIndex::onPage(quint64 generation, const RangeResult &result)
{
    if (generation != m_generation)
        return;
    m_fetching = false;
    if (result.status.code() == StatusCode::ResourceExhausted && m_limit > m_pageSize) {
        // Long keys: a grown page outgrew the client's receive limit; smaller ones still fit.
        m_limitCeiling = m_limit / 2;
        m_limit = std::max(m_pageSize, m_limit / 4);
        return requestPage();
    }
    if (!result.status) {
        setStatus(ModelStatus::Error, m_revision > 0 ? result.status.withContext(QStringLiteral("read revision %1").arg(m_revision)).message()
                                                     : result.status.message());
        return;
    }
    // The first page's range is the whole prefix, so its count is every key under it: room for
    // all of them now spares growing the entries by doubling, which leaves the allocator
    // holding the smaller copies it freed (tens of MiB at a million keys).
    if (m_total < 0) {
        m_total = result.count;
        m_entries.reserve(size_t(std::clamp<qint64>(m_total, 0, MaxReservedEntries)));
    }
    m_limit = std::max(m_limit, std::min(m_limit * 2, m_limitCeiling));
    // Watch events that reached the frame timer first belong before this page's keys.
    applyPending();
    std::vector<KeyEntry> page;
    page.reserve(size_t(result.kvs.size()));
    for (const KeyValue &kv : result.kvs)
        page.push_back(entryOf(m_keyBlocks, kv));
    m_complete = !result.more || result.kvs.isEmpty();
    // The pages' answers, freed as they were read, stay resident otherwise: 10 MiB beside the
    // index's 76 at a million keys. After this answer and its future are gone too: the last
    // page is the largest.
    if (m_complete && m_entries.size() + page.size() >= ManyKeys)
        QTimer::singleShot(std::chrono::milliseconds(100), this, &giveBackFreedMemory);
    m_continuation = result.kvs.isEmpty() ? QByteArray() : result.kvs.last().key + '\0';
    if (!page.empty()) {
        const int first = int(m_entries.size());
        Q_EMIT aboutToInsert(first, first + int(page.size()) - 1);
        m_entries.insert(m_entries.end(), std::make_move_iterator(page.begin()), std::make_move_iterator(page.end()));
        Q_EMIT inserted(first, int(m_entries.size()) - 1);
    }
    // What the watch said about keys this page reached applies where it is newer than the page.
    const QList<QByteArray> reached = m_ahead.keys();
    for (const QByteArray &key : reached) {
        if (m_complete || key < m_continuation) {
            const WatchEvent event = m_ahead.take(key);
            if (event.kv.modRevision > result.header.revision)
                apply(event);
        }
    }
    if (!m_watcher && m_revision == 0) {
        WatchOptions options;
        options.range = KeyRange::prefix();
        options.startRevision = result.header.revision + 1;
        m_watcher = new Watcher(m_client, m_prefix, options);
        connect(m_watcher, &Watcher::eventsReceived, this, [this](const QList<WatchEvent> &events) { onEvents(events); });
        connect(m_watcher, &Watcher::recovery, this, [this](const WatchRecoveryEvent &event) {
            if (event.kind == WatchRecoveryKind::Failed)
                setStatus(ModelStatus::Error, QStringLiteral("the watch on the keys gave up: ") + event.cause.message());
        });
        m_watcher->start();
    }
    setStatus(ModelStatus::Ready);
    Q_EMIT progressChanged();
}

void KeyIndex::onEvents(const QList<WatchEvent> &events)
{
    for (WatchEvent event : events) {
        if (event.kv.key == m_selectedKey)
            m_selectedNews = event;
        event.kv.value = QByteArray();
        // One event per key is enough: the rows show a key's latest state, whatever came before.
        const auto at = m_pendingAt.constFind(event.kv.key);
        if (at != m_pendingAt.cend()) {
            m_pending[*at] = std::move(event);
        } else {
            m_pendingAt.insert(event.kv.key, m_pending.size());
            m_pending.append(std::move(event));
        }
    }
    if (!m_frame.isActive())
        m_frame.start();
}

void KeyIndex::applyPending()
{
    m_frame.stop();
    m_pendingAt.clear();
    for (const WatchEvent &event : std::exchange(m_pending, {}))
        apply(event);
    if (m_selectedNews)
        applySelectedNews();
}

void KeyIndex::applySelectedNews()
{
    const WatchEvent news = *std::exchange(m_selectedNews, std::nullopt);
    // The read made when the key was selected may already be as new.
    if (news.kv.modRevision <= m_selectedAsOf)
        return;
    m_selectedAsOf = news.kv.modRevision;
    if (news.type == WatchEvent::Type::Delete) {
        m_selected = {};
        m_selectedError = QStringLiteral("the key no longer exists");
    } else {
        m_selected = news.kv;
        m_selectedError.clear();
    }
    Q_EMIT selectedChanged();
}

void KeyIndex::countedChange(int keys)
{
    if (m_total >= 0)
        m_total += keys;
    Q_EMIT progressChanged();
}

void KeyIndex::apply(const WatchEvent &event)
{
    const QByteArray &key = event.kv.key;
    if (!m_complete && !(key < m_continuation)) {
        // Not loaded yet: the page that reaches this key decides, with this news on top.
        m_ahead.insert(key, event);
        return;
    }
    const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), key, keyLess);
    const int row = int(it - m_entries.begin());
    const bool present = it != m_entries.end() && it->key == key;
    if (event.type == WatchEvent::Type::Delete) {
        if (present) {
            Q_EMIT aboutToRemove(row);
            m_entries.erase(it);
            Q_EMIT removed(row);
            countedChange(-1);
        }
    } else if (present) {
        *it = entryOf(m_keyBlocks, event.kv);
        noteChanged(key);
        Q_EMIT changed(row);
    } else {
        noteChanged(key);
        Q_EMIT aboutToInsert(row, row);
        m_entries.insert(it, entryOf(m_keyBlocks, event.kv));
        Q_EMIT inserted(row, row);
        countedChange(1);
    }
}

void KeyIndex::noteChanged(const QByteArray &key)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    while (!m_changes.empty() && m_changes.front().first < now - ChangeMemoryMs) {
        const auto &[at, stale] = m_changes.front();
        // Only where nothing changed it since.
        const auto known = m_changedAtMs.constFind(stale);
        if (known != m_changedAtMs.cend() && known.value() == at)
            m_changedAtMs.erase(known);
        m_changes.pop_front();
    }
    m_changedAtMs.insert(key, now);
    m_changes.emplace_back(now, key);
}

void KeyIndex::select(const QByteArray &key)
{
    m_selectedKey = key;
    m_selected = {};
    m_selectedError.clear();
    m_selectedAsOf = 0;
    m_selectedNews.reset();
    Q_EMIT selectedChanged();
    fetchSelected();
}

void KeyIndex::fetchSelected()
{
    if (!m_client || m_selectedKey.isEmpty() || m_selectedFetching)
        return;
    m_selectedFetching = true;
    RangeOptions asOf;
    asOf.revision = m_revision;
    thenOn(m_client->get(m_selectedKey, asOf), this,
           [this, key = m_selectedKey, generation = m_selectedFetchGeneration](const RangeResult &result) {
               if (generation != m_selectedFetchGeneration)
                   return;
               m_selectedFetching = false;
               // Another key was selected meanwhile: only the latest is worth reading.
               if (key != m_selectedKey)
                   return fetchSelected();
               // The watch told of a newer revision while this read was on its way.
               if (m_selectedAsOf > 0 && (!result.status || result.header.revision < m_selectedAsOf))
                   return;
               if (result.status)
                   m_selectedAsOf = result.header.revision;
               m_selected = result.kvs.value(0);
               m_selectedError = !result.status ? result.status.message()
                   : result.kvs.isEmpty()       ? QStringLiteral("the key no longer exists")
                                                : QString();
               Q_EMIT selectedChanged();
           });
}

void KeyIndex::setStatus(ModelStatus::Status status, const QString &error)
{
    if (status == m_status && error == m_error)
        return;
    m_status = status;
    m_error = error;
    Q_EMIT statusChanged();
}

} // namespace QEtcd::Internal
