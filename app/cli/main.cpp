// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QLoggingCategory>

int main(int argc, char *argv[])
{
    // The CLI reports a failure as one line of its own; the library's warnings and gRPC's log
    // would repeat it in other words. QT_LOGGING_RULES and GRPC_VERBOSITY still turn them on.
    QLoggingCategory::setFilterRules(QStringLiteral("qetcd.*.info=false\nqetcd.*.warning=false"));
    if (qEnvironmentVariableIsEmpty("GRPC_VERBOSITY"))
        qputenv("GRPC_VERBOSITY", "NONE");

    QCoreApplication app(argc, argv);

    using namespace QEtcd::Cli;
    return runCommandLine(QCoreApplication::arguments(),
                          {statusCommand(), getCommand(), putCommand(), deleteCommand(), txnCommand(), watchCommand(),
                           leaseCommand(), memberCommand(), endpointCommand(), lockCommand(), electCommand(), semaphoreCommand(),
                           barrierCommand(), doubleBarrierCommand(), serviceCommand(), counterCommand(),
                           queueCommand(), inspectCommand(), historyCommand(), exporterCommand(), recordCommand(), alarmCommand(),
                           defragCommand(), checkCommand(), compactionCommand(), moveLeaderCommand(),
                           userCommand(), roleCommand(), authCommand(), snapshotCommand(),
                           exportCommand(), importCommand(), diffCommand(), makeMirrorCommand(), versionCommand()});
}
