#pragma once

#include "command.h"

namespace QEtcd::Cli {

Command statusCommand();
Command getCommand();
Command putCommand();
Command deleteCommand();

} // namespace QEtcd::Cli
