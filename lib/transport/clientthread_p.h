// SPDX-License-Identifier: Apache-2.0
#pragma once

// For code that must not see gRPC (the models) or may outlive its client (an orphaned
// continuation): the client's own thread, and a way to call a client that may be going.

#include "lifeline_p.h"

#include <QEtcd/qetcdexport.h>

#include <QtCore/QObject>

#include <memory>

namespace QEtcd {
class Client;
}

namespace QEtcd::Internal {

// Lives on the client's dispatcher thread and goes with the client: a context for work on the
// client's answers that should neither queue up on the caller's thread nor outlive the client.
QETCD_INTERNAL_EXPORT QObject *dispatcherContext(Client *client);

// Held by what may run after its client is gone (an orphaned continuation revoking a lease it
// was granted too late): the client cuts it first thing in its destructor, and a call through
// it is then dropped instead of made.
using ClientLifeline = Lifeline<Client>;
std::shared_ptr<ClientLifeline> lifelineOf(Client *client);

} // namespace QEtcd::Internal
