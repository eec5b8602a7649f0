// SPDX-License-Identifier: Apache-2.0
#include "coordinationmodel.h"

#include "continuation_p.h"
#include "displaytext.h"

#include "sortedmerge_p.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationhistory.h>
#include <QEtcd/coordinationmonitor.h>
#include <QEtcd/serviceinstance.h>

#include <QtCore/QSet>

#include <algorithm>

namespace QEtcd {

namespace {
// What the recogniser reads: identities, tokens, counters, permits, proclamations. A larger
// value is not read into the model; its entry says how large it was.
constexpr qsizetype MaxValueBytes = 64 * 1024;

QVariantList entriesOf(const QList<CoordinationEntry> &entries, const CoordinationMonitor *monitor)
{
    QVariantList list;
    for (const CoordinationEntry &entry : entries) {
        list.append(QVariantMap{
            {QStringLiteral("key"), DisplayText::fromBytes(entry.key)},
            // The key's bytes, for an intervention: "key" is made fit to show, not to send.
            {QStringLiteral("keyBase64"), QString::fromLatin1(entry.key.toBase64())},
            {QStringLiteral("name"), entry.displayName()},
            {QStringLiteral("clientId"), entry.name},
            {QStringLiteral("host"), entry.host},
            {QStringLiteral("pid"), entry.pid},
            {QStringLiteral("sinceMs"), entry.sinceMs},
            {QStringLiteral("lease"), entry.lease ? QString::number(quint64(entry.lease), 16) : QString()},
            {QStringLiteral("createRevision"), entry.createRevision},
            {QStringLiteral("value"), entry.valueText()},
            {QStringLiteral("role"), entry.role},
            {QStringLiteral("state"), entry.state},
            {QStringLiteral("valueTooLarge"), qint64(monitor ? monitor->unreadValueBytes(entry.key) : 0)},
        });
    }
    return list;
}

// A registered instance's address and payload, as the card's line under its name: where a
// client of the service would go. Nothing for a value that is not a service instance.
QVariantList withServiceDetails(QVariantList instances, const QList<CoordinationEntry> &entries)
{
    constexpr qsizetype ShownPayload = 60;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const std::optional<ServiceInstance> instance = ServiceInstance::fromJson(entries[i].value);
        if (!instance)
            continue;
        QStringList parts;
        if (!instance->address().isEmpty()) {
            const int port = instance->port() > 0 ? instance->port() : instance->sslPort();
            parts.append(port > 0 ? QStringLiteral("%1:%2").arg(instance->address()).arg(port) : instance->address());
        }
        if (QString payload = instance->jsonPayload().simplified(); !payload.isEmpty()) {
            if (payload.size() > ShownPayload)
                payload = payload.left(ShownPayload - 1) + QChar(0x2026);
            parts.append(payload);
        }
        QVariantMap shown = instances[i].toMap();
        shown.insert(QStringLiteral("detail"), DisplayText::escape(parts.join(QStringLiteral(" · "))));
        instances[i] = shown;
    }
    return instances;
}

bool before(const CoordinationObject &a, const CoordinationObject &b)
{
    return a.path != b.path ? a.path < b.path : a.kind < b.kind;
}
} // namespace

CoordinationModel::CoordinationModel(QObject *parent) : QAbstractListModel(parent) {}

CoordinationModel::~CoordinationModel() = default;

Client *CoordinationModel::client() const
{
    return m_client;
}

void CoordinationModel::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
    restart();
}

QString CoordinationModel::prefix() const
{
    return QString::fromUtf8(m_prefix);
}

void CoordinationModel::setPrefix(const QString &prefix)
{
    if (prefix == this->prefix())
        return;
    m_prefix = prefix.toUtf8();
    Q_EMIT prefixChanged();
    restart();
}

void CoordinationModel::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    restart();
    Q_EMIT activeChanged();
}

void CoordinationModel::setAsOfRevision(qint64 revision)
{
    revision = std::max<qint64>(revision, 0);
    if (revision == m_asOfRevision)
        return;
    m_asOfRevision = revision;
    Q_EMIT asOfRevisionChanged();
    restart();
}

void CoordinationModel::restart()
{
    // By generation, not by address: the next monitor can be allocated where this one was.
    const quint64 generation = ++m_generation;
    m_monitor.reset();
    m_recent.clear();
    apply({});
    if (!m_client || !m_active)
        return setStatus(ModelStatus::Null);
    setStatus(ModelStatus::Loading);
    if (m_asOfRevision > 0) {
        // The past does not change: one read, no watch.
        Internal::thenOn(CoordinationHistory::objectsAt(m_client, m_prefix, m_asOfRevision), this,
                         [this, generation](const CoordinationSnapshot &snapshot) {
                             if (generation != m_generation)
                                 return;
                             if (!snapshot.status)
                                 return setStatus(ModelStatus::Error, snapshot.status.message());
                             apply(snapshot.objects);
                             setStatus(ModelStatus::Ready);
                         });
        return;
    }
    m_monitor = std::make_unique<CoordinationMonitor>(m_client, m_prefix);
    m_monitor->setMaxValueBytes(MaxValueBytes);
    CoordinationMonitor *monitor = m_monitor.get();
    connect(monitor, &CoordinationMonitor::objectsChanged, this,
            [this, monitor](const QList<CoordinationObjectChange> &changes) {
                // Row by row for a few; a merge with the whole list for many (the first load).
                if (changes.size() > 64 && changes.size() > m_objects.size() / 8) {
                    apply(monitor->objects());
                    for (const CoordinationObjectChange &change : changes) {
                        if (change.type == CoordinationObjectChange::Type::Removed)
                            m_recent.remove({change.object.path, int(change.object.kind)});
                    }
                } else {
                    applyChanges(changes);
                }
            });
    connect(monitor, &CoordinationMonitor::eventsHappened, this, &CoordinationModel::remember);
    connect(monitor, &CoordinationMonitor::failed, this, [this](const Status &status) {
        setStatus(ModelStatus::Error, status.message());
    });
    Internal::thenOn(monitor->start(), this, [this, generation](const Status &status) {
        if (generation != m_generation)
            return;
        if (status)
            setStatus(ModelStatus::Ready);
        else
            setStatus(ModelStatus::Error, status.message());
    });
}

void CoordinationModel::apply(const QList<CoordinationObject> &objects)
{
    Internal::mergeSorted(m_objects, objects, before, std::equal_to<CoordinationObject>(), rowNotifications());
    Q_EMIT countChanged();
}

void CoordinationModel::applyChanges(const QList<CoordinationObjectChange> &changes)
{
    using Change = CoordinationObjectChange;
    for (const Change &change : changes) {
        const CoordinationObject &key = change.type == Change::Type::Added ? change.object
            : change.type == Change::Type::Changed                         ? change.previous
                                                                           : change.object;
        auto at = std::lower_bound(m_objects.begin(), m_objects.end(), key, before);
        const int row = int(at - m_objects.begin());
        if (change.type == Change::Type::Added) {
            beginInsertRows({}, row, row);
            m_objects.insert(at, change.object);
            endInsertRows();
            continue;
        }
        // Two layouts can make objects of one kind at one path: the row is the one equal to it.
        while (at != m_objects.end() && !before(key, *at) && *at != key)
            ++at;
        if (at == m_objects.end() || *at != key)
            continue;  // not a row here: nothing to do
        const int found = int(at - m_objects.begin());
        if (change.type == Change::Type::Changed) {
            *at = change.object;
            Q_EMIT dataChanged(index(found), index(found));
        } else {
            beginRemoveRows({}, found, found);
            m_recent.remove({at->path, int(at->kind)});
            m_objects.erase(at);
            endRemoveRows();
        }
    }
    Q_EMIT countChanged();
}

void CoordinationModel::remember(const QList<CoordinationEvent> &events)
{
    QSet<QPair<QByteArray, int>> told;
    for (const CoordinationEvent &event : events) {
        const QPair<QByteArray, int> id{event.path, int(event.kind)};
        QList<CoordinationEvent> &recent = m_recent[id];
        recent.prepend(event);
        if (recent.size() > RecentEvents)
            recent.removeLast();
        told.insert(id);
    }
    // Rows are sorted by path, then kind: each object's rows are found, not searched for.
    for (const auto &[path, kind] : std::as_const(told)) {
        CoordinationObject key;
        key.path = path;
        key.kind = CoordinationObject::Kind(kind);
        for (auto at = std::lower_bound(m_objects.begin(), m_objects.end(), key, before);
             at != m_objects.end() && at->path == path && int(at->kind) == kind; ++at) {
            const int row = int(at - m_objects.begin());
            Q_EMIT dataChanged(index(row), index(row), {RecentRole});
        }
    }
}

Internal::RowNotifications CoordinationModel::rowNotifications()
{
    return {[this](int row) { beginInsertRows({}, row, row); }, [this](int) { endInsertRows(); },
            [this](int row) { beginRemoveRows({}, row, row); }, [this](int) { endRemoveRows(); },
            [this](int row) { Q_EMIT dataChanged(index(row), index(row)); }};
}

void CoordinationModel::setStatus(ModelStatus::Status status, const QString &error)
{
    if (status == m_status && error == m_error)
        return;
    m_status = status;
    m_error = error;
    Q_EMIT statusChanged();
}

int CoordinationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant CoordinationModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CoordinationObject &object = m_objects[index.row()];
    switch (role) {
    case KindRole:
        return object.kindName();
    case Qt::DisplayRole:
    case NameRole:
        return DisplayText::fromBytes(object.path);
    case HoldersRole:
        return entriesOf(object.holders, m_monitor.get());
    case WaitersRole:
        return entriesOf(object.waiters, m_monitor.get());
    case MembersRole:
        if (object.kind == CoordinationObject::Kind::Service)
            return withServiceDetails(entriesOf(object.members, m_monitor.get()), object.members);
        return entriesOf(object.members, m_monitor.get());
    case LeavingRole:
        return entriesOf(object.leaving, m_monitor.get());
    case PermitsRole:
        return object.permits;
    case SetRole:
        return object.set;
    case DepthRole:
        return object.depth;
    case OldestRole:
        return object.oldestMs;
    case DelayedRole:
        return object.delayed;
    case InFlightRole:
        return object.inFlight;
    case OrphansRole:
        return object.orphans;
    case DeadLettersRole:
        return object.deadLetters;
    case ValueRole:
        return object.value;
    case KeysRole: {
        QStringList keys;
        for (const QByteArray &key : object.keys)
            keys.append(DisplayText::fromBytes(key));
        return keys;
    }
    case RuleRole:
        return object.rule;
    case RecentRole: {
        QVariantList recent;
        for (const CoordinationEvent &event : m_recent.value({object.path, int(object.kind)})) {
            recent.append(QVariantMap{{QStringLiteral("text"), DisplayText::escape(event.summary())},
                                      {QStringLiteral("event"), event.typeName()},
                                      {QStringLiteral("cause"), event.causeName()},
                                      {QStringLiteral("timeMs"), event.timeMs}});
        }
        return recent;
    }
    }
    return {};
}

QHash<int, QByteArray> CoordinationModel::roleNames() const
{
    return {{KindRole, "kind"},         {NameRole, "name"},         {HoldersRole, "holders"},
            {WaitersRole, "waiters"},   {MembersRole, "members"},   {LeavingRole, "leaving"},
            {PermitsRole, "permits"},   {SetRole, "set"},           {DepthRole, "depth"},
            {OldestRole, "oldest"},     {DelayedRole, "delayed"},   {InFlightRole, "inFlight"},
            {OrphansRole, "orphans"},   {DeadLettersRole, "deadLetters"}, {ValueRole, "value"},
            {KeysRole, "keys"},         {RuleRole, "rule"},         {RecentRole, "recent"}};
}

} // namespace QEtcd
