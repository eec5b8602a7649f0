#pragma once

// For code outside the transport (the models) that must not see gRPC: the client's own thread.

#include <QtCore/QObject>

namespace QEtcd {
class Client;
}

namespace QEtcd::Internal {

// Lives on the client's dispatcher thread and goes with the client: a context for work on the
// client's answers that should neither queue up on the caller's thread nor outlive the client.
QObject *dispatcherContext(Client *client);

} // namespace QEtcd::Internal
