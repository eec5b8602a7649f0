// SPDX-License-Identifier: Apache-2.0
#include "clientleases_p.h"

namespace QEtcd::Internal {

ClientLeases::ClientLeases(ClientPrivate *client)
    : m_healGate(std::max(1, client->options.maxConcurrentHeals)),  // refused options never heal
      m_establishments(client->lifeline())
{
    if (Transport *transport = client->transport())
        m_hub = std::make_unique<KeepAliveHub>(transport);
}

ClientLeases &ClientLeases::of(ClientPrivate *client)
{
    ClientPart *part = client->leasePart([client] { return std::unique_ptr<ClientPart>(new ClientLeases(client)); });
    return static_cast<ClientLeases &>(*part);
}

} // namespace QEtcd::Internal
