// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "eventsession.h"
#include "kvformat.h"
#include "recipeoutput.h"
#include "workqueueactions.h"

#include <QEtcd/distributedpriorityqueue.h>
#include <QEtcd/distributedqueue.h>

namespace QEtcd::Cli {

namespace {
constexpr auto untilTaken = DistributedQueue::WaitForever;

struct TakeRequest
{
    QString path;
    qint64 count = 1;
    std::chrono::milliseconds timeout = untilTaken;
};

int runPut(Invocation &invocation, const QString &path)
{
    const QString value = invocation.arguments().value(2);
    std::optional<qint64> priority;
    if (invocation.isSet(QStringLiteral("priority"))) {
        priority = parseCount(invocation.value(QStringLiteral("priority")), 0);
        if (!priority || *priority > DistributedPriorityQueue::MaxPriority) {
            return invocation.usageError(QStringLiteral("--priority must be a whole number from 0 to %1, not \"%2\"")
                                             .arg(DistributedPriorityQueue::MaxPriority)
                                             .arg(invocation.value(QStringLiteral("priority"))));
        }
    }

    if (invocation.isSet(QStringLiteral("work")) && priority)
        return invocation.usageError(QStringLiteral("--work and --priority exclude each other: a work queue has no priorities"));
    const QString what = QStringLiteral("queue put \"%1\"").arg(path);
    Status status;
    if (invocation.isSet(QStringLiteral("work"))) {
        status = putWorkItem(invocation, path, value.toUtf8());
    } else if (priority) {
        DistributedPriorityQueue queue(&invocation.client(), path.toUtf8());
        status = invocation.await(queue.enqueue(value.toUtf8(), int(*priority)), what);
    } else {
        DistributedQueue queue(&invocation.client(), path.toUtf8());
        status = invocation.await(queue.enqueue(value.toUtf8()), what);
    }
    if (!status)
        return invocation.failed(status);
    // enqueue() answers with a status only, so the key the item got is not known here.
    QJsonObject fields{{QLatin1String("path"), path}, {QLatin1String("value"), value}};
    if (priority)
        fields.insert(QLatin1String("priority"), *priority);
    if (invocation.isSet(QStringLiteral("work")))
        fields.insert(QLatin1String("work"), true);
    EventWriter(invocation.standardOutput()).write(QStringLiteral("put"), fields);
    return Success;
}

// One take at a time, so that the items come out in the queue's order and a signal finds at
// most one take to wake; the timeout covers all of them.
template <class Queue>
int takeItems(Invocation &invocation, Queue &queue, const TakeRequest &request)
{
    WaitSession session(invocation, &queue);
    const QDeadlineTimer deadline = request.timeout == untilTaken
        ? QDeadlineTimer(QDeadlineTimer::Forever)
        : QDeadlineTimer(request.timeout, Qt::PreciseTimer);
    const QJsonObject pathField{{QLatin1String("path"), request.path}};
    QJsonObject waiting = pathField;
    waiting.insert(QLatin1String("count"), request.count);
    session.write(QStringLiteral("waiting"), waiting);

    qint64 taken = 0;
    Status stopped;
    while (taken < request.count) {
        if (deadline.hasExpired()) {
            stopped = Status(StatusCode::DeadlineExceeded, QString());
            break;
        }
        // A take given no time left would look once and report an empty queue, not the timeout.
        const std::chrono::milliseconds timeout = deadline.isForever()
            ? untilTaken
            : std::max(std::chrono::milliseconds(1),
                       std::chrono::ceil<std::chrono::milliseconds>(deadline.remainingTimeAsDuration()));
        const QueueItem item = session.wait(queue.takeAsync(timeout));
        if (!item.status) {
            stopped = item.status;
            break;
        }
        // Printed even when a signal came meanwhile: the item is gone from etcd and this line
        // is all that is left of it.
        QJsonObject fields = pathField;
        insertBytes(&fields, QStringLiteral("key"), item.key);
        insertBytes(&fields, QStringLiteral("value"), item.value);
        session.write(QStringLiteral("taken"), fields);
        ++taken;
    }
    queue.close();
    if (taken == request.count)
        return Success;

    QJsonObject fields = pathField;
    fields.insert(QLatin1String("taken"), taken);
    // An RPC's own deadline is a failure like any other, not the end of --timeout.
    if (stopped.code() == StatusCode::DeadlineExceeded && deadline.hasExpired() && session.interruptedBy().isEmpty()) {
        fields.insert(QLatin1String("count"), request.count);
        return session.timedOut(Status(StatusCode::DeadlineExceeded,
                                       QStringLiteral("queue take \"%1\": took %2 of %3 before --timeout ran out")
                                           .arg(request.path)
                                           .arg(taken)
                                           .arg(request.count)),
                                fields);
    }
    return session.failed(stopped, fields);
}

int runTake(Invocation &invocation, const QString &path)
{
    TakeRequest request;
    request.path = path;
    if (invocation.isSet(QStringLiteral("count"))) {
        const auto count = parseCount(invocation.value(QStringLiteral("count")), 1);
        if (!count) {
            return invocation.usageError(QStringLiteral("--count must be a whole number >= 1, not \"%1\"")
                                             .arg(invocation.value(QStringLiteral("count"))));
        }
        request.count = *count;
    }
    QString error;
    if (!parseDurationOption(invocation, QStringLiteral("timeout"), untilTaken, &request.timeout, &error))
        return invocation.usageError(error);

    if (invocation.isSet(QStringLiteral("by-priority"))) {
        DistributedPriorityQueue queue(&invocation.client(), path.toUtf8());
        return takeItems(invocation, queue, request);
    }
    DistributedQueue queue(&invocation.client(), path.toUtf8());
    return takeItems(invocation, queue, request);
}

int runQueue(Invocation &invocation)
{
    return runAction(invocation,
                     QList<Action>{{QStringLiteral("put"), {QStringLiteral("NAME"), QStringLiteral("VALUE")},
                                    {QStringLiteral("priority"), QStringLiteral("work")}, onPath(runPut)},
                                   {QStringLiteral("take"), {QStringLiteral("NAME")},
                                    {QStringLiteral("timeout"), QStringLiteral("count"), QStringLiteral("by-priority")},
                                    onPath(runTake)}}
                         + workQueueActions());
}
} // namespace

Command queueCommand()
{
    Command command;
    command.name = QStringLiteral("queue");
    command.summary = QStringLiteral("Put items on a queue or take them off, work a work queue, unstick one "
                                     "(queue put|take|work|requeue|purge|delete NAME)");
    command.details = QStringLiteral(
        "Actions:\n"
        "  put NAME VALUE  Appends VALUE (its UTF-8 bytes) to the queue NAME and exits 0\n"
        "                  once etcd has it. Without --priority the queue is FIFO: items\n"
        "                  leave in the order etcd committed them. With --priority P the\n"
        "                  item goes on NAME's priority layout instead, with --work on\n"
        "                  its work-queue layout. A VALUE that starts with - needs --\n"
        "                  before it.\n"
        "  take NAME       Takes --count items (default 1) one after the other, waiting\n"
        "                  while the queue is empty: exit 0 once it has them all, 1 when\n"
        "                  --timeout ran out, 5 when a signal ended the wait.\n")
        + workQueueHelp()
        + QStringLiteral(
        "\n"
        "A queue is FIFO or prioritised, not both. take reads the FIFO layout in commit\n"
        "order; take --by-priority reads the priority layout: the lowest number first,\n"
        "and items of one priority in the order they were put. The two layouts share\n"
        "NAME's prefix and each take reads every item under it, so mixing them on one\n"
        "NAME takes items out of either order: use one kind per NAME.\n"
        "\n"
        "Each item goes to exactly one taker and is gone from etcd once taken (at most\n"
        "once): a take killed with SIGKILL after winning an item loses it. SIGINT or\n"
        "SIGTERM wakes a waiting take; an item it had already won is still printed.\n"
        "\n"
        "Output: JSON lines (whatever --json says), each starting with \"event\" and\n"
        "\"mono_ms\" (CLOCK_MONOTONIC in milliseconds); every line carries \"path\".\n"
        "Values and keys are text; bytes that are not valid UTF-8 (put by another\n"
        "client) come as \"value_base64\" / \"key_base64\" instead.\n"
        "  put              \"value\", \"priority\" when given\n"
        "  waiting          take: \"count\", before the first take\n"
        "  taken            take: one per item, \"key\" and \"value\"\n"
        "  connectionState  take: \"state\" and \"previous\": Connected, Suspended,\n"
        "                   Reconnected or Lost\n"
        "  timedOut         take: --timeout ran out; \"taken\" so far, \"count\" (exit 1)\n"
        "  closed           take: \"reason\" SIGINT or SIGTERM, \"taken\" so far (exit 5)\n"
        "  received         work: \"id\", \"value\", \"attempt\" (its delivery, from 1),\n"
        "                   \"lease_id\" (the consumer lease its claim is on)\n"
        "  acked            work: the same fields, once acknowledged\n"
        "requeue, purge and delete print one line saying what went (--json: an object).\n");
    command.arguments = {{QStringLiteral("ACTION"), QStringLiteral("put, take, work, requeue, purge or delete")},
                         {QStringLiteral("NAME"), QStringLiteral("The queue's path (a key prefix)")},
                         {QStringLiteral("VALUE"), QStringLiteral("put: the item; delete: the item's key"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("priority"),
                           QStringLiteral("put: on the priority layout, 0 (first out) to %1")
                               .arg(DistributedPriorityQueue::MaxPriority),
                           QStringLiteral("P")),
        QCommandLineOption(QStringLiteral("by-priority"),
                           QStringLiteral("take: from the priority layout, lowest number first")),
        QCommandLineOption(QStringLiteral("count"), QStringLiteral("take: how many items [default 1]"),
                           QStringLiteral("N")),
        QCommandLineOption(QStringLiteral("timeout"),
                           QStringLiteral("take: give up after this long in all, e.g. 30s (exit 1) "
                                          "[default: never]"),
                           QStringLiteral("DURATION")),
    };
    command.options += workQueueOptions();
    command.run = runQueue;
    return command;
}

} // namespace QEtcd::Cli
