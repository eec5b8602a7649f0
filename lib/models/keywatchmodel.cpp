// SPDX-License-Identifier: Apache-2.0
#include "keywatchmodel.h"

#include "continuation_p.h"
#include "displaytext.h"
#include "wholefile_p.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationrecogniser.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace QEtcd {

namespace {
// How much of a value a row shows and the filter searches: enough to recognise it.
constexpr qsizetype ValueShown = 160;

// The start of value, escaped, with an ellipsis when there is more.
QString valueShown(const QByteArray &value)
{
    // Decoding a large value whole for a row would be wasted: the bytes kept hold ValueShown
    // characters whatever their width.
    const QString decoded = DisplayText::fromBytes(value.left(ValueShown * 4));
    const bool more = decoded.size() > ValueShown || value.size() > ValueShown * 4;
    return DisplayText::escape(decoded.left(ValueShown)) + (more ? QStringLiteral(" …") : QString());
}

// The name the recogniser gives the entry of kv's key: a holder, a waiter, an instance.
QString recognisedWriter(const KeyValue &kv)
{
    for (const CoordinationObject &object : CoordinationRecogniser::recognise({kv})) {
        for (const QList<CoordinationEntry> *entries : {&object.holders, &object.waiters, &object.members, &object.leaving}) {
            for (const CoordinationEntry &entry : *entries) {
                if (entry.key == kv.key && !entry.name.isEmpty())
                    return entry.name;
            }
        }
    }
    return {};
}

QString leaseText(qint64 lease)
{
    return lease == 0 ? QString() : QString::number(quint64(lease), 16);
}
} // namespace

KeyWatchModel::KeyWatchModel(QObject *parent) : QAbstractListModel(parent) {}

KeyWatchModel::~KeyWatchModel()
{
    delete m_watcher;
}

void KeyWatchModel::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
    restart();
}

void KeyWatchModel::setKey(const QString &key)
{
    if (key == m_key)
        return;
    m_key = key;
    Q_EMIT keyChanged();
    restart();
}

void KeyWatchModel::setPrefix(bool prefix)
{
    if (prefix == m_prefix)
        return;
    m_prefix = prefix;
    Q_EMIT prefixChanged();
    restart();
}

void KeyWatchModel::setFromRevision(qint64 revision)
{
    revision = std::max<qint64>(0, revision);
    if (revision == m_fromRevision)
        return;
    m_fromRevision = revision;
    Q_EMIT fromRevisionChanged();
    restart();
}

void KeyWatchModel::setPaused(bool paused)
{
    if (paused == m_paused)
        return;
    m_paused = paused;
    Q_EMIT pausedChanged();
    if (!m_paused)
        keep(std::exchange(m_held, {}));
}

void KeyWatchModel::setFilter(const QString &filter)
{
    if (filter == m_filter)
        return;
    m_filter = filter;
    Q_EMIT filterChanged();
    refilter();
}

void KeyWatchModel::setCapacity(int capacity)
{
    capacity = std::max(1, capacity);
    if (capacity == m_capacity)
        return;
    m_capacity = capacity;
    Q_EMIT capacityChanged();
    dropBeyondCapacity();
}

void KeyWatchModel::clear()
{
    beginResetModel();
    m_firstSequence += qint64(m_events.size());
    m_events.clear();
    m_rows.clear();
    m_held.clear();
    endResetModel();
    Q_EMIT countChanged();
}

void KeyWatchModel::restart()
{
    delete std::exchange(m_watcher, nullptr);
    const quint64 generation = ++m_generation;
    m_received = 0;
    clear();
    if (!m_client || m_key.isEmpty())
        return setStatus(ModelStatus::Null);
    setStatus(ModelStatus::Loading);
    WatchOptions options;
    if (m_prefix)
        options.range = KeyRange::prefix();
    options.startRevision = m_fromRevision;
    options.prevKv = true;  // a delete's writer is the one whose value it took away
    m_watcher = new Watcher(m_client, DisplayText::toBytes(m_key), options);
    connect(m_watcher, &Watcher::eventsReceived, this, [this, generation](const QList<WatchEvent> &events) {
        if (generation == m_generation)
            receive(events);
    });
    connect(m_watcher, &Watcher::recovery, this, [this, generation](const WatchRecoveryEvent &event) {
        if (generation != m_generation)
            return;
        switch (event.kind) {
        case WatchRecoveryKind::Suspended:
            return setStatus(ModelStatus::Ready, tr("the watch is interrupted (%1): it resumes where it stopped").arg(event.cause.message()));
        case WatchRecoveryKind::Resubscribed:
            return setStatus(ModelStatus::Ready);
        case WatchRecoveryKind::Resynced:
            // Before anything was told, the start itself was compacted.
            if (m_received == 0 && m_fromRevision > 0 && event.compactRevision >= m_fromRevision) {
                return setStatus(ModelStatus::Ready, tr("etcd has compacted revision %1: the changes are shown from revision %2, "
                                                        "where its history begins")
                                                         .arg(m_fromRevision)
                                                         .arg(event.compactRevision + 1));
            }
            return setStatus(ModelStatus::Ready, tr("etcd compacted its history up to revision %1 while the watch was away: "
                                                    "changes before it are not shown")
                                                     .arg(event.compactRevision));
        case WatchRecoveryKind::Failed:
            return setStatus(ModelStatus::Error, tr("the watch gave up: %1").arg(event.cause.message()));
        }
    });
    Internal::thenOn(m_watcher->start(), this, [this, generation](const Status &started) {
        if (generation != m_generation)
            return;
        if (started)
            return setStatus(ModelStatus::Ready);
        setStatus(ModelStatus::Error, tr("cannot watch %1: %2").arg(DisplayText::escape(m_key), started.message()));
    });
}

void KeyWatchModel::receive(const QList<WatchEvent> &events)
{
    QList<Entry> entries;
    entries.reserve(events.size());
    for (const WatchEvent &event : events) {
        const bool put = event.type == WatchEvent::Type::Put;
        entries.append({event, DisplayText::fromBytes(event.kv.key), put ? valueShown(event.kv.value) : QString(), {}});
    }
    m_received += events.size();
    if (!m_paused)
        return keep(std::move(entries));
    m_held.append(std::move(entries));
    Q_EMIT countChanged();
}

void KeyWatchModel::keep(QList<Entry> entries)
{
    QList<qint64> shown;
    for (Entry &entry : entries) {
        if (matches(entry))
            shown.append(m_firstSequence + qint64(m_events.size()));
        m_events.push_back(std::move(entry));
    }
    if (!shown.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + shown.size()) - 1);
        m_rows.insert(m_rows.end(), shown.begin(), shown.end());
        endInsertRows();
    }
    dropBeyondCapacity();
    Q_EMIT countChanged();
}

void KeyWatchModel::dropBeyondCapacity()
{
    if (m_events.size() <= size_t(m_capacity))
        return;
    const qint64 dropped = qint64(m_events.size()) - m_capacity;
    const qint64 keptFrom = m_firstSequence + dropped;
    const auto firstKeptRow = std::lower_bound(m_rows.begin(), m_rows.end(), keptFrom);
    if (firstKeptRow != m_rows.begin()) {
        beginRemoveRows({}, 0, int(firstKeptRow - m_rows.begin()) - 1);
        m_rows.erase(m_rows.begin(), firstKeptRow);
        endRemoveRows();
    }
    m_events.erase(m_events.begin(), m_events.begin() + dropped);
    m_firstSequence = keptFrom;
    Q_EMIT countChanged();
}

void KeyWatchModel::refilter()
{
    beginResetModel();
    m_rows.clear();
    for (size_t i = 0; i < m_events.size(); ++i) {
        if (matches(m_events[i]))
            m_rows.push_back(m_firstSequence + qint64(i));
    }
    endResetModel();
    Q_EMIT countChanged();
}

bool KeyWatchModel::matches(const Entry &entry) const
{
    if (m_filter.isEmpty())
        return true;
    const bool put = entry.event.type == WatchEvent::Type::Put;
    for (const QString &text : {entry.key, entry.value, writerOf(entry), leaseText(entry.event.kv.lease),
                                put ? QStringLiteral("PUT") : QStringLiteral("DELETE")}) {
        if (text.contains(m_filter, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

const QString &KeyWatchModel::writerOf(const Entry &entry)
{
    if (!entry.writer) {
        // A delete's writer is the one whose value it took away.
        const bool put = entry.event.type == WatchEvent::Type::Put;
        entry.writer = recognisedWriter(put ? entry.event.kv : entry.event.prevKv.value_or(entry.event.kv));
    }
    return *entry.writer;
}

const KeyWatchModel::Entry &KeyWatchModel::entryAt(qint64 sequence) const
{
    return m_events[size_t(sequence - m_firstSequence)];
}

void KeyWatchModel::setStatus(ModelStatus::Status status, const QString &error)
{
    if (status == m_status && error == m_error)
        return;
    m_status = status;
    m_error = error;
    Q_EMIT statusChanged();
}

QString KeyWatchModel::exportJsonLines(const QString &path) const
{
    QByteArray lines;
    for (const qint64 sequence : m_rows) {
        const Entry &entry = entryAt(sequence);
        const KeyValue &kv = entry.event.kv;
        const bool put = entry.event.type == WatchEvent::Type::Put;
        QJsonObject line{{QLatin1String("revision"), kv.modRevision},
                         {QLatin1String("type"), put ? QLatin1String("PUT") : QLatin1String("DELETE")},
                         {QLatin1String("key"), entry.key},
                         {QLatin1String("key_base64"), QString::fromLatin1(kv.key.toBase64())},
                         {QLatin1String("lease"), leaseText(kv.lease)},
                         {QLatin1String("version"), kv.version},
                         {QLatin1String("create_revision"), kv.createRevision},
                         {QLatin1String("mod_revision"), kv.modRevision},
                         {QLatin1String("writer"), writerOf(entry)}};
        if (put)
            line.insert(QLatin1String("value_base64"), QString::fromLatin1(kv.value.toBase64()));
        lines += QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n';
    }
    return Internal::writeWholeFile(Internal::localPath(path), lines);
}

int KeyWatchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant KeyWatchModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &entry = entryAt(m_rows[size_t(index.row())]);
    const KeyValue &kv = entry.event.kv;
    const bool put = entry.event.type == WatchEvent::Type::Put;
    switch (role) {
    case RevisionRole:
        return kv.modRevision;
    case TypeRole:
        return put ? QStringLiteral("PUT") : QStringLiteral("DELETE");
    case KeyRole:
        return entry.key;
    case LeaseRole:
        return leaseText(kv.lease);
    case ValueRole:
        return entry.value;
    case SizeRole:
        return put ? kv.value.size() : 0;
    case VersionRole:
        return kv.version;
    case WriterRole:
        return writerOf(entry);
    default:
        return {};
    }
}

QHash<int, QByteArray> KeyWatchModel::roleNames() const
{
    return {{RevisionRole, "revision"}, {TypeRole, "type"},   {KeyRole, "key"},         {LeaseRole, "lease"},
            {ValueRole, "value"},       {SizeRole, "size"},   {VersionRole, "version"}, {WriterRole, "writer"}};
}

} // namespace QEtcd
