#include "commands.h"

#include "recipeoutput.h"

#include <QEtcd/distributedatomiclong.h>

namespace QEtcd::Cli {

namespace {
int runCounter(Invocation &invocation)
{
    const QStringList arguments = invocation.arguments();
    const QString path = arguments.value(0);
    const QString action = arguments.value(1, QStringLiteral("get"));
    std::optional<qint64> delta;
    if (action == QLatin1String("add")) {
        bool ok = false;
        delta = arguments.value(2).toLongLong(&ok);
        if (!ok)
            return invocation.usageError(QStringLiteral("add needs a whole number, not \"%1\"").arg(arguments.value(2)));
    } else if (action != QLatin1String("get")) {
        return invocation.usageError(QStringLiteral("unknown action \"%1\"; actions: get, add N").arg(action));
    } else if (arguments.size() > 2) {
        return invocation.usageError(QStringLiteral("get takes no number"));
    }
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
    command.summary = QStringLiteral("Read or change a distributed counter (counter NAME [get | add N])");
    command.details = QStringLiteral(
        "A 64-bit counter in the key NAME (8 bytes, big-endian), created with 0 on first\n"
        "use. \"get\" (the default) prints its value; \"add N\" adds N (which may be\n"
        "negative: put -- before it) by compare-and-set and prints the value it committed,\n"
        "so concurrent adders each see a value of their own. --repeat K makes K such\n"
        "additions one after the other, each its own compare-and-set, and prints the\n"
        "value each committed; other adders' values may come in between. A failure stops\n"
        "the run (exit 1) after the values already printed, which were committed.\n"
        "\n"
        "Output: one value per line; with --json one {\"path\", \"value\"} per line.");
    command.arguments = {{QStringLiteral("NAME"), QStringLiteral("The counter's key")},
                         {QStringLiteral("ACTION"), QStringLiteral("get or add"), true},
                         {QStringLiteral("N"), QStringLiteral("add: how much"), true}};
    command.options = {
        QCommandLineOption(QStringLiteral("repeat"),
                           QStringLiteral("add: add K times, one compare-and-set each [default 1]"),
                           QStringLiteral("K")),
    };
    command.run = runCounter;
    return command;
}

} // namespace QEtcd::Cli
