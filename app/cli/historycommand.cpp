// SPDX-License-Identifier: Apache-2.0
#include "commands.h"
#include "duration.h"
#include "eventsession.h"
#include "kvformat.h"
#include "recipeoutput.h"

#include <QEtcd/coordinationhistory.h>
#include <QEtcd/revisiontimes.h>

#include <QtCore/QDateTime>
#include <QtCore/QFileDevice>

namespace QEtcd::Cli {

namespace {
// --until: a revision, 0 when not given, or nullopt with *error set.
std::optional<qint64> revisionOption(const Invocation &invocation, const QString &name, QString *error)
{
    if (!invocation.isSet(name))
        return 0;
    const QString given = invocation.value(name);
    const std::optional<qint64> revision = parseCount(given, 1);
    if (!revision)
        *error = QStringLiteral("--%1 takes a revision (a whole number from 1), not \"%2\"").arg(name, given);
    return revision;
}

// --since: a revision, or a duration back from now that the map turns into one.
std::optional<qint64> sinceOption(const Invocation &invocation, const RevisionTimes *times, QString *error)
{
    if (!invocation.isSet(QStringLiteral("since")))
        return 0;
    const QString given = invocation.value(QStringLiteral("since"));
    if (const std::optional<qint64> revision = parseCount(given, 1))
        return revision;
    QString notDuration;
    const std::optional<std::chrono::milliseconds> ago = parseDuration(given, &notDuration);
    if (!ago) {
        *error = QStringLiteral("--since takes a revision or a duration (10m, 2h), not \"%1\"").arg(given);
        return std::nullopt;
    }
    if (!times) {
        *error = QStringLiteral("--since %1 needs --map FILE: etcd keeps no time per revision").arg(given);
        return std::nullopt;
    }
    const qint64 at = QDateTime::currentMSecsSinceEpoch() - ago->count();
    // The store was at that revision then: what came after it is since.
    const qint64 revision = times->revisionAt(at);
    if (revision == 0) {
        *error = QStringLiteral("the map's first sample is after %1: it cannot tell the revision then")
                     .arg(QDateTime::fromMSecsSinceEpoch(at).toString(Qt::ISODate));
        return std::nullopt;
    }
    return revision + 1;
}

QString clock(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

// etcd's data never drives the terminal: names, keys and values come from whoever wrote them.
QByteArray visible(const QString &text)
{
    return visibleControls(text.toUtf8(), LineBreaks::Escape);
}

int runHistory(Invocation &invocation)
{
    const QByteArray prefix = invocation.arguments().value(0).toUtf8();
    if (int refused = 0; !declareLayouts(invocation, &refused))
        return refused;
    std::optional<RevisionTimes> times;
    if (invocation.isSet(QStringLiteral("map"))) {
        Status loaded;
        times = RevisionTimes::load(invocation.value(QStringLiteral("map")), &loaded);
        if (!loaded)
            return invocation.failed(loaded.withContext(QStringLiteral("--map")));
    }
    QString error;
    const std::optional<qint64> since = sinceOption(invocation, times ? &*times : nullptr, &error);
    const std::optional<qint64> until = since ? revisionOption(invocation, QStringLiteral("until"), &error) : std::nullopt;
    if (!since || !until)
        return invocation.usageError(error);
    if (*since > 0 && *until > 0 && *since > *until)
        return invocation.usageError(QStringLiteral("--since %1 comes after --until %2").arg(*since).arg(*until));
    const bool following = invocation.isSet(QStringLiteral("follow"));
    if (following && *until > 0)
        return invocation.usageError(QStringLiteral("--follow goes on past now: it takes no --until"));

    CoordinationHistory history(&invocation.client(), prefix);
    history.setFromRevision(*since);
    history.setUntilRevision(*until);
    history.setFollowing(following);
    // Following ends with SIGINT or SIGTERM, as the other long-running commands do.
    std::optional<ShutdownSignals> shutdown;
    bool interrupted = false;
    if (following) {
        shutdown.emplace();
        QObject::connect(&*shutdown, &ShutdownSignals::shutdownRequested, &history, [&] {
            interrupted = true;
            history.cancel();
        });
    }
    const QString path = QString::fromUtf8(prefix.isEmpty() ? QByteArray("/") : prefix);
    // Following, a line is worth reading when it happens, not when the buffer fills.
    const auto flushWhenFollowing = [&invocation, following] {
        if (auto *file = qobject_cast<QFileDevice *>(invocation.standardOutput()); file && following)
            file->flush();
    };
    QObject::connect(&history, &CoordinationHistory::began, [&](qint64 first, qint64 last, qint64 compactedBefore) {
        if (invocation.json()) {
            QJsonObject began{{QLatin1String("event"), QStringLiteral("began")},
                              {QLatin1String("prefix"), QString::fromUtf8(prefix)},
                              {QLatin1String("from_revision"), first},
                              {QLatin1String("until_revision"), last}};
            if (compactedBefore > 0)
                began.insert(QLatin1String("compacted_before"), compactedBefore + 1);
            invocation.print(began);
            return flushWhenFollowing();
        }
        QString line = QStringLiteral("# history of %1 from revision %2 to %3").arg(path).arg(first).arg(last);
        if (compactedBefore > 0)
            line += QStringLiteral(" (etcd has compacted the revisions before %1)").arg(compactedBefore + 1);
        invocation.print(visible(line));
        flushWhenFollowing();
    });
    QObject::connect(&history, &CoordinationHistory::eventsReady, [&](const QList<CoordinationEvent> &events) {
        for (const CoordinationEvent &event : events) {
            const RevisionTimes::Bounds when = times ? times->bounds(event.revision) : RevisionTimes::Bounds();
            if (invocation.json()) {
                QJsonObject line = event.toJson();
                if (when.afterMs >= 0)
                    line.insert(QLatin1String("after_ms"), when.afterMs);
                if (when.byMs >= 0)
                    line.insert(QLatin1String("by_ms"), when.byMs);
                invocation.print(line);
                continue;
            }
            QString text = event.toText();
            if (when.isKnown())
                text += QStringLiteral("  [between %1 and %2]").arg(clock(when.afterMs), clock(when.byMs));
            else if (when.byMs >= 0)
                text += QStringLiteral("  [by %1]").arg(clock(when.byMs));
            else if (when.afterMs >= 0)
                text += QStringLiteral("  [after %1]").arg(clock(when.afterMs));
            invocation.print(visible(text));
        }
        flushWhenFollowing();
    });
    // A replay takes as long as the history is long: no --command-timeout here.
    const QFuture<Status> replayed = history.start();
    waitFor(replayed, QDeadlineTimer(QDeadlineTimer::Forever));
    if (interrupted)
        return Success;
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
        "knows, and those --layouts FILE declares), one event a line in revision order.\n"
        "Nothing is written.\n"
        "\n"
        "--since REV starts at revision REV (default: the oldest etcd keeps), --until\n"
        "REV ends at REV (default: the store's revision when the replay starts). With\n"
        "--map FILE (kept by `qetcd record`) each event says between which two times it\n"
        "happened, and --since takes a duration back from now (10m, 2h). When\n"
        "etcd has compacted revisions that were asked for, the first line says where\n"
        "history begins; revisions compacted during the replay end it (exit 1), naming\n"
        "the revision to begin again from. --follow goes on after the replay, printing\n"
        "events as they happen until SIGINT or SIGTERM (exit 0).\n"
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
        "\"after_revisions\" (healed), \"rule\", with --map \"after_ms\" and \"by_ms\" (the\n"
        "samples around it, ms since the epoch).");
    command.arguments = {{QStringLiteral("PREFIX"), QStringLiteral("Where to look [default: every key]"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("since"),
                           QStringLiteral("The first revision to tell, or a duration back from now with --map [default: the oldest kept]"),
                           QStringLiteral("REV|DURATION")),
        QCommandLineOption(QStringLiteral("map"), QStringLiteral("A revision-to-time map kept by `qetcd record`"),
                           QStringLiteral("FILE")),
        QCommandLineOption(QStringLiteral("until"), QStringLiteral("The last revision to tell [default: now]"),
                           QStringLiteral("REV")),
        QCommandLineOption(QStringLiteral("follow"), QStringLiteral("After the replay, print events as they happen")),
        layoutsOption(),
    };
    command.run = runHistory;
    return command;
}

namespace {
int runRecord(Invocation &invocation)
{
    if (!invocation.isSet(QStringLiteral("map")))
        return invocation.usageError(QStringLiteral("record needs --map FILE: where to keep the samples"));
    std::chrono::milliseconds interval;
    QString error;
    if (!parseDurationOption(invocation, QStringLiteral("interval"), std::chrono::seconds(1), &interval, &error))
        return invocation.usageError(error);
    if (interval < std::chrono::milliseconds(100))
        return invocation.usageError(QStringLiteral("--interval must be at least 100ms: each sample is a read"));
    std::optional<std::chrono::milliseconds> hold;
    if (!parseHold(invocation, &hold, &error))
        return invocation.usageError(error);

    const QString path = invocation.value(QStringLiteral("map"));
    // Refuse to append to a file that is not a map (or another cluster's): history would misread it.
    if (Status existing; QFile::exists(path) && (RevisionTimes::load(path, &existing), !existing))
        return invocation.failed(existing.withContext(QStringLiteral("--map")));
    EventSession session(invocation, hold);
    RevisionRecorder recorder(&invocation.client(), path);
    recorder.setInterval(interval);
    QObject::connect(&recorder, &RevisionRecorder::sampleFailed, &session, [&](const Status &status) {
        QJsonObject failed;
        insertCause(&failed, status);
        session.write(QStringLiteral("sampleFailed"), failed);
    });
    session.run(recorder.start(), QStringLiteral("record into %1").arg(path), [&] {
        session.write(QStringLiteral("established"),
                      {{QLatin1String("map"), path}, {QLatin1String("interval_ms"), qint64(interval.count())}});
    });
    return session.finish({{QLatin1String("map"), path}});
}
} // namespace

Command recordCommand()
{
    Command command;
    command.name = QStringLiteral("record");
    command.summary = QStringLiteral("Keep a revision-to-time map, so that history can say when");
    command.details = QStringLiteral(
        "etcd keeps no wall-clock time per revision. record samples the store's\n"
        "revision every --interval (default 1s) and appends \"<ms since the epoch>\n"
        "<revision>\" lines to --map FILE, around each change only, so an idle cluster\n"
        "costs no disk. `qetcd history --map FILE` then says between which two times\n"
        "each event happened, and takes --since 10m. Read-only; run it as a service.\n"
        "An existing FILE must be a map (of this cluster): it is appended to.\n"
        "\n"
        "Runs until SIGINT, SIGTERM or --hold. Output: JSON lines \"established\" (\"map\",\n"
        "\"interval_ms\"), \"sampleFailed\" (\"cause\", \"cause_code\": the recorder goes on),\n"
        "\"closed\".");
    command.options = {
        QCommandLineOption(QStringLiteral("map"), QStringLiteral("The file to append samples to"), QStringLiteral("FILE")),
        QCommandLineOption(QStringLiteral("interval"), QStringLiteral("How often to sample [default: 1s]"),
                           QStringLiteral("DURATION")),
        holdOption(),
    };
    command.run = runRecord;
    return command;
}

} // namespace QEtcd::Cli
