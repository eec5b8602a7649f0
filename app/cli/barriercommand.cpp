// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "eventsession.h"
#include "interventions.h"
#include "recipeoutput.h"

#include <QEtcd/distributedbarrier.h>
#include <QEtcd/distributedbarrierwithcount.h>
#include <QEtcd/distributeddoublebarrier.h>

namespace QEtcd::Cli {

namespace {
constexpr auto untilLifted = DistributedBarrier::WaitForever;

QString liftReasonName(DistributedBarrier::LiftReason reason)
{
    switch (reason) {
    case DistributedBarrier::LiftReason::NotSet:
        return QStringLiteral("not_set");
    case DistributedBarrier::LiftReason::Removed:
        return QStringLiteral("removed");
    case DistributedBarrier::LiftReason::LeaseExpired:
        return QStringLiteral("lease_expired");
    case DistributedBarrier::LiftReason::Deleted:
        return QStringLiteral("deleted");
    case DistributedBarrier::LiftReason::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

// A wait that ran out: a "timedOut" line, then the failure.
int waitEnded(WaitSession &session, const Status &status, const QJsonObject &fields)
{
    if (status.code() == StatusCode::DeadlineExceeded && session.interruptedBy().isEmpty())
        return session.timedOut(status, fields);
    return session.failed(status, fields);
}

int runHold(Invocation &invocation)
{
    const QString path = invocation.arguments().value(1);
    BarrierOptions options;
    std::optional<std::chrono::milliseconds> hold;
    if (QString error; !parseLeaseOptions(invocation, &options, &hold, &error))
        return invocation.usageError(error);

    EventSession session(invocation, hold);
    DistributedBarrier barrier(&invocation.client(), path.toUtf8(), options);
    QObject::connect(&barrier, &DistributedBarrier::leaseEvent, &session, [&session](const LeaseEvent &event) {
        session.write(QStringLiteral("leaseEvent"), leaseEventFields(event));
    });
    bool liftedByOther = false;
    QObject::connect(&barrier, &DistributedBarrier::liftedByOther, &session,
                     [&](qint64 revision, const Status &cause) {
                         liftedByOther = true;
                         QJsonObject fields = pathFields(path);
                         fields.insert(QLatin1String("revision"), revision);
                         insertCause(&fields, cause);
                         session.write(QStringLiteral("liftedByOther"), fields);
                         session.fail(cause.withContext(QStringLiteral("barrier hold \"%1\"").arg(path)));
                     });
    session.reportConnectionState(barrier);

    const QFuture<Status> set = barrier.setBarrierAsync();
    session.run(set, QStringLiteral("barrier hold \"%1\"").arg(path), [&] {
        QJsonObject fields = pathFields(path);
        fields.insert(QLatin1String("ttl"), options.ttlSeconds);
        session.write(QStringLiteral("barrierSet"), fields);
    });

    // Removing before close() lets the waiters read "removed"; close() alone would too, but
    // without waiting for the answer, and destroying the client cancels calls in flight.
    bool removed = false;
    if (session.isEstablished() && !liftedByOther) {
        const Status status =
            invocation.await(barrier.removeBarrierAsync(), QStringLiteral("remove barrier \"%1\"").arg(path));
        removed = status.isOk();
        if (!removed)
            session.fail(status);
    }
    barrier.close();
    waitFor(set, invocation.requestDeadline());
    QJsonObject closed = pathFields(path);
    closed.insert(QLatin1String("removed"), removed);
    return session.finish(closed);
}

int runWait(Invocation &invocation)
{
    const QString path = invocation.arguments().value(1);
    std::chrono::milliseconds timeout;
    QString error;
    if (!parseDurationOption(invocation, QStringLiteral("timeout"), untilLifted, &timeout, &error))
        return invocation.usageError(error);
    BarrierOptions options;
    options.waitOnMissingBarriers = !invocation.isSet(QStringLiteral("no-wait-missing"));

    DistributedBarrier barrier(&invocation.client(), path.toUtf8(), options);
    WaitSession session(invocation, &barrier);
    // Printed once the wait has read the barrier, so a removal after this line ends the wait.
    QObject::connect(&barrier, &DistributedBarrier::waitStarted, &session, [&session, &path](bool barrierSet) {
        QJsonObject waiting = pathFields(path);
        waiting.insert(QLatin1String("barrier_set"), barrierSet);
        session.writeFromSlot(QStringLiteral("waiting"), waiting);
    });

    const DistributedBarrier::WaitResult result = session.wait(barrier.waitOnBarrierAsync(timeout));
    if (!result.isLifted())
        return waitEnded(session, result.status, pathFields(path));
    QJsonObject lifted = pathFields(path);
    lifted.insert(QLatin1String("reason"), liftReasonName(result.reason));
    session.write(QStringLiteral("barrierLifted"), lifted);
    return Success;
}

int runCount(Invocation &invocation)
{
    const QString path = invocation.arguments().value(1);
    if (!invocation.isSet(QStringLiteral("members")))
        return invocation.usageError(QStringLiteral("count needs --members N"));
    const auto members = parseCount(invocation.value(QStringLiteral("members")), 1);
    if (!members) {
        return invocation.usageError(QStringLiteral("--members must be a whole number >= 1, not \"%1\"")
                                         .arg(invocation.value(QStringLiteral("members"))));
    }
    std::chrono::milliseconds timeout;
    QString error;
    RecipeOptions options;
    std::optional<std::chrono::milliseconds> noHold;  // count has no --hold
    if (!parseDurationOption(invocation, QStringLiteral("timeout"), untilLifted, &timeout, &error)
        || !parseLeaseOptions(invocation, &options, &noHold, &error))
        return invocation.usageError(error);

    DistributedBarrierWithCount barrier(&invocation.client(), path.toUtf8(), *members, options);
    WaitSession session(invocation, &barrier);
    QJsonObject fields = pathFields(path);
    fields.insert(QLatin1String("members"), *members);
    // "waiting" is printed before the arrival is asked for, "arrived" once it is written: a
    // release of the round can only come after both.
    QObject::connect(&barrier, &DistributedBarrierWithCount::arrived, &session, [&session, fields](qint64 round) {
        QJsonObject arrived = fields;
        arrived.insert(QLatin1String("round"), round);
        session.writeFromSlot(QStringLiteral("arrived"), arrived);
    });
    session.write(QStringLiteral("waiting"), fields);
    const Status status = session.wait(barrier.waitOnBarrierAsync(timeout));
    if (!status)
        return waitEnded(session, status, fields);
    session.write(QStringLiteral("released"), fields);
    barrier.close();
    return Success;
}

int runBarrier(Invocation &invocation)
{
    const QStringList name{QStringLiteral("NAME")};
    return runAction(invocation,
                     {{QStringLiteral("hold"), name, {QStringLiteral("ttl"), QStringLiteral("hold")}, runHold},
                      {QStringLiteral("wait"), name, {QStringLiteral("timeout"), QStringLiteral("no-wait-missing")},
                       runWait},
                      {QStringLiteral("count"), name,
                       {QStringLiteral("members"), QStringLiteral("timeout"), QStringLiteral("ttl")}, runCount},
                      {QStringLiteral("lift"), name, {QStringLiteral("yes")}, runLiftBarrier},
                      {QStringLiteral("release"), name, {QStringLiteral("yes")}, runReleaseRound}});
}

int runDoubleBarrier(Invocation &invocation)
{
    const QString path = invocation.arguments().value(0);
    const auto members = parseCount(invocation.value(QStringLiteral("members")), 1);
    if (!invocation.isSet(QStringLiteral("members")) || !members) {
        return invocation.usageError(QStringLiteral("--members must be a whole number >= 1, not \"%1\"")
                                         .arg(invocation.value(QStringLiteral("members"))));
    }
    std::chrono::milliseconds timeout;
    std::chrono::milliseconds work;
    QString error;
    if (!parseDurationOption(invocation, QStringLiteral("timeout"), untilLifted, &timeout, &error)
        || !parseDurationOption(invocation, QStringLiteral("work"), std::chrono::milliseconds::zero(), &work, &error)) {
        return invocation.usageError(error);
    }

    DistributedDoubleBarrier barrier(&invocation.client(), path.toUtf8(), *members);
    WaitSession session(invocation, &barrier);
    QJsonObject fields = pathFields(path);
    fields.insert(QLatin1String("members"), *members);
    session.write(QStringLiteral("entering"), fields);
    Status status = session.wait(barrier.enterAsync(timeout));
    if (!status)
        return waitEnded(session, status, fields);
    session.write(QStringLiteral("entered"), fields);
    if (work > std::chrono::milliseconds::zero() && !session.pause(work))
        return session.failed(interruption(session.interruptedBy()), fields);
    session.write(QStringLiteral("leaving"), fields);
    status = session.wait(barrier.leaveAsync(timeout));
    if (!status)
        return waitEnded(session, status, fields);
    session.write(QStringLiteral("left"), fields);
    barrier.close();
    return Success;
}

QCommandLineOption timeoutOption(const QString &what)
{
    return QCommandLineOption(QStringLiteral("timeout"),
                              QStringLiteral("Give up %1 after this long, e.g. 30s (exit 1) [default: never]").arg(what),
                              QStringLiteral("DURATION"));
}

QCommandLineOption membersOption()
{
    return QCommandLineOption(QStringLiteral("members"), QStringLiteral("How many members meet (required)"),
                              QStringLiteral("N"));
}

const QString barrierOutputConventions = QStringLiteral(
    "Output: JSON lines (whatever --json says), each starting with \"event\" and\n"
    "\"mono_ms\" (CLOCK_MONOTONIC in milliseconds); every line carries \"path\".\n");
} // namespace

Command barrierCommand()
{
    Command command;
    command.name = QStringLiteral("barrier");
    command.summary = QStringLiteral("Set, wait on, meet at, or lift a barrier (barrier hold|wait|count|lift|release NAME)");
    command.details = QStringLiteral(
        "Actions:\n"
        "  hold NAME   Sets the barrier (the key NAME, on a self-healing lease of --ttl\n"
        "              seconds), keeps it until SIGINT or SIGTERM, or until --hold has\n"
        "              passed, then removes it and exits 0. Fails (exit 1) when someone\n"
        "              else has it set.\n"
        "  wait NAME   Waits until the barrier is lifted: exit 0, 1 when --timeout ran\n"
        "              out, 5 when a signal ended the wait. A barrier that is not set\n"
        "              yet is waited for to be set and lifted, unless --no-wait-missing.\n"
        "  count NAME  Waits until --members members are waiting at NAME, then all are\n"
        "              released: exit 0, 1 on --timeout, 5 on a signal. The member's key\n"
        "              is on a self-healing lease of --ttl seconds.\n"
        "\n")
        + interventionHelp(QStringLiteral("An operator's interventions, on a barrier someone else set:\n"
                                          "  lift NAME [--yes]     Deletes the barrier's key: every waiter is released."),
                           QStringLiteral("                        An owner whose lease is alive may set it again; a\n"
                                          "                        qetcd owner is told (liftedByOther) and does not.\n"
                                          "  release NAME [--yes]  Lets the open round of the counted barrier NAME\n"
                                          "                        through short of its count."))
        + barrierOutputConventions
        + QStringLiteral(
            "  barrierSet       hold: the barrier is up; \"ttl\" (seconds)\n"
            "  liftedByOther    hold: another client deleted the barrier, or moved it to\n"
            "                   another lease, at \"revision\"; \"cause\", \"cause_code\"\n"
            "                   (OwnershipLost); exit 1\n"
            "  leaseEvent       hold: \"kind\" Suspended/Expired/Restored/Failed,\n"
            "                   \"lease_id\", \"new_lease_id\" for Restored, \"cause\"/\"cause_code\"\n"
            "  connectionState  \"state\" and \"previous\": Connected, Suspended, Reconnected\n"
            "                   or Lost\n"
            "  closed           hold: \"reason\" (SIGINT, SIGTERM, hold or failed), \"removed\";\n"
            "                   wait, count: \"reason\" SIGINT or SIGTERM (exit 5)\n"
            "  waiting          wait: the barrier was read, \"barrier_set\"; a removal from\n"
            "                   this line on ends the wait. count: \"members\", printed before\n"
            "                   the arrival is written\n"
            "  arrived          count: this member's key is written and counts in the round\n"
            "                   that opened at etcd revision \"round\"\n"
            "  barrierLifted    wait: \"reason\" removed (its owner took it down),\n"
            "                   lease_expired (it went with its owner's lease: maybe\n"
            "                   spurious), deleted, not_set (--no-wait-missing and no\n"
            "                   barrier) or unknown\n"
            "  released         count: all members arrived\n"
            "  timedOut         wait, count: --timeout ran out (exit 1)\n");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("hold, wait, count, lift or release")},
                         {QStringLiteral("NAME"), QStringLiteral("The barrier's key")}};
    command.options = {
        ttlOption(),
        holdOption(),
        timeoutOption(QStringLiteral("waiting")),
        QCommandLineOption(QStringLiteral("no-wait-missing"),
                           QStringLiteral("wait: pass at once when the barrier is not set")),
        membersOption(),
        yesOption(),
    };
    command.run = runBarrier;
    return command;
}

Command doubleBarrierCommand()
{
    Command command;
    command.name = QStringLiteral("double-barrier");
    command.summary = QStringLiteral("Enter together, work, leave together (double-barrier NAME --members N)");
    command.details = QStringLiteral(
        "Waits until --members members have entered at NAME/enter, works for --work (a\n"
        "pause), then waits until as many have left at NAME/leave, and exits 0; exit 1\n"
        "when --timeout (per phase) ran out, 5 when a signal ended it.\n"
        "\n")
        + barrierOutputConventions
        + QStringLiteral(
            "  entering, entered, leaving, left   the phases, with \"members\"\n"
            "  connectionState  \"state\" and \"previous\"\n"
            "  timedOut         --timeout ran out (exit 1)\n"
            "  closed           \"reason\" SIGINT or SIGTERM (exit 5)\n");
    command.arguments = {{QStringLiteral("NAME"), QStringLiteral("The double barrier's path")}};
    command.options = {
        membersOption(),
        QCommandLineOption(QStringLiteral("work"),
                           QStringLiteral("How long to stay between entering and leaving, e.g. 2s [default: 0]"),
                           QStringLiteral("DURATION")),
        timeoutOption(QStringLiteral("each phase")),
    };
    command.run = runDoubleBarrier;
    return command;
}

} // namespace QEtcd::Cli
