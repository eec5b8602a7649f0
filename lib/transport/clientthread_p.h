#pragma once

// For code that must not see gRPC (the models) or may outlive its client (an orphaned
// continuation): the client's own thread, and a way to call a client that may be going.

#include <QtCore/QObject>

#include <functional>
#include <memory>
#include <mutex>

namespace QEtcd {
class Client;
}

namespace QEtcd::Internal {

// Lives on the client's dispatcher thread and goes with the client: a context for work on the
// client's answers that should neither queue up on the caller's thread nor outlive the client.
QObject *dispatcherContext(Client *client);

// Held by what may run after its client is gone (an orphaned continuation revoking a lease it
// was granted too late): once the client begins to go, its calls are dropped instead of made.
class ClientLifeline
{
public:
    explicit ClientLifeline(Client *client) : m_client(client) {}

    // Runs call with the client unless it has begun to go; false then. The client cannot begin
    // to go while call runs, so call only starts work (a request) and returns.
    bool use(const std::function<void(Client *)> &call)
    {
        std::lock_guard lock(m_mutex);
        if (!m_client)
            return false;
        call(m_client);
        return true;
    }
    // The client's destructor, first thing.
    void cut()
    {
        std::lock_guard lock(m_mutex);
        m_client = nullptr;
    }

private:
    std::mutex m_mutex;
    Client *m_client;
};

std::shared_ptr<ClientLifeline> lifelineOf(Client *client);

} // namespace QEtcd::Internal
