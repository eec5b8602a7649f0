// SPDX-License-Identifier: Apache-2.0
#include "commands.h"
#include "eventsession.h"
#include "kvformat.h"

#include <QEtcd/coordinationhistory.h>
#include <QEtcd/coordinationlayouts.h>
#include <QEtcd/coordinationmonitor.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonArray>

namespace QEtcd::Cli {

namespace {
QString names(const QList<CoordinationEntry> &entries)
{
    QStringList list;
    for (const CoordinationEntry &entry : entries)
        list.append(entry.displayName());
    return list.isEmpty() ? QStringLiteral("-") : list.join(QLatin1String(", "));
}

QString age(qint64 sinceMs, qint64 nowMs)
{
    return sinceMs < 0 ? QString() : QStringLiteral(" (%1 s)").arg(std::max<qint64>(0, nowMs - sinceMs) / 1000);
}

// KIND, NAME, HOLDER/LEADER, WAITING, DETAIL: one row of the table.
QStringList row(const CoordinationObject &object, qint64 nowMs)
{
    using Kind = CoordinationObject::Kind;
    QString holders = names(object.holders), waiting = names(object.waiters), detail;
    switch (object.kind) {
    case Kind::Lock:
        if (!object.holders.isEmpty())
            detail = QStringLiteral("fencing token %1").arg(object.holders.first().createRevision);
        waiting.clear();
        for (const CoordinationEntry &waiter : object.waiters)
            waiting += (waiting.isEmpty() ? QString() : QStringLiteral(", ")) + waiter.displayName()
                + age(waiter.sinceMs, nowMs);
        waiting = waiting.isEmpty() ? QStringLiteral("-") : waiting;
        break;
    case Kind::ReadWriteLock:
        break;
    case Kind::Semaphore:
        detail = object.permits < 0 ? QStringLiteral("%1 permits used").arg(object.holders.size())
                                    : QStringLiteral("%1 of %2 permits").arg(object.holders.size()).arg(object.permits);
        break;
    case Kind::Election:
        if (!object.holders.isEmpty())
            detail = QStringLiteral("term %1, proclaims \"%2\"")
                         .arg(object.holders.first().createRevision)
                         .arg(QString::fromUtf8(object.holders.first().value));
        break;
    case Kind::Barrier:
        detail = QStringLiteral("set");
        break;
    case Kind::CountedBarrier:
        holders = names(object.members);
        waiting = QStringLiteral("-");
        detail = QStringLiteral("%1 arrived%2").arg(object.members.size()).arg(object.set ? QStringLiteral(", open")
                                                                                         : QString());
        break;
    case Kind::DoubleBarrier:
        holders = names(object.members);
        waiting = names(object.leaving);
        detail = QStringLiteral("%1 entered, %2 leaving").arg(object.members.size()).arg(object.leaving.size());
        break;
    case Kind::Service:
        holders = names(object.members);
        detail = QStringLiteral("%1 instances").arg(object.members.size());
        break;
    case Kind::Queue:
    case Kind::PriorityQueue:
    case Kind::WorkQueue:
        detail = QStringLiteral("depth %1").arg(object.depth);
        if (object.oldestMs >= 0)
            detail += QStringLiteral(", oldest %1 s").arg(std::max<qint64>(0, nowMs - object.oldestMs) / 1000);
        if (object.kind == Kind::WorkQueue)
            detail += QStringLiteral(", %1 delayed, %2 in flight, %3 orphaned, %4 dead letters")
                          .arg(object.delayed)
                          .arg(object.inFlight)
                          .arg(object.orphans)
                          .arg(object.deadLetters);
        break;
    case Kind::Counter:
        detail = QStringLiteral("value %1").arg(object.value);
        break;
    case Kind::PostgresCluster: {
        waiting = QStringLiteral("-");
        QStringList members;
        for (const CoordinationEntry &member : object.members) {
            QStringList says{member.role, member.state};
            says.removeAll(QString());
            members.append(member.displayName()
                           + (says.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(says.join(QLatin1String(", ")))));
        }
        detail = QStringLiteral("%1 members%2").arg(object.members.size()).arg(
            members.isEmpty() ? QString() : QStringLiteral(": ") + members.join(QLatin1String(", ")));
        break;
    }
    }
    return {object.kindName(), QString::fromUtf8(object.path), holders, waiting, detail};
}

void printTable(Invocation &invocation, const QList<CoordinationObject> &objects)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<QStringList> rows{{QStringLiteral("KIND"), QStringLiteral("NAME"), QStringLiteral("HOLDER/LEADER"),
                             QStringLiteral("WAITING"), QStringLiteral("DETAIL")}};
    for (const CoordinationObject &object : objects) {
        // Names, holders and proposals are etcd's data: never terminal control sequences here.
        QStringList cells = row(object, now);
        for (QString &cell : cells)
            cell = QString::fromUtf8(visibleControls(cell.toUtf8(), LineBreaks::Escape));
        rows.append(cells);
    }
    QList<qsizetype> widths(rows.first().size(), 0);
    for (const QStringList &cells : rows) {
        for (qsizetype i = 0; i < cells.size(); ++i)
            widths[i] = std::max(widths[i], cells[i].size());
    }
    for (const QStringList &cells : rows) {
        QString line;
        for (qsizetype i = 0; i < cells.size(); ++i)
            line += i + 1 < cells.size() ? cells[i].leftJustified(widths[i] + 2) : cells[i];
        invocation.print(line.trimmed().toUtf8());
    }
}

void printObjects(Invocation &invocation, const QList<CoordinationObject> &objects)
{
    if (!invocation.json())
        return printTable(invocation, objects);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (const CoordinationObject &object : objects)
        invocation.print(object.toJson(now));
}

// --rev N: the objects as etcd's history has them at revision N.
int runInspectAt(Invocation &invocation, const QByteArray &prefix, bool watch, const QString &what)
{
    if (watch)
        return invocation.usageError(QStringLiteral("--rev does not apply to --watch"));
    bool ok = false;
    const qint64 revision = invocation.value(QStringLiteral("rev")).toLongLong(&ok);
    if (!ok || revision < 1) {
        return invocation.usageError(QStringLiteral("--rev takes a revision (a whole number from 1), not \"%1\"")
                                         .arg(invocation.value(QStringLiteral("rev"))));
    }
    const CoordinationSnapshot snapshot =
        invocation.await(CoordinationHistory::objectsAt(&invocation.client(), prefix, revision), what);
    if (!snapshot.status)
        return invocation.failed(snapshot.status.withContext(what));
    printObjects(invocation, snapshot.objects);
    return Success;
}

int runInspect(Invocation &invocation)
{
    const QByteArray prefix = invocation.arguments().value(0).toUtf8();
    const bool watch = invocation.isSet(QStringLiteral("watch"));
    std::optional<std::chrono::milliseconds> hold;
    QString error;
    if (!parseHold(invocation, &hold, &error))
        return invocation.usageError(error);
    if (hold && !watch)
        return invocation.usageError(QStringLiteral("--hold only applies to --watch"));
    if (int refused = 0; !declareLayouts(invocation, &refused))
        return refused;

    const QString what = QStringLiteral("inspect \"%1\"").arg(QString::fromUtf8(prefix));
    if (invocation.isSet(QStringLiteral("rev")))
        return runInspectAt(invocation, prefix, watch, what);
    if (!watch) {
        // The monitor reads in pages, so a prefix larger than the receive limit still lists.
        CoordinationMonitor monitor(&invocation.client(), prefix);
        const QFuture<Status> started = monitor.start();
        if (!waitFor(started, invocation.requestDeadline()))
            return invocation.failed(invocation.timedOut(what));
        if (!started.result())
            return invocation.failed(started.result().withContext(what));
        printObjects(invocation, monitor.objects());
        return Success;
    }

    EventSession session(invocation, hold);
    CoordinationMonitor monitor(&invocation.client(), prefix);
    QObject::connect(&monitor, &CoordinationMonitor::failed, &session, [&](const Status &status) { session.fail(status); });
    QObject::connect(&monitor, &CoordinationMonitor::objectsChanged, &session,
                     [&](const QList<CoordinationObjectChange> &changes) {
                         if (!session.isEstablished())
                             return;  // the first list is printed once the watch is established
                         const qint64 now = QDateTime::currentMSecsSinceEpoch();
                         for (const CoordinationObjectChange &change : changes) {
                             switch (change.type) {
                             case CoordinationObjectChange::Type::Added:
                                 session.write(QStringLiteral("added"), change.object.toJson(now));
                                 break;
                             case CoordinationObjectChange::Type::Changed:
                                 session.write(QStringLiteral("changed"), change.object.toJson(now));
                                 break;
                             case CoordinationObjectChange::Type::Removed:
                                 session.write(QStringLiteral("removed"),
                                               {{QLatin1String("kind"), change.object.kindName()},
                                                {QLatin1String("name"), QString::fromUtf8(change.object.path)}});
                                 break;
                             }
                         }
                     });
    session.run(monitor.start(), what, [&] {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QList<CoordinationObject> objects = monitor.objects();
        for (const CoordinationObject &object : objects)
            session.write(QStringLiteral("object"), object.toJson(now));
        session.write(QStringLiteral("established"),
                      {{QLatin1String("prefix"), QString::fromUtf8(prefix)}, {QLatin1String("count"), objects.size()}});
    });
    return session.finish({{QLatin1String("prefix"), QString::fromUtf8(prefix)}});
}
} // namespace

Command inspectCommand()
{
    Command command;
    command.name = QStringLiteral("inspect");
    command.summary = QStringLiteral("Show the locks, elections, barriers, queues... under a prefix");
    command.details = QStringLiteral(
        "Reads every key under PREFIX (default: all keys) and prints the coordination\n"
        "objects their layouts make up, whichever tool wrote them: qetcd, etcdctl lock\n"
        "and elect (and Go's concurrency package, etcd's v3lock and v3election),\n"
        "etcd-recipes.\n"
        "  lock            etcd's layout NAME/<lease id>: the holder (lowest create\n"
        "                  revision; its fencing token), then the waiters in FIFO order\n"
        "  election        the same layout with proposals as values (or etcd-recipes'\n"
        "                  NAME/LEADER + NAME/participants/): leader, term, candidates\n"
        "  readWriteLock, semaphore   holders and waiters; a semaphore's permits\n"
        "  barrier         a set barrier and its owner; counted and double barriers:\n"
        "                  the members that arrived (N is known only to the members)\n"
        "  service         the instances; queue, priorityQueue, workQueue: depth, the\n"
        "                  oldest item, in-flight claims, dead letters; counter: value\n"
        "A holder or waiter is named by qetcd's identity (client, host, pid, since) or by\n"
        "etcd-recipes' client id; etcdctl writes no name, so its entries show their\n"
        "lease. Other clients' conventions: node etcd3's election/NAME/<lease id in\n"
        "decimal>; python3-etcd3's lock /locks/NAME; a leased key under a locks/ segment\n"
        "(node etcd3's lock); Patroni's service/SCOPE/leader, members/NAME, config...: a\n"
        "postgresCluster with its leader (the member the leader key names, on a lease)\n"
        "and members (each with the role and state its JSON says). Such an object names\n"
        "the convention in \"rule\".\n"
        "Layouts an operator declares (--layouts FILE, else ~/.config/qetcd/layouts.json\n"
        "when it exists) are tried first; \"rule\" is then the declared rule's name. The\n"
        "file: {\"layouts\": [{\"name\": ..., \"prefix\" or \"glob\": ..., \"kind\": lock,\n"
        "election, semaphore, barrier, service, queue or leader-key, \"identity\": lease,\n"
        "value or json (with \"field\"), \"order\": create-revision, mod-revision or key,\n"
        "\"permits\" (semaphores)}]} (docs/console.md).\n"
        "\n"
        "Output: a table; with --json one object per line: \"kind\", \"name\" (the path),\n"
        "then what applies: \"holders\", \"waiters\" (in order), \"fencing_token\",\n"
        "\"leader\", \"proclamation\", \"term\", \"candidates\" (in order), \"permits\",\n"
        "\"used\", \"set\", \"owner\", \"open\", \"arrived\", \"members\", \"entered\", \"left\",\n"
        "\"leaving\", \"instances\", \"depth\", \"oldest_ms\", \"oldest_age_ms\",\n"
        "\"depth_by_priority\", \"delayed\", \"in_flight\", \"orphans\", \"dead_letters\",\n"
        "\"claims\", \"value\", \"rule\". An entry has \"key\", \"create_revision\", and when\n"
        "known \"name\", \"host\", \"pid\", \"since_ms\", \"age_ms\", \"lease_id\" (hex),\n"
        "\"role\" and \"state\" (a cluster member's), \"value\", or \"value_hex\" for a\n"
        "value that is not text.\n"
        "\n"
        "--watch keeps following PREFIX until SIGINT, SIGTERM or --hold, printing JSON\n"
        "lines that start with \"event\" and \"mono_ms\": \"object\" for each object at the\n"
        "start, \"established\" (\"prefix\", \"count\"), then \"added\", \"changed\" (the whole\n"
        "object again) and \"removed\" (\"kind\", \"name\") as etcd changes, and \"closed\".\n"
        "\n"
        "--rev REV shows the objects as they were at revision REV, while etcd keeps it\n"
        "(`qetcd history` tells how they came to be).");
    command.arguments = {{QStringLiteral("PREFIX"), QStringLiteral("Where to look [default: every key]"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("watch"), QStringLiteral("Keep printing changes")),
        QCommandLineOption(QStringLiteral("rev"), QStringLiteral("Show the objects as they were at revision REV"),
                           QStringLiteral("REV")),
        holdOption(),
        layoutsOption(),
    };
    command.run = runInspect;
    return command;
}

QCommandLineOption layoutsOption()
{
    return QCommandLineOption(QStringLiteral("layouts"),
                              QStringLiteral("Declared layouts to try first [default: ~/.config/qetcd/layouts.json]"),
                              QStringLiteral("FILE"));
}

bool declareLayouts(Invocation &invocation, int *exitCode)
{
    const Status declared = CoordinationLayouts::declare(invocation.value(QStringLiteral("layouts")));
    if (!declared)
        *exitCode = invocation.usageError(declared.message());
    return declared.isOk();
}

} // namespace QEtcd::Cli
