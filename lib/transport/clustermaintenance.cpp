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

} // namespace QEtcd
