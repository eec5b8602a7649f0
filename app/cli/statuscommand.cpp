// SPDX-License-Identifier: Apache-2.0
#include "commands.h"
#include "kvformat.h"

#include <QEtcd/qetcdversion.h>

#include <QtCore/QJsonArray>
#include <QtCore/QLocale>

namespace QEtcd::Cli {

namespace {
QJsonObject endpointJson(const EndpointStatusResult &status, const QString &endpoint)
{
    if (!status.status)
        return {{QLatin1String("type"), QLatin1String("endpoint")},
                {QLatin1String("endpoint"), endpoint},
                {QLatin1String("error"), status.status.message()}};
    return {
        {QLatin1String("type"), QLatin1String("endpoint")},
        {QLatin1String("endpoint"), endpoint},
        {QLatin1String("id"), hexId(status.header.memberId)},
        {QLatin1String("version"), status.version},
        {QLatin1String("db_size"), status.dbSize},
        {QLatin1String("db_size_in_use"), status.dbSizeInUse},
        {QLatin1String("leader"), status.leader == status.header.memberId},
        {QLatin1String("leader_id"), hexId(status.leader)},
        {QLatin1String("raft_term"), qint64(status.raftTerm)},
        {QLatin1String("raft_index"), qint64(status.raftIndex)},
        {QLatin1String("raft_applied_index"), qint64(status.raftAppliedIndex)},
        {QLatin1String("is_learner"), status.isLearner},
        {QLatin1String("errors"), QJsonArray::fromStringList(status.errors)},
    };
}

QStringList endpointRow(const EndpointStatusResult &status, const QString &endpoint)
{
    if (!status.status)
        return {endpoint, QStringLiteral("-"), QStringLiteral("-"), QStringLiteral("-"), QStringLiteral("-"),
                QStringLiteral("-"), QStringLiteral("-"), status.status.message()};
    const bool leader = status.leader == status.header.memberId;
    return {endpoint,
            hexId(status.header.memberId),
            status.version,
            QLocale::c().formattedDataSize(status.dbSize, 1, QLocale::DataSizeSIFormat),
            leader ? QStringLiteral("yes") : QStringLiteral("no (%1)").arg(hexId(status.leader)),
            QString::number(status.raftTerm),
            QString::number(status.raftIndex),
            status.errors.join(QLatin1String("; "))};
}

QJsonObject memberJson(const Member &member)
{
    return {
        {QLatin1String("type"), QLatin1String("member")},
        {QLatin1String("id"), hexId(member.id)},
        {QLatin1String("name"), member.name},
        {QLatin1String("peer_urls"), QJsonArray::fromStringList(member.peerUrls)},
        {QLatin1String("client_urls"), QJsonArray::fromStringList(member.clientUrls)},
        {QLatin1String("is_learner"), member.isLearner},
    };
}

int runStatus(Invocation &invocation)
{
    Client &client = invocation.client();
    // Every member is asked at once, under one deadline.
    const QDeadlineTimer deadline = invocation.requestDeadline();
    const QStringList endpoints = client.endpoints();
    QList<QFuture<EndpointStatusResult>> pending;
    for (const QString &endpoint : endpoints)
        pending.append(client.endpointStatus(endpoint));
    const QFuture<MemberListResult> pendingMembers = client.memberList();

    QList<QStringList> rows{{QStringLiteral("ENDPOINT"), QStringLiteral("ID"), QStringLiteral("VERSION"),
                             QStringLiteral("DB SIZE"), QStringLiteral("LEADER"), QStringLiteral("RAFT TERM"),
                             QStringLiteral("RAFT INDEX"), QStringLiteral("ERRORS")}};
    Status firstFailure;
    int failures = 0;
    for (qsizetype i = 0; i < endpoints.size(); ++i) {
        const QString what = QLatin1String("status of ") + endpoints[i];
        const EndpointStatusResult status = invocation.await(pending[i], what, deadline);
        if (!status.status && failures++ == 0)
            firstFailure = status.status;
        if (invocation.json())
            invocation.print(endpointJson(status, endpoints[i]));
        else
            rows.append(endpointRow(status, endpoints[i]));
    }
    if (!invocation.json())
        printTable(invocation, rows);

    const MemberListResult members = invocation.await(pendingMembers, QStringLiteral("member list"), deadline);
    if (members.status) {
        rows = {{QStringLiteral("MEMBER ID"), QStringLiteral("NAME"), QStringLiteral("PEER URLS"),
                 QStringLiteral("CLIENT URLS"), QStringLiteral("LEARNER")}};
        for (const Member &member : members.members) {
            if (invocation.json()) {
                invocation.print(memberJson(member));
                continue;
            }
            rows.append({hexId(member.id), member.name, member.peerUrls.join(QLatin1Char(',')),
                         member.clientUrls.join(QLatin1Char(',')),
                         member.isLearner ? QStringLiteral("yes") : QStringLiteral("no")});
        }
        if (!invocation.json()) {
            invocation.print(QByteArray());
            printTable(invocation, rows);
        }
    }

    if (failures > 0) {
        return invocation.failed(Status(firstFailure.code(), QStringLiteral("%1 of %2 endpoints did not answer: %3")
                                                                 .arg(failures)
                                                                 .arg(endpoints.size())
                                                                 .arg(firstFailure.message())));
    }
    if (!members.status)
        return invocation.failed(members.status);
    return Success;
}
int runVersion(Invocation &invocation)
{
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("qetcd_version"), QStringLiteral(QETCD_VERSION_STR)},
                                     {QLatin1String("api_version"), QStringLiteral(QETCD_ETCD_API_VERSION)}});
    } else {
        invocation.print("qetcd version: " QETCD_VERSION_STR);
        invocation.print("API version: " QETCD_ETCD_API_VERSION);
    }
    return Success;
}
} // namespace

Command versionCommand()
{
    Command command;
    command.name = QStringLiteral("version");
    command.summary = QStringLiteral("Print qetcd's version and the etcd API version it speaks");
    command.details = QStringLiteral(
        "As etcdctl version: \"qetcd version: X\" and \"API version: 3.4\", the API of the\n"
        "etcd protos qetcd was built from; asks no endpoint (status shows each member's\n"
        "version). --json: {\"qetcd_version\", \"api_version\"}.");
    command.run = runVersion;
    return command;
}

Command statusCommand()
{
    Command command;
    command.name = QStringLiteral("status");
    command.summary = QStringLiteral("Show each endpoint's status and the cluster's members");
    command.details = QStringLiteral(
        "Asks every endpoint for its version, database size, leader and raft position,\n"
        "then lists the members. IDs are hex, as etcdctl prints them. Fails when an\n"
        "endpoint gives no status: exit 2 when it did not answer at all (unreachable,\n"
        "silent), else the code of its error (see qetcd --help).\n"
        "--json: one object per line; per endpoint {\"type\": \"endpoint\", \"endpoint\",\n"
        "\"id\", \"version\", \"db_size\", \"db_size_in_use\", \"leader\" (true on the\n"
        "leader), \"leader_id\", \"raft_term\", \"raft_index\", \"raft_applied_index\",\n"
        "\"is_learner\", \"errors\"}, or {\"type\", \"endpoint\", \"error\"} when it did not\n"
        "answer; then per member {\"type\": \"member\", \"id\", \"name\", \"peer_urls\",\n"
        "\"client_urls\", \"is_learner\"}.");
    command.run = runStatus;
    return command;
}

} // namespace QEtcd::Cli
