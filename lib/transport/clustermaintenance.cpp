// SPDX-License-Identifier: Apache-2.0
#include "clustermaintenance.h"

#include "compacted_p.h"
#include "continuation_p.h"

#include <algorithm>

namespace QEtcd {

using namespace Internal;

namespace {
// Waits for every future in turn, then hands the answers over.
template <class T, class Done>
auto gather(QList<QFuture<T>> pending, QList<T> answers, Done done) -> decltype(done(answers))
{
    if (pending.isEmpty())
        return done(answers);
    const QFuture<T> next = pending.takeFirst();
    return after(next, [pending, answers, done](const T &answer) mutable {
        answers.append(answer);
        return gather(pending, answers, done);
    });
}

template <class T>
QFuture<T> failedWith(const Status &status)
{
    T answer;
    answer.status = status;
    return QtFuture::makeReadyFuture(answer);
}
} // namespace

QFuture<MemberStatuses> ClusterMaintenance::statuses(Client *client)
{
    QList<QFuture<EndpointStatusResult>> pending;
    for (const QString &endpoint : client->endpoints())
        pending.append(client->endpointStatus(endpoint));
    return gather(pending, QList<EndpointStatusResult>(), [](QList<EndpointStatusResult> members) {
        MemberStatuses answer;
        for (const EndpointStatusResult &member : members) {
            if (!member.status && answer.status) {
                answer.status = member.status;
                return QtFuture::makeReadyFuture(answer);
            }
        }
        std::stable_partition(members.begin(), members.end(),
                              [](const EndpointStatusResult &member) { return member.header.memberId != member.leader; });
        answer.members = members;
        return QtFuture::makeReadyFuture(answer);
    });
}

namespace {
// Every member's hash at revision (0: each member's latest).
QFuture<ConsistencyReport> hashEveryMember(Client *client, qint64 revision)
{
    QList<QFuture<HashKVResult>> pending;
    for (const QString &endpoint : client->endpoints())
        pending.append(client->hashKV(endpoint, revision));
    return gather(pending, QList<HashKVResult>(), [revision](const QList<HashKVResult> &hashes) {
        ConsistencyReport report;
        report.revision = revision;
        report.hashes = hashes;
        for (const HashKVResult &hashed : hashes) {
            if (!hashed.status) {
                report.status = hashed.status;
                break;
            }
            // Each member's latest: comparable only when they were all at one revision.
            if (revision == 0 && hashed.header.revision != hashes.first().header.revision) {
                report.status = Status(StatusCode::Aborted, QStringLiteral("the store changed while its members were hashed: check again"));
                break;
            }
            if (hashed.hash != hashes.first().hash)
                report.differing.append(hashed.endpoint);
        }
        if (revision == 0 && !hashes.isEmpty())
            report.revision = hashes.first().header.revision;
        return QtFuture::makeReadyFuture(report);
    });
}
} // namespace

QFuture<ConsistencyReport> ClusterMaintenance::checkConsistency(Client *client)
{
    RangeOptions none;
    none.countOnly = true;
    return after(client->get(QByteArray(1, '\0'), none), [client](const RangeResult &now) {
        if (!now.status)
            return failedWith<ConsistencyReport>(now.status.withContext(QStringLiteral("read the store's revision")));
        return after(hashEveryMember(client, now.header.revision), [client](const ConsistencyReport &report) {
            // Nothing written since a compaction to the current revision: etcd hashes only
            // revisions after the compacted one, so each member hashes its latest instead.
            return isCompacted(report.status) ? hashEveryMember(client, 0) : QtFuture::makeReadyFuture(report);
        });
    });
}

namespace {
QFuture<RangeResult> countAt(Client *client, const QByteArray &probeKey, qint64 revision)
{
    RangeOptions options;
    options.countOnly = true;
    options.revision = revision;
    return client->get(probeKey, options);
}

// Narrows [low, found.oldest] down to the oldest revision etcd can still read, knowing that
// found.oldest can be read and that the ones before low are of no interest.
// With probeLowFirst, low itself is read first: an uncompacted history is found with one read.
QFuture<RetainedHistory> searchOldestReadable(Client *client, const QByteArray &probeKey, qint64 low, RetainedHistory found,
                                              bool probeLowFirst)
{
    if (low >= found.oldest)
        return QtFuture::makeReadyFuture(found);
    const qint64 probe = probeLowFirst ? low : low + (found.oldest - low) / 2;
    return after(countAt(client, probeKey, probe), [=](const RangeResult &read) mutable {
        if (!read.status && !isCompacted(read.status)) {
            found.status = read.status.withContext(QStringLiteral("read revision %1").arg(probe));
            return QtFuture::makeReadyFuture(found);
        }
        if (read.status)
            found.oldest = probe;
        return searchOldestReadable(client, probeKey, read.status ? low : probe + 1, found, false);
    });
}
} // namespace

QFuture<RetainedHistory> ClusterMaintenance::retainedHistory(Client *client, qint64 from, const QByteArray &probeKey)
{
    return after(countAt(client, probeKey, 0), [client, from, probeKey](const RangeResult &read) {
        RetainedHistory found;
        if (!read.status) {
            found.status = read.status.withContext(QStringLiteral("read the store's revision"));
            return QtFuture::makeReadyFuture(found);
        }
        found.current = read.header.revision;
        found.oldest = found.current;
        return searchOldestReadable(client, probeKey, std::clamp<qint64>(from, 1, found.current), found, true);
    });
}

QFuture<Result> ClusterMaintenance::moveLeader(Client *client, quint64 targetMemberId)
{
    if (client->options().readOnly)
        return failedWith<Result>(Status(StatusCode::ReadOnly, QStringLiteral("move the leadership: the client is read-only")));
    return after(statuses(client), [client, targetMemberId](const MemberStatuses &members) {
        if (!members.status)
            return failedWith<Result>(members.status);
        const EndpointStatusResult &leader = members.members.constLast();
        if (leader.header.memberId != leader.leader) {
            return failedWith<Result>(Status(StatusCode::Unavailable,
                                             QStringLiteral("none of the endpoints is the leader's: give the leader's too")));
        }
        if (leader.leader == targetMemberId) {
            return failedWith<Result>(Status(StatusCode::FailedPrecondition,
                                             QStringLiteral("member %1 leads already").arg(targetMemberId, 0, 16)));
        }
        return client->moveLeader(targetMemberId, leader.endpoint);
    });
}

namespace {
// Voting members and how many of them must agree, as part of a sentence: "3 voting members, 2
// needed to agree".
QString quorumText(qsizetype voters)
{
    return QStringLiteral("%1 voting member%2, %3 needed to agree").arg(voters).arg(voters == 1 ? "" : "s").arg(voters / 2 + 1);
}

qsizetype votersOf(const QList<Member> &members)
{
    return std::count_if(members.cbegin(), members.cend(), [](const Member &m) { return !m.isLearner; });
}

QString describeMember(const Member &member)
{
    return QStringLiteral("%1 (%2, %3)")
        .arg(QString::number(member.id, 16), member.name.isEmpty() ? QStringLiteral("not started") : member.name,
             member.peerUrls.join(QLatin1Char(',')));
}
} // namespace

QString ClusterMaintenance::planMemberAdd(const QList<Member> &members, const QString &name, const QStringList &peerUrls,
                                          bool learner)
{
    const qsizetype voters = votersOf(members);
    const QString urls = peerUrls.join(QLatin1Char(','));
    if (learner) {
        return QStringLiteral("Add %1 at %2 as a learner: it follows the log without voting (%3, as now); promote it "
                              "once it has caught up.")
            .arg(name, urls, quorumText(voters));
    }
    QString plan = QStringLiteral("Add %1 at %2 as a voting member: %3 instead of %4. Until it has started and caught "
                                  "up it counts as down.")
                       .arg(name, urls, quorumText(voters + 1), quorumText(voters));
    // A voter that never starts takes a small cluster's quorum with it: said before, not after.
    const qsizetype started = std::count_if(members.cbegin(), members.cend(),
                                            [](const Member &m) { return !m.isLearner && !m.name.isEmpty(); });
    if (started < (voters + 1) / 2 + 1) {
        plan += QStringLiteral(" With %1 of the %2 voting members started, the cluster stops committing anything, "
                               "removing the member included, until it starts; add it as a learner instead and "
                               "promote it once it has caught up.")
                    .arg(started)
                    .arg(voters + 1);
    }
    return plan;
}

QString ClusterMaintenance::initialCluster(const MemberAddResult &added, const QString &name)
{
    QStringList pairs;
    for (const Member &member : added.members) {
        for (const QString &url : member.peerUrls)
            pairs.append((member.id == added.member.id ? name : member.name) + QLatin1Char('=') + url);
    }
    return pairs.join(QLatin1Char(','));
}

QString ClusterMaintenance::planMemberRemove(const QList<Member> &members, const Member &member)
{
    const qsizetype voters = votersOf(members);
    if (member.isLearner)
        return QStringLiteral("Remove learner %1 from the cluster (%2, as now).").arg(describeMember(member), quorumText(voters));
    return QStringLiteral("Remove %1 from the cluster: %2 instead of %3. Its data stays on its machine, but it can "
                          "never rejoin with it; a member removed while it runs stops.")
        .arg(describeMember(member), quorumText(voters - 1), quorumText(voters));
}

QString ClusterMaintenance::planMemberUpdate(const Member &member, const QStringList &peerUrls)
{
    return QStringLiteral("Change the peer URLs of %1 to %2: the other members reach it there from now on.")
        .arg(describeMember(member), peerUrls.join(QLatin1Char(',')));
}

QString ClusterMaintenance::planMemberPromote(const QList<Member> &members, const Member &member)
{
    const qsizetype voters = votersOf(members);
    return QStringLiteral("Make learner %1 a voting member: %2 instead of %3.")
        .arg(describeMember(member), quorumText(voters + 1), quorumText(voters));
}

} // namespace QEtcd
