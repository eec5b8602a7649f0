// SPDX-License-Identifier: Apache-2.0
#include "clientleases_p.h"

#include "freedmemory_p.h"

namespace QEtcd::Internal {

ClientLeases::ClientLeases(ClientPrivate *client)
    : m_healGate(std::max(1, client->options.maxConcurrentHeals),  // refused options never heal
                 [] { giveBackFreedMemory(); }),  // a lambda: a function pointer's typeinfo would be exported
      m_establishments(client->lifeline()), m_revokes(client)
{
    if (Transport *transport = client->transport())
        m_hub = std::make_unique<KeepAliveHub>(transport);
}

ClientLeases &ClientLeases::of(ClientPrivate *client)
{
    ClientPart *part = client->leasePart([client] { return std::unique_ptr<ClientPart>(new ClientLeases(client)); });
    return static_cast<ClientLeases &>(*part);
}

void ClientLeases::revokeUnlessGone(const std::shared_ptr<ClientLifeline> &lifeline, qint64 id)
{
    lifeline->use([id](Client *client) { of(ClientPrivate::get(client)).revokes().revoke(id); });
}

} // namespace QEtcd::Internal
