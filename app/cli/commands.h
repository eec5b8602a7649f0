#pragma once

#include "command.h"

namespace QEtcd::Cli {

Command statusCommand();
Command getCommand();
Command putCommand();
Command deleteCommand();
Command watchCommand();
Command leaseCommand();

} // namespace QEtcd::Cli
