// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "eventsession.h"
#include "interventions.h"
#include "keyfile_p.h"
#include "kvformat.h"
#include "recipeoutput.h"
#include "shutdownsignals.h"

#include <QEtcd/transientkeyvalue.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>

namespace QEtcd::Cli {

namespace {
int runKeep(Invocation &invocation)
{
    const QByteArray key = invocation.arguments().value(1).toUtf8();
    const QByteArray value = invocation.arguments().value(2).toUtf8();
    RecipeOptions options;
    std::optional<std::chrono::milliseconds> hold;
    if (QString error; !parseLeaseOptions(invocation, &options, &hold, &error))
        return invocation.usageError(error);

    EventSession session(invocation, hold);
    TransientKeyValue keeper(&invocation.client(), key, value, options);
    bool healingFailed = false;
    QObject::connect(&keeper, &TransientKeyValue::leaseEvent, &session, [&](const LeaseEvent &event) {
        session.write(QStringLiteral("leaseEvent"), leaseEventFields(event));
        if (event.kind == LeaseEventKind::Failed) {
            healingFailed = true;
            session.fail(event.cause.withContext(QStringLiteral("lease keep: healing lease %1 stopped")
                                                     .arg(leaseHex(event.leaseId))));
        }
    });
    QObject::connect(&keeper, &TransientKeyValue::removedByOther, &session, [&](qint64 revision, const Status &cause) {
        healingFailed = true;  // its lease is revoked already
        QJsonObject fields{{QLatin1String("revision"), revision}};
        insertBytes(&fields, QStringLiteral("key"), key);
        insertCause(&fields, cause);
        session.write(QStringLiteral("removedByOther"), fields);
        session.fail(cause.withContext(QStringLiteral("lease keep")));
    });
    session.reportConnectionState(keeper);

    const QFuture<Status> started = keeper.start();
    session.run(started, QStringLiteral("lease keep \"%1\"").arg(QString::fromUtf8(key)), [&] {
        QJsonObject established{{QLatin1String("lease_id"), leaseHex(keeper.currentLeaseId())},
                                {QLatin1String("ttl"), options.ttlSeconds}};
        insertBytes(&established, QStringLiteral("key"), key);
        insertBytes(&established, QStringLiteral("value"), value);
        session.write(QStringLiteral("established"), established);
    });

    keeper.close();
    // A start still on its way revokes what it granted before it finishes.
    waitFor(started, invocation.requestDeadline());
    const qint64 leaseId = keeper.currentLeaseId();
    const bool revoked = !healingFailed && leaseId > 0 && session.revokeLease(leaseId);
    QJsonObject closed;
    insertBytes(&closed, QStringLiteral("key"), key);
    if (leaseId > 0) {
        closed.insert(QLatin1String("lease_id"), leaseHex(leaseId));
        closed.insert(QLatin1String("revoked"), revoked);
    }
    return session.finish(closed);
}

// etcdctl's -w json flattens the header into some answers ({"cluster_id":…,"ID":…}) and nests it
// in others ({"header":{…}}); this is the flattened one, to continue with more fields.
QByteArray flatHeader(const ResponseHeader &header)
{
    const QByteArray fields = Internal::KeyFileText::header(header).chopped(1);
    return fields.size() > 1 ? fields + ',' : fields;
}

void printFields(Invocation &invocation, const ResponseHeader &header, const QByteArrayList &fields)
{
    for (const QByteArray &line : headerFieldLines(header) + fields)
        invocation.print(line);
}

std::optional<qint64> leaseArgument(Invocation &invocation, QString *error)
{
    return parseLeaseId(invocation.arguments().value(1), error);
}

int runGrant(Invocation &invocation)
{
    bool isNumber = false;
    const QString text = invocation.arguments().value(1);
    const qint64 ttl = text.toLongLong(&isNumber);
    if (!isNumber || ttl <= 0)
        return invocation.usageError(QStringLiteral("grant: TTL \"%1\" is not a number of seconds above 0").arg(text));
    const LeaseGrantResult granted = invocation.await(invocation.client().leaseGrant(ttl), QStringLiteral("lease grant"));
    if (!granted.status)
        return invocation.failed(granted.status);
    switch (invocation.output()) {
    case OutputFormat::Json:
        invocation.print(flatHeader(granted.header) + "\"ID\":" + QByteArray::number(granted.id) + ",\"TTL\":"
                         + QByteArray::number(granted.ttl) + ",\"Error\":\"\"}");
        break;
    case OutputFormat::Fields:
        printFields(invocation, granted.header,
                    {"\"ID\" : " + QByteArray::number(granted.id), "\"TTL\" : " + QByteArray::number(granted.ttl)});
        break;
    case OutputFormat::JsonLines:
        invocation.print(QJsonObject{{QLatin1String("lease_id"), leaseHex(granted.id)}, {QLatin1String("ttl"), granted.ttl}});
        break;
    default:
        invocation.print(QStringLiteral("lease %1 granted with TTL(%2s)").arg(leaseHex(granted.id)).arg(granted.ttl).toUtf8());
    }
    return Success;
}

int runRevoke(Invocation &invocation)
{
    QString error;
    const std::optional<qint64> id = leaseArgument(invocation, &error);
    if (!id)
        return invocation.usageError(QStringLiteral("revoke: ") + error);
    // Revoking deletes the lease's keys with it: that is confirmed, naming how many, as any other
    // destructive command is. A lease without keys goes without asking (nothing else is lost).
    if (!invocation.readOnly()) {
        const LeaseTimeToLiveResult bound = invocation.await(invocation.client().leaseTimeToLive(*id, true),
                                                             QStringLiteral("lease revoke"));
        if (!bound.status)
            return invocation.failed(bound.status);
        if (!bound.keys.isEmpty()) {
            const QString plan = QStringLiteral("Revoke lease %1: etcd deletes its %2 with it.")
                                     .arg(leaseHex(*id), bound.keys.size() == 1 ? QStringLiteral("key")
                                                                                : QStringLiteral("%1 keys").arg(bound.keys.size()));
            if (const std::optional<int> declined = confirm(invocation, plan))
                return *declined;
        }
    }
    const Result revoked = invocation.await(invocation.client().leaseRevoke(*id), QStringLiteral("lease revoke"));
    if (!revoked.status)
        return invocation.failed(revoked.status);
    switch (invocation.output()) {
    case OutputFormat::Json:
        invocation.print("{\"header\":" + Internal::KeyFileText::header(revoked.header) + '}');
        break;
    case OutputFormat::Fields:
        printFields(invocation, revoked.header, {});
        break;
    case OutputFormat::JsonLines:
        invocation.print(QJsonObject{{QLatin1String("lease_id"), leaseHex(*id)}, {QLatin1String("revoked"), true}});
        break;
    default:
        invocation.print(QStringLiteral("lease %1 revoked").arg(leaseHex(*id)).toUtf8());
    }
    return Success;
}

int runTimeToLive(Invocation &invocation)
{
    QString error;
    const std::optional<qint64> id = leaseArgument(invocation, &error);
    if (!id)
        return invocation.usageError(QStringLiteral("timetolive: ") + error);
    const bool withKeys = invocation.isSet(QStringLiteral("keys"));
    const LeaseTimeToLiveResult lease = invocation.await(invocation.client().leaseTimeToLive(*id, withKeys),
                                                         QStringLiteral("lease timetolive"));
    if (!lease.status)
        return invocation.failed(lease.status);
    switch (invocation.output()) {
    case OutputFormat::Json: {
        // Go writes a nil list of keys as null, and bytes as base64.
        QByteArray keys = "null";
        if (!lease.keys.isEmpty()) {
            QByteArrayList quoted;
            for (const QByteArray &key : lease.keys)
                quoted.append('"' + key.toBase64() + '"');
            keys = '[' + quoted.join(',') + ']';
        }
        invocation.print(flatHeader(lease.header) + "\"id\":" + QByteArray::number(*id) + ",\"ttl\":"
                         + QByteArray::number(lease.ttl) + ",\"granted-ttl\":" + QByteArray::number(lease.grantedTtl)
                         + ",\"keys\":" + keys + '}');
        break;
    }
    case OutputFormat::Fields: {
        QByteArrayList fields{"\"ID\" : " + QByteArray::number(*id), "\"TTL\" : " + QByteArray::number(lease.ttl),
                              "\"GrantedTTL\" : " + QByteArray::number(lease.grantedTtl)};
        for (const QByteArray &key : lease.keys)
            fields.append("\"Key\" : " + goQuoted(key));
        printFields(invocation, lease.header, fields);
        break;
    }
    case OutputFormat::JsonLines: {
        QJsonObject fields{{QLatin1String("lease_id"), leaseHex(*id)},
                           {QLatin1String("ttl"), lease.ttl},
                           {QLatin1String("granted_ttl"), lease.grantedTtl}};
        if (withKeys) {
            QJsonArray keys;
            for (const QByteArray &key : lease.keys) {
                QJsonObject named;
                insertBytes(&named, QStringLiteral("key"), key);
                keys.append(named);
            }
            fields.insert(QLatin1String("keys"), keys);
        }
        invocation.print(fields);
        break;
    }
    default: {
        if (lease.grantedTtl == 0 && lease.ttl == -1) {
            invocation.print(QStringLiteral("lease %1 already expired").arg(leaseHex(*id)).toUtf8());
            break;
        }
        QByteArray line = QStringLiteral("lease %1 granted with TTL(%2s), remaining(%3s)")
                              .arg(leaseHex(*id))
                              .arg(lease.grantedTtl)
                              .arg(lease.ttl)
                              .toUtf8();
        if (withKeys)
            line += ", attached keys([" + lease.keys.join(' ') + "])";
        invocation.printData(line);
    }
    }
    return Success;
}

// etcdctl's lease keep-alive: the lease renewed now and then every third of its TTL, each renewal
// printed, until etcd no longer has it ("expired or revoked", exit 0), SIGINT or SIGTERM (exit 0),
// or renewals that could not reach etcd for as long as the lease had left (exit as the last
// failure says, 2 when unreachable). --once renews once.
int runKeepAlive(Invocation &invocation)
{
    QString error;
    const std::optional<qint64> id = leaseArgument(invocation, &error);
    if (!id)
        return invocation.usageError(QStringLiteral("keep-alive: ") + error);
    const bool once = invocation.isSet(QStringLiteral("once"));
    const auto print = [&](const LeaseKeepAliveResult &renewed) {
        switch (invocation.output()) {
        case OutputFormat::Json:
            invocation.print(flatHeader(renewed.header) + "\"ID\":" + QByteArray::number(*id) + ",\"TTL\":"
                             + QByteArray::number(renewed.ttl) + '}');
            break;
        case OutputFormat::Fields:
            printFields(invocation, renewed.header,
                        {"\"ID\" : " + QByteArray::number(*id), "\"TTL\" : " + QByteArray::number(renewed.ttl)});
            break;
        case OutputFormat::JsonLines:
            invocation.print(QJsonObject{{QLatin1String("lease_id"), leaseHex(*id)}, {QLatin1String("ttl"), renewed.ttl}});
            break;
        default:
            invocation.print(QStringLiteral("lease %1 keepalived with TTL(%2)").arg(leaseHex(*id)).arg(renewed.ttl).toUtf8());
        }
        invocation.flush();
    };
    ShutdownSignals shutdown;
    bool stopping = false;
    QObject::connect(&shutdown, &ShutdownSignals::shutdownRequested, &shutdown, [&stopping] { stopping = true; });
    QElapsedTimer sinceRenewed;
    qint64 ttl = 0;
    while (!stopping) {
        const LeaseKeepAliveResult renewed =
            invocation.await(invocation.client().leaseKeepAliveOnce(*id), QStringLiteral("lease keep-alive"));
        if (once)
            return renewed.status ? (print(renewed), Success) : invocation.failed(renewed.status);
        if (renewed.status) {
            print(renewed);
            ttl = renewed.ttl;
            sinceRenewed.start();
        } else if (renewed.status.code() == StatusCode::NotFound) {
            if (invocation.output() == OutputFormat::Simple)
                invocation.print(QStringLiteral("lease %1 expired or revoked.").arg(leaseHex(*id)).toUtf8());
            else if (invocation.output() == OutputFormat::JsonLines)
                invocation.print(QJsonObject{{QLatin1String("lease_id"), leaseHex(*id)}, {QLatin1String("expired"), true}});
            return Success;
        } else if (!sinceRenewed.isValid() || sinceRenewed.hasExpired(ttl * 1000)) {
            // Out of reach for as long as the lease had left: it is gone by now, or never was.
            return invocation.failed(renewed.status);
        }
        QEventLoop pause;
        QObject::connect(&shutdown, &ShutdownSignals::shutdownRequested, &pause, &QEventLoop::quit);
        QTimer::singleShot(renewed.status ? std::max<qint64>(500, ttl * 1000 / 3) : 1000, &pause, &QEventLoop::quit);
        if (!stopping)
            pause.exec();
    }
    return Success;
}

int runList(Invocation &invocation)
{
    const LeaseListResult leases = invocation.await(invocation.client().leaseList(), QStringLiteral("lease list"));
    if (!leases.status)
        return invocation.failed(leases.status);
    switch (invocation.output()) {
    case OutputFormat::Json: {
        QByteArrayList objects;
        for (const qint64 id : leases.ids)
            objects.append("{\"id\":" + QByteArray::number(id) + '}');
        invocation.print(flatHeader(leases.header) + "\"leases\":[" + objects.join(',') + "]}");
        break;
    }
    case OutputFormat::Fields: {
        QByteArrayList fields;
        for (const qint64 id : leases.ids)
            fields.append("\"ID\" : " + QByteArray::number(id));
        printFields(invocation, leases.header, fields);
        break;
    }
    case OutputFormat::JsonLines: {
        QJsonArray ids;
        for (const qint64 id : leases.ids)
            ids.append(leaseHex(id));
        invocation.print(QJsonObject{{QLatin1String("leases"), ids}});
        break;
    }
    default:
        invocation.print(QStringLiteral("found %1 leases").arg(leases.ids.size()).toUtf8());
        for (const qint64 id : leases.ids)
            invocation.print(leaseHex(id).toUtf8());
    }
    return Success;
}

int runLease(Invocation &invocation)
{
    // keep prints its events as JSON lines; etcdctl's formats are for the actions etcdctl has.
    const QString action = invocation.arguments().value(0);
    if (action == QLatin1String("keep") && invocation.output() == OutputFormat::Fields)
        return invocation.usageError(QStringLiteral("keep prints JSON lines, not etcdctl's fields"));
    return runAction(invocation,
                     {{QStringLiteral("keep"), {QStringLiteral("KEY"), QStringLiteral("VALUE")},
                       {QStringLiteral("ttl"), QStringLiteral("hold")}, runKeep},
                      {QStringLiteral("grant"), {QStringLiteral("TTL")}, {}, runGrant},
                      {QStringLiteral("revoke"), {QStringLiteral("ID")}, {QStringLiteral("yes")}, runRevoke},
                      {QStringLiteral("timetolive"), {QStringLiteral("ID")}, {QStringLiteral("keys")}, runTimeToLive},
                      {QStringLiteral("keep-alive"), {QStringLiteral("ID")}, {QStringLiteral("once")}, runKeepAlive},
                      {QStringLiteral("list"), {}, {}, runList}});
}
} // namespace

Command leaseCommand()
{
    Command command;
    command.name = QStringLiteral("lease");
    command.summary = QStringLiteral("Leases: keep a key alive on a self-healing one; grant, revoke, timetolive, keep-alive, list");
    command.details = QStringLiteral(
        "Actions:\n"
        "  grant TTL       Grants a lease of TTL seconds and prints its ID.\n"
        "  revoke ID       Revokes lease ID; etcd deletes its keys with it. When it has\n"
        "                  keys, says how many and asks first (--yes off a terminal).\n"
        "  timetolive ID   The lease's granted TTL and the seconds it has left; with\n"
        "                  --keys the keys attached to it.\n"
        "  list            Every lease's ID.\n"
        "  keep-alive ID   Renews lease ID now and every third of its TTL, printing each\n"
        "                  renewal, until etcd no longer has it (\"expired or revoked\",\n"
        "                  exit 0), SIGINT or SIGTERM (exit 0), or until renewals could\n"
        "                  not reach etcd for as long as the lease had left (exit 2).\n"
        "                  --once renews once; a lease etcd does not have then exits 1.\n"
        "                  Refused under --read-only: renewing keeps keys alive.\n"
        "These print what etcdctl's lease commands print, in -w simple, json and fields\n"
        "(etcdctl's shapes; no table, as etcdctl has none); -w jsonl (--json) prints one\n"
        "JSON object of qetcd's, lease IDs in hex. IDs are read in hex, as etcdctl\n"
        "prints them (\"dec:\" before a decimal one).\n"
        "\n"
        "  keep KEY VALUE  Grants a lease of --ttl seconds, creates KEY with VALUE on it\n"
        "                  and keeps the lease alive. When the lease expires anyway (a\n"
        "                  partition longer than the TTL, an out-of-band revoke) a new\n"
        "                  one is granted and the key put back, unless someone else has\n"
        "                  taken it by then. Runs until SIGINT or SIGTERM, or until\n"
        "                  --hold has passed, then revokes the lease, so the key is gone\n"
        "                  at once, and exits 0. Fails (exit 1) when KEY already exists.\n"
        "                  Another client deleting KEY, or moving it to another lease, is\n"
        "                  an operator's decision: told (\"removedByOther\"), honoured (KEY\n"
        "                  is not created again), exit 1.\n"
        "\n"
        "KEY and VALUE are arguments, not options: --key is the TLS key file, as in\n"
        "etcdctl.\n"
        "\n"
        "keep's output: JSON lines (whatever --json says; -w fields is refused), each\n"
        "starting with \"event\" and \"mono_ms\" (CLOCK_MONOTONIC in milliseconds).\n"
        "Lease IDs are hex, as etcdctl prints them.\n"
        "  established      \"key\", \"value\", \"lease_id\", \"ttl\" (seconds)\n"
        "  leaseEvent       \"kind\": Suspended (renewals failed; the lease is probably\n"
        "                   fine), Expired (healing starts), Restored (the key is back on\n"
        "                   \"new_lease_id\") or Failed (healing gave up, or the key\n"
        "                   belongs to someone else now: exit 1); \"lease_id\"; \"cause\"\n"
        "                   and \"cause_code\" when known\n"
        "  removedByOther   another client deleted KEY, or moved it to another lease, at\n"
        "                   \"revision\"; \"key\", \"cause\", \"cause_code\" (OwnershipLost);\n"
        "                   its lease is revoked; exit 1\n"
        "  connectionState  \"state\" and \"previous\": Connected, Suspended, Reconnected\n"
        "                   or Lost\n"
        "  closed           \"reason\" (SIGINT, SIGTERM, hold or failed), \"key\",\n"
        "                   \"lease_id\", \"revoked\": true when the lease is gone; false\n"
        "                   after a Failed heal or \"removedByOther\" (nothing of ours is\n"
        "                   left), or when the revoke got no answer (exit 1; the key\n"
        "                   stays until the TTL runs out)\n"
        "A start that fails exits 1 (2 when it got no answer within --command-timeout;\n"
        "see qetcd --help); a signal before the start is done prints \"closed\", exit 5.");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("keep, grant, revoke, timetolive, keep-alive or list")},
                         {QStringLiteral("ARGUMENT"), QStringLiteral("keep: KEY; grant: TTL; revoke, timetolive, keep-alive: ID"), true},
                         {QStringLiteral("VALUE"), QStringLiteral("keep: the key's value; put -- before one that starts with -"),
                          true}};
    command.options = {
        ttlOption(),
        holdOption(),
        QCommandLineOption(QStringLiteral("keys"), QStringLiteral("timetolive: also list the keys attached to the lease")),
        QCommandLineOption(QStringLiteral("once"), QStringLiteral("keep-alive: renew once and exit")),
        yesOption(),
    };
    command.printsFields = true;
    command.run = runLease;
    return command;
}

} // namespace QEtcd::Cli
