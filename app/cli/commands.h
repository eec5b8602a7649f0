#pragma once

#include "command.h"

namespace QEtcd::Cli {

Command statusCommand();
Command getCommand();
Command putCommand();
Command deleteCommand();
Command watchCommand();
Command leaseCommand();
Command lockCommand();
Command electCommand();
Command semaphoreCommand();
Command barrierCommand();
Command doubleBarrierCommand();
Command serviceCommand();
Command counterCommand();
Command queueCommand();
Command inspectCommand();
Command historyCommand();
Command recordCommand();
Command alarmCommand();
Command defragCommand();
Command checkCommand();
Command moveLeaderCommand();

} // namespace QEtcd::Cli
