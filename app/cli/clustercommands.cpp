// SPDX-License-Identifier: Apache-2.0
// etcdctl's `member list` and `endpoint status`, in its shapes: what scripts written for etcdctl
// parse. `status` is qetcd's own look at the same (statuscommand.cpp).
#include "commands.h"

#include "duration.h"
#include "interventions.h"
#include "kvformat.h"

#include <QEtcd/clustermaintenance.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QPromise>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

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

struct EndpointHealth
{
    QString endpoint;
    bool healthy = false;
    qint64 tookNs = 0;
    QString error;
};

// A health check's read and how long it took, timed where its answer landed rather than where
// it was awaited after the others.
struct TimedRead : RangeResult
{
    qint64 tookNs = -1;
};

// As etcdctl judges a member: healthy when a linearizable read went through consensus (a read
// the user may not make did too) and the cluster has no alarm raised. Every endpoint is asked
// at once, through a client of its own, under one deadline.
int runEndpointHealth(Invocation &invocation)
{
    const QStringList endpoints = invocation.endpointsAsGiven();
    const QDeadlineTimer deadline = invocation.requestDeadline();
    QElapsedTimer sent;
    sent.start();
    std::vector<std::unique_ptr<Client>> clients;
    QList<QFuture<TimedRead>> reads;
    for (const QString &endpoint : endpoints) {
        clients.push_back(invocation.clientFor(endpoint));
        // Timed where the answer arrives. Not through QFuture::then(): Qt 6.4 can run a
        // continuation twice when it is attached while another thread finishes the future.
        auto timedRead = std::make_shared<QPromise<TimedRead>>();
        timedRead->start();
        reads.append(timedRead->future());
        clients.back()->get(QByteArrayLiteral("health"), {}, {}, [sent, timedRead](const RangeResult &read) {
            TimedRead timed;
            static_cast<RangeResult &>(timed) = read;
            timed.tookNs = sent.nsecsElapsed();
            timedRead->addResult(timed);
            timedRead->finish();
        });
    }
    QList<EndpointHealth> checks;
    for (qsizetype i = 0; i < endpoints.size(); ++i) {
        const TimedRead read = invocation.await(reads[i], QLatin1String("health check of ") + endpoints[i], deadline);
        EndpointHealth check{endpoints[i], false, read.tookNs >= 0 ? read.tookNs : sent.nsecsElapsed(), {}};
        if (!read.status && read.status.code() != StatusCode::PermissionDenied) {
            check.error = read.status.message();
            checks.append(check);
            continue;
        }
        const AlarmListResult raised =
            invocation.await(clients[size_t(i)]->alarms(), QLatin1String("alarm list of ") + endpoints[i], deadline);
        if (!raised.status) {
            check.error = QStringLiteral("Unable to fetch the alarm list");
        } else if (!raised.alarms.isEmpty()) {
            check.error = QStringLiteral("Active Alarm(s): ");
            for (const Alarm &alarm : raised.alarms) {
                check.error += QLatin1String(alarm.type == AlarmType::NoSpace ? "NOSPACE "
                                                 : alarm.type == AlarmType::Corrupt ? "CORRUPT "
                                                                                    : "UNKNOWN ");
            }
        } else {
            check.healthy = true;
        }
        checks.append(check);
    }

    switch (invocation.output()) {
    case OutputFormat::Json: {
        QByteArrayList objects;
        for (const EndpointHealth &check : checks) {
            QByteArray text = "{\"endpoint\":" + jsonString(check.endpoint) + ",\"health\":" + boolText(check.healthy)
                + ",\"took\":" + jsonString(goDuration(check.tookNs));
            if (!check.error.isEmpty())
                text += ",\"error\":" + jsonString(check.error);
            objects.append(text + '}');
        }
        invocation.print('[' + objects.join(',') + ']');
        break;
    }
    case OutputFormat::Fields:
        for (const EndpointHealth &check : checks) {
            invocation.print("\"Endpoint\" : " + goQuoted(check.endpoint.toUtf8()));
            invocation.print("\"Health\" : " + boolText(check.healthy));
            invocation.print("\"Took\" : " + goDuration(check.tookNs).toUtf8());
            invocation.print("\"Error\" : " + check.error.toUtf8());
            invocation.print(QByteArray());
        }
        break;
    case OutputFormat::JsonLines:
        for (const EndpointHealth &check : checks) {
            QJsonObject object{{QLatin1String("endpoint"), check.endpoint},
                               {QLatin1String("healthy"), check.healthy},
                               {QLatin1String("took_ms"), std::round(double(check.tookNs) / 1000.0) / 1000.0}};
            if (!check.error.isEmpty())
                object.insert(QLatin1String("error"), check.error);
            invocation.print(object);
        }
        break;
    case OutputFormat::Table: {
        QList<QStringList> rows;
        for (const EndpointHealth &check : checks)
            rows.append({check.endpoint, QString::fromLatin1(boolText(check.healthy)), goDuration(check.tookNs), check.error});
        printBoxTable(invocation, {QStringLiteral("ENDPOINT"), QStringLiteral("HEALTH"), QStringLiteral("TOOK"), QStringLiteral("ERROR")},
                      rows);
        break;
    }
    case OutputFormat::Simple:
        for (const EndpointHealth &check : checks) {
            if (check.healthy) {
                invocation.print(QStringLiteral("%1 is healthy: successfully committed proposal: took = %2")
                                     .arg(check.endpoint, goDuration(check.tookNs))
                                     .toUtf8());
            } else {
                invocation.printToStderr(QStringLiteral("%1 is unhealthy: failed to commit proposal: %2")
                                             .arg(check.endpoint, check.error)
                                             .toUtf8());
            }
        }
        break;
    }
    const auto unhealthy = std::count_if(checks.cbegin(), checks.cend(), [](const EndpointHealth &c) { return !c.healthy; });
    if (unhealthy == 0)
        return Success;
    return invocation.failed(Status(StatusCode::FailedPrecondition,
                                    QStringLiteral("unhealthy cluster: %1 of %2 endpoints").arg(unhealthy).arg(checks.size())));
}
// Each member's hash of its keys' history up to --rev (its latest by default), to compare:
// members that disagree hold different data. qetcd check consistency compares them itself.
int runEndpointHashKV(Invocation &invocation)
{
    bool ok = true;
    const qint64 revision = invocation.isSet(QStringLiteral("rev")) ? invocation.value(QStringLiteral("rev")).toLongLong(&ok) : 0;
    if (!ok || revision < 0) {
        return invocation.usageError(
            QStringLiteral("--rev must be a whole number >= 0, not \"%1\"").arg(invocation.value(QStringLiteral("rev"))));
    }
    Client &client = invocation.client();
    const QDeadlineTimer deadline = invocation.requestDeadline();
    const QStringList endpoints = client.endpoints();
    const QStringList given = invocation.endpointsAsGiven();
    QList<QFuture<HashKVResult>> pending;
    for (const QString &endpoint : endpoints)
        pending.append(client.hashKV(endpoint, revision));
    QList<std::pair<QString, HashKVResult>> hashes;
    Status firstFailure;
    for (qsizetype i = 0; i < endpoints.size(); ++i) {
        const QString named = given.value(i, endpoints[i]);
        const HashKVResult hash = invocation.await(pending[i], QLatin1String("hash of ") + named, deadline);
        if (hash.status) {
            hashes.append({named, hash});
            continue;
        }
        invocation.printToStderr(
            QStringLiteral("Failed to get the hash of endpoint %1 (%2)").arg(named, hash.status.message()).toUtf8());
        if (firstFailure)
            firstFailure = hash.status;
    }

    switch (invocation.output()) {
    case OutputFormat::Json: {
        QByteArrayList objects;
        for (const auto &[endpoint, hash] : hashes) {
            QByteArray text = "{\"Endpoint\":" + jsonString(endpoint) + ",\"HashKV\":{\"header\":" + headerJson(hash.header);
            if (hash.hash != 0)
                text += ",\"hash\":" + QByteArray::number(hash.hash);
            if (hash.compactRevision != 0)
                text += ",\"compact_revision\":" + QByteArray::number(hash.compactRevision);
            objects.append(text + "}}");
        }
        invocation.print('[' + objects.join(',') + ']');
        break;
    }
    case OutputFormat::Fields:
        for (const auto &[endpoint, hash] : hashes) {
            for (const QByteArray &line : headerFieldLines(hash.header))
                invocation.print(line);
            invocation.print("\"Endpoint\" : " + goQuoted(endpoint.toUtf8()));
            invocation.print("\"Hash\" : " + QByteArray::number(hash.hash));
            invocation.print(QByteArray());
        }
        break;
    case OutputFormat::JsonLines:
        for (const auto &[endpoint, hash] : hashes) {
            invocation.print(QJsonObject{{QLatin1String("endpoint"), endpoint},
                                         {QLatin1String("hash"), qint64(hash.hash)},
                                         {QLatin1String("revision"), hash.header.revision},
                                         {QLatin1String("compact_revision"), hash.compactRevision}});
        }
        break;
    case OutputFormat::Table: {
        QList<QStringList> rows;
        for (const auto &[endpoint, hash] : hashes)
            rows.append({endpoint, QString::number(hash.hash)});
        printBoxTable(invocation, {QStringLiteral("ENDPOINT"), QStringLiteral("HASH")}, rows);
        break;
    }
    case OutputFormat::Simple:
        for (const auto &[endpoint, hash] : hashes)
            invocation.print(QStringLiteral("%1, %2").arg(endpoint).arg(hash.hash).toUtf8());
        break;
    }
    return firstFailure ? Success : invocation.failed(firstFailure);
}

// etcdctl's "%16x": hex, padded with spaces to 16 characters.
QString paddedHex(quint64 id)
{
    return QString::number(id, 16).rightJustified(16, QLatin1Char(' '));
}

std::optional<QStringList> peerUrlsOption(Invocation &invocation, int *exitCode)
{
    const QStringList urls = invocation.value(QStringLiteral("peer-urls")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!urls.isEmpty())
        return urls;
    *exitCode = invocation.usageError(QStringLiteral("--peer-urls is required: the new member's peer URLs, comma-separated"));
    return std::nullopt;
}

// The members as listed now and the one MEMBER_ID (hex) names; nullopt with *exitCode when the
// argument is no ID or names no member.
std::optional<std::pair<QList<Member>, Member>> namedMember(Invocation &invocation, int *exitCode)
{
    bool ok = false;
    const QString given = invocation.arguments().value(1);
    const quint64 id = given.toULongLong(&ok, 16);
    if (!ok || id == 0) {
        *exitCode = invocation.usageError(
            QStringLiteral("MEMBER_ID is a member ID in hex (see `qetcd member list`), not \"%1\"").arg(given));
        return std::nullopt;
    }
    const MemberListResult list = invocation.await(invocation.client().memberList(), QStringLiteral("member list"));
    if (!list.status) {
        *exitCode = invocation.failed(list.status);
        return std::nullopt;
    }
    for (const Member &member : list.members) {
        if (member.id == id)
            return std::pair{list.members, member};
    }
    *exitCode = invocation.failed(Status(StatusCode::NotFound, QStringLiteral("no member %1 in the cluster").arg(hexId(id))));
    return std::nullopt;
}

// Tells what a membership change did: etcdctl's line, or with --json the member and the members.
int printMemberChange(Invocation &invocation, const MemberListResult &after, quint64 id, const char *verb)
{
    if (!after.status)
        return invocation.failed(after.status);
    if (invocation.json()) {
        QJsonArray members;
        for (const Member &member : after.members)
            members.append(QJsonObject{{QLatin1String("id"), hexId(member.id)}, {QLatin1String("name"), member.name},
                                       {QLatin1String("is_learner"), member.isLearner}});
        invocation.print(QJsonObject{{QLatin1String("member"), hexId(id)}, {QLatin1String(verb), true},
                                     {QLatin1String("members"), members}});
        return Success;
    }
    invocation.print(QStringLiteral("Member %1 %2 cluster %3")
                         .arg(paddedHex(id), QLatin1String(verb) + QLatin1String(qstrcmp(verb, "removed") == 0 ? " from" : " in"),
                              paddedHex(after.header.clusterId))
                         .toUtf8());
    return Success;
}

int runMemberAdd(Invocation &invocation)
{
    int exitCode = Success;
    const QString name = invocation.arguments().value(1);
    const auto peerUrls = peerUrlsOption(invocation, &exitCode);
    if (!peerUrls)
        return exitCode;
    const bool learner = invocation.isSet(QStringLiteral("learner"));
    const MemberListResult before = invocation.await(invocation.client().memberList(), QStringLiteral("member list"));
    if (!before.status)
        return invocation.failed(before.status);
    const QString plan = ClusterMaintenance::planMemberAdd(before.members, name, *peerUrls, learner);
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const MemberAddResult added =
        invocation.await(invocation.client().memberAdd(*peerUrls, learner), QStringLiteral("member add"));
    if (!added.status)
        return invocation.failed(added.status);
    // What the new member is started with, as etcdctl prints it.
    const QString initialCluster = ClusterMaintenance::initialCluster(added, name);
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("member"), hexId(added.member.id)},
                                     {QLatin1String("name"), name},
                                     {QLatin1String("is_learner"), added.member.isLearner},
                                     {QLatin1String("initial_cluster"), initialCluster},
                                     {QLatin1String("initial_advertise_peer_urls"), peerUrls->join(QLatin1Char(','))}});
        return Success;
    }
    invocation.print(QStringLiteral("Member %1 added to cluster %2\n").arg(paddedHex(added.member.id),
                                                                          paddedHex(added.header.clusterId)).toUtf8());
    invocation.printData(QStringLiteral("ETCD_NAME=\"%1\"").arg(name).toUtf8());
    invocation.printData(QStringLiteral("ETCD_INITIAL_CLUSTER=\"%1\"").arg(initialCluster).toUtf8());
    invocation.printData(
        QStringLiteral("ETCD_INITIAL_ADVERTISE_PEER_URLS=\"%1\"").arg(peerUrls->join(QLatin1Char(','))).toUtf8());
    invocation.print("ETCD_INITIAL_CLUSTER_STATE=\"existing\"");
    return Success;
}

// Reads the member MEMBER_ID names, says plan(members, member) and, once that is confirmed,
// makes change and tells what it did (verb: "removed", "updated", "promoted").
int changeNamedMember(Invocation &invocation, const QString &what, const char *verb,
                      const std::function<QString(const QList<Member> &, const Member &)> &plan,
                      const std::function<QFuture<MemberListResult>(Client &, quint64)> &change)
{
    int exitCode = Success;
    const auto named = namedMember(invocation, &exitCode);
    if (!named)
        return exitCode;
    const auto &[members, member] = *named;
    if (const std::optional<int> declined = confirm(invocation, plan(members, member)))
        return *declined;
    return printMemberChange(invocation, invocation.await(change(invocation.client(), member.id), what), member.id, verb);
}

int runMemberRemove(Invocation &invocation)
{
    return changeNamedMember(invocation, QStringLiteral("member remove"), "removed", &ClusterMaintenance::planMemberRemove,
                             [](Client &client, quint64 id) { return client.memberRemove(id); });
}

int runMemberUpdate(Invocation &invocation)
{
    int exitCode = Success;
    const auto peerUrls = peerUrlsOption(invocation, &exitCode);
    if (!peerUrls)
        return exitCode;
    const QStringList urls = *peerUrls;
    const auto plan = [urls](const QList<Member> &, const Member &member) {
        return ClusterMaintenance::planMemberUpdate(member, urls);
    };
    return changeNamedMember(invocation, QStringLiteral("member update"), "updated", plan,
                             [urls](Client &client, quint64 id) { return client.memberUpdate(id, urls); });
}

int runMemberPromote(Invocation &invocation)
{
    return changeNamedMember(invocation, QStringLiteral("member promote"), "promoted", &ClusterMaintenance::planMemberPromote,
                             [](Client &client, quint64 id) { return client.memberPromote(id); });
}
} // namespace

Command memberCommand()
{
    Command command;
    command.name = QStringLiteral("member");
    command.summary = QStringLiteral("The cluster's members: list, add, remove, update, promote");
    command.details = QStringLiteral(
        "Actions:\n"
        "  list                Every member: ID, whether it has started, name, peer and\n"
        "                      client URLs, whether it is a learner.\n"
        "  add NAME            A member at --peer-urls (--learner: one that does not vote\n"
        "                      until promoted); prints what to start it with, as etcdctl.\n"
        "  remove MEMBER_ID    Takes the member out of the cluster.\n"
        "  update MEMBER_ID    Gives the member new --peer-urls.\n"
        "  promote MEMBER_ID   Makes a learner that has caught up a voting member.\n"
        "list prints what etcdctl's member list prints, in -w simple, json, fields and\n"
        "table; -w jsonl (--json) prints one JSON object of qetcd's per member, IDs in\n"
        "hex. qetcd status shows the members with each endpoint's state.\n"
        "Every change says on stderr what it does to the cluster's quorum and asks on a\n"
        "terminal; elsewhere --yes is required. --read-only refuses it before anything\n"
        "is sent. Member IDs are hex, as list prints them.");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("list, add, remove, update or promote")},
                         {QStringLiteral("NAME|MEMBER_ID"), QStringLiteral("add: the new member's name; else its ID"), true}};
    command.options = {QCommandLineOption(QStringLiteral("peer-urls"),
                                          QStringLiteral("add, update: the member's peer URLs, comma-separated"),
                                          QStringLiteral("URLS")),
                       QCommandLineOption(QStringLiteral("learner"), QStringLiteral("add: as a learner")),
                       yesOption()};
    command.printsFields = true;
    command.printsTable = true;
    command.run = [](Invocation &invocation) {
        const QString yes = QStringLiteral("yes");
        const QString peerUrls = QStringLiteral("peer-urls");
        return runAction(invocation,
                         {{QStringLiteral("list"), {}, {}, runMemberList},
                          {QStringLiteral("add"), {QStringLiteral("NAME")}, {peerUrls, QStringLiteral("learner"), yes}, runMemberAdd},
                          {QStringLiteral("remove"), {QStringLiteral("MEMBER_ID")}, {yes}, runMemberRemove},
                          {QStringLiteral("update"), {QStringLiteral("MEMBER_ID")}, {peerUrls, yes}, runMemberUpdate},
                          {QStringLiteral("promote"), {QStringLiteral("MEMBER_ID")}, {yes}, runMemberPromote}});
    };
    return command;
}

Command endpointCommand()
{
    Command command;
    command.name = QStringLiteral("endpoint");
    command.summary = QStringLiteral("Each endpoint's state, health or hash, as etcdctl's endpoint prints them");
    command.details = QStringLiteral(
        "Actions:\n"
        "  status  Each endpoint of --endpoints about itself: its member's ID, etcd\n"
        "          version, database size, whether it leads or is a learner, raft term,\n"
        "          index and applied index, and its errors.\n"
        "  health  Whether each endpoint commits a linearizable read, and how long it\n"
        "          took; an endpoint is unhealthy too while the cluster has an alarm\n"
        "          raised. Healthy ones on stdout, unhealthy ones on stderr; any\n"
        "          unhealthy one fails the command (exit 1) after all are printed.\n"
        "  hashkv  Each endpoint's hash of its keys' history up to --rev (0: its\n"
        "          latest): members that disagree hold different data (qetcd check\n"
        "          consistency compares them for you).\n"
        "Prints what etcdctl's endpoint status, health and hashkv print, in -w simple,\n"
        "json, fields and table; -w jsonl (--json) prints one JSON object of qetcd's per\n"
        "endpoint, IDs in hex. For status and hashkv an endpoint that does not answer is\n"
        "left out, and the command fails (exit 2) after printing the others. With\n"
        "--cluster the endpoints are every member's client URLs, from the member list\n"
        "--endpoints answers. qetcd status is qetcd's own shape of the status, with the\n"
        "members.");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("status, health or hashkv")}};
    command.options = {QCommandLineOption(QStringLiteral("rev"),
                                          QStringLiteral("hashkv: the revision to hash up to (0: each member's latest)"),
                                          QStringLiteral("REVISION")),
                       clusterOption()};
    command.printsFields = true;
    command.printsTable = true;
    command.run = [](Invocation &invocation) {
        return runAction(invocation, {{QStringLiteral("status"), {}, {}, withClusterOption(runEndpointStatus)},
                                      {QStringLiteral("health"), {}, {}, withClusterOption(runEndpointHealth)},
                                      {QStringLiteral("hashkv"), {}, {QStringLiteral("rev")}, withClusterOption(runEndpointHashKV)}});
    };
    return command;
}

} // namespace QEtcd::Cli
