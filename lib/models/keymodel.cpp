// SPDX-License-Identifier: Apache-2.0
#include "keymodel.h"

#include "continuation_p.h"
#include "displaytext.h"
#include "keyindex_p.h"
#include "sortedmerge_p.h"
#include "valuedescription_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QPromise>
#include <QtCore/QThreadPool>

#include <algorithm>

namespace QEtcd {

using namespace Internal;

namespace {
// The selected key as KeyModel::selected shows it: decoding a value of a few MB takes long
// enough to freeze the GUI thread, so this runs on the thread pool.
QVariantMap selectedMap(const KeyValue &kv)
{
    return {{QStringLiteral("key"), QString::fromUtf8(kv.key)},
            {QStringLiteral("error"), QString()},
            {QStringLiteral("value"), QString::fromUtf8(kv.value)},
            {QStringLiteral("size"), kv.value.size()},
            {QStringLiteral("createRevision"), kv.createRevision},
            {QStringLiteral("modRevision"), kv.modRevision},
            {QStringLiteral("version"), kv.version},
            {QStringLiteral("lease"), leaseHex(kv.lease)},
            {QStringLiteral("views"), describeValue(kv)}};
}
} // namespace

KeyModel::KeyModel(QObject *parent)
    : QAbstractListModel(parent),
      m_index(std::make_unique<KeyIndex>()),
      m_liveSelected{{QStringLiteral("key"), QString()}, {QStringLiteral("error"), QString()}}
{
    KeyIndex *index = m_index.get();
    // While paused the index's changes stay in the index; resuming merges them in.
    connect(index, &KeyIndex::aboutToInsert, this, [this](int first, int last) {
        if (live())
            beginInsertRows({}, first, last);
    });
    connect(index, &KeyIndex::inserted, this, [this] {
        if (m_frozen)
            return;
        endInsertRows();
        Q_EMIT countChanged();
    });
    connect(index, &KeyIndex::aboutToRemove, this, [this](int row) {
        // A key deleted and then written again is not the key the operator marked.
        if (m_marked.erase(m_index->entries()[size_t(row)].key) > 0)
            Q_EMIT markedChanged();
        if (live())
            beginRemoveRows({}, row, row);
    });
    connect(index, &KeyIndex::removed, this, [this] {
        if (m_frozen)
            return;
        endRemoveRows();
        Q_EMIT countChanged();
    });
    connect(index, &KeyIndex::changed, this, [this](int row) {
        if (live())
            Q_EMIT dataChanged(this->index(row), this->index(row));
    });
    connect(index, &KeyIndex::aboutToReset, this, [this] {
        clearMarks();
        if (live())
            beginResetModel();
    });
    connect(index, &KeyIndex::reset, this, [this] {
        if (m_frozen)
            return;
        endResetModel();
        Q_EMIT countChanged();
    });
    connect(index, &KeyIndex::statusChanged, this, &KeyModel::statusChanged);
    connect(index, &KeyIndex::progressChanged, this, &KeyModel::progressChanged);
    connect(index, &KeyIndex::selectedChanged, this, &KeyModel::onSelectedChanged);
}

KeyModel::~KeyModel() = default;

Client *KeyModel::client() const
{
    return m_index->client();
}

void KeyModel::setClient(Client *client)
{
    if (client == m_index->client())
        return;
    m_index->setClient(client);
    Q_EMIT clientChanged();
    reload();
}

QString KeyModel::prefix() const
{
    return QString::fromUtf8(m_index->prefix());
}

void KeyModel::setPrefix(const QString &prefix)
{
    if (prefix == this->prefix())
        return;
    m_index->setPrefix(prefix.toUtf8());
    Q_EMIT prefixChanged();
    reload();
}

qint64 KeyModel::asOfRevision() const
{
    return m_index->revision();
}

void KeyModel::setAsOfRevision(qint64 revision)
{
    revision = std::max<qint64>(revision, 0);
    if (revision == m_index->revision())
        return;
    m_index->setRevision(revision);
    Q_EMIT asOfRevisionChanged();
    reload();
    // The selected key's value is read again, as of then.
    if (!m_index->selectedKey().isEmpty())
        m_index->select(m_index->selectedKey());
}

int KeyModel::pageSize() const
{
    return m_index->pageSize();
}

void KeyModel::setPageSize(int pageSize)
{
    if (pageSize == m_index->pageSize())
        return;
    m_index->setPageSize(pageSize);
    Q_EMIT pageSizeChanged();
}

ModelStatus::Status KeyModel::status() const
{
    return m_index->status();
}

QString KeyModel::errorString() const
{
    return m_index->errorString();
}

double KeyModel::progress() const
{
    return m_index->progress();
}

qint64 KeyModel::total() const
{
    return m_index->total();
}

int KeyModel::count() const
{
    return int(rows().size());
}

const std::vector<KeyEntry> &KeyModel::rows() const
{
    return m_frozen ? *m_frozen : m_index->entries();
}

void KeyModel::setPaused(bool paused)
{
    if (paused == isPaused())
        return;
    if (paused) {
        m_frozen = std::make_unique<std::vector<KeyEntry>>(m_index->entries());
        m_frozenAtMs = QDateTime::currentMSecsSinceEpoch();
        m_frozenSelected = m_liveSelected;
        m_selectionPending = false;
        Q_EMIT pausedChanged();
        return;
    }
    const int before = count();
    mergeSorted(
        *m_frozen, m_index->entries(), [](const KeyEntry &a, const KeyEntry &b) { return a.key < b.key; },
        [](const KeyEntry &a, const KeyEntry &b) {
            return a.modRevision == b.modRevision && a.createRevision == b.createRevision && a.lease == b.lease;
        },
        {[this](int row) { beginInsertRows({}, row, row); }, [this](int) { endInsertRows(); },
         [this](int row) { beginRemoveRows({}, row, row); }, [this](int) { endRemoveRows(); },
         [this](int row) { Q_EMIT dataChanged(index(row), index(row)); }});
    m_frozen.reset();
    m_frozenSelected.clear();
    m_selectionPending = false;
    if (std::exchange(m_heldChanges, 0) > 0)
        Q_EMIT heldChangesChanged();
    if (count() != before)
        Q_EMIT countChanged();
    Q_EMIT selectedChanged();
    Q_EMIT pausedChanged();
}

bool KeyModel::live()
{
    if (!m_frozen)
        return true;
    ++m_heldChanges;
    Q_EMIT heldChangesChanged();
    return false;
}

void KeyModel::onSelectedChanged()
{
    const KeyValue kv = m_index->selected();
    if (kv.key.isEmpty()) {
        setLiveSelected({{QStringLiteral("key"), selectedKey()}, {QStringLiteral("error"), m_index->selectedError()}});
        return;
    }
    // At most one description at a time: the latest revision is described when it is done.
    if (m_describing) {
        m_describeAgain = true;
        return;
    }
    describe(kv);
}

void KeyModel::describe(const KeyValue &kv)
{
    m_describing = true;
    auto promise = std::make_shared<QPromise<QVariantMap>>();
    promise->start();
    const QFuture<QVariantMap> described = promise->future();
    QThreadPool::globalInstance()->start([promise, kv] {
        promise->addResult(selectedMap(kv));
        promise->finish();
    });
    thenOn(described, this, [this, key = kv.key, modRevision = kv.modRevision](const QVariantMap &selected) {
        m_describing = false;
        const KeyValue now = m_index->selected();
        // Still the selected key's value (not since deleted, nor another key selected).
        if (now.key == key)
            setLiveSelected(selected);
        if (std::exchange(m_describeAgain, false) && !now.key.isEmpty() && (now.key != key || now.modRevision != modRevision))
            describe(now);
    });
}

void KeyModel::setLiveSelected(const QVariantMap &selected)
{
    m_liveSelected = selected;
    if (m_frozen) {
        // Only the operator's own choice gets through a pause, once its value is read.
        if (!m_selectionPending)
            return;
        m_frozenSelected = m_liveSelected;
        m_selectionPending = !selected.contains(QStringLiteral("modRevision"))
                             && selected.value(QStringLiteral("error")).toString().isEmpty();
    }
    Q_EMIT selectedChanged();
}

QString KeyModel::selectedKey() const
{
    return DisplayText::fromBytes(m_index->selectedKey());
}

void KeyModel::setSelectedKey(const QString &key)
{
    if (key == selectedKey())
        return;
    m_selectionPending = m_frozen != nullptr;
    m_index->select(DisplayText::toBytes(key));
}

QVariantMap KeyModel::selected() const
{
    return m_frozen ? m_frozenSelected : m_liveSelected;
}

void KeyModel::reload()
{
    m_index->reload();
}

void KeyModel::fetchNextPage()
{
    fetchMore({});
}

int KeyModel::indexOf(const QString &key) const
{
    const QByteArray k = DisplayText::toBytes(key);
    const std::vector<KeyEntry> &entries = rows();
    const auto it = std::lower_bound(entries.begin(), entries.end(), k,
                                     [](const KeyEntry &entry, const QByteArray &key) { return entry.key < key; });
    return it != entries.end() && it->key == k ? int(it - entries.begin()) : -1;
}

QStringList KeyModel::markedKeys() const
{
    QStringList keys;
    keys.reserve(qsizetype(m_marked.size()));
    for (const QByteArray &key : m_marked)
        keys.append(DisplayText::fromBytes(key));
    return keys;
}

void KeyModel::setMarked(const QString &key, bool marked)
{
    const QByteArray k = DisplayText::toBytes(key);
    if (k.isEmpty() || (marked ? !m_marked.insert(k).second : m_marked.erase(k) == 0))
        return;
    if (const int row = indexOf(key); row >= 0)
        Q_EMIT dataChanged(index(row), index(row), {MarkedRole});
    Q_EMIT markedChanged();
}

void KeyModel::markRows(int first, int last)
{
    if (first > last)
        std::swap(first, last);
    first = std::max(first, 0);
    last = std::min(last, count() - 1);
    if (first > last)
        return;
    const std::vector<KeyEntry> &entries = rows();
    for (int row = first; row <= last; ++row)
        m_marked.insert(entries[size_t(row)].key);
    Q_EMIT dataChanged(index(first), index(last), {MarkedRole});
    Q_EMIT markedChanged();
}

void KeyModel::clearMarks()
{
    if (m_marked.empty())
        return;
    m_marked.clear();
    if (count() > 0)
        Q_EMIT dataChanged(index(0), index(count() - 1), {MarkedRole});
    Q_EMIT markedChanged();
}

void KeyModel::create(const QString &key, const QString &value, int leaseTtl, const QString &lease)
{
    const QString action = QStringLiteral("create");
    const QByteArray k = DisplayText::toBytes(key);
    PutOptions options;
    if (!lease.isEmpty()) {
        bool ok = false;
        options.lease = qint64(lease.trimmed().toULongLong(&ok, 16));
        if (!ok || options.lease == 0) {
            return Q_EMIT writeFinished(action, key, Status(StatusCode::InvalidArgument,
                                                            QStringLiteral("\"%1\" is not a lease ID (hex, as the Leases page shows it)")
                                                                .arg(lease)));
        }
    }
    if (leaseTtl <= 0 || !client())
        return write(action, k, Compare::absent(k), TxnOp::put(k, value.toUtf8(), options));
    Internal::thenOn(client()->leaseGrant(leaseTtl), this, [this, action, key, k, value](const LeaseGrantResult &granted) {
        if (!granted.status)
            return Q_EMIT writeFinished(action, key, granted.status.withContext(QStringLiteral("grant the key's lease")));
        PutOptions onLease;
        onLease.lease = granted.id;
        write(action, k, Compare::absent(k), TxnOp::put(k, value.toUtf8(), onLease), [this, id = granted.id](const Status &put) {
            if (!put && client())
                client()->leaseRevoke(id);  // nothing else holds it: left alone it would only time out
        });
    });
}

void KeyModel::update(const QString &key, const QString &value, qint64 expectedModRevision)
{
    const QByteArray k = DisplayText::toBytes(key);
    // A new value keeps the key's lease: an edit must not turn a holder's key into a permanent one.
    PutOptions keepLease;
    keepLease.ignoreLease = true;
    write(QStringLiteral("update"), k, Compare::modRevision(k, CompareResult::Equal, expectedModRevision),
          TxnOp::put(k, value.toUtf8(), keepLease));
}

void KeyModel::remove(const QString &key, qint64 expectedModRevision)
{
    const QByteArray k = DisplayText::toBytes(key);
    write(QStringLiteral("remove"), k, Compare::modRevision(k, CompareResult::Equal, expectedModRevision),
          TxnOp::remove(k));
}

void KeyModel::write(const QString &action, const QByteArray &key, const Compare &expected, const TxnOp &change,
                     const std::function<void(const Status &)> &afterwards)
{
    const QString name = DisplayText::fromBytes(key);
    if (!client()) {
        Q_EMIT writeFinished(action, name, Status(StatusCode::NotStarted, name + QStringLiteral(": no client to write with")));
        return;
    }
    if (key.isEmpty()) {
        Q_EMIT writeFinished(action, name, Status(StatusCode::InvalidArgument, QStringLiteral("the key is empty")));
        return;
    }
    // The failure branch reads the key, so a refused compare can say what is there instead.
    Txn txn{{expected}, {change}, {TxnOp::range(key)}};
    Internal::thenOn(client()->txn(txn), this, [this, action, name, expected, afterwards](const TxnResult &result) {
        Status status = result.status;
        if (status && !result.succeeded) {
            const RangeResult now = result.responses.value(0).range;
            const KeyValue kv = now.kvs.value(0);
            if (expected.target == Compare::Target::Version)
                status = Status(StatusCode::AlreadyExists,
                                QStringLiteral("%1 already exists (created at revision %2); edit it instead")
                                    .arg(name).arg(kv.createRevision));
            else if (now.kvs.isEmpty())
                status = Status(StatusCode::NotFound, QStringLiteral("%1 was deleted after revision %2; nothing was changed")
                                                          .arg(name).arg(expected.operand));
            else
                status = Status(StatusCode::Mismatch,
                                QStringLiteral("%1 changed at revision %2 after you read revision %3; nothing was "
                                               "changed: read it again first")
                                    .arg(name).arg(kv.modRevision).arg(expected.operand));
        }
        if (afterwards)
            afterwards(status);
        Q_EMIT writeFinished(action, name, status);
    });
}

int KeyModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant KeyModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const KeyEntry &entry = rows()[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case KeyRole:
        return DisplayText::fromBytes(entry.key);
    case NameRole:
        return DisplayText::fromBytes(entry.key.mid(m_index->prefix().size()));
    case CreateRevisionRole:
        return entry.createRevision;
    case ModRevisionRole:
        return entry.modRevision;
    case VersionRole:
        return entry.version;
    case LeaseRole:
        return leaseHex(entry.lease);
    case ChangedAtRole: {
        const qint64 changedAt = m_index->changedAtMs(entry.key);
        return m_frozen && changedAt > m_frozenAtMs ? 0 : changedAt;
    }
    case MarkedRole:
        return m_marked.count(entry.key) > 0;
    }
    return {};
}

QHash<int, QByteArray> KeyModel::roleNames() const
{
    return {{KeyRole, "key"},           {NameRole, "name"},   {CreateRevisionRole, "createRevision"},
            {ModRevisionRole, "modRevision"}, {VersionRole, "version"}, {LeaseRole, "lease"},
            {ChangedAtRole, "changedAt"}, {MarkedRole, "marked"}};
}

bool KeyModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_frozen && m_index->canFetchMore();
}

void KeyModel::fetchMore(const QModelIndex &parent)
{
    if (!parent.isValid() && !m_frozen)
        m_index->fetchMore();
}

} // namespace QEtcd
