// SPDX-License-Identifier: Apache-2.0
#include "commands.h"
#include "interventions.h"
#include "kvformat.h"
#include "jobrun.h"
#include "loadcheck.h"

#include <QEtcd/clustermaintenance.h>
#include <QEtcd/snapshotsave.h>

#include <QtCore/QJsonArray>
#include <QtCore/QLocale>


namespace QEtcd::Cli {

namespace {
QString alarmName(AlarmType type)
{
    switch (type) {
    case AlarmType::NoSpace:
        return QStringLiteral("NOSPACE");
    case AlarmType::Corrupt:
        return QStringLiteral("CORRUPT");
    case AlarmType::None:
        break;
    }
    return QStringLiteral("NONE");
}

QString bytes(qint64 size)
{
    return QLocale::c().formattedDataSize(size, 1, QLocale::DataSizeSIFormat);
}

int runAlarmList(Invocation &invocation)
{
    const AlarmListResult listed = invocation.await(invocation.client().alarms(), QStringLiteral("alarm list"));
    if (!listed.status)
        return invocation.failed(listed.status);
    for (const Alarm &alarm : listed.alarms) {
        if (invocation.json())
            invocation.print(QJsonObject{{QLatin1String("member_id"), hexId(alarm.memberId)},
                                         {QLatin1String("alarm"), alarmName(alarm.type)}});
        else
            invocation.print(QStringLiteral("memberID:%1 alarm:%2").arg(hexId(alarm.memberId), alarmName(alarm.type)).toUtf8());
    }
    return Success;
}

int runAlarmDisarm(Invocation &invocation)
{
    const AlarmListResult listed = invocation.await(invocation.client().alarms(), QStringLiteral("alarm list"));
    if (!listed.status)
        return invocation.failed(listed.status);
    if (listed.alarms.isEmpty())
        return Success;
    QStringList raised;
    for (const Alarm &alarm : listed.alarms)
        raised.append(QStringLiteral("%1 on member %2").arg(alarmName(alarm.type), hexId(alarm.memberId)));
    const QString plan = QStringLiteral("Disarm %1. While an alarm is raised etcd refuses writes (NOSPACE) or "
                                        "everything but reads (CORRUPT); a NOSPACE alarm comes back at the next "
                                        "write unless space was freed first (compact, then defrag every member).")
                             .arg(raised.join(QLatin1String(", ")));
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    for (const Alarm &alarm : listed.alarms) {
        const Result disarmed = invocation.await(invocation.client().disarmAlarm(alarm), QStringLiteral("alarm disarm"));
        if (!disarmed.status)
            return invocation.failed(disarmed.status);
        if (invocation.json())
            invocation.print(QJsonObject{{QLatin1String("member_id"), hexId(alarm.memberId)},
                                         {QLatin1String("alarm"), alarmName(alarm.type)},
                                         {QLatin1String("disarmed"), true}});
        else
            invocation.print(QStringLiteral("memberID:%1 alarm:%2").arg(hexId(alarm.memberId), alarmName(alarm.type)).toUtf8());
    }
    return Success;
}

int runAlarm(Invocation &invocation)
{
    return runAction(invocation, {{QStringLiteral("list"), {}, {}, runAlarmList},
                                  {QStringLiteral("disarm"), {}, {QStringLiteral("yes")}, runAlarmDisarm}});
}

// Each endpoint in turn, never two at once, in ClusterMaintenance's order (the leader last).
int runDefrag(Invocation &invocation)
{
    const MemberStatuses members =
        invocation.await(ClusterMaintenance::statuses(&invocation.client()), QStringLiteral("endpoint status"));
    if (!members.status)
        return invocation.failed(members.status);
    QStringList order;
    for (const EndpointStatusResult &member : members.members)
        order.append(QStringLiteral("%1 (%2)").arg(member.endpoint, bytes(member.dbSize)));
    const QString plan = QStringLiteral("Defragment %1, one at a time, the leader last. A member serves nothing "
                                        "while it defragments.")
                             .arg(order.join(QLatin1String(", ")));
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    return defragmentMembers(invocation, members.members);
}

// Every member's hash of its keys at one revision: a healthy cluster's are all the same.
int runCheckConsistency(Invocation &invocation)
{
    const ConsistencyReport report =
        invocation.await(ClusterMaintenance::checkConsistency(&invocation.client()), QStringLiteral("check consistency"));
    if (!report.status)
        return invocation.failed(report.status);
    QList<QStringList> rows{{QStringLiteral("ENDPOINT"), QStringLiteral("MEMBER ID"), QStringLiteral("HASH"),
                             QStringLiteral("COMPACT REVISION")}};
    for (const HashKVResult &hashed : report.hashes) {
        if (invocation.json()) {
            invocation.print(QJsonObject{{QLatin1String("endpoint"), hashed.endpoint},
                                         {QLatin1String("member_id"), hexId(hashed.header.memberId)},
                                         {QLatin1String("revision"), report.revision},
                                         {QLatin1String("hash"), qint64(hashed.hash)},
                                         {QLatin1String("compact_revision"), hashed.compactRevision}});
        } else {
            rows.append({hashed.endpoint, hexId(hashed.header.memberId), QString::number(hashed.hash),
                         QString::number(hashed.compactRevision)});
        }
    }
    if (!invocation.json())
        printTable(invocation, rows);
    if (!report.isConsistent()) {
        return invocation.failed(Status(StatusCode::DataLoss, QStringLiteral("at revision %1 the keys of %2 differ from those of %3")
                                                                  .arg(report.revision)
                                                                  .arg(report.differing.join(QLatin1String(", ")),
                                                                       report.hashes.first().endpoint)));
    }
    return Success;
}

int runCheck(Invocation &invocation)
{
    return runAction(invocation, {{QStringLiteral("consistency"), {}, {QStringLiteral("cluster")}, withClusterOption(runCheckConsistency)},
                                  {QStringLiteral("perf"), {}, loadCheckOptionNames(), runCheckPerf},
                                  {QStringLiteral("datascale"), {}, loadCheckOptionNames(), runCheckDatascale}});
}

int runMoveLeader(Invocation &invocation)
{
    bool ok = false;
    const QString given = invocation.arguments().value(0);
    const quint64 target = given.toULongLong(&ok, 16);
    if (!ok || target == 0)
        return invocation.usageError(QStringLiteral("MEMBER_ID is a member ID in hex (see `qetcd status`), not \"%1\"").arg(given));
    const MemberStatuses members =
        invocation.await(ClusterMaintenance::statuses(&invocation.client()), QStringLiteral("endpoint status"));
    if (!members.status)
        return invocation.failed(members.status);
    // The leader's own endpoint, when one of --endpoints is: ClusterMaintenance puts it last.
    const EndpointStatusResult &leader = members.members.constLast();
    const QString plan = QStringLiteral("Move the leadership from member %1 to member %2. Writes pause while the "
                                        "new leader takes over.")
                             .arg(hexId(leader.leader), hexId(target));
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const Result moved = invocation.await(ClusterMaintenance::moveLeader(&invocation.client(), target),
                                          QStringLiteral("move-leader"));
    if (!moved.status)
        return invocation.failed(moved.status);
    if (invocation.json())
        invocation.print(QJsonObject{{QLatin1String("leader"), hexId(target)}, {QLatin1String("previous"), hexId(leader.leader)}});
    else
        invocation.print(QStringLiteral("Leadership transferred from %1 to %2").arg(hexId(leader.leader), hexId(target)).toUtf8());
    return Success;
}

// REVISION, or the one that keeps the newest --keep revisions; refused when etcd keeps nothing
// older, before anything is sent.
int runCompaction(Invocation &invocation)
{
    const QString given = invocation.arguments().value(0);
    const QString keep = invocation.value(QStringLiteral("keep"));
    if (given.isEmpty() == keep.isEmpty())
        return invocation.usageError(QStringLiteral("give either REVISION or --keep N, the number of newest revisions to keep"));
    bool ok = false;
    const qint64 number = (given.isEmpty() ? keep : given).toLongLong(&ok);
    if (!ok || number < 1) {
        return invocation.usageError(given.isEmpty() ? QStringLiteral("--keep takes a number of revisions, not \"%1\"").arg(keep)
                                                     : QStringLiteral("REVISION is a revision number, not \"%1\"").arg(given));
    }
    const RetainedHistory kept =
        invocation.await(ClusterMaintenance::retainedHistory(&invocation.client()), QStringLiteral("compaction"));
    if (!kept.status)
        return invocation.failed(kept.status);
    const qint64 keepFrom = given.isEmpty() ? kept.current - number + 1 : number;
    if (keepFrom > kept.current) {
        return invocation.failed(Status(StatusCode::InvalidArgument, QStringLiteral("revision %1 is in the future: the store is at %2")
                                                                         .arg(keepFrom)
                                                                         .arg(kept.current)));
    }
    if (keepFrom <= kept.oldest) {
        return invocation.failed(Status(StatusCode::InvalidArgument, QStringLiteral("nothing to compact: etcd keeps the history from revision %1, "
                                                                                    "and compacting before %2 discards nothing")
                                                                         .arg(kept.oldest)
                                                                         .arg(keepFrom)));
    }
    const bool physical = invocation.isSet(QStringLiteral("physical"));
    const QString plan = QStringLiteral("Compact the history before revision %1: revisions %2 to %3 (%4 of them) become "
                                        "unreadable, and every key keeps its version as of revision %1.")
                             .arg(keepFrom)
                             .arg(kept.oldest)
                             .arg(keepFrom - 1)
                             .arg(keepFrom - kept.oldest);
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const Result compacted = invocation.await(invocation.client().compact(keepFrom, physical), QStringLiteral("compaction"));
    if (!compacted.status)
        return invocation.failed(compacted.status);
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("compacted_revision"), keepFrom},
                                     {QLatin1String("discarded_revisions"), keepFrom - kept.oldest},
                                     {QLatin1String("physical"), physical}});
    } else {
        invocation.print(QStringLiteral("compacted revision %1").arg(keepFrom).toUtf8());
    }
    return Success;
}

// Saved as it arrives, to FILE.part, renamed to FILE at the end; SIGINT or SIGTERM cancels it
// and leaves nothing behind.
int runSnapshotSave(Invocation &invocation)
{
    const QString file = invocation.arguments().value(1);
    if (file.isEmpty())
        return invocation.usageError(QStringLiteral("save takes FILE, the file to save the snapshot to"));
    SnapshotSave save(&invocation.client());
    const SnapshotResult result = runJob<SnapshotSave, SnapshotResult>(
        save, &SnapshotSave::finished, [&] { save.start(file, invocation.isSet(QStringLiteral("force"))); },
        QStringLiteral("snapshot save"));
    if (!result.status)
        return invocation.failed(result.status);
    const QString sha256 = QString::fromLatin1(result.sha256.toHex());
    if (invocation.json()) {
        invocation.print(QJsonObject{{QLatin1String("file"), file}, {QLatin1String("size"), result.size},
                                     {QLatin1String("sha256"), sha256}});
    } else {
        invocation.print(QStringLiteral("Snapshot saved at %1 (%2 bytes, sha256 %3)").arg(file).arg(result.size).arg(sha256).toUtf8());
    }
    return Success;
}

// etcdctl snapshot status: read from the file alone, no endpoint asked. A large file takes as
// long as reading it does: no --command-timeout.
int runSnapshotStatus(Invocation &invocation)
{
    QFuture<SnapshotFileStatus> reading = snapshotFileStatus(invocation.arguments().value(1));
    reading.waitForFinished();
    const SnapshotFileStatus status = reading.result();
    if (!status.status)
        return invocation.failed(status.status);
    const QString hash = QString::number(status.hash, 16);
    switch (invocation.output()) {
    case OutputFormat::Json:
        invocation.print(QStringLiteral("{\"hash\":%1,\"revision\":%2,\"totalKey\":%3,\"totalSize\":%4}")
                             .arg(status.hash).arg(status.revision).arg(status.totalKeys).arg(status.totalSize).toUtf8());
        break;
    case OutputFormat::JsonLines:
        invocation.print(QJsonObject{{QLatin1String("hash"), hash}, {QLatin1String("revision"), status.revision},
                                     {QLatin1String("total_keys"), status.totalKeys}, {QLatin1String("total_size"), status.totalSize}});
        break;
    case OutputFormat::Fields:
        invocation.print("\"Hash\" : " + QByteArray::number(status.hash));
        invocation.print("\"Revision\" : " + QByteArray::number(status.revision));
        invocation.print("\"Keys\" : " + QByteArray::number(status.totalKeys));
        invocation.print("\"Size\" : " + QByteArray::number(status.totalSize));
        break;
    case OutputFormat::Table:
        printBoxTable(invocation, {QStringLiteral("HASH"), QStringLiteral("REVISION"), QStringLiteral("TOTAL KEYS"), QStringLiteral("TOTAL SIZE")},
                      {{hash, QString::number(status.revision), QString::number(status.totalKeys), humanBytes(status.totalSize)}});
        break;
    case OutputFormat::Simple:
        invocation.print(QStringLiteral("%1, %2, %3, %4").arg(hash).arg(status.revision).arg(status.totalKeys)
                             .arg(humanBytes(status.totalSize)).toUtf8());
        break;
    }
    return Success;
}

int runSnapshot(Invocation &invocation)
{
    // Only save has etcdctl's text alone; status has its four shapes.
    if (invocation.arguments().value(0) == QLatin1String("save")
        && (invocation.output() == OutputFormat::Fields || invocation.output() == OutputFormat::Table))
        return invocation.usageError(QStringLiteral("save prints a line or --json, not etcdctl's fields or table"));
    return runAction(invocation, {{QStringLiteral("save"), {QStringLiteral("FILE")}, {}, runSnapshotSave},
                                  {QStringLiteral("status"), {QStringLiteral("FILE")}, {}, runSnapshotStatus}});
}

QString confirmationHelp()
{
    return QStringLiteral("It says on stderr what it will do and asks on a terminal; elsewhere --yes is\n"
                          "required. --read-only refuses it before anything is sent.\n");
}
} // namespace

int defragmentMembers(Invocation &invocation, const QList<EndpointStatusResult> &members)
{
    for (const EndpointStatusResult &member : members) {
        // Defragmenting a large database takes longer than a request: no --command-timeout here.
        const Result done = invocation.await(invocation.client().defragment(member.endpoint),
                                             QStringLiteral("defragment %1").arg(member.endpoint),
                                             QDeadlineTimer(QDeadlineTimer::Forever));
        if (!done.status)
            return invocation.failed(done.status);
        const EndpointStatusResult after =
            invocation.await(invocation.client().endpointStatus(member.endpoint), QStringLiteral("endpoint status"));
        if (invocation.json()) {
            QJsonObject line{{QLatin1String("endpoint"), member.endpoint},
                             {QLatin1String("defragmented"), true},
                             {QLatin1String("db_size_before"), member.dbSize}};
            if (after.status)
                line.insert(QLatin1String("db_size_after"), after.dbSize);
            invocation.print(line);
        } else {
            invocation.print(QStringLiteral("Finished defragmenting etcd member[%1]: %2 -> %3")
                                 .arg(member.endpoint, bytes(member.dbSize),
                                      after.status ? bytes(after.dbSize) : QStringLiteral("?"))
                                 .toUtf8());
        }
    }
    return Success;
}

Command alarmCommand()
{
    Command command;
    command.name = QStringLiteral("alarm");
    command.summary = QStringLiteral("List or disarm the cluster's alarms (alarm list|disarm)");
    command.details = QStringLiteral("Actions:\n"
                                     "  list    The raised alarms, \"memberID:<hex> alarm:NOSPACE|CORRUPT\" a line\n"
                                     "          (with --json {\"member_id\", \"alarm\"}), as etcdctl prints them.\n"
                                     "  disarm  Disarms every raised alarm. NOSPACE comes back at the next write\n"
                                     "          unless space was freed first (compact, then defrag every member).\n")
        + confirmationHelp();
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("list or disarm")}};
    command.options = {yesOption()};
    command.run = runAlarm;
    return command;
}

Command defragCommand()
{
    Command command;
    command.name = QStringLiteral("defrag");
    command.summary = QStringLiteral("Defragment every member of --endpoints, one at a time, the leader last");
    command.details = QStringLiteral("Gives the space compaction freed back to the file system. A member serves\n"
                                     "nothing while it defragments: members go one at a time, the leader last.\n"
                                     "Output: \"Finished defragmenting etcd member[URL]: BEFORE -> AFTER\" a member\n"
                                     "(with --json {\"endpoint\", \"defragmented\", \"db_size_before\",\n"
                                     "\"db_size_after\"}). --cluster defragments every member the member list\n"
                                     "names, not only those of --endpoints.\n")
        + confirmationHelp();
    command.options = {yesOption(), clusterOption()};
    command.run = withClusterOption(runDefrag);
    return command;
}

Command checkCommand()
{
    Command command;
    command.name = QStringLiteral("check");
    command.summary = QStringLiteral("Check the members agree, or load the cluster (check consistency|perf|datascale)");
    command.details = QStringLiteral("Actions:\n"
                                     "  consistency  Asks every member of --endpoints for the hash of its keys at the\n"
                                     "               store's current revision (HashKV): a table (with --json one\n"
                                     "               {\"endpoint\", \"member_id\", \"revision\", \"hash\",\n"
                                     "               \"compact_revision\"} per member); exit 1 naming the members\n"
                                     "               whose hash differs from the first one's. --cluster asks every\n"
                                     "               member the member list names.\n")
        + loadCheckHelp();
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("consistency, perf or datascale")}};
    command.options = loadCheckOptions() << clusterOption();
    command.run = runCheck;
    return command;
}

Command compactionCommand()
{
    Command command;
    command.name = QStringLiteral("compaction");
    command.summary = QStringLiteral("Discard the history before a revision (compaction REVISION | --keep N)");
    command.details = QStringLiteral("Keeps the history from REVISION on, or the newest N revisions with --keep N.\n"
                                     "Reads and watches can no longer reach back past it; each key keeps its\n"
                                     "version as of that revision. It says first which revisions go (etcd does not\n"
                                     "tell how far it compacted before: qetcd finds it), and refuses a revision\n"
                                     "that discards nothing. --physical waits until the space is freed in the\n"
                                     "database; `qetcd defrag` then gives it back to the file system.\n"
                                     "Output: \"compacted revision N\" (with --json {\"compacted_revision\",\n"
                                     "\"discarded_revisions\", \"physical\"}), as etcdctl prints it.\n")
        + confirmationHelp();
    command.arguments = {{QStringLiteral("REVISION"), QStringLiteral("The revision to keep the history from (or --keep)"), true}};
    command.options = {yesOption(),
                       QCommandLineOption(QStringLiteral("keep"), QStringLiteral("Keep the newest N revisions instead"), QStringLiteral("N")),
                       QCommandLineOption(QStringLiteral("physical"), QStringLiteral("Wait until the space is freed in the database"))};
    command.run = runCompaction;
    return command;
}

Command moveLeaderCommand()
{
    Command command;
    command.name = QStringLiteral("move-leader");
    command.summary = QStringLiteral("Hand the leadership to another member (move-leader MEMBER_ID)");
    command.details = QStringLiteral("MEMBER_ID is in hex, as `qetcd status` lists it. --endpoints must include the\n"
                                     "current leader's: only the leader can hand over.\n")
        + confirmationHelp();
    command.arguments = {{QStringLiteral("MEMBER_ID"), QStringLiteral("The member to lead, in hex")}};
    command.options = {yesOption()};
    command.run = runMoveLeader;
    return command;
}

Command snapshotCommand()
{
    Command command;
    command.name = QStringLiteral("snapshot");
    command.summary = QStringLiteral("Save a member's snapshot of its database to a file, or read one's status");
    command.details = QStringLiteral("Actions:\n"
                                     "  save FILE  The snapshot of the member qetcd talks to (give --endpoints one\n"
                                     "             endpoint to choose), written as it arrives to\n"
                                     "             FILE.part and renamed to FILE once complete: an interrupted or\n"
                                     "             failed save leaves no file. FILE is not overwritten without\n"
                                     "             --force. Output: \"Snapshot saved at FILE (SIZE bytes, sha256 HEX)\"\n"
                                     "             (with --json {\"file\", \"size\", \"sha256\"}).\n"
                                     "  status FILE  What etcdctl snapshot status prints of a snapshot file, read\n"
                                     "             from the file alone: its hash (CRC-32C of every bucket's keys and\n"
                                     "             values), newest revision, entries and size, in -w simple, json,\n"
                                     "             fields and table as etcdctl prints them (-w jsonl: {\"hash\"\n"
                                     "             (hex), \"revision\", \"total_keys\", \"total_size\"}). A file that\n"
                                     "             is not an etcd database exits 3, naming what is wrong in it.\n");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("save or status")},
                         {QStringLiteral("FILE"), QStringLiteral("save: the file to save to; status: the file to read")}};
    command.printsFields = true;
    command.printsTable = true;
    command.options = {QCommandLineOption(QStringLiteral("force"), QStringLiteral("save: replace FILE when it exists"))};
    command.run = runSnapshot;
    return command;
}

} // namespace QEtcd::Cli
