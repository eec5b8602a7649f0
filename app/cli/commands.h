// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "command.h"

namespace QEtcd::Cli {

Command statusCommand();
Command versionCommand();
Command getCommand();
Command putCommand();
Command deleteCommand();
Command txnCommand();
Command makeMirrorCommand();
Command watchCommand();
Command leaseCommand();
Command memberCommand();
Command endpointCommand();
Command lockCommand();
Command electCommand();
Command semaphoreCommand();
Command barrierCommand();
Command doubleBarrierCommand();
Command serviceCommand();
Command counterCommand();
Command queueCommand();
Command inspectCommand();
// --layouts FILE, for the commands that recognise coordination objects (inspect, history).
QCommandLineOption layoutsOption();
// Declares the layouts --layouts names (or the default file's); false after a usage error.
bool declareLayouts(Invocation &invocation, int *exitCode);
Command historyCommand();
Command exporterCommand();
Command recordCommand();
Command alarmCommand();
Command defragCommand();
// Defragments members one at a time in the order given, a line each as `defrag` prints them;
// Success, or the exit code of the first failure.
int defragmentMembers(Invocation &invocation, const QList<EndpointStatusResult> &members);
Command checkCommand();
Command compactionCommand();
Command moveLeaderCommand();
Command userCommand();
Command roleCommand();
Command authCommand();
Command snapshotCommand();
Command exportCommand();
Command importCommand();
Command diffCommand();

} // namespace QEtcd::Cli
