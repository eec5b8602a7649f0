// SPDX-License-Identifier: Apache-2.0
#include "clustermodel.h"

#include "continuation_p.h"

#include <QEtcd/client.h>
#include <QEtcd/clustermaintenance.h>

#include <QtCore/QElapsedTimer>

#include <algorithm>
#include <memory>

namespace QEtcd {

namespace {
QString hexId(quint64 id)
{
    return QString::number(id, 16);
}
} // namespace

ClusterModel::ClusterModel(QObject *parent) : RefreshingListModel(2000, parent) {}

ClusterModel::~ClusterModel() = default;

void ClusterModel::clearRows()
{
    m_rows.clear();
    m_leader = 0;
    m_revision = 0;
    m_alarms.clear();
    m_keyCount = m_leaseCount = -1;
    m_counted.invalidate();
    m_countCostMs = 0;
    Q_EMIT countsChanged();
}

QString ClusterModel::leaderId() const
{
    return m_leader ? hexId(m_leader) : QString();
}

void ClusterModel::setEventLog(EventLogModel *log)
{
    if (m_eventLog == log)
        return;
    m_eventLog = log;
    Q_EMIT eventLogChanged();
}

const ClusterModel::MemberRow *ClusterModel::leaderRow() const
{
    const auto it = std::find_if(m_rows.cbegin(), m_rows.cend(), [this](const MemberRow &row) { return row.member.id == m_leader; });
    return it != m_rows.cend() ? &*it : nullptr;
}

QString ClusterModel::leaderName() const
{
    const MemberRow *leader = leaderRow();
    return leader ? leader->member.name : QString();
}

QString ClusterModel::memberNameAt(const QString &clientUrl) const
{
    const auto it = std::find_if(m_rows.cbegin(), m_rows.cend(),
                                 [&clientUrl](const MemberRow &row) { return row.member.clientUrls.contains(clientUrl); });
    return it != m_rows.cend() ? it->member.name : QString();
}

QList<Member> ClusterModel::members() const
{
    QList<Member> members;
    for (const MemberRow &row : m_rows)
        members.append(row.member);
    return members;
}

QString ClusterModel::planFor(const QString &memberId,
                              const std::function<QString(const QList<Member> &, const Member &)> &plan) const
{
    bool ok = false;
    const quint64 id = memberId.toULongLong(&ok, 16);
    const QList<Member> all = members();
    const auto named = std::find_if(all.cbegin(), all.cend(), [id](const Member &member) { return member.id == id; });
    return ok && named != all.cend() ? plan(all, *named) : QString();
}

QString ClusterModel::planMemberAdd(const QString &name, const QStringList &peerUrls, bool learner) const
{
    return ClusterMaintenance::planMemberAdd(members(), name, peerUrls, learner);
}

QString ClusterModel::planMemberRemove(const QString &memberId) const
{
    return planFor(memberId, &ClusterMaintenance::planMemberRemove);
}

QString ClusterModel::planMemberPromote(const QString &memberId) const
{
    return planFor(memberId, &ClusterMaintenance::planMemberPromote);
}

QString ClusterModel::planMemberUpdate(const QString &memberId, const QStringList &peerUrls) const
{
    return planFor(memberId, [peerUrls](const QList<Member> &, const Member &member) {
        return ClusterMaintenance::planMemberUpdate(member, peerUrls);
    });
}

int ClusterModel::healthyCount() const
{
    return int(std::count_if(m_rows.cbegin(), m_rows.cend(), [](const MemberRow &row) { return row.healthy; }));
}

// Members first, then every member's status and the alarms at once; the rows change once.
void ClusterModel::read(quint64 generation)
{
    // Bounded like the health probes, so that a member gone silent shows as unreachable within
    // a refresh or two rather than after the default 30 s per attempt.
    Internal::thenOn(client()->memberList(RpcResilience::probe()), this, [this, generation](const MemberListResult &list) {
        if (!current(generation) || !client())
            return;
        if (!list.status)
            return fail(list.status.message());
        count(generation);
        struct Pending
        {
            QList<MemberRow> rows;
            quint64 leader = 0;
            QStringList alarms;
            int outstanding = 0;
        };
        auto pending = std::make_shared<Pending>();
        pending->outstanding = int(list.members.size()) + 1;
        const auto done = [this, generation, pending] {
            if (--pending->outstanding == 0 && current(generation))
                apply(pending->rows, pending->leader, pending->alarms);
        };
        for (const Member &member : list.members) {
            MemberRow row;
            row.member = member;
            pending->rows.append(row);
        }
        for (qsizetype i = 0; i < list.members.size(); ++i) {
            // A member added but not started has no client URL to ask: it has no status, and
            // asking the client's own endpoint instead would lend it another member's.
            if (list.members[i].clientUrls.isEmpty()) {
                done();
                continue;
            }
            auto clock = std::make_shared<QElapsedTimer>();
            clock->start();
            const QFuture<EndpointStatusResult> answered =
                client()->endpointStatus(list.members[i].clientUrls.constFirst(), RpcResilience::probe());
            Internal::thenOn(answered, this, [pending, i, clock, done](const EndpointStatusResult &status) {
                MemberRow &row = pending->rows[i];
                if (!status.status) {
                    row.error = status.status.message();
                    return done();
                }
                if (status.header.memberId != row.member.id) {
                    row.error = tr("%1 answers as member %2, not as this one").arg(status.endpoint, hexId(status.header.memberId));
                    return done();
                }
                row.healthy = true;
                row.roundTripMs = clock->elapsed();
                row.raftTerm = qint64(status.raftTerm);
                row.raftIndex = qint64(status.raftIndex);
                row.revision = status.header.revision;
                row.dbSize = status.dbSize;
                row.dbSizeInUse = status.dbSizeInUse;
                row.version = status.version;
                row.error = status.errors.join(QLatin1String("; "));
                pending->leader = status.leader;
                done();
            });
        }
        Internal::thenOn(client()->alarms(RpcResilience::probe()), this, [pending, done](const AlarmListResult &alarms) {
            for (const Alarm &alarm : alarms.alarms) {
                pending->alarms.append(QStringLiteral("%1 on %2")
                                           .arg(alarm.type == AlarmType::NoSpace ? QStringLiteral("NOSPACE")
                                                                                 : QStringLiteral("CORRUPT"),
                                                hexId(alarm.memberId)));
            }
            done();
        });
    });
}

qint64 ClusterModel::dbSize() const
{
    if (const MemberRow *leader = leaderRow())
        return leader->dbSize;
    qint64 largest = 0;
    for (const MemberRow &row : m_rows)
        largest = std::max(largest, row.dbSize);
    return largest;
}

qint64 ClusterModel::countInterval() const
{
    // A small keyspace is counted at every refresh; a million keys (about 0.4 s of etcd's time
    // each) every 20 s or so.
    return std::clamp<qint64>(50 * m_countCostMs, 2000, MaxCountIntervalMs);
}

void ClusterModel::count(quint64 generation)
{
    if (m_counted.isValid() && !m_counted.hasExpired(countInterval()))
        return;
    m_counted.start();
    RangeOptions everyKey;
    everyKey.range = KeyRange::fromKey();
    everyKey.countOnly = true;
    Internal::thenOn(client()->get(QByteArray(1, '\0'), everyKey), this, [this, generation, asked = m_counted](const RangeResult &keys) {
        if (!current(generation))
            return;
        m_countCostMs = asked.elapsed();
        m_keyCount = keys.status ? keys.count : -1;  // a user without read on every key gets no count
        Q_EMIT countsChanged();
    });
    Internal::thenOn(client()->leaseList(RpcResilience::probe()), this, [this, generation](const LeaseListResult &leases) {
        if (!current(generation))
            return;
        m_leaseCount = leases.status ? leases.ids.size() : -1;
        Q_EMIT countsChanged();
    });
}

void ClusterModel::apply(QList<MemberRow> rows, quint64 leader, QStringList alarms)
{
    std::sort(rows.begin(), rows.end(), [](const MemberRow &a, const MemberRow &b) { return a.member.id < b.member.id; });
    const bool sameMembers = std::equal(rows.cbegin(), rows.cend(), m_rows.cbegin(), m_rows.cend(),
                                        [](const MemberRow &a, const MemberRow &b) { return a.member.id == b.member.id; });
    // The leader goes in with the rows: a view reads isLeader as soon as a row is announced.
    const bool newLeader = leader != 0 && leader != std::exchange(m_leader, leader);
    if (sameMembers) {
        m_rows = rows;
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0), index(int(m_rows.size()) - 1));
    } else {
        // Members come and go rarely: one reset then.
        beginResetModel();
        m_rows = rows;
        endResetModel();
    }
    m_alarms = alarms;
    m_revision = 0;
    for (const MemberRow &row : std::as_const(m_rows))
        m_revision = std::max(m_revision, row.revision);
    if (newLeader && m_eventLog && leaderRow()) {
        const MemberRow &row = *leaderRow();
        m_eventLog->append(row.member.name, QStringLiteral("leaderChanged"),
                           QStringLiteral("%1 leads, raft term %2").arg(row.member.name).arg(row.raftTerm));
    }
    finish();
}

int ClusterModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant ClusterModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const MemberRow &row = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return row.member.name;
    case IdRole:
        return hexId(row.member.id);
    case ClientUrlsRole:
        return row.member.clientUrls;
    case PeerUrlsRole:
        return row.member.peerUrls;
    case IsLearnerRole:
        return row.member.isLearner;
    case IsLeaderRole:
        return m_leader != 0 && row.member.id == m_leader;
    case HealthyRole:
        return row.healthy;
    case RoundTripRole:
        return row.roundTripMs;
    case RaftTermRole:
        return row.raftTerm;
    case RaftIndexRole:
        return row.raftIndex;
    case RevisionRole:
        return row.revision;
    case DbSizeRole:
        return row.dbSize;
    case DbSizeInUseRole:
        return row.dbSizeInUse;
    case VersionRole:
        return row.version;
    case ErrorRole:
        return row.error;
    }
    return {};
}

QHash<int, QByteArray> ClusterModel::roleNames() const
{
    return {{IdRole, "memberId"},         {NameRole, "name"},           {ClientUrlsRole, "clientUrls"},
            {PeerUrlsRole, "peerUrls"},   {IsLearnerRole, "isLearner"}, {IsLeaderRole, "isLeader"},
            {HealthyRole, "healthy"},     {RoundTripRole, "roundTrip"}, {RaftTermRole, "raftTerm"},
            {RaftIndexRole, "raftIndex"}, {RevisionRole, "revision"},   {DbSizeRole, "dbSize"},
            {DbSizeInUseRole, "dbSizeInUse"}, {VersionRole, "version"}, {ErrorRole, "error"}};
}

} // namespace QEtcd
