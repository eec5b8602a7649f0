#include "commands.h"
#include "kvformat.h"

#include <QEtcd/coordinationhistory.h>

#include <QtCore/QEventLoop>

namespace QEtcd::Cli {

namespace {
// --since and --until: a revision, or nullopt with *error set.
std::optional<qint64> revisionOption(const Invocation &invocation, const QString &name, QString *error)
{
    if (!invocation.isSet(name))
        return 0;
    bool ok = false;
    const QString given = invocation.value(name);
    const qint64 revision = given.toLongLong(&ok);
    if (!ok || revision < 1) {
        *error = QStringLiteral("--%1 takes a revision (a whole number from 1), not \"%2\"").arg(name, given);
        return std::nullopt;
    }
    return revision;
}

// etcd's data never drives the terminal: names, keys and values come from whoever wrote them.
QByteArray visible(const QString &text)
{
    return visibleControls(text.toUtf8(), LineBreaks::Escape);
}

int runHistory(Invocation &invocation)
{
    const QByteArray prefix = invocation.arguments().value(0).toUtf8();
    QString error;
    const std::optional<qint64> since = revisionOption(invocation, QStringLiteral("since"), &error);
    const std::optional<qint64> until = since ? revisionOption(invocation, QStringLiteral("until"), &error) : std::nullopt;
    if (!since || !until)
        return invocation.usageError(error);
    if (*since > 0 && *until > 0 && *since > *until)
        return invocation.usageError(QStringLiteral("--since %1 comes after --until %2").arg(*since).arg(*until));

    CoordinationHistory history(&invocation.client(), prefix);
    history.setFromRevision(*since);
    history.setUntilRevision(*until);
    const QString path = QString::fromUtf8(prefix.isEmpty() ? QByteArray("/") : prefix);
    QObject::connect(&history, &CoordinationHistory::began, [&](qint64 first, qint64 last, qint64 compactedBefore) {
        if (invocation.json()) {
            QJsonObject began{{QLatin1String("event"), QStringLiteral("began")},
                              {QLatin1String("prefix"), QString::fromUtf8(prefix)},
                              {QLatin1String("from_revision"), first},
                              {QLatin1String("until_revision"), last}};
            if (compactedBefore > 0)
                began.insert(QLatin1String("compacted_before"), compactedBefore + 1);
            return invocation.print(began);
        }
        QString line = QStringLiteral("# history of %1 from revision %2 to %3").arg(path).arg(first).arg(last);
        if (compactedBefore > 0)
            line += QStringLiteral(" (etcd has compacted the revisions before %1)").arg(compactedBefore + 1);
        invocation.print(visible(line));
    });
    QObject::connect(&history, &CoordinationHistory::historyLost, [&](qint64 from, qint64 to) {
        if (invocation.json()) {
            return invocation.print(QJsonObject{{QLatin1String("event"), QStringLiteral("historyLost")},
                                                {QLatin1String("from_revision"), from},
                                                {QLatin1String("until_revision"), to}});
        }
        invocation.print(QStringLiteral("# revisions %1 to %2 were compacted while they were read: what happened then is lost")
                             .arg(from)
                             .arg(to)
                             .toUtf8());
    });
    QObject::connect(&history, &CoordinationHistory::eventsReady, [&](const QList<CoordinationEvent> &events) {
        for (const CoordinationEvent &event : events) {
            if (invocation.json())
                invocation.print(event.toJson());
            else
                invocation.print(visible(event.toText()));
        }
    });
    // A replay takes as long as the history is long: no --command-timeout here.
    const QFuture<Status> replayed = history.start();
    waitFor(replayed, QDeadlineTimer(QDeadlineTimer::Forever));
    if (!replayed.result())
        return invocation.failed(replayed.result().withContext(QStringLiteral("history of %1").arg(path)));
    return Success;
}
} // namespace

Command historyCommand()
{
    Command command;
    command.name = QStringLiteral("history");
    command.summary = QStringLiteral("Tell who held what, and how it changed hands, from etcd's history");
    command.details = QStringLiteral(
        "Replays the revisions etcd still keeps under PREFIX (default: every key) and\n"
        "prints what happened to the locks, elections, barriers, semaphores, services,\n"
        "queues and counters there, whichever tool wrote them (the layouts `inspect`\n"
        "knows), one event a line in revision order. Nothing is written.\n"
        "\n"
        "--since REV starts at revision REV (default: the oldest etcd keeps), --until\n"
        "REV ends at REV (default: the store's revision when the replay starts). When\n"
        "etcd has compacted revisions that were asked for, the first line says where\n"
        "history begins; revisions compacted during the replay are said to be lost.\n"
        "\n"
        "etcd keeps no time per revision and no reason for a deletion: a key deleted\n"
        "alone is \"deleted\" (released by its holder, deleted by someone, or the end of a\n"
        "lease that carried it alone); \"leaseEnded\" is a lease that took several keys\n"
        "under PREFIX with it at once. A presence entry (a barrier's owner, a service\n"
        "instance, a candidate) back under its own name on a new lease is \"healed\".\n"
        "\n"
        "Output: \"# history of PREFIX from revision A to B\", then lines such as\n"
        "\"412  lock /locks/deploy: handed on from a to b (token 409)\". With --json:\n"
        "{\"event\": \"began\", \"prefix\", \"from_revision\", \"until_revision\",\n"
        "\"compacted_before\" (when etcd compacted what was asked)}, then one object per\n"
        "event: \"revision\", \"event\" (acquired, handedOn, released, waiterJoined,\n"
        "waiterLeft, elected, leaderEnded, candidateJoined, candidateLeft, barrierSet,\n"
        "barrierLifted, memberArrived, memberLeft, roundOpened, roundReleased,\n"
        "instanceUp, instanceDown, itemsPut, itemsTaken, counterChanged, healed),\n"
        "\"kind\", \"path\", and as they apply \"who\", \"key\", \"token\", \"lease_id\",\n"
        "\"previous_who\", \"previous_key\", \"previous_lease_id\", \"cause\" (deleted,\n"
        "leaseEnded, removedByOwner, liftedByOperator), \"count\", \"previous_count\",\n"
        "\"after_revisions\" (healed), \"rule\"; {\"event\": \"historyLost\",\n"
        "\"from_revision\", \"until_revision\"} for a gap.");
    command.arguments = {{QStringLiteral("PREFIX"), QStringLiteral("Where to look [default: every key]"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("since"), QStringLiteral("The first revision to tell [default: the oldest kept]"),
                           QStringLiteral("REV")),
        QCommandLineOption(QStringLiteral("until"), QStringLiteral("The last revision to tell [default: now]"),
                           QStringLiteral("REV")),
    };
    command.run = runHistory;
    return command;
}

} // namespace QEtcd::Cli
