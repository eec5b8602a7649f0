// SPDX-License-Identifier: Apache-2.0
// etcdctl's `member list` and `endpoint status`, in its shapes: what scripts written for etcdctl
// parse. `status` is qetcd's own look at the same (statuscommand.cpp).
#include "commands.h"

#include "kvformat.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

#include <cmath>
#include <cstdio>

namespace QEtcd::Cli {

namespace {
// etcd's protobuf JSON leaves zero fields out, the header's too: member list has no revision.
QByteArray headerJson(const ResponseHeader &header)
{
    QByteArrayList fields;
    const auto add = [&](const char *name, quint64 value) {
        if (value != 0)
            fields.append(QByteArray("\"") + name + "\":" + QByteArray::number(value));
    };
    add("cluster_id", header.clusterId);
    add("member_id", header.memberId);
    add("revision", quint64(header.revision));
    add("raft_term", header.raftTerm);
    return '{' + fields.join(',') + '}';
}

QByteArray jsonString(const QString &text)
{
    // QJsonDocument escapes as Go does for everything a URL, a name or a version holds.
    return QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
}

QByteArray jsonStrings(const QStringList &texts)
{
    return QJsonDocument(QJsonArray::fromStringList(texts)).toJson(QJsonDocument::Compact);
}

QByteArray boolText(bool value)
{
    return value ? "true" : "false";
}

// go-humanize's Bytes(), as etcdctl sizes a database: SI units, three significant digits at most.
QString humanBytes(qint64 bytes)
{
    if (bytes < 10)
        return QStringLiteral("%1 B").arg(bytes);
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    const int exponent = int(std::floor(std::log(double(bytes)) / std::log(1000.0)));
    const double value = std::floor(double(bytes) / std::pow(1000.0, exponent) * 10 + 0.5) / 10;
    // printf rounds an exact half to even, as Go's fmt does ("20.5" is "20").
    char text[32];
    std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, units[exponent]);
    return QString::fromLatin1(text);
}

QStringList memberRow(const Member &member)
{
    return {hexId(member.id),
            member.name.isEmpty() ? QStringLiteral("unstarted") : QStringLiteral("started"),
            member.name,
            member.peerUrls.join(QLatin1Char(',')),
            member.clientUrls.join(QLatin1Char(',')),
            QString::fromLatin1(boolText(member.isLearner))};
}

int runMemberList(Invocation &invocation)
{
    const MemberListResult list = invocation.await(invocation.client().memberList(), QStringLiteral("member list"));
    if (!list.status)
        return invocation.failed(list.status);
    switch (invocation.output()) {
    case OutputFormat::Json: {
        QByteArrayList members;
        for (const Member &member : list.members) {
            QByteArray text = "{\"ID\":" + QByteArray::number(member.id);
            if (!member.name.isEmpty())
                text += ",\"name\":" + jsonString(member.name);
            if (!member.peerUrls.isEmpty())
                text += ",\"peerURLs\":" + jsonStrings(member.peerUrls);
            if (!member.clientUrls.isEmpty())
                text += ",\"clientURLs\":" + jsonStrings(member.clientUrls);
            if (member.isLearner)
                text += ",\"isLearner\":true";
            members.append(text + '}');
        }
        invocation.print("{\"header\":" + headerJson(list.header) + ",\"members\":[" + members.join(',') + "]}");
        break;
    }
    case OutputFormat::Fields:
        for (const QByteArray &line : headerFieldLines(list.header))
            invocation.print(line);
        for (const Member &member : list.members) {
            invocation.print("\"ID\" : " + QByteArray::number(member.id));
            invocation.print("\"Name\" : " + goQuoted(member.name.toUtf8()));
            for (const QString &url : member.peerUrls)
                invocation.print("\"PeerURL\" : " + goQuoted(url.toUtf8()));
            for (const QString &url : member.clientUrls)
                invocation.print("\"ClientURL\" : " + goQuoted(url.toUtf8()));
            invocation.print("\"IsLearner\" : " + boolText(member.isLearner));
            invocation.print(QByteArray());
        }
        break;
    case OutputFormat::JsonLines:
        for (const Member &member : list.members) {
            invocation.print(QJsonObject{{QLatin1String("id"), hexId(member.id)},
                                         {QLatin1String("name"), member.name},
                                         {QLatin1String("peer_urls"), QJsonArray::fromStringList(member.peerUrls)},
                                         {QLatin1String("client_urls"), QJsonArray::fromStringList(member.clientUrls)},
                                         {QLatin1String("is_learner"), member.isLearner}});
        }
        break;
    case OutputFormat::Table: {
        QList<QStringList> rows;
        for (const Member &member : list.members)
            rows.append(memberRow(member));
        printBoxTable(invocation,
                      {QStringLiteral("ID"), QStringLiteral("STATUS"), QStringLiteral("NAME"), QStringLiteral("PEER ADDRS"),
                       QStringLiteral("CLIENT ADDRS"), QStringLiteral("IS LEARNER")},
                      rows);
        break;
    }
    case OutputFormat::Simple:
        for (const Member &member : list.members)
            invocation.printData(memberRow(member).join(QLatin1String(", ")).toUtf8());
        break;
    }
    return Success;
}

struct EndpointAnswer
{
    QString endpoint;
    EndpointStatusResult status;
};

QStringList endpointRow(const EndpointAnswer &answer)
{
    const EndpointStatusResult &status = answer.status;
    return {answer.endpoint,
            hexId(status.header.memberId),
            status.version,
            humanBytes(status.dbSize),
            QString::fromLatin1(boolText(status.leader == status.header.memberId)),
            QString::fromLatin1(boolText(status.isLearner)),
            QString::number(status.raftTerm),
            QString::number(status.raftIndex),
            QString::number(status.raftAppliedIndex),
            status.errors.join(QLatin1String(", "))};
}

int runEndpointStatus(Invocation &invocation)
{
    Client &client = invocation.client();
    // Every endpoint is asked at once, under one deadline; as etcdctl, a member that does not
    // answer is named on stderr and left out, and the command fails once the others are printed.
    const QDeadlineTimer deadline = invocation.requestDeadline();
    const QStringList endpoints = client.endpoints();
    // Named as the command line gave them, as etcdctl names them ("127.0.0.1:2379").
    const QStringList given = invocation.endpointsAsGiven();
    QList<QFuture<EndpointStatusResult>> pending;
    for (const QString &endpoint : endpoints)
        pending.append(client.endpointStatus(endpoint));
    QList<EndpointAnswer> answers;
    Status firstFailure;
    for (qsizetype i = 0; i < endpoints.size(); ++i) {
        const EndpointStatusResult status =
            invocation.await(pending[i], QLatin1String("endpoint status of ") + endpoints[i], deadline);
        if (status.status)
            answers.append({given.value(i, endpoints[i]), status});
        else if (firstFailure)
            firstFailure = status.status;
    }

    switch (invocation.output()) {
    case OutputFormat::Json: {
        QByteArrayList objects;
        for (const EndpointAnswer &answer : answers) {
            const EndpointStatusResult &status = answer.status;
            QByteArray text = "{\"Endpoint\":" + jsonString(answer.endpoint) + ",\"Status\":{\"header\":"
                + headerJson(status.header);
            if (!status.version.isEmpty())
                text += ",\"version\":" + jsonString(status.version);
            const auto add = [&](const char *name, quint64 value) {
                if (value != 0)
                    text += QByteArray(",\"") + name + "\":" + QByteArray::number(value);
            };
            add("dbSize", quint64(status.dbSize));
            add("leader", status.leader);
            add("raftIndex", status.raftIndex);
            add("raftTerm", status.raftTerm);
            add("raftAppliedIndex", status.raftAppliedIndex);
            if (!status.errors.isEmpty())
                text += ",\"errors\":" + jsonStrings(status.errors);
            add("dbSizeInUse", quint64(status.dbSizeInUse));
            if (status.isLearner)
                text += ",\"isLearner\":true";
            objects.append(text + "}}");
        }
        invocation.print('[' + objects.join(',') + ']');
        break;
    }
    case OutputFormat::Fields:
        for (const EndpointAnswer &answer : answers) {
            const EndpointStatusResult &status = answer.status;
            for (const QByteArray &line : headerFieldLines(status.header))
                invocation.print(line);
            invocation.print("\"Version\" : " + goQuoted(status.version.toUtf8()));
            invocation.print("\"DBSize\" : " + QByteArray::number(status.dbSize));
            invocation.print("\"Leader\" : " + QByteArray::number(status.leader));
            invocation.print("\"IsLearner\" : " + boolText(status.isLearner));
            invocation.print("\"RaftIndex\" : " + QByteArray::number(status.raftIndex));
            invocation.print("\"RaftTerm\" : " + QByteArray::number(status.raftTerm));
            invocation.print("\"RaftAppliedIndex\" : " + QByteArray::number(status.raftAppliedIndex));
            // Go prints a list of strings as [a b].
            invocation.print("\"Errors\" : [" + status.errors.join(QLatin1Char(' ')).toUtf8() + ']');
            invocation.print("\"Endpoint\" : " + goQuoted(answer.endpoint.toUtf8()));
            invocation.print(QByteArray());
        }
        break;
    case OutputFormat::JsonLines:
        for (const EndpointAnswer &answer : answers) {
            const EndpointStatusResult &status = answer.status;
            invocation.print(QJsonObject{{QLatin1String("endpoint"), answer.endpoint},
                                         {QLatin1String("id"), hexId(status.header.memberId)},
                                         {QLatin1String("version"), status.version},
                                         {QLatin1String("db_size"), status.dbSize},
                                         {QLatin1String("db_size_in_use"), status.dbSizeInUse},
                                         {QLatin1String("leader"), status.leader == status.header.memberId},
                                         {QLatin1String("is_learner"), status.isLearner},
                                         {QLatin1String("raft_term"), qint64(status.raftTerm)},
                                         {QLatin1String("raft_index"), qint64(status.raftIndex)},
                                         {QLatin1String("raft_applied_index"), qint64(status.raftAppliedIndex)},
                                         {QLatin1String("errors"), QJsonArray::fromStringList(status.errors)}});
        }
        break;
    case OutputFormat::Table: {
        QList<QStringList> rows;
        for (const EndpointAnswer &answer : answers)
            rows.append(endpointRow(answer));
        printBoxTable(invocation,
                      {QStringLiteral("ENDPOINT"), QStringLiteral("ID"), QStringLiteral("VERSION"), QStringLiteral("DB SIZE"),
                       QStringLiteral("IS LEADER"), QStringLiteral("IS LEARNER"), QStringLiteral("RAFT TERM"),
                       QStringLiteral("RAFT INDEX"), QStringLiteral("RAFT APPLIED INDEX"), QStringLiteral("ERRORS")},
                      rows);
        break;
    }
    case OutputFormat::Simple:
        // etcdctl's rows joined, its trailing ", " before empty errors included.
        for (const EndpointAnswer &answer : answers)
            invocation.printData(endpointRow(answer).join(QLatin1String(", ")).toUtf8());
        break;
    }
    return firstFailure ? Success : invocation.failed(firstFailure);
}
} // namespace

Command memberCommand()
{
    Command command;
    command.name = QStringLiteral("member");
    command.summary = QStringLiteral("The cluster's members, as etcdctl's member list prints them");
    command.details = QStringLiteral(
        "Actions:\n"
        "  list  Every member: ID, whether it has started, name, peer and client URLs,\n"
        "        whether it is a learner.\n"
        "Prints what etcdctl's member list prints, in -w simple, json, fields and table;\n"
        "-w jsonl (--json) prints one JSON object of qetcd's per member, IDs in hex.\n"
        "qetcd status shows the members with each endpoint's state, in qetcd's shape.");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("list (the only action)")}};
    command.printsFields = true;
    command.printsTable = true;
    command.run = [](Invocation &invocation) {
        return runAction(invocation, {{QStringLiteral("list"), {}, {}, runMemberList}});
    };
    return command;
}

Command endpointCommand()
{
    Command command;
    command.name = QStringLiteral("endpoint");
    command.summary = QStringLiteral("Each endpoint's state, as etcdctl's endpoint status prints it");
    command.details = QStringLiteral(
        "Actions:\n"
        "  status  Each endpoint of --endpoints about itself: its member's ID, etcd\n"
        "          version, database size, whether it leads or is a learner, raft term,\n"
        "          index and applied index, and its errors.\n"
        "Prints what etcdctl's endpoint status prints, in -w simple, json, fields and\n"
        "table; -w jsonl (--json) prints one JSON object of qetcd's per endpoint, IDs in\n"
        "hex. An endpoint that does not answer is left out, and the command fails\n"
        "(exit 2) after printing the others. qetcd status is qetcd's own shape of the\n"
        "same, with the members.");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("status (the only action)")}};
    command.printsFields = true;
    command.printsTable = true;
    command.run = [](Invocation &invocation) {
        return runAction(invocation, {{QStringLiteral("status"), {}, {}, runEndpointStatus}});
    };
    return command;
}

} // namespace QEtcd::Cli
