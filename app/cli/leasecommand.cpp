// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "eventsession.h"
#include "kvformat.h"
#include "recipeoutput.h"

#include <QEtcd/transientkeyvalue.h>

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

int runLease(Invocation &invocation)
{
    return runAction(invocation, {{QStringLiteral("keep"), {QStringLiteral("KEY"), QStringLiteral("VALUE")}, {}, runKeep}});
}
} // namespace

Command leaseCommand()
{
    Command command;
    command.name = QStringLiteral("lease");
    command.summary = QStringLiteral("Keep a key alive on a self-healing lease (lease keep KEY VALUE)");
    command.details = QStringLiteral(
        "Actions:\n"
        "  keep KEY VALUE  Grants a lease of --ttl seconds, creates KEY with VALUE on it\n"
        "                  and keeps the lease alive. When the lease expires anyway (a\n"
        "                  partition longer than the TTL, an out-of-band revoke) a new one\n"
        "                  is granted and the key put back, unless someone else has taken\n"
        "                  it by then. Runs until SIGINT or SIGTERM, or until --hold has\n"
        "                  passed, then revokes the lease, so the key is gone at once, and\n"
        "                  exits 0. Fails (exit 1) when KEY already exists. Another client\n"
        "                  deleting KEY, or moving it to another lease, is an operator's\n"
        "                  decision: told (\"removedByOther\"), honoured (KEY is not\n"
        "                  created again), exit 1.\n"
        "\n"
        "KEY and VALUE are arguments, not options: --key is the TLS key file, as in\n"
        "etcdctl.\n"
        "\n"
        "Output: JSON lines (whatever --json says), each starting with \"event\" and\n"
        "\"mono_ms\" (CLOCK_MONOTONIC in milliseconds). Lease IDs are hex, as etcdctl\n"
        "prints them.\n"
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
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("keep (the only action so far)")},
                         {QStringLiteral("KEY"), QStringLiteral("The key to keep")},
                         {QStringLiteral("VALUE"), QStringLiteral("Its value; put -- before one that starts with -")}};
    command.options = {
        ttlOption(),
        holdOption(),
    };
    command.run = runLease;
    return command;
}

} // namespace QEtcd::Cli
