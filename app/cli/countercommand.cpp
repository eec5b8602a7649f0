// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "interventions.h"
#include "recipeoutput.h"

#include <QEtcd/distributedatomiclong.h>

namespace QEtcd::Cli {

namespace {
// set N (an operator's intervention): compare-and-set against the value read first, so a count
// that moved after the operator looked is left alone.
int setCounter(Invocation &invocation, const QString &path, qint64 value)
{
    DistributedAtomicLong counter(&invocation.client(), path.toUtf8());
    const QString what = QStringLiteral("counter set \"%1\"").arg(path);
    const AtomicLongResult now = invocation.await(counter.getAsync(), what);
    if (!now.status)
        return invocation.failed(now.status);
    const QString plan = QStringLiteral("Set the counter \"%1\" from %2 to %3, by compare-and-set: if it moves first, "
                                        "nothing is written.")
                             .arg(path)
                             .arg(now.value)
                             .arg(value);
    if (const std::optional<int> declined = confirm(invocation, plan))
        return *declined;
    const AtomicLongResult set = invocation.await(counter.compareAndSetAsync(now.value, value), what);
    if (!set.status)
        return invocation.failed(set.status);
    if (invocation.json())
        invocation.print(QJsonObject{{QLatin1String("path"), path}, {QLatin1String("value"), set.value},
                                     {QLatin1String("previous"), now.value}});
    else
        invocation.print(QByteArray::number(set.value));
    return Success;
}

int runCounter(Invocation &invocation)
{
    const QStringList arguments = invocation.arguments();
    const QString path = arguments.value(0);
    const QString action = arguments.value(1, QStringLiteral("get"));
    std::optional<qint64> delta;
    if (action == QLatin1String("add") || action == QLatin1String("set")) {
        bool ok = false;
        delta = arguments.value(2).toLongLong(&ok);
        if (!ok)
            return invocation.usageError(QStringLiteral("%1 needs a whole number, not \"%2\"").arg(action, arguments.value(2)));
    } else if (action != QLatin1String("get")) {
        return invocation.usageError(QStringLiteral("unknown action \"%1\"; actions: get, add N, set N").arg(action));
    } else if (arguments.size() > 2) {
        return invocation.usageError(QStringLiteral("get takes no number"));
    }
    if (action == QLatin1String("set")) {
        if (invocation.isSet(QStringLiteral("repeat")))
            return invocation.usageError(QStringLiteral("--repeat only applies to add"));
        return setCounter(invocation, path, *delta);
    }
    if (invocation.isSet(QStringLiteral("yes")))
        return invocation.usageError(QStringLiteral("--yes only applies to set"));
    qint64 repeat = 1;
    if (invocation.isSet(QStringLiteral("repeat"))) {
        if (!delta)
            return invocation.usageError(QStringLiteral("--repeat only applies to add"));
        const auto parsed = parseCount(invocation.value(QStringLiteral("repeat")), 1);
        if (!parsed) {
            return invocation.usageError(QStringLiteral("--repeat must be a whole number >= 1, not \"%1\"")
                                             .arg(invocation.value(QStringLiteral("repeat"))));
        }
        repeat = *parsed;
    }

    DistributedAtomicLong counter(&invocation.client(), path.toUtf8());
    const QString what = QStringLiteral("counter %1 \"%2\"").arg(action, path);
    for (qint64 done = 0; done < repeat; ++done) {
        const AtomicLongResult result = invocation.await(delta ? counter.addAsync(*delta) : counter.getAsync(), what);
        // The values printed so far were committed and stay; failed() flushes them first.
        if (!result.status)
            return invocation.failed(result.status);
        if (invocation.json())
            invocation.print(QJsonObject{{QLatin1String("path"), path}, {QLatin1String("value"), result.value}});
        else
            invocation.print(QByteArray::number(result.value));
    }
    return Success;
}
} // namespace

Command counterCommand()
{
    Command command;
    command.name = QStringLiteral("counter");
    command.summary = QStringLiteral("Read or change a distributed counter (counter NAME [get | add N | set N])");
    command.details = QStringLiteral(
        "A 64-bit counter in the key NAME (8 bytes, big-endian), created with 0 on first\n"
        "use. \"get\" (the default) prints its value; \"add N\" adds N (which may be\n"
        "negative: put -- before it) by compare-and-set and prints the value it\n"
        "committed, so concurrent adders each see a value of their own. --repeat K\n"
        "makes K such additions one after the other, each its own compare-and-set, and\n"
        "prints the value each committed; other adders' values may come in between. A\n"
        "failure stops the run (exit 1) after the values already printed, which were\n"
        "committed. An addition past a 64-bit integer's range writes nothing and fails\n"
        "(exit 3, OutOfRange): the counter never wraps around.\n"
        "\"set N\" (an operator's intervention) reads the value, says what it will do,\n"
        "asks on a terminal or needs --yes, and sets N by compare-and-set against what it\n"
        "read: a counter that moved meanwhile is left alone (exit 1, Mismatch).\n"
        "\n"
        "Output: one value per line; with --json one {\"path\", \"value\"} per line.");
    command.arguments = {{QStringLiteral("NAME"), QStringLiteral("The counter's key")},
                         {QStringLiteral("ACTION"), QStringLiteral("get, add or set"), true},
                         {QStringLiteral("N"), QStringLiteral("add: how much; set: the new value"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("repeat"),
                           QStringLiteral("add: add K times, one compare-and-set each [default 1]"),
                           QStringLiteral("K")),
        yesOption(),
    };
    command.run = runCounter;
    return command;
}

} // namespace QEtcd::Cli
