// SPDX-License-Identifier: Apache-2.0
#include "interventions.h"

#include "kvformat.h"
#include "passwordprompt.h"

#include <QEtcd/coordinationinterventions.h>

#include <QtCore/QJsonArray>

#include <unistd.h>

namespace QEtcd::Cli {

namespace {
using Kind = CoordinationObject::Kind;

QString kindWords(Kind kind)
{
    switch (kind) {
    case Kind::Lock:
        return QStringLiteral("lock");
    case Kind::Semaphore:
        return QStringLiteral("semaphore");
    case Kind::Election:
        return QStringLiteral("election");
    case Kind::Barrier:
        return QStringLiteral("barrier");
    case Kind::CountedBarrier:
        return QStringLiteral("counted barrier");
    case Kind::DoubleBarrier:
        return QStringLiteral("double barrier");
    case Kind::ReadWriteLock:
        return QStringLiteral("read/write lock");
    case Kind::Service:
        return QStringLiteral("service");
    case Kind::Queue:
        return QStringLiteral("queue");
    case Kind::PriorityQueue:
        return QStringLiteral("priority queue");
    case Kind::WorkQueue:
        return QStringLiteral("work queue");
    case Kind::Counter:
        return QStringLiteral("counter");
    case Kind::PostgresCluster:
        return QStringLiteral("PostgreSQL cluster");
    }
    return QStringLiteral("object");
}

QString inQuotes(const QByteArray &bytes)
{
    return QStringLiteral("\"%1\"").arg(QString::fromUtf8(visibleControls(bytes, LineBreaks::Escape)));
}

// Who an entry is, for a sentence: its name (or lease) and key.
QString who(const CoordinationEntry &entry)
{
    QString text = QString::fromUtf8(visibleControls(entry.displayName().toUtf8(), LineBreaks::Escape));
    if (!entry.host.isEmpty())
        text += QStringLiteral(" on %1 (pid %2)").arg(entry.host).arg(entry.pid);
    return text + QStringLiteral(", key ") + inQuotes(entry.key);
}

QString nextInLine(const CoordinationObject &object, const CoordinationEntry &leaving)
{
    for (const CoordinationEntry &waiter : object.waiters) {
        if (waiter.key != leaving.key)
            return QString::fromUtf8(visibleControls(waiter.displayName().toUtf8(), LineBreaks::Escape));
    }
    return QStringLiteral("nobody");
}

QString keyCount(qsizetype count)
{
    return count == 1 ? QStringLiteral("1 key gone") : QStringLiteral("%1 keys gone").arg(count);
}

int report(Invocation &invocation, const QString &intervention, const QByteArray &path, const CoordinationEntry &entry,
           const InterventionResult &result)
{
    if (!result.status)
        return invocation.failed(result.status);
    if (invocation.json()) {
        QJsonObject object{{QLatin1String("intervention"), intervention},
                           {QLatin1String("method"), result.methodName()},
                           {QLatin1String("fencing_token"), entry.createRevision},
                           {QLatin1String("revision"), result.revision}};
        insertBytes(&object, QStringLiteral("path"), path);
        insertBytes(&object, QStringLiteral("key"), entry.key);
        if (result.method == InterventionResult::Method::LeaseRevoked)
            object.insert(QLatin1String("lease_id"), leaseHex(result.lease));
        QJsonArray removed;
        for (const QByteArray &key : result.removedKeys)
            removed.append(QString::fromUtf8(key));
        object.insert(QLatin1String("removed_keys"), removed);
        invocation.print(object);
        return Success;
    }
    const QString how = result.method == InterventionResult::Method::LeaseRevoked
        ? QStringLiteral("lease %1 revoked (%2)").arg(leaseHex(result.lease), keyCount(result.removedKeys.size()))
        : QStringLiteral("key %1 deleted").arg(inQuotes(entry.key));
    invocation.print(QStringLiteral("%1 %2: %3, at revision %4")
                         .arg(intervention, inQuotes(path), how)
                         .arg(result.revision)
                         .toUtf8());
    return Success;
}

// `lock break` serves read/write locks too: qetcd has no command of their own, and breaking a
// reader's or writer's hold is the same intervention as breaking a lock's.
bool answersTo(Kind found, Kind wanted)
{
    return found == wanted || (wanted == Kind::Lock && found == Kind::ReadWriteLock);
}

int extraArguments(Invocation &invocation, const QString &action)
{
    return invocation.usageError(QStringLiteral("%1 takes one NAME, not \"%2\"")
                                     .arg(action, invocation.arguments().mid(1).join(QLatin1Char(' '))));
}
} // namespace

std::optional<CoordinationObject> readObject(Invocation &invocation, const QByteArray &path, Kind kind, Status *failure)
{
    Txn read;
    read.success = {TxnOp::range(path), TxnOp::range(path + '/', RangeOptions{KeyRange::prefix()})};
    const TxnResult answer = invocation.await(invocation.client().txn(read), QStringLiteral("read %1").arg(inQuotes(path)));
    if (!answer.status) {
        *failure = answer.status;
        return std::nullopt;
    }
    QList<KeyValue> kvs = answer.responses.value(0).range.kvs;
    kvs += answer.responses.value(1).range.kvs;
    for (const CoordinationObject &object : CoordinationRecogniser::recognise(kvs)) {
        if (object.path == path && answersTo(object.kind, kind))
            return object;
    }
    *failure = Status(StatusCode::NotFound, kind == Kind::Barrier
                                                ? QStringLiteral("barrier %1 is not set").arg(inQuotes(path))
                                                : QStringLiteral("no %1 at %2").arg(kindWords(kind), inQuotes(path)));
    return std::nullopt;
}

std::optional<int> confirm(Invocation &invocation, const QString &plan)
{
    // Refused before anything is read into a question: nothing would be written anyway.
    if (invocation.readOnly())
        return invocation.failed(Status(StatusCode::ReadOnly, QStringLiteral("refused: the client is read-only (--read-only)")));
    if (invocation.isSet(QStringLiteral("yes")))
        return std::nullopt;
    if (!isatty(STDIN_FILENO)) {
        return invocation.usageError(
            QStringLiteral("standard input is not a terminal to confirm on; give --yes to confirm:\n  %1").arg(plan));
    }
    if (askConfirmationOnTerminal(plan + QStringLiteral("\nGo on?")))
        return std::nullopt;
    return invocation.failed(Status(StatusCode::Cancelled, QStringLiteral("not confirmed: nothing was written")));
}

QCommandLineOption yesOption()
{
    return QCommandLineOption(QStringLiteral("yes"),
                              QStringLiteral("Interventions: go on without asking (required when stdin is no terminal)"));
}

QCommandLineOption entryOption()
{
    return QCommandLineOption(QStringLiteral("entry"),
                              QStringLiteral("Interventions: the holder's or waiter's key to act on [default: the holder]"),
                              QStringLiteral("KEY"));
}

QString interventionHelp(const QString &synopsis, const QString &what)
{
    return synopsis + QLatin1Char('\n') + what
        + QStringLiteral(
              "\nThe object is read first and what will happen is said on stderr; on a terminal\n"
              "qetcd asks before it writes, elsewhere --yes is required. The write is guarded\n"
              "by the create revision read, so an entry replaced meanwhile is left alone (exit\n"
              "1, nothing written); --read-only refuses it before anything is read. Output: one\n"
              "line saying what went; with --json {\"intervention\", \"path\", \"key\",\n"
              "\"fencing_token\", \"method\" (lease_revoked or keys_deleted), \"lease_id\" (when\n"
              "revoked), \"removed_keys\", \"revision\"}.\n\n");
}

std::function<int(Invocation &)> withIntervention(const Command &command, const QString &word, Kind kind,
                                                  int (*participant)(Invocation &))
{
    const QStringList interventionOptions{QStringLiteral("yes"), QStringLiteral("entry")};
    QStringList participantOptions;
    for (const QCommandLineOption &option : command.options) {
        if (!interventionOptions.contains(option.names().first()))
            participantOptions.append(option.names().first());
    }
    return [=](Invocation &invocation) {
        const bool intervening = invocation.arguments().value(0) == word && invocation.arguments().size() >= 2;
        for (const QString &option : intervening ? participantOptions : interventionOptions) {
            if (invocation.isSet(option)) {
                return invocation.usageError(intervening ? QStringLiteral("--%1 does not apply to %2").arg(option, word)
                                                         : QStringLiteral("--%1 applies to %2 NAME only").arg(option, word));
            }
        }
        return intervening ? runBreak(invocation, kind) : participant(invocation);
    };
}

int runBreak(Invocation &invocation, Kind kind)
{
    const QString action = kind == Kind::Election ? QStringLiteral("force") : QStringLiteral("break");
    if (invocation.arguments().size() != 2)
        return extraArguments(invocation, action);
    const QByteArray path = invocation.arguments().value(1).toUtf8();
    Status failure;
    const std::optional<CoordinationObject> object = readObject(invocation, path, kind, &failure);
    if (!object)
        return invocation.failed(failure);

    kind = object->kind;  // a read/write lock answers `lock break` too: name it as what it is
    const bool named = invocation.isSet(QStringLiteral("entry"));
    const QByteArray key = invocation.value(QStringLiteral("entry")).toUtf8();
    const auto find = [&key](const QList<CoordinationEntry> &entries) {
        return std::find_if(entries.cbegin(), entries.cend(), [&key](const CoordinationEntry &e) { return e.key == key; });
    };
    CoordinationEntry entry;
    bool holder = true;
    if (named) {
        if (const auto at = find(object->holders); at != object->holders.cend()) {
            entry = *at;
        } else if (const auto waiting = find(object->waiters); waiting != object->waiters.cend()) {
            entry = *waiting;
            holder = false;
        } else {
            return invocation.failed(Status(StatusCode::NotFound, QStringLiteral("%1 is not an entry of %2 %3")
                                                                      .arg(inQuotes(key), kindWords(kind), inQuotes(path))));
        }
    } else if (object->holders.isEmpty()) {
        return invocation.failed(Status(StatusCode::NotFound, kind == Kind::Election
                                                                  ? QStringLiteral("nobody leads %1").arg(inQuotes(path))
                                                                  : QStringLiteral("nobody holds %1").arg(inQuotes(path))));
    } else if (object->holders.size() > 1) {
        QStringList keys;
        for (const CoordinationEntry &each : object->holders)
            keys.append(inQuotes(each.key));
        return invocation.usageError(QStringLiteral("%1 %2 has %3 holders; name one with --entry: %4")
                                         .arg(kindWords(kind), inQuotes(path))
                                         .arg(object->holders.size())
                                         .arg(keys.join(QLatin1String(", "))));
    } else {
        entry = object->holders.first();
    }

    QString plan;
    if (!holder) {
        plan = QStringLiteral("Remove %1 from %2 %3: its wait ends with an error.")
                   .arg(who(entry), kindWords(kind), inQuotes(path));
    } else if (kind == Kind::Election) {
        plan = QStringLiteral("End the term of %1, leader of %2 (term %3). Its lease is revoked when it carries this "
                              "key alone, else the key is deleted. The leader may still act until it learns of the "
                              "loss. Next in line: %4.")
                   .arg(who(entry), inQuotes(path))
                   .arg(entry.createRevision)
                   .arg(nextInLine(*object, entry));
    } else {
        plan = QStringLiteral("Break the hold of %1 on %2 %3 (fencing token %4). Its lease is revoked when it "
                              "carries this key alone, else the key is deleted. The holder may still act until it "
                              "learns of the loss; writes fenced by token %4 are refused from now on. Next in line: %5.")
                   .arg(who(entry), kindWords(kind), inQuotes(path))
                   .arg(entry.createRevision)
                   .arg(nextInLine(*object, entry));
    }
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const QFuture<InterventionResult> done = holder ? CoordinationInterventions::breakHold(&invocation.client(), entry)
                                                    : CoordinationInterventions::removeEntry(&invocation.client(), entry);
    const InterventionResult result = invocation.await(done, plan.section(QLatin1Char(':'), 0, 0));
    const QString name = !holder ? QStringLiteral("removed from") : kind == Kind::Election ? QStringLiteral("term ended:")
                                                                                          : QStringLiteral("hold broken:");
    return report(invocation, name, path, entry, result);
}

int runLiftBarrier(Invocation &invocation)
{
    if (invocation.arguments().size() != 2)
        return extraArguments(invocation, QStringLiteral("lift"));
    const QByteArray path = invocation.arguments().value(1).toUtf8();
    Status failure;
    const std::optional<CoordinationObject> barrier = readObject(invocation, path, Kind::Barrier, &failure);
    if (!barrier)
        return invocation.failed(failure);
    const CoordinationEntry &owner = barrier->holders.first();
    const QString plan = QStringLiteral("Lift barrier %1, set by %2 (lease %3): its key is deleted and every waiter "
                                        "released. An owner whose lease is alive may set it again; a qetcd owner is "
                                        "told it was lifted by someone else and does not.")
                             .arg(inQuotes(path), who(owner), leaseHex(owner.lease));
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const InterventionResult result = invocation.await(
        CoordinationInterventions::liftBarrier(&invocation.client(), *barrier), QStringLiteral("lift %1").arg(inQuotes(path)));
    return report(invocation, QStringLiteral("lifted"), path, owner, result);
}

int runReleaseRound(Invocation &invocation)
{
    if (invocation.arguments().size() != 2)
        return extraArguments(invocation, QStringLiteral("release"));
    const QByteArray path = invocation.arguments().value(1).toUtf8();
    Status failure;
    const std::optional<CoordinationObject> barrier = readObject(invocation, path, Kind::CountedBarrier, &failure);
    if (!barrier)
        return invocation.failed(failure);
    if (!barrier->set)
        return invocation.failed(Status(StatusCode::NotFound, QStringLiteral("no round of %1 is open").arg(inQuotes(path))));
    const QString plan = QStringLiteral("Release the open round of counted barrier %1: the members waiting in it (%2 "
                                        "arrived) go on without the full count.")
                             .arg(inQuotes(path))
                             .arg(barrier->members.size());
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const InterventionResult result =
        invocation.await(CoordinationInterventions::releaseRound(&invocation.client(), *barrier),
                         QStringLiteral("release %1").arg(inQuotes(path)));
    return report(invocation, QStringLiteral("released"), path, barrier->holders.first(), result);
}

} // namespace QEtcd::Cli
