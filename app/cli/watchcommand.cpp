// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "eventsession.h"
#include "kvformat.h"

#include <QEtcd/watcher.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QProcess>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

namespace QEtcd::Cli {

namespace {
QJsonObject watchEventJson(const WatchEvent &event)
{
    QJsonObject object = keyValueJson(event.kv);
    if (event.type == WatchEvent::Type::Delete) {
        // etcd reports a deletion with the key and the deleting revision only.
        for (const char *field : {"value", "value_base64", "create_revision", "version", "lease", "lease_dec"})
            object.remove(QLatin1String(field));
    }
    if (event.prevKv)
        object.insert(QLatin1String("prev_kv"), keyValueJson(*event.prevKv));
    return object;
}

QJsonObject recoveryJson(const WatchRecoveryEvent &event)
{
    QJsonObject object{{QLatin1String("kind"), enumName(event.kind)},
                       {QLatin1String("resume_revision"), event.resumeRevision}};
    if (event.kind == WatchRecoveryKind::Resynced) {
        object.insert(QLatin1String("compact_revision"), event.compactRevision);
        object.insert(QLatin1String("anchor_revision"), event.anchorRevision);
    }
    insertCause(&object, event.cause);
    return object;
}

// `watch KEY -- COMMAND...`: COMMAND runs once for each change, one run at a time in etcd's
// order, on this terminal, with etcdctl's variables (values quoted as Go's %q writes them), so
// that a script written for `etcdctl watch` runs unchanged. A run that fails ends the watch, as
// etcdctl's does. The changes whose run did not finish well (failed, cut short by the end, or
// still waiting) are counted, and the watch resumes from the first of them.
class ChangeCommand : public QObject
{
public:
    ChangeCommand(const QStringList &commandLine, EventSession &session) : m_commandLine(commandLine), m_session(session)
    {
        m_process.setProcessChannelMode(QProcess::ForwardedChannels);
        connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
            if (status == QProcess::NormalExit && exitCode == 0)
                m_unfinished.reset();
            if (status == QProcess::CrashExit || exitCode != 0) {
                const QString how = status == QProcess::CrashExit ? QStringLiteral("was killed by a signal")
                                                                  : QStringLiteral("exited with %1").arg(exitCode);
                return m_session.fail(Status(StatusCode::Aborted, QStringLiteral("command \"%1\" %2 on the change at "
                                                                                 "revision %3")
                                                                      .arg(m_commandLine.first(), how)
                                                                      .arg(m_unfinished.value_or(0))));
            }
            startNext();
        });
        connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart)
                m_session.fail(Status(StatusCode::FailedPrecondition, QStringLiteral("command \"%1\": %2")
                                                                          .arg(m_commandLine.first(), m_process.errorString())));
        });
    }

    void enqueue(const WatchEvent &event, qint64 headerRevision)
    {
        QProcessEnvironment environment = withoutCredentials(QProcessEnvironment::systemEnvironment());
        environment.insert(QStringLiteral("ETCD_WATCH_REVISION"), QString::number(headerRevision));
        environment.insert(QStringLiteral("ETCD_WATCH_EVENT_TYPE"),
                           event.type == WatchEvent::Type::Put ? QStringLiteral("\"PUT\"") : QStringLiteral("\"DELETE\""));
        environment.insert(QStringLiteral("ETCD_WATCH_KEY"), QString::fromUtf8(goQuoted(event.kv.key)));
        environment.insert(QStringLiteral("ETCD_WATCH_VALUE"), QString::fromUtf8(goQuoted(event.kv.value)));
        m_waiting.push_back({environment, event.kv.modRevision});
        if (m_process.state() == QProcess::NotRunning)
            startNext();
    }

    struct NotRun
    {
        qsizetype changes = 0;
        std::optional<qint64> firstRevision;  // where a new watch would have to resume
    };
    // Ends the run under way (SIGTERM, then SIGKILL after the grace); what was not run well.
    NotRun stop()
    {
        disconnect(&m_process, nullptr, this, nullptr);  // ended by us: no failure of its own
        stopChild(m_process);
        NotRun notRun;
        notRun.changes = qsizetype(m_waiting.size()) + (m_unfinished ? 1 : 0);
        notRun.firstRevision = m_unfinished ? m_unfinished
                                            : m_waiting.empty() ? std::nullopt : std::optional(m_waiting.front().second);
        m_waiting.clear();
        return notRun;
    }

private:
    void startNext()
    {
        if (m_waiting.empty() || m_session.hasFailed())
            return;
        auto [environment, revision] = std::move(m_waiting.front());
        m_waiting.pop_front();
        m_unfinished = revision;
        m_process.setProcessEnvironment(environment);
        m_process.start(m_commandLine.first(), m_commandLine.mid(1));
    }

    const QStringList m_commandLine;
    EventSession &m_session;
    QProcess m_process;
    std::deque<std::pair<QProcessEnvironment, qint64>> m_waiting;
    std::optional<qint64> m_unfinished;  // the change of the run under way, or of the one that failed
};

int runWatch(Invocation &invocation)
{
    // What follows "--" is the command to run on each change; before it, KEY and RANGE_END.
    const QStringList raw = QCoreApplication::arguments();
    const qsizetype dashes = raw.indexOf(QStringLiteral("--"));
    const QStringList commandLine = dashes < 0 ? QStringList() : raw.mid(dashes + 1);
    QStringList arguments = invocation.arguments().mid(0, invocation.arguments().size() - commandLine.size());
    if (dashes >= 0 && commandLine.isEmpty())
        return invocation.usageError(QStringLiteral("no command after --"));
    // etcdctl's variables for KEY and RANGE_END, which containers set where arguments are fixed.
    const QString keyVariable = qEnvironmentVariable("ETCDCTL_WATCH_KEY");
    const QString rangeEndVariable = qEnvironmentVariable("ETCDCTL_WATCH_RANGE_END");
    if (keyVariable.isEmpty() && !rangeEndVariable.isEmpty())
        return invocation.usageError(QStringLiteral("ETCDCTL_WATCH_RANGE_END is set but ETCDCTL_WATCH_KEY is empty"));
    if (!keyVariable.isEmpty()) {
        if (!arguments.isEmpty())
            return invocation.usageError(QStringLiteral("ETCDCTL_WATCH_KEY is set: give no KEY or RANGE_END as well"));
        arguments = {keyVariable};
        if (!rangeEndVariable.isEmpty())
            arguments.append(rangeEndVariable);
    }
    if (arguments.isEmpty())
        return invocation.usageError(QStringLiteral("give the KEY to watch (or ETCDCTL_WATCH_KEY)"));
    if (arguments.size() > 2)
        return invocation.usageError(QStringLiteral("watch takes KEY and RANGE_END; put -- before a command to run on each change"));
    const QByteArray key = arguments.value(0).toUtf8();
    WatchOptions options;
    if (invocation.isSet(QStringLiteral("prefix")) && arguments.size() > 1)
        return invocation.usageError(QStringLiteral("use either --prefix or RANGE_END"));
    if (invocation.isSet(QStringLiteral("prefix")))
        options.range = KeyRange::prefix();
    else if (arguments.size() > 1)
        options.range = KeyRange::upTo(arguments[1].toUtf8());
    if (invocation.isSet(QStringLiteral("rev"))) {
        bool ok = false;
        options.startRevision = invocation.value(QStringLiteral("rev")).toLongLong(&ok);
        if (!ok || options.startRevision < 0) {
            return invocation.usageError(QStringLiteral("--rev must be a whole number >= 0, not \"%1\"")
                                             .arg(invocation.value(QStringLiteral("rev"))));
        }
    }
    options.prevKv = invocation.isSet(QStringLiteral("prev-kv"));
    std::optional<std::chrono::milliseconds> hold;
    QString error;
    if (!parseHold(invocation, &hold, &error))
        return invocation.usageError(error);

    EventSession session(invocation, hold);
    std::unique_ptr<ChangeCommand> changeCommand;
    if (!commandLine.isEmpty())
        changeCommand = std::make_unique<ChangeCommand>(commandLine, session);
    Watcher watcher(&invocation.client(), key, options);
    // The revision a new watch would go on from, after what this one printed: counted here
    // rather than read from the watcher, whose resumeRevision() may already include events that
    // are still on their way to this thread.
    qint64 nextRevision = 0;
    QObject::connect(&watcher, &Watcher::eventsReceived, &session,
                     [&](const QList<WatchEvent> &events, qint64 headerRevision) {
                         for (const WatchEvent &event : events) {
                             session.write(event.type == WatchEvent::Type::Put ? QStringLiteral("put")
                                                                              : QStringLiteral("delete"),
                                           watchEventJson(event));
                             nextRevision = std::max(nextRevision, event.kv.modRevision + 1);
                             if (changeCommand)
                                 changeCommand->enqueue(event, headerRevision);
                         }
                     });
    const bool printProgress = invocation.isSet(QStringLiteral("progress-notify"));
    QObject::connect(&watcher, &Watcher::progressed, &session, [&](qint64 revision) {
        nextRevision = std::max(nextRevision, revision + 1);
        if (printProgress)
            session.write(QStringLiteral("progress"), {{QLatin1String("revision"), revision}});
    });
    // Trouble before the watch was first created is the start's business (it fails after
    // --command-timeout with the cause), so the outage and its recovery are not printed.
    bool outageBeforeStart = false;
    QObject::connect(&watcher, &Watcher::recovery, &session, [&](const WatchRecoveryEvent &event) {
        if (!session.isEstablished()) {
            outageBeforeStart = event.kind == WatchRecoveryKind::Suspended;
            return;
        }
        if (std::exchange(outageBeforeStart, false) && event.kind != WatchRecoveryKind::Suspended
            && event.kind != WatchRecoveryKind::Failed) {
            return;
        }
        session.write(QStringLiteral("watchRecovery"), recoveryJson(event));
        if (event.kind == WatchRecoveryKind::Resynced)
            nextRevision = std::max(nextRevision, event.anchorRevision);
        if (event.kind == WatchRecoveryKind::Failed)
            session.fail(event.cause);
    });

    const QFuture<Status> started = watcher.start();
    const QString what = QStringLiteral("watch \"%1\"").arg(QString::fromUtf8(key));
    session.run(started, what, [&] {
        QJsonObject established;
        insertBytes(&established, QStringLiteral("key"), key);
        if (options.range.kind == KeyRange::Kind::Prefix)
            established.insert(QLatin1String("prefix"), true);
        if (options.range.kind == KeyRange::Kind::Explicit)
            established.insert(QLatin1String("range_end"), arguments[1]);
        nextRevision = std::max(nextRevision, watcher.startRevision());
        established.insert(QLatin1String("start_revision"), nextRevision);
        session.write(QStringLiteral("established"), established);
    });
    watcher.close();
    session.drain();  // what the watcher reported before close() returned
    QJsonObject closed;
    if (session.isEstablished())
        closed.insert(QLatin1String("resume_revision"), nextRevision);
    if (changeCommand) {
        const ChangeCommand::NotRun notRun = changeCommand->stop();
        closed.insert(QLatin1String("changes_not_run"), notRun.changes);
        if (notRun.firstRevision && session.isEstablished())
            closed.insert(QLatin1String("resume_revision"), std::min(nextRevision, *notRun.firstRevision));
    }
    return session.finish(closed);
}
} // namespace

Command watchCommand()
{
    Command command;
    command.name = QStringLiteral("watch");
    command.summary = QStringLiteral("Print the changes to a key or range as they happen");
    command.details = QStringLiteral(
        "Watches KEY; with RANGE_END the keys from KEY up to, not including, RANGE_END;\n"
        "with --prefix every key that starts with KEY. Runs until SIGINT or SIGTERM, or\n"
        "until --hold has passed, then closes the watch and exits 0. The watch survives\n"
        "broken connections and member restarts: it is re-created from the revision after\n"
        "the last one printed, so no change is lost or printed twice.\n"
        "\n"
        "Output: JSON lines (whatever --json says), each starting with \"event\" and\n"
        "\"mono_ms\" (CLOCK_MONOTONIC in milliseconds):\n"
        "  established    the watch exists: \"key\", \"prefix\" or \"range_end\",\n"
        "                 \"start_revision\" (the first revision it reports)\n"
        "  put            \"key\", \"value\", \"create_revision\", \"mod_revision\", \"version\",\n"
        "                 and for a key with a lease \"lease\" (hex) and \"lease_dec\"\n"
        "  delete         \"key\", \"mod_revision\" (the deleting revision)\n"
        "                 With --prev-kv both carry \"prev_kv\" (as get --json prints it)\n"
        "                 when etcd still had it. A key or value that is not UTF-8 comes\n"
        "                 as \"key_base64\" or \"value_base64\".\n"
        "  watchRecovery  \"kind\": Suspended, Resubscribed, Resynced or Failed;\n"
        "                 \"resume_revision\"; for Resynced \"compact_revision\" and\n"
        "                 \"anchor_revision\"; \"cause\" and \"cause_code\" when known.\n"
        "                 Failed means the watch gave up: exit 1.\n"
        "  closed         \"reason\" (SIGINT, SIGTERM, hold or failed), \"resume_revision\"\n"
        "                 (pass it to --rev to go on where this watch stopped)\n"
        "A start that fails exits 1 (2 when it got no answer within --command-timeout;\n"
        "see qetcd --help), with nothing on stdout; a signal before the start is done\n"
        "prints \"closed\", exit 5. Outages before the watch is first created are not\n"
        "printed. With --progress-notify etcd's progress notifications (every change up\n"
        "to a revision was sent) print as \"progress\" with \"revision\".\n"
        "\n"
        "watch KEY [RANGE_END] -- COMMAND [ARG...] runs COMMAND once for each change,\n"
        "after its line, one run at a time in etcd's order, with etcdctl's variables:\n"
        "ETCD_WATCH_REVISION, ETCD_WATCH_EVENT_TYPE (\"PUT\" or \"DELETE\"),\n"
        "ETCD_WATCH_KEY and ETCD_WATCH_VALUE, the last three quoted as etcdctl quotes\n"
        "them (Go's %q), and without ETCDCTL_USER or ETCDCTL_PASSWORD. A run that fails\n"
        "ends the watch (exit 1, as etcdctl's); at the end the run under way is ended\n"
        "(SIGTERM, SIGKILL after a grace). \"closed\" counts the changes whose run did\n"
        "not finish well (failed, cut short or still waiting) as \"changes_not_run\",\n"
        "and its \"resume_revision\" is the first of them: --rev runs them again.\n"
        "\n"
        "As with etcdctl, ETCDCTL_WATCH_KEY and ETCDCTL_WATCH_RANGE_END stand for KEY and\n"
        "RANGE_END (watch -- COMMAND then runs COMMAND on KEY's changes); either is\n"
        "refused when arguments give them too.");
    command.arguments = {{QStringLiteral("KEY"), QStringLiteral("The key, or the start of the range (else ETCDCTL_WATCH_KEY)"), true},
                         {QStringLiteral("RANGE_END"), QStringLiteral("End of the range (not included; else ETCDCTL_WATCH_RANGE_END)"),
                          true},
                         {QStringLiteral("COMMAND"), QStringLiteral("After --: a command line to run on each change"), true,
                          true}};
    command.options = {
        QCommandLineOption(QStringLiteral("prefix"), QStringLiteral("Watch every key that starts with KEY")),
        QCommandLineOption(QStringLiteral("rev"),
                           QStringLiteral("Replay the history from this revision on (0: changes from now)"),
                           QStringLiteral("REVISION")),
        QCommandLineOption(QStringLiteral("prev-kv"),
                           QStringLiteral("Print each changed key's previous key-value pair as \"prev_kv\"")),
        QCommandLineOption(QStringLiteral("progress-notify"), QStringLiteral("Print etcd's progress notifications")),
        holdOption(),
    };
    command.run = runWatch;
    return command;
}

} // namespace QEtcd::Cli
