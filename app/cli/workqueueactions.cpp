// SPDX-License-Identifier: Apache-2.0
#include "workqueueactions.h"

#include "interventions.h"
#include "kvformat.h"
#include "recipeoutput.h"

#include <QEtcd/coordinationinterventions.h>
#include <QEtcd/distributedworkqueue.h>

#include <QtCore/QJsonArray>

namespace QEtcd::Cli {

namespace {
using Kind = CoordinationObject::Kind;

// work NAME: receives --count items one after the other and acknowledges each, or with
// --no-ack keeps them claimed until a signal: a consumer that hangs, for an operator to unstick.
int runWork(Invocation &invocation, const QString &path)
{
    qint64 count = 1;
    if (invocation.isSet(QStringLiteral("count"))) {
        const auto parsed = parseCount(invocation.value(QStringLiteral("count")), 1);
        if (!parsed) {
            return invocation.usageError(QStringLiteral("--count must be a whole number >= 1, not \"%1\"")
                                             .arg(invocation.value(QStringLiteral("count"))));
        }
        count = *parsed;
    }
    std::chrono::milliseconds timeout = DistributedWorkQueue::WaitForever;
    QString error;
    if (!parseDurationOption(invocation, QStringLiteral("timeout"), timeout, &timeout, &error))
        return invocation.usageError(error);
    WorkQueueOptions options;
    if (invocation.isSet(QStringLiteral("ttl"))) {
        const auto ttl = parseCount(invocation.value(QStringLiteral("ttl")), 1);
        if (!ttl)
            return invocation.usageError(QStringLiteral("--ttl must be a whole number of seconds >= 1"));
        options.visibilityTimeoutSeconds = int(*ttl);
    }
    const bool acknowledge = !invocation.isSet(QStringLiteral("no-ack"));

    DistributedWorkQueue queue(&invocation.client(), path.toUtf8(), options);
    WaitSession session(invocation, &queue);
    for (qint64 received = 0; received < count; ++received) {
        const WorkItem item = session.wait(queue.receiveAsync(timeout));
        if (!item.status) {
            QJsonObject fields = pathFields(path);
            fields.insert(QLatin1String("received"), received);
            if (item.status.code() == StatusCode::DeadlineExceeded && session.interruptedBy().isEmpty())
                return session.timedOut(item.status.withContext(QStringLiteral("queue work \"%1\"").arg(path)), fields);
            return session.failed(item.status, fields);
        }
        QJsonObject fields = pathFields(path);
        insertBytes(&fields, QStringLiteral("id"), item.id);
        insertBytes(&fields, QStringLiteral("value"), item.value);
        fields.insert(QLatin1String("attempt"), item.attempt);
        fields.insert(QLatin1String("lease_id"), leaseHex(queue.consumerLeaseId()));
        session.write(QStringLiteral("received"), fields);
        if (!acknowledge)
            continue;
        const Status acked = session.wait(queue.ack(item));
        if (!acked)
            return session.failed(acked, fields);
        session.write(QStringLiteral("acked"), fields);
    }
    if (!acknowledge) {
        // Holds its claims, as a consumer stuck in its work does, until told to stop.
        session.pause(std::chrono::hours(24 * 365));
        return session.failed(interruption(session.interruptedBy()), pathFields(path));
    }
    queue.close();
    return Success;
}

int runRequeue(Invocation &invocation, const QString &path)
{
    const bool orphans = invocation.isSet(QStringLiteral("orphans"));
    const bool dead = invocation.isSet(QStringLiteral("dead"));
    const bool one = invocation.isSet(QStringLiteral("id"));
    if (int(orphans) + int(dead) + int(one) != 1)
        return invocation.usageError(QStringLiteral("requeue takes one of --orphans, --dead or --id ID"));
    Status failure;
    const std::optional<CoordinationObject> object = readObject(invocation, path.toUtf8(), Kind::WorkQueue, &failure);
    if (!object)
        return invocation.failed(failure);
    DistributedWorkQueue queue(&invocation.client(), path.toUtf8());
    const QString what = QStringLiteral("queue requeue \"%1\"").arg(path);
    if (orphans) {
        const QString plan = QStringLiteral("Put the %1 orphaned claim(s) of work queue \"%2\" back now, as the "
                                            "consumers' sweepers would at their next sweep: each is delivered again, "
                                            "its delivery count kept (or goes to the dead letters at the limit).")
                                 .arg(object->orphans)
                                 .arg(path);
        if (const std::optional<int> declined = confirm(invocation, plan))
            return *declined;
        const Status swept = invocation.await(queue.sweep(), what);
        if (!swept)
            return invocation.failed(swept);
        QJsonObject done = pathFields(path);
        done.insert(QLatin1String("requeued"), QLatin1String("orphans"));
        invocation.print(invocation.json() ? QJsonDocument(done).toJson(QJsonDocument::Compact)
                                           : QStringLiteral("requeued the orphaned claims of \"%1\"").arg(path).toUtf8());
        return Success;
    }
    QList<QByteArray> ids;
    if (one) {
        ids = {invocation.value(QStringLiteral("id")).toUtf8()};
    } else {
        const DeadLetters letters = invocation.await(queue.deadLetters(), what);
        if (!letters.status)
            return invocation.failed(letters.status);
        for (const DeadLetter &letter : letters.letters)
            ids.append(letter.id);
    }
    const QString plan = QStringLiteral("Put %1 dead letter(s) of work queue \"%2\" back to be delivered again, each "
                                        "with a fresh delivery count.")
                             .arg(ids.size())
                             .arg(path);
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    QJsonArray requeued;
    for (const QByteArray &id : ids) {
        const Status moved = invocation.await(queue.requeueDeadLetter(id), what);
        if (!moved)
            return invocation.failed(moved);
        requeued.append(QString::fromUtf8(id));
    }
    QJsonObject done = pathFields(path);
    done.insert(QLatin1String("requeued"), requeued);
    invocation.print(invocation.json() ? QJsonDocument(done).toJson(QJsonDocument::Compact)
                                       : QStringLiteral("requeued %1 dead letter(s) of \"%2\"").arg(ids.size()).arg(path).toUtf8());
    return Success;
}

int runPurge(Invocation &invocation, const QString &path)
{
    Status failure;
    const std::optional<CoordinationObject> object = readObject(invocation, path.toUtf8(), Kind::WorkQueue, &failure);
    if (!object)
        return invocation.failed(failure);
    const QString plan = QStringLiteral("Delete the %1 dead letter(s) of work queue \"%2\" for good, with their "
                                        "delivery counts: nobody will receive them.")
                             .arg(object->deadLetters)
                             .arg(path);
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    DistributedWorkQueue queue(&invocation.client(), path.toUtf8());
    const DeadLetters purged = invocation.await(queue.purgeDeadLetters(), QStringLiteral("queue purge \"%1\"").arg(path));
    if (!purged.status)
        return invocation.failed(purged.status);
    QJsonArray ids;
    for (const DeadLetter &letter : purged.letters)
        ids.append(QString::fromUtf8(letter.id));
    QJsonObject done = pathFields(path);
    done.insert(QLatin1String("purged"), ids);
    invocation.print(invocation.json() ? QJsonDocument(done).toJson(QJsonDocument::Compact)
                                       : QStringLiteral("purged %1 dead letter(s) of \"%2\"").arg(ids.size()).arg(path).toUtf8());
    return Success;
}

// delete NAME KEY: the item at KEY leaves the queue NAME unreceived.
int runDelete(Invocation &invocation, const QString &path)
{
    const QByteArray key = invocation.arguments().value(2).toUtf8();
    const TxnResult read = [&] {
        Txn txn;
        txn.success = {TxnOp::range(key)};
        return invocation.await(invocation.client().txn(txn), QStringLiteral("read \"%1\"").arg(QString::fromUtf8(key)));
    }();
    if (!read.status)
        return invocation.failed(read.status);
    const QList<KeyValue> found = read.responses.value(0).range.kvs;
    if (found.isEmpty())
        return invocation.failed(Status(StatusCode::NotFound, QStringLiteral("no item at \"%1\"").arg(QString::fromUtf8(key))));
    std::optional<CoordinationObject> queue;
    Status failure;
    for (const Kind kind : {Kind::WorkQueue, Kind::Queue, Kind::PriorityQueue}) {
        if ((queue = readObject(invocation, path.toUtf8(), kind, &failure)))
            break;
    }
    if (!queue)
        return invocation.failed(failure);
    CoordinationEntry item;
    item.key = key;
    item.createRevision = found.first().createRevision;
    const QString plan = QStringLiteral("Delete the item \"%1\" of \"%2\" (%3 bytes): nobody will receive it.")
                             .arg(QString::fromUtf8(visibleControls(key, LineBreaks::Escape)), path)
                             .arg(found.first().value.size());
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const InterventionResult result = invocation.await(
        CoordinationInterventions::removeQueueItem(&invocation.client(), *queue, item), QStringLiteral("queue delete"));
    if (!result.status)
        return invocation.failed(result.status);
    QJsonObject done = pathFields(path);
    insertBytes(&done, QStringLiteral("key"), key);
    done.insert(QLatin1String("revision"), result.revision);
    invocation.print(invocation.json() ? QJsonDocument(done).toJson(QJsonDocument::Compact)
                                       : QStringLiteral("deleted \"%1\"").arg(QString::fromUtf8(key)).toUtf8());
    return Success;
}
} // namespace

std::function<int(Invocation &)> onPath(int (*run)(Invocation &, const QString &path))
{
    return [run](Invocation &invocation) {
        const QString path = invocation.arguments().value(1);
        if (path.isEmpty())
            return invocation.usageError(QStringLiteral("NAME is empty"));
        return run(invocation, path);
    };
}

Status putWorkItem(Invocation &invocation, const QString &path, const QByteArray &value)
{
    DistributedWorkQueue queue(&invocation.client(), path.toUtf8());
    return invocation.await(queue.enqueue(value), QStringLiteral("queue put \"%1\"").arg(path));
}

QList<Action> workQueueActions()
{
    const QStringList name{QStringLiteral("NAME")};
    return {
        {QStringLiteral("work"), name,
         {QStringLiteral("count"), QStringLiteral("timeout"), QStringLiteral("no-ack"), QStringLiteral("ttl")},
         onPath(runWork)},
        {QStringLiteral("requeue"), name,
         {QStringLiteral("orphans"), QStringLiteral("dead"), QStringLiteral("id"), QStringLiteral("yes")},
         onPath(runRequeue)},
        {QStringLiteral("purge"), name, {QStringLiteral("yes")}, onPath(runPurge)},
        {QStringLiteral("delete"), {QStringLiteral("NAME"), QStringLiteral("KEY")}, {QStringLiteral("yes")},
         onPath(runDelete)},
    };
}

QList<QCommandLineOption> workQueueOptions()
{
    return {
        QCommandLineOption(QStringLiteral("work"), QStringLiteral("put: on the work-queue layout (items/, claims, dead letters)")),
        QCommandLineOption(QStringLiteral("no-ack"),
                           QStringLiteral("work: keep the items claimed until a signal, as a hung consumer does")),
        QCommandLineOption(QStringLiteral("ttl"),
                           QStringLiteral("work: the consumer lease's TTL, how long its claims outlive a crash [default 30]"),
                           QStringLiteral("SECONDS")),
        QCommandLineOption(QStringLiteral("orphans"), QStringLiteral("requeue: the claims whose consumer is gone, now")),
        QCommandLineOption(QStringLiteral("dead"), QStringLiteral("requeue: every dead letter")),
        QCommandLineOption(QStringLiteral("id"), QStringLiteral("requeue: the dead letter ID"), QStringLiteral("ID")),
        yesOption(),
    };
}

QString workQueueHelp()
{
    return QStringLiteral(
        "  work NAME       Receives --count items (default 1) from the work queue NAME,\n"
        "                  printing each with its delivery count, and acknowledges it;\n"
        "                  with --no-ack keeps them claimed until SIGINT or SIGTERM. A\n"
        "                  consumer killed with its claims leaves them orphaned until its\n"
        "                  lease (--ttl) runs out; then any consumer's sweep puts them\n"
        "                  back.\n"
        "  requeue NAME    (an operator's intervention) --orphans: the orphaned claims\n"
        "                  back now; --dead: every dead letter back, fresh counts; --id\n"
        "                  ID: that dead letter.\n"
        "  purge NAME      (an operator's intervention) deletes every dead letter for\n"
        "                  good, with its delivery count.\n"
        "  delete NAME KEY (an operator's intervention) the item at KEY leaves the queue\n"
        "                  unreceived (a work queue's delivery count with it).\n"
        "The interventions read the queue first, say what they will do on stderr, and ask\n"
        "on a terminal or need --yes; --read-only refuses them.\n");
}

} // namespace QEtcd::Cli
