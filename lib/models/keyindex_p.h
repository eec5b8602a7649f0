// SPDX-License-Identifier: Apache-2.0
#pragma once

// KeyModel's keys under a prefix, sorted, loaded in keys-only pages (etcd's limit plus a continuation key; the first of pageSize keys, each next one twice
// as large up to MaxPageKeys) and kept current by one watch.
// Changes are applied at most once per frame; each is announced with the row it touches in
// entries(), before and after, so a model can map it onto its own rows.

#include "modelstatus.h"

#include <QEtcd/client.h>
#include <QEtcd/watcher.h>

#include <QtCore/QHash>
#include <QtCore/QPointer>
#include <QtCore/QTimer>

#include <deque>
#include <optional>
#include <vector>

namespace QEtcd::Internal {

struct KeyEntry
{
    QByteArray key;
    qint64 createRevision = 0;
    qint64 modRevision = 0;
    qint64 version = 0;
    qint64 lease = 0;
};

// A lease ID in hex, as etcdctl prints it; empty for none.
QString leaseHex(qint64 lease);

// Where the index keeps its keys' bytes: a key of its own heap block costs Qt's header and the
// allocator's on top of its bytes, more than the bytes of a typical key, a million times over.
// keep() copies a key into a shared block and returns a QByteArray on that copy, which holds a
// reference to the block like any shared QByteArray: a copy of it outlives the index safely, and
// the block goes with its last key. Each copy ends in '\0' as every QByteArray's data does.
class QETCD_QUICK_EXPORT KeyBlocks
{
public:
    QByteArray keep(const QByteArray &key);
    // Later keys go to a new block; the old ones go as their keys do.
    void startAfresh() { m_block = {}; }

private:
    static constexpr qsizetype BlockBytes = 64 * 1024;
    QByteArray::DataPointer m_block;
    qsizetype m_used = 0;
};

class KeyIndex : public QObject
{
    Q_OBJECT
public:
    explicit KeyIndex(QObject *parent = nullptr);
    ~KeyIndex() override;

    void setClient(Client *client);
    Client *client() const { return m_client; }
    void setPrefix(const QByteArray &prefix);
    QByteArray prefix() const { return m_prefix; }
    void setPageSize(int pageSize);
    int pageSize() const { return m_pageSize; }
    // The revision the keys are read at: 0, the latest, kept live by a watch; otherwise the
    // keys as they were then, not watched (the past does not change). Takes effect at reload().
    void setRevision(qint64 revision) { m_revision = revision; }
    qint64 revision() const { return m_revision; }

    // Starts again from the first page; a client and the prefix are needed.
    void reload();
    bool canFetchMore() const;
    void fetchMore();

    const std::vector<KeyEntry> &entries() const { return m_entries; }
    // When the watch last changed key, in ms since the epoch; 0 when not since the keys were
    // loaded, or not lately: a view flashes a change it hears of, and a field in every entry
    // would cost a million keys 8 MB for the few that just changed.
    qint64 changedAtMs(const QByteArray &key) const { return m_changedAtMs.value(key); }
    // Every key is in; else the next page starts at continuation().
    bool isComplete() const { return m_complete; }
    QByteArray continuation() const { return m_continuation; }
    int indexOf(const QByteArray &key) const;  // -1 when not loaded
    ModelStatus::Status status() const { return m_status; }
    QString errorString() const { return m_error; }
    // Keys under the prefix: every one loaded once complete; before, the first page's count and
    // the keys the watch added or took in the loaded part since; -1 unknown.
    qint64 total() const { return m_complete ? qint64(m_entries.size()) : m_total; }
    double progress() const;                    // loaded / total, 1 when complete

    // The one key whose value is read, once when selected, then taken from the watch's events:
    // a key rewritten 20 times a second costs no read at all, and at most one read is ever on
    // its way (selecting again meanwhile reads once more, for the latest key, when it is back).
    void select(const QByteArray &key);
    QByteArray selectedKey() const { return m_selectedKey; }
    KeyValue selected() const { return m_selected; }  // empty until read
    QString selectedError() const { return m_selectedError; }

Q_SIGNALS:
    void aboutToInsert(int first, int last);
    void inserted(int first, int last);
    void aboutToRemove(int row);
    void removed(int row);
    void changed(int row);
    void aboutToReset();
    void reset();
    void statusChanged();
    void progressChanged();
    void selectedChanged();

private:
    void requestPage();
    void onPage(quint64 generation, const RangeResult &result);
    void onEvents(const QList<WatchEvent> &events);
    void applyPending();
    // A key appeared (1) or went (-1) where the keys are loaded: total follows.
    void countedChange(int keys);
    void apply(const WatchEvent &event);
    void noteChanged(const QByteArray &key);
    void setStatus(ModelStatus::Status status, const QString &error = {});
    QByteArray startKey() const;
    void fetchSelected();
    void applySelectedNews();

    QPointer<Client> m_client;
    QByteArray m_prefix;
    static constexpr int MaxPageKeys = 32768;  // keys only: a few MiB at most per answer
    // Room set aside at the first page; beyond it the entries grow as they come.
    static constexpr qint64 MaxReservedEntries = 4 * 1024 * 1024;
    // A listing this long gives the memory its pages took back to the system when it ends.
    static constexpr size_t ManyKeys = 100000;
    int m_pageSize = 1000;
    qint64 m_revision = 0;
    int m_limit = 1000;  // the next page's
    int m_limitCeiling = MaxPageKeys;  // lowered when a page outgrew the receive limit
    quint64 m_generation = 0;
    std::vector<KeyEntry> m_entries;
    KeyBlocks m_keyBlocks;
    // The keys the watch changed, kept from one change to the next for ChangeMemoryMs at least,
    // in the order they changed so that the stale ones go first.
    static constexpr qint64 ChangeMemoryMs = 5000;
    QHash<QByteArray, qint64> m_changedAtMs;
    std::deque<std::pair<qint64, QByteArray>> m_changes;
    QByteArray m_continuation;  // where the next page starts; empty once every key is in
    bool m_complete = false;
    bool m_fetching = false;
    qint64 m_total = -1;
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
    Watcher *m_watcher = nullptr;
    // Applied on the next frame, the latest event per key only and without values (the index is
    // keys only): however fast keys are rewritten, the queue holds one small event per key.
    QList<WatchEvent> m_pending;
    QHash<QByteArray, qsizetype> m_pendingAt;  // key -> its event in m_pending
    // Beyond the loaded keys the watch's latest news of a key waits for the page that reaches
    // it, and wins where it is newer than that page's read.
    QHash<QByteArray, WatchEvent> m_ahead;
    QTimer m_frame;
    QByteArray m_selectedKey;
    KeyValue m_selected;
    QString m_selectedError;
    qint64 m_selectedAsOf = 0;  // the revision m_selected is current at
    // The watch's latest event on the selected key, value included, for the next frame.
    std::optional<WatchEvent> m_selectedNews;
    bool m_selectedFetching = false;
    quint64 m_selectedFetchGeneration = 0;  // a reload forgets a read still on its way
};

} // namespace QEtcd::Internal
