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

    DistributedAtomicLong counter(&invocation.client(), path.toUtf8());
    const QString what = QStringLiteral("counter %1 \"%2\"").arg(action, path);
    const AtomicLongResult result = invocation.await(delta ? counter.addAsync(*delta) : counter.getAsync(), what);
    counter.close();
    if (!result.status)
        return invocation.failed(result.status);
    if (invocation.json())
        invocation.print(QJsonObject{{QLatin1String("path"), path}, {QLatin1String("value"), result.value}});
    else
        invocation.print(QByteArray::number(result.value));
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
        "so concurrent adders each see a value of their own.\n"
        "\n"
        "Output: the value; with --json {\"path\", \"value\"}.");
    command.arguments = {{QStringLiteral("NAME"), QStringLiteral("The counter's key")},
                         {QStringLiteral("ACTION"), QStringLiteral("get or add"), true},
                         {QStringLiteral("N"), QStringLiteral("add: how much"), true}};
    command.run = runCounter;
    return command;
}

} // namespace QEtcd::Cli
