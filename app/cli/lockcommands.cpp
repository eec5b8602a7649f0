// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "eventsession.h"
#include "globaloptions.h"
#include "interventions.h"
#include "kvformat.h"
#include "recipeoutput.h"

#include <QEtcd/distributedmutex.h>
#include <QEtcd/distributedsemaphore.h>
#include <QEtcd/leaderobserver.h>
#include <QEtcd/leaderselector.h>

#include <QtCore/QProcess>
#include <QtCore/QSemaphore>

namespace QEtcd::Cli {

namespace {
const QString lockOutputConventions = QStringLiteral(
    "Output: JSON lines (whatever --json says), each starting with \"event\" and\n"
    "\"mono_ms\" (CLOCK_MONOTONIC in milliseconds). Lease IDs are hex, as etcdctl\n"
    "prints them.\n");
const QString connectionStateHelp = QStringLiteral(
    "  connectionState  \"state\" and \"previous\": Connected, Suspended, Reconnected\n"
    "                   or Lost\n"
    "  leaseEvent       \"lease\" (which one: \"hold <key>\", \"candidacy lease\"),\n"
    "                   \"kind\" Suspended (renewals failing) or Expired (gone: a\n"
    "                   hold is lost and never healed; a candidate still waiting\n"
    "                   joins the line again at its tail, on a new lease and key),\n"
    "                   \"lease_id\", \"cause\"\n");

// What a lock or a semaphore permit holds: the same three facts for both.
struct Hold
{
    qint64 fencingToken = 0;
    QByteArray key;
    qint64 leaseId = 0;
};

QJsonObject holdJson(const Hold &hold)
{
    QJsonObject object{{QLatin1String("fencing_token"), hold.fencingToken},
                       {QLatin1String("lease_id"), leaseHex(hold.leaseId)}};
    insertBytes(&object, QStringLiteral("key"), hold.key);
    return object;
}

QJsonObject causeJson(const Status &cause)
{
    QJsonObject object;
    insertCause(&object, cause);
    return object;
}

void reportLeaseEvents(EventSession &session, Recipe &recipe)
{
    QObject::connect(&recipe, &Recipe::leaseEventOccurred, &session, [&session](const QString &lease, const LeaseEvent &event) {
        QJsonObject fields = leaseEventFields(event);
        fields.insert(QLatin1String("lease"), lease);
        session.write(QStringLiteral("leaseEvent"), fields);
    });
}

// An election key is <name>/<lease id in hex> (etcd's layout, which every candidate shares).
qint64 leaseOfCandidateKey(const QByteArray &key)
{
    bool ok = false;
    const qint64 id = key.mid(key.lastIndexOf('/') + 1).toLongLong(&ok, 16);
    return ok ? id : 0;
}

// `qetcd lock NAME COMMAND...`: the command runs while the lock is held, on our terminal (its
// output lands between "acquired" and "released"), and learns the hold from its environment.
class HeldCommand
{
public:
    explicit HeldCommand(const QStringList &commandLine) : m_commandLine(commandLine) {}

    void start(EventSession &session, const Hold &hold)
    {
        QProcessEnvironment environment = withoutCredentials(QProcessEnvironment::systemEnvironment());
        environment.insert(QStringLiteral("QETCD_FENCING_TOKEN"), QString::number(hold.fencingToken));
        environment.insert(QStringLiteral("QETCD_LOCK_KEY"), QString::fromUtf8(hold.key));
        // etcdctl's names, so a command written for `etcdctl lock` runs unchanged. etcdctl's
        // ETCD_LOCK_REV is the revision its lock was granted at, which is our key's create
        // revision when nobody held the lock; ours is always that create revision, the token.
        environment.insert(QStringLiteral("ETCD_LOCK_KEY"), QString::fromUtf8(hold.key));
        environment.insert(QStringLiteral("ETCD_LOCK_REV"), QString::number(hold.fencingToken));
        m_process.setProcessEnvironment(environment);
        m_process.setProcessChannelMode(QProcess::ForwardedChannels);
        m_process.setInputChannelMode(QProcess::ForwardedInputChannel);
        QObject::connect(&m_process, &QProcess::finished, &session, [this, &session](int, QProcess::ExitStatus status) {
            if (status == QProcess::CrashExit)
                session.fail(Status(StatusCode::Aborted, what() + QStringLiteral(" was killed by a signal")));
            else
                session.end(QStringLiteral("exited"));
        });
        QObject::connect(&m_process, &QProcess::errorOccurred, &session, [this, &session](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart)
                session.fail(Status(StatusCode::FailedPrecondition, what() + QStringLiteral(": ") + m_process.errorString()));
        });
        m_started = true;
        m_process.start(m_commandLine.first(), m_commandLine.mid(1));
    }

    // SIGTERM, then SIGKILL when it is still running after the grace period; waits for the end.
    void stop() { stopChild(m_process); }

    // It exited by itself, rather than being stopped by stop().
    bool hasExited() const { return m_started && m_process.state() == QProcess::NotRunning; }
    int exitCode() const { return m_process.exitCode(); }

private:
    QString what() const { return QStringLiteral("command \"%1\"").arg(m_commandLine.first()); }

    QStringList m_commandLine;
    QProcess m_process;
    bool m_started = false;
};

// What `lock` and `semaphore` share: queue for as long as it takes, print "acquired", hold until
// SIGINT/SIGTERM, --hold or the end of the command, give the hold back, then revoke its lease and
// wait for that, so that the next in line goes on at once rather than after our TTL. A lost hold
// fails the command: what it guarded is no longer exclusive.
template <class Holder>
int holdUntilDone(Invocation &invocation, EventSession &session, Holder &holder,
                  const std::function<QFuture<Status>()> &acquire, void (Holder::*lostSignal)(const Status &),
                  bool (Holder::*giveBack)(), const QString &lostEvent, const QString &what,
                  HeldCommand *command)
{
    // Connected before the acquisition starts, so that no loss goes unreported.
    session.reportConnectionState(holder);
    reportLeaseEvents(session, holder);
    bool lost = false;
    QObject::connect(&holder, lostSignal, &session, [&session, &lost, lostEvent, what](const Status &cause) {
        lost = true;
        session.write(lostEvent, causeJson(cause));
        session.fail(cause.withContext(what + QStringLiteral(": lost")));
    });

    Hold hold;
    const QFuture<Status> acquiring = acquire();
    session.run(
        acquiring, what,
        [&] {
            hold = {holder.fencingToken(), holder.holdKey(), holder.leaseId()};
            session.write(QStringLiteral("acquired"), holdJson(hold));
            if (command)
                command->start(session, hold);
        },
        EventSession::StartWait::Unbounded);

    const bool commandExited = command && command->hasExited();
    if (command)
        command->stop();
    // "released" comes before the hold is given back: the next holder prints "acquired" as soon
    // as our key is gone, and on the clock all processes share the two must not overlap.
    session.drain();
    if (session.isEstablished() && !lost)
        session.write(QStringLiteral("released"), holdJson(hold));
    // The hold belongs to this thread, which acquired it. A false answer (lost meanwhile) has its
    // own line already.
    if (session.isEstablished())
        (holder.*giveBack)();
    holder.close();
    waitFor(acquiring, invocation.requestDeadline());
    QJsonObject closed;
    insertBytes(&closed, QStringLiteral("name"), holder.path());
    if (session.isEstablished()) {
        closed.insert(QLatin1String("lease_id"), leaseHex(hold.leaseId));
        closed.insert(QLatin1String("revoked"), session.revokeLease(hold.leaseId));
    }
    const int code = session.finish(closed);
    // A crash or a failed start of the command has failed the session already.
    return code == Success && commandExited ? command->exitCode() : code;
}

int runLock(Invocation &invocation)
{
    const QStringList arguments = invocation.arguments();
    const QByteArray name = arguments.value(0).toUtf8();
    const QStringList commandLine = arguments.mid(1);
    LockOptions options;
    std::optional<std::chrono::milliseconds> hold;
    if (QString error; !parseLeaseOptions(invocation, &options, &hold, &error))
        return invocation.usageError(error);
    if (hold && !commandLine.isEmpty())
        return invocation.usageError(QStringLiteral("--hold and COMMAND exclude each other: the command's end is the hold's"));

    std::optional<HeldCommand> command;
    if (!commandLine.isEmpty())
        command.emplace(commandLine);
    EventSession session(invocation, hold);
    DistributedMutex mutex(&invocation.client(), name, options);
    return holdUntilDone<DistributedMutex>(
        invocation, session, mutex, [&mutex] { return mutex.lockAsync(); }, &DistributedMutex::lockLost,
        &DistributedMutex::unlock, QStringLiteral("lockLost"),
        QStringLiteral("lock \"%1\"").arg(QString::fromUtf8(name)), command ? &*command : nullptr);
}

int runSemaphore(Invocation &invocation)
{
    const QByteArray name = invocation.arguments().value(0).toUtf8();
    if (invocation.arguments().size() > 1) {
        return invocation.usageError(QStringLiteral("expects one NAME, not \"%1\" (to take a permit back: semaphore break NAME)")
                                         .arg(invocation.arguments().join(QLatin1Char(' '))));
    }
    if (!invocation.isSet(QStringLiteral("permits")))
        return invocation.usageError(QStringLiteral("--permits is required"));
    bool ok = false;
    const int permits = invocation.value(QStringLiteral("permits")).toInt(&ok);
    if (!ok || permits <= 0) {
        return invocation.usageError(QStringLiteral("--permits must be a whole number > 0, not \"%1\"")
                                         .arg(invocation.value(QStringLiteral("permits"))));
    }
    SemaphoreOptions options;
    std::optional<std::chrono::milliseconds> hold;
    if (QString error; !parseLeaseOptions(invocation, &options, &hold, &error))
        return invocation.usageError(error);

    EventSession session(invocation, hold);
    DistributedSemaphore semaphore(&invocation.client(), name, permits, options);
    return holdUntilDone<DistributedSemaphore>(
        invocation, session, semaphore, [&semaphore] { return semaphore.acquireAsync(); },
        &DistributedSemaphore::permitLost, &DistributedSemaphore::release, QStringLiteral("permitLost"),
        QStringLiteral("semaphore \"%1\"").arg(QString::fromUtf8(name)), nullptr);
}

// The term of `qetcd elect` lasts until the selector ends it (close(), loss of leadership); its
// thread parks here. The semaphore is shared because the stop may be requested on another thread
// while this frame unwinds.
void parkUntilStopped(const StopToken &stop)
{
    const auto stopped = std::make_shared<QSemaphore>();
    const StopCallback wake(stop, [stopped] { stopped->release(); });
    stopped->acquire();
}

int runCampaign(Invocation &invocation, const QByteArray &name, const QByteArray &proposal, ElectionOptions options,
                std::optional<std::chrono::milliseconds> hold)
{
    // A lost term ends the command; campaigning again is the caller's decision.
    options.autoRequeue = false;

    const QString what = QStringLiteral("elect \"%1\"").arg(QString::fromUtf8(name));
    EventSession session(invocation, hold);
    LeaderSelector selector(&invocation.client(), name, proposal, parkUntilStopped, {}, options);
    session.reportConnectionState(selector);
    reportLeaseEvents(session, selector);
    QByteArray key;
    std::optional<qint64> electedToken;
    bool lost = false;
    const auto writeElected = [&] {
        session.write(QStringLiteral("elected"), holdJson({*electedToken, key, leaseOfCandidateKey(key)}));
    };
    QObject::connect(&selector, &LeaderSelector::elected, &session, [&](qint64 fencingToken) {
        electedToken = fencingToken;
        key = selector.key();
        // An election decided before start() finished waits for "campaigning".
        if (session.isEstablished())
            writeElected();
    });
    QObject::connect(&selector, &LeaderSelector::leadershipLost, &session, [&](const Status &cause) {
        lost = true;
        session.write(QStringLiteral("leadershipLost"), causeJson(cause));
        session.fail(cause.withContext(what + QStringLiteral(": leadership lost")));
    });

    const QFuture<Status> started = selector.start();
    session.run(started, what, [&] {
        key = selector.key();
        QJsonObject campaigning{{QLatin1String("lease_id"), leaseHex(leaseOfCandidateKey(key))}};
        insertBytes(&campaigning, QStringLiteral("key"), key);
        insertBytes(&campaigning, QStringLiteral("proposal"), proposal);
        session.write(QStringLiteral("campaigning"), campaigning);
        if (electedToken)
            writeElected();
    });

    // A candidate that lost its lease while queued has queued again under a new key.
    if (!selector.key().isEmpty())
        key = selector.key();
    // "resigned" comes before the resignation, so that it precedes the next leader's "elected" on
    // the clock all processes share; draining first prints an "elected" that came in before it.
    session.drain();
    if (electedToken && !lost)
        session.write(QStringLiteral("resigned"), holdJson({*electedToken, key, leaseOfCandidateKey(key)}));
    // Waits for the term's thread to leave parkUntilStopped.
    selector.close();
    waitFor(started, invocation.requestDeadline());
    QJsonObject closed;
    insertBytes(&closed, QStringLiteral("name"), name);
    if (!key.isEmpty()) {
        closed.insert(QLatin1String("lease_id"), leaseHex(leaseOfCandidateKey(key)));
        closed.insert(QLatin1String("revoked"), session.revokeLease(leaseOfCandidateKey(key)));
    }
    return session.finish(closed);
}

QJsonObject leaderJson(const std::optional<Participant> &leader)
{
    if (!leader)
        return {{QLatin1String("vacant"), true}};
    QJsonObject object{{QLatin1String("fencing_token"), leader->createRevision},
                       {QLatin1String("lease_id"), leaseHex(leader->leaseId)}};
    insertBytes(&object, QStringLiteral("key"), leader->key);
    insertBytes(&object, QStringLiteral("value"), leader->value);
    if (!leader->clientId.isEmpty())
        object.insert(QLatin1String("client_id"), leader->clientId);
    return object;
}

int runObserve(Invocation &invocation, const QByteArray &name, std::optional<std::chrono::milliseconds> hold)
{
    EventSession session(invocation, hold);
    LeaderObserver observer(&invocation.client(), name);
    session.reportConnectionState(observer);
    // The observer tells the leader its first read found before start() has finished; those
    // wait until "established" is out, so that every line follows it.
    QList<std::optional<Participant>> early;
    QObject::connect(&observer, &LeaderObserver::leaderChanged, &session,
                     [&](const std::optional<Participant> &leader) {
                         if (session.isEstablished())
                             session.write(QStringLiteral("leaderChanged"), leaderJson(leader));
                         else
                             early.append(leader);
                     });
    const QFuture<Status> started = observer.start();
    session.run(started, QStringLiteral("elect --observe \"%1\"").arg(QString::fromUtf8(name)), [&] {
        QJsonObject established;
        insertBytes(&established, QStringLiteral("name"), name);
        session.write(QStringLiteral("established"), established);
        for (const auto &leader : std::as_const(early))
            session.write(QStringLiteral("leaderChanged"), leaderJson(leader));
        early.clear();
    });
    observer.close();
    waitFor(started, invocation.requestDeadline());
    QJsonObject closed;
    insertBytes(&closed, QStringLiteral("name"), name);
    return session.finish(closed);
}

int runElect(Invocation &invocation)
{
    const QStringList arguments = invocation.arguments();
    const QByteArray name = arguments.value(0).toUtf8();
    const bool observe = invocation.isSet(QStringLiteral("observe"));
    if (observe && arguments.size() > 1)
        return invocation.usageError(QStringLiteral("--observe takes no PROPOSAL: an observer does not campaign"));
    if (!observe && arguments.size() < 2)
        return invocation.usageError(QStringLiteral("expects NAME PROPOSAL, or --observe NAME"));
    if (observe && invocation.isSet(QStringLiteral("ttl")))
        return invocation.usageError(QStringLiteral("--observe takes no --ttl: an observer holds no lease"));
    ElectionOptions options;
    std::optional<std::chrono::milliseconds> hold;
    if (QString error; !parseLeaseOptions(invocation, &options, &hold, &error))
        return invocation.usageError(error);
    if (observe)
        return runObserve(invocation, name, hold);
    return runCampaign(invocation, name, arguments.value(1).toUtf8(), options, hold);
}
} // namespace

Command lockCommand()
{
    Command command;
    command.name = QStringLiteral("lock");
    command.summary = QStringLiteral("Hold a lock, for a while or while a command runs (lock NAME [COMMAND...])");
    command.details = QStringLiteral(
        "Waits for the lock NAME for as long as it takes, then holds it until SIGINT or\n"
        "SIGTERM, until --hold has passed, or, with COMMAND, until COMMAND exits. The\n"
        "lock is etcd's own layout (NAME/<lease id>, the lowest create revision holds),\n"
        "so it excludes and is excluded by `etcdctl lock NAME`. On release the hold's\n"
        "lease is revoked and the answer awaited, so the next holder goes on at once.\n"
        "\n"
        "COMMAND runs on this terminal with QETCD_FENCING_TOKEN and QETCD_LOCK_KEY in its\n"
        "environment, and with etcdctl's ETCD_LOCK_KEY (the same key) and ETCD_LOCK_REV\n"
        "(the same token: our key's create revision); qetcd exits with its exit code (1\n"
        "when a signal killed it). Put -- before a COMMAND that has options of its own:\n"
        "lock NAME -- sh -c '...'. When the lock is lost while COMMAND runs, COMMAND\n"
        "gets SIGTERM, SIGKILL %1 s later if still running, and qetcd exits 1. SIGINT or\n"
        "SIGTERM to qetcd ends COMMAND the same way, releases the lock and exits 0; while\n"
        "the lock is still awaited, they end the wait and qetcd exits 5 (interrupted).\n"
        "\n")
            .arg(std::chrono::seconds(terminationGrace).count())
        + interventionHelp(QStringLiteral("lock break NAME [--entry KEY] [--yes] (an operator's intervention):"),
                           QStringLiteral("breaks the hold of whoever holds NAME: the holder's lease is revoked when\n"
                                          "it carries the lock's key alone (so etcdctl and Go holders learn of it too),\n"
                                          "else its key is deleted. The holder is told (lockLost) and the next in line\n"
                                          "acquires. --entry KEY names a holder, or a waiter to remove from the queue.\n"
                                          "NAME may be a read/write lock too (qetcd's read-/write- layout): its writer\n"
                                          "or, with --entry, one of its readers."))
        + lockOutputConventions
        + QStringLiteral(
              "  acquired         \"fencing_token\" (the create revision of our key), \"key\",\n"
              "                   \"lease_id\"\n"
              "  lockLost         \"cause\", \"cause_code\": the lease expired or was revoked\n"
              "                   while we held the lock, or someone else deleted our key or\n"
              "                   moved it to another lease (OwnershipLost); exit 1\n"
              "  released         \"fencing_token\", \"key\", \"lease_id\": printed as the hold is\n"
              "                   given back, so before the next holder's \"acquired\"\n")
        + connectionStateHelp
        + QStringLiteral("  closed           \"reason\" (SIGINT, SIGTERM, hold, exited or failed), \"name\",\n"
                         "                   after \"acquired\" \"lease_id\" and \"revoked\" (false: the\n"
                         "                   revoke got no answer, exit 1; the key stays until the TTL\n"
                         "                   runs out)\n");
    command.arguments = {{QStringLiteral("NAME"), QStringLiteral("The lock's name (a key prefix)")},
                         {QStringLiteral("COMMAND"), QStringLiteral("A command line to run while holding the lock"),
                          true, true}};
    command.options = {ttlOption(), holdOption(), yesOption(), entryOption()};
    command.run = withIntervention(command, QStringLiteral("break"), CoordinationObject::Kind::Lock, runLock);
    return command;
}

Command electCommand()
{
    Command command;
    command.name = QStringLiteral("elect");
    command.summary = QStringLiteral("Campaign in an election (elect NAME PROPOSAL) or follow it (elect --observe NAME)");
    command.details = QStringLiteral(
        "elect NAME PROPOSAL queues a candidate with PROPOSAL as its value and leads\n"
        "when its turn comes, until SIGINT or SIGTERM, or until --hold (counted from\n"
        "\"campaigning\") has passed; then it resigns and exits 0. The election is etcd's\n"
        "own layout (NAME/<lease id>, the lowest create revision leads), shared with\n"
        "`etcdctl elect`. Leadership never heals: when it is lost, qetcd exits 1.\n"
        "elect --observe NAME prints who leads, without campaigning.\n"
        "\n")
        + interventionHelp(QStringLiteral("elect force NAME [--entry KEY] [--yes] (an operator's intervention):"),
                           QStringLiteral("ends the leader's term as lock break ends a hold: the leader is told\n"
                                          "(leadershipLost) and the next candidate leads. --entry KEY names a\n"
                                          "candidate to remove from the election instead."))
        + lockOutputConventions
        + QStringLiteral(
              "  campaigning      \"key\", \"lease_id\", \"proposal\": our candidate is queued\n"
              "  elected          \"fencing_token\" (the create revision of our key), \"key\",\n"
              "                   \"lease_id\"\n"
              "  leadershipLost   \"cause\", \"cause_code\": as lockLost for our key; exit 1\n"
              "  resigned         \"fencing_token\", \"key\", \"lease_id\"; after \"elected\",\n"
              "                   printed as we resign, so before the next \"elected\"\n"
              "  established      (--observe) \"name\": the first read is done, the watch live\n"
              "  leaderChanged    (--observe) \"key\", \"value\" (the leader's proposal),\n"
              "                   \"fencing_token\", \"lease_id\", \"client_id\" for a qetcd\n"
              "                   candidate; or \"vacant\": true when nobody leads\n")
        + connectionStateHelp
        + QStringLiteral("  closed           \"reason\" (SIGINT, SIGTERM, hold or failed), \"name\",\n"
                         "                   after \"campaigning\" \"lease_id\" and \"revoked\"\n");
    command.arguments = {{QStringLiteral("NAME"), QStringLiteral("The election's name (a key prefix)")},
                         {QStringLiteral("PROPOSAL"), QStringLiteral("Our candidate's value; not with --observe"), true}};
    command.options = {
        QCommandLineOption({QStringLiteral("l"), QStringLiteral("listen"), QStringLiteral("observe")},
                           QStringLiteral("Print who leads instead of campaigning (etcdctl: -l, --listen)")),
        ttlOption(),
        holdOption(),
        yesOption(),
        entryOption(),
    };
    command.run = withIntervention(command, QStringLiteral("force"), CoordinationObject::Kind::Election, runElect);
    return command;
}

Command semaphoreCommand()
{
    Command command;
    command.name = QStringLiteral("semaphore");
    command.summary = QStringLiteral("Hold one of a semaphore's permits (semaphore NAME --permits N)");
    command.details = QStringLiteral(
        "Waits for one of the N permits of the semaphore NAME for as long as it takes,\n"
        "then holds it until SIGINT or SIGTERM, or until --hold has passed; then releases\n"
        "it and exits 0. Every participant must give the same --permits: another count\n"
        "already stored under NAME fails the command (exit 1).\n"
        "\n")
        + interventionHelp(QStringLiteral("semaphore break NAME [--entry KEY] [--yes] (an operator's intervention):"),
                           QStringLiteral("takes a permit back as lock break does (permitLost); with several holders\n"
                                          "--entry KEY names which, or a waiter to remove from the queue."))
        + lockOutputConventions
        + QStringLiteral(
              "  acquired         \"fencing_token\" (the create revision of our entry), \"key\",\n"
              "                   \"lease_id\"\n"
              "  permitLost       \"cause\", \"cause_code\": as lockLost for our entry; exit 1\n"
              "  released         \"fencing_token\", \"key\", \"lease_id\"; before the next\n"
              "                   holder's \"acquired\"\n")
        + connectionStateHelp
        + QStringLiteral("  closed           \"reason\" (SIGINT, SIGTERM, hold or failed), \"name\",\n"
                         "                   after \"acquired\" \"lease_id\" and \"revoked\"\n");
    command.arguments = {{QStringLiteral("NAME"), QStringLiteral("The semaphore's name (a key prefix), or break (below)")},
                         {QStringLiteral("BREAK_NAME"), QStringLiteral("After break: the semaphore's name"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("permits"), QStringLiteral("How many holders the semaphore admits (required)"),
                           QStringLiteral("N")),
        ttlOption(),
        holdOption(),
        yesOption(),
        entryOption(),
    };
    command.run = withIntervention(command, QStringLiteral("break"), CoordinationObject::Kind::Semaphore, runSemaphore);
    return command;
}

} // namespace QEtcd::Cli
