#pragma once

#include "eventlogmodel.h"
#include "qetcdquickexport.h"
#include "refreshinglistmodel.h"

namespace QEtcd {


// One row per cluster member, refreshed every refreshInterval: its identity and URLs, and what
// its status call says (leader, raft term and index, db size, version) with the round trip it
// took; alarms for the whole cluster. A member is asked through the client's own connection to
// it, so a member whose client URL is not among the client's endpoints has no status.
class QETCD_QUICK_EXPORT ClusterModel : public RefreshingListModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString leaderId READ leaderId NOTIFY refreshed)
    Q_PROPERTY(QString leaderName READ leaderName NOTIFY refreshed)
    Q_PROPERTY(qint64 revision READ revision NOTIFY refreshed)
    Q_PROPERTY(int count READ count NOTIFY refreshed)
    Q_PROPERTY(int healthyCount READ healthyCount NOTIFY refreshed)
    Q_PROPERTY(QStringList alarms READ alarms NOTIFY refreshed)  // "NOSPACE on <member id>"
    // Where a new leader is told (leaderChanged, participant = its name), for a timeline.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1,  // hex
        NameRole,
        ClientUrlsRole,
        PeerUrlsRole,
        IsLearnerRole,
        IsLeaderRole,
        HealthyRole,      // its status call answered
        RoundTripRole,    // ms the status call took; -1 without an answer
        RaftTermRole,
        RaftIndexRole,
        RevisionRole,
        DbSizeRole,
        DbSizeInUseRole,
        VersionRole,
        ErrorRole,        // why there is no status, or the member's own errors
    };
    Q_ENUM(Role)

    explicit ClusterModel(QObject *parent = nullptr);
    ~ClusterModel() override;

    QString leaderId() const;
    QString leaderName() const;
    // The name of the member that serves this client URL ("http://127.0.0.1:2379"), empty when
    // no member lists it: which member a client's active endpoint reaches.
    Q_INVOKABLE QString memberNameAt(const QString &clientUrl) const;
    qint64 revision() const { return m_revision; }
    int count() const { return int(m_rows.size()); }
    int healthyCount() const;
    QStringList alarms() const { return m_alarms; }
    EventLogModel *eventLog() const { return m_eventLog; }
    void setEventLog(EventLogModel *log);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void eventLogChanged();

protected:
    void read(quint64 generation) override;
    void clearRows() override;

private:
    struct MemberRow
    {
        quint64 id = 0;
        QString name;
        QStringList clientUrls, peerUrls;
        bool isLearner = false;
        bool healthy = false;
        qint64 roundTripMs = -1;
        qint64 raftTerm = 0, raftIndex = 0, revision = 0, dbSize = 0, dbSizeInUse = 0;
        QString version, error;
    };
    void apply(QList<MemberRow> rows, quint64 leader, QStringList alarms);
    const MemberRow *leaderRow() const;  // null without a leader among the rows

    QList<MemberRow> m_rows;  // sorted by id
    quint64 m_leader = 0;
    QPointer<EventLogModel> m_eventLog;
    qint64 m_revision = 0;
    QStringList m_alarms;
};

} // namespace QEtcd
