// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "eventlogmodel.h"
#include "qetcdquickexport.h"
#include "refreshinglistmodel.h"

#include <QEtcd/kvtypes.h>

#include <QtCore/QElapsedTimer>

#include <functional>

namespace QEtcd {


/// `ClusterModel` in QML: the cluster's members, their status and the alarms.
///
/// One row per cluster member, refreshed every refreshInterval: its identity and URLs, and what
/// its status call says (leader, raft term and index, db size, version) with the round trip it
/// took; alarms for the whole cluster. A member is asked through the client's own connection to
/// it, so a member whose client URL is not among the client's endpoints has no status.
class QETCD_QUICK_EXPORT ClusterModel : public RefreshingListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The leader's member ID in hex; empty without a leader.
    Q_PROPERTY(QString leaderId READ leaderId NOTIFY refreshed)
    /// The leader's name; empty without a leader among the rows.
    Q_PROPERTY(QString leaderName READ leaderName NOTIFY refreshed)
    /// The highest store revision any member reported.
    Q_PROPERTY(qint64 revision READ revision NOTIFY refreshed)
    /// How many members there are.
    Q_PROPERTY(int count READ count NOTIFY refreshed)
    /// How many members answered their status call.
    Q_PROPERTY(int healthyCount READ healthyCount NOTIFY refreshed)
    /// The leader's database file in bytes (without a leader, the largest a member reported); 0
    /// before the first answer.
    Q_PROPERTY(qint64 dbSize READ dbSize NOTIFY refreshed)
    /// How many keys the cluster holds; -1 before the first count or when it may not be read.
    /// etcd walks its whole index to count, so the count is asked again after 50 times what
    /// the last one took, between 2 s and MaxCountIntervalMs.
    Q_PROPERTY(qint64 keyCount READ keyCount NOTIFY countsChanged)
    /// How many leases the cluster has, listed with the keys' count; -1 before.
    Q_PROPERTY(qint64 leaseCount READ leaseCount NOTIFY countsChanged)
    /// The raised alarms, as `NOSPACE on <member id>`.
    Q_PROPERTY(QStringList alarms READ alarms NOTIFY refreshed)
    /// Where a new leader is told (leaderChanged, participant = its name), for a timeline.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)

public:
    /// The roles of a row, with the names QML reads them by.
    enum Role {
        IdRole = Qt::UserRole + 1,  ///< `memberId`: the member ID in hex.
        NameRole,                   ///< `name`: the member's name.
        ClientUrlsRole,             ///< `clientUrls`: where clients reach it.
        PeerUrlsRole,               ///< `peerUrls`: where the other members reach it.
        IsLearnerRole,              ///< `isLearner`: it does not vote.
        IsLeaderRole,               ///< `isLeader`: it is the raft leader.
        HealthyRole,      ///< `healthy`: its status call answered.
        RoundTripRole,    ///< `roundTrip`: ms the status call took; -1 without an answer.
        RaftTermRole,     ///< `raftTerm`.
        RaftIndexRole,    ///< `raftIndex`.
        RevisionRole,     ///< `revision`: its store revision.
        DbSizeRole,       ///< `dbSize`: its database file, in bytes.
        DbSizeInUseRole,  ///< `dbSizeInUse`: the part of it that holds data, in bytes.
        VersionRole,      ///< `version`: its etcd version.
        ErrorRole,        ///< `error`: why there is no status, or the member's own errors.
    };
    Q_ENUM(Role)

    /// Keys and leases are counted at least this often.
    static constexpr int MaxCountIntervalMs = 30000;

    /// A ClusterModel re-read every 2 s once it has a client.
    explicit ClusterModel(QObject *parent = nullptr);
    /// Destroys the model.
    ~ClusterModel() override;

    /// The leader's member ID in hex.
    QString leaderId() const;
    /// The leader's name.
    QString leaderName() const;
    /// The name of the member that serves this client URL ("http://127.0.0.1:2379"), empty when
    /// no member lists it: which member a client's active endpoint reaches.
    Q_INVOKABLE QString memberNameAt(const QString &clientUrl) const;
    /// What adding a member called \a name at \a peerUrls does to the quorum, as the members
    /// stood at the last refresh: the sentence an operator confirms (ClusterMaintenance).
    Q_INVOKABLE QString planMemberAdd(const QString &name, const QStringList &peerUrls, bool learner) const;
    /// What removing the member \a memberId (hex) does; empty when no row has that ID.
    Q_INVOKABLE QString planMemberRemove(const QString &memberId) const;
    /// What promoting the learner \a memberId (hex) does; empty when no row has that ID.
    Q_INVOKABLE QString planMemberPromote(const QString &memberId) const;
    /// What giving the member \a memberId (hex) the peer URLs \a peerUrls does; empty when no
    /// row has that ID.
    Q_INVOKABLE QString planMemberUpdate(const QString &memberId, const QStringList &peerUrls) const;
    /// The highest store revision any member reported.
    qint64 revision() const { return m_revision; }
    /// How many members there are.
    int count() const { return int(m_rows.size()); }
    /// How many members answered.
    int healthyCount() const;
    /// The leader's database size.
    qint64 dbSize() const;
    /// The keys counted last; -1 before.
    qint64 keyCount() const { return m_keyCount; }
    /// The leases counted last; -1 before.
    qint64 leaseCount() const { return m_leaseCount; }
    /// The raised alarms.
    QStringList alarms() const { return m_alarms; }
    /// Where a new leader is told; null without one.
    EventLogModel *eventLog() const { return m_eventLog; }
    /// Sets where a new leader is told.
    void setEventLog(EventLogModel *log);

    /// One row per member, sorted by ID.
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// A member's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// eventLog changed.
    void eventLogChanged();
    /// keyCount or leaseCount changed.
    void countsChanged();

protected:
    void read(quint64 generation) override;
    void clearRows() override;

private:
    struct MemberRow
    {
        Member member;  // as the member list has it
        bool healthy = false;
        qint64 roundTripMs = -1;
        qint64 raftTerm = 0, raftIndex = 0, revision = 0, dbSize = 0, dbSizeInUse = 0;
        QString version, error;
    };
    void apply(QList<MemberRow> rows, quint64 leader, QStringList alarms);
    const MemberRow *leaderRow() const;  // null without a leader among the rows
    QList<Member> members() const;  // the rows as the client lists members
    // The plan for the member memberId (hex) names among members(); empty when none has it.
    QString planFor(const QString &memberId, const std::function<QString(const QList<Member> &, const Member &)> &plan) const;

    QList<MemberRow> m_rows;  // sorted by id
    quint64 m_leader = 0;
    QPointer<EventLogModel> m_eventLog;
    qint64 m_revision = 0;
    QStringList m_alarms;
    // Keys and leases: counted on a read once countInterval() has passed since the last count.
    void count(quint64 generation);
    qint64 countInterval() const;
    qint64 m_keyCount = -1;
    qint64 m_leaseCount = -1;
    QElapsedTimer m_counted;
    qint64 m_countCostMs = 0;  // how long etcd took over the last count of the keys
};

} // namespace QEtcd
