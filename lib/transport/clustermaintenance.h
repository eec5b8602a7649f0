// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/client.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QFuture>
#include <QtCore/QList>
#include <QtCore/QStringList>

namespace QEtcd {

/// Every member's status, as one answer.
struct QETCD_EXPORT MemberStatuses
{
    Status status;  ///< Ok, or the first member's failure to answer.
    /// One per endpoint of the client, the leader last: the order to defragment in, since a
    /// member defragmenting serves nothing and the leader's pause would stall every write.
    QList<EndpointStatusResult> members;
};

/// Every member's hash of its keys at one revision.
struct QETCD_EXPORT ConsistencyReport
{
    Status status;                ///< Ok, or why the members could not be compared.
    qint64 revision = 0;          ///< The revision every member hashed.
    QList<HashKVResult> hashes;   ///< One per endpoint of the client.
    QStringList differing;        ///< The endpoints whose hash differs from the first one's.
    /// Every member answered with the same hash.
    bool isConsistent() const { return status.isOk() && differing.isEmpty(); }
};

/// The revisions etcd still answers reads at: it compacted the ones before \a oldest.
struct QETCD_EXPORT RetainedHistory
{
    Status status;        ///< Ok, or why the revisions could not be found.
    qint64 oldest = 0;    ///< The oldest revision a read can still ask for.
    qint64 current = 0;   ///< The store's revision.
    /// How many revisions a read can still ask for.
    qint64 count() const { return current - oldest + 1; }
};

/// Maintenance across the members of a cluster, made of Client's one-member calls: what both
/// the console and the CLI need, decided once.
class QETCD_EXPORT ClusterMaintenance
{
public:
    /// Asks every endpoint of \a client for its status at once.
    static QFuture<MemberStatuses> statuses(Client *client);
    /// Hashes every member's keys at the store's current revision (HashKV): a healthy cluster's
    /// members all have the same hash.
    static QFuture<ConsistencyReport> checkConsistency(Client *client);
    /// The revisions of the store that can still be read, from \a from on (1: the whole history).
    /// etcd does not say up to where it compacted, so this searches for the oldest readable
    /// revision with count-only reads of \a probeKey (about log2 of the revisions kept; a single
    /// key, so each read costs etcd nothing however large the store): give a key the client may
    /// read when authentication restricts it. Reads only.
    static QFuture<RetainedHistory> retainedHistory(Client *client, qint64 from = 1,
                                                    const QByteArray &probeKey = QByteArray(1, '\0'));
    /// Hands the leadership to the member \a targetMemberId, through the leader's endpoint
    /// (one of \\a client's must be the leader's). FailedPrecondition when it leads already;
    /// refused under read-only.
    static QFuture<Result> moveLeader(Client *client, quint64 targetMemberId);

    /// What adding a member called \a name at \a peerUrls does to the quorum of \a members (as
    /// listed now), in the sentence an operator confirms; \a learner: one that follows the log
    /// without voting until promoted. A voter that would leave too few started members to agree
    /// is named as stopping the cluster, with a learner as the way round.
    static QString planMemberAdd(const QList<Member> &members, const QString &name, const QStringList &peerUrls,
                                 bool learner);
    /// What the member just added as \a name starts with as its `--initial-cluster` (etcd's
    /// ETCD_INITIAL_CLUSTER): every member's name=peer URL, the new one's under \a name.
    static QString initialCluster(const MemberAddResult &added, const QString &name);
    /// What removing \a member from \a members does to the quorum.
    static QString planMemberRemove(const QList<Member> &members, const Member &member);
    /// What giving \a member the peer URLs \a peerUrls does.
    static QString planMemberUpdate(const Member &member, const QStringList &peerUrls);
    /// What promoting the learner \a member of \a members does to the quorum.
    static QString planMemberPromote(const QList<Member> &members, const Member &member);
};

} // namespace QEtcd
