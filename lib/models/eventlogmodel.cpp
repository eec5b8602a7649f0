// SPDX-License-Identifier: Apache-2.0
#include "eventlogmodel.h"

#include "wholefile_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

#include <algorithm>
#include <ctime>

namespace QEtcd {

namespace {
QByteArray csvField(const QString &text)
{
    QByteArray field = text.toUtf8();
    if (field.contains(',') || field.contains('"') || field.contains('\n') || field.contains('\r'))
        field = '"' + field.replace("\"", "\"\"") + '"';
    return field;
}
} // namespace

EventLogModel::EventLogModel(QObject *parent) : QAbstractListModel(parent)
{
    m_frame.setSingleShot(true);
    m_frame.setInterval(std::chrono::milliseconds(16));
    connect(&m_frame, &QTimer::timeout, this, &EventLogModel::flush);
}

EventLogModel::~EventLogModel() = default;

qint64 EventLogModel::monotonicNowMs()
{
    // The clock of the CLI's mono_ms, so the two merge into one timeline.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

void EventLogModel::append(Event event)
{
    if (event.monotonicMs == StampNow)
        event.monotonicMs = monotonicNowMs();
    m_events.append(std::move(event));
    if (!m_frame.isActive())
        m_frame.start();
}

void EventLogModel::append(const QString &participant, const QString &kind, const QString &detail, bool spurious,
                           const QString &key)
{
    append(Event{StampNow, participant, kind, detail, spurious, key});
}

void EventLogModel::clear()
{
    beginResetModel();
    m_firstSequence = endSequence();
    m_flushed = m_firstSequence;
    m_events.clear();
    m_rows.clear();
    endResetModel();
    Q_EMIT countChanged();
    Q_EMIT eventsChanged();
}

void EventLogModel::setCapacity(int capacity)
{
    capacity = std::max(capacity, 1);
    if (capacity == m_capacity)
        return;
    m_capacity = capacity;
    Q_EMIT capacityChanged();
    if (dropBeyondCapacity())
        Q_EMIT eventsChanged();
}

QList<EventLogModel::Event> EventLogModel::events() const
{
    return m_events;
}

void EventLogModel::flush()
{
    const bool appended = m_flushed < endSequence();
    // Events dropped before they were flushed never become rows.
    dropBeyondCapacity();
    QList<qint64> added;
    for (m_flushed = std::max(m_flushed, m_firstSequence); m_flushed < endSequence(); ++m_flushed) {
        if (matches(eventAt(m_flushed)))
            added.append(m_flushed);
    }
    if (!added.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + added.size() - 1));
        m_rows.append(added);
        endInsertRows();
        Q_EMIT countChanged();
    }
    if (appended)
        Q_EMIT eventsChanged();
}

bool EventLogModel::dropBeyondCapacity()
{
    const qsizetype excess = m_events.size() - m_capacity;
    if (excess <= 0)
        return false;
    // The rows about to go still read their events while rowsAboutToBeRemoved is told (views
    // and QAbstractItemModelTester read them), so the events go only once that was told.
    const qint64 firstKept = m_firstSequence + excess;
    const qsizetype stale = std::lower_bound(m_rows.cbegin(), m_rows.cend(), firstKept) - m_rows.cbegin();
    if (stale > 0)
        beginRemoveRows({}, 0, int(stale - 1));
    m_events.remove(0, excess);
    m_firstSequence = firstKept;
    if (stale > 0) {
        m_rows.remove(0, stale);
        endRemoveRows();
        Q_EMIT countChanged();
    }
    return true;
}

bool EventLogModel::matches(const Event &event) const
{
    return m_filter.isEmpty() || event.participant.contains(m_filter, Qt::CaseInsensitive)
        || event.kind.contains(m_filter, Qt::CaseInsensitive) || event.detail.contains(m_filter, Qt::CaseInsensitive)
        || event.key.contains(m_filter, Qt::CaseInsensitive);
}

void EventLogModel::setFilter(const QString &filter)
{
    if (filter == m_filter)
        return;
    m_frame.stop();
    flush();
    beginResetModel();
    m_filter = filter;
    m_rows.clear();
    for (qint64 sequence = m_firstSequence; sequence < m_flushed; ++sequence) {
        if (matches(eventAt(sequence)))
            m_rows.append(sequence);
    }
    endResetModel();
    Q_EMIT filterChanged();
    Q_EMIT countChanged();
}

QByteArray EventLogModel::toJsonLines() const
{
    QByteArray lines;
    for (const qint64 sequence : m_rows) {
        const Event &event = eventAt(sequence);
        lines += QJsonDocument(QJsonObject{{QLatin1String("mono_ms"), event.monotonicMs},
                                           {QLatin1String("participant"), event.participant},
                                           {QLatin1String("kind"), event.kind},
                                           {QLatin1String("detail"), event.detail},
                                           {QLatin1String("spurious"), event.spurious},
                                           {QLatin1String("key"), event.key}})
                     .toJson(QJsonDocument::Compact)
            + '\n';
    }
    return lines;
}

QByteArray EventLogModel::toCsv() const
{
    QByteArray csv = "mono_ms,participant,kind,detail,spurious,key\n";
    for (const qint64 sequence : m_rows) {
        const Event &event = eventAt(sequence);
        csv += QByteArray::number(event.monotonicMs) + ',' + csvField(event.participant) + ',' + csvField(event.kind)
            + ',' + csvField(event.detail) + ',' + (event.spurious ? "true" : "false") + ',' + csvField(event.key)
            + '\n';
    }
    return csv;
}

bool EventLogModel::write(const QString &path, const QByteArray &contents)
{
    const QString error = Internal::writeWholeFile(path, contents);
    const bool written = error.isEmpty();
    if (error != m_error) {
        m_error = error;
        Q_EMIT errorStringChanged();
    }
    return written;
}

bool EventLogModel::exportJsonLines(const QString &path)
{
    flush();
    return write(path, toJsonLines());
}

bool EventLogModel::exportCsv(const QString &path)
{
    flush();
    return write(path, toCsv());
}

int EventLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant EventLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Event &event = eventAt(m_rows[index.row()]);
    switch (role) {
    case TimeRole:
        return event.monotonicMs;
    case ParticipantRole:
        return event.participant;
    case Qt::DisplayRole:
    case KindRole:
        return event.kind;
    case DetailRole:
        return event.detail;
    case SpuriousRole:
        return event.spurious;
    case KeyRole:
        return event.key;
    }
    return {};
}

QVariantMap EventLogModel::get(int row) const
{
    QVariantMap event;
    const QHash<int, QByteArray> roles = roleNames();
    for (auto role = roles.cbegin(); role != roles.cend(); ++role)
        event.insert(QString::fromLatin1(role.value()), data(index(row), role.key()));
    return event;
}

QHash<int, QByteArray> EventLogModel::roleNames() const
{
    return {{TimeRole, "time"}, {ParticipantRole, "participant"}, {KindRole, "kind"}, {DetailRole, "detail"},
            {SpuriousRole, "spurious"}, {KeyRole, "key"}};
}

} // namespace QEtcd
