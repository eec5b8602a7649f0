// SPDX-License-Identifier: Apache-2.0
#pragma once

// The lease layer's part of a client: the one keep-alive stream that renews every lease of the
// client, the gate its heals take turns at, the batcher their establishments go through, and the
// queue the revokes nobody waits for take.
// The client owns it, as a ClientPart.

#include "client_p.h"
#include "healgate_p.h"
#include "keepalivehub_p.h"
#include "revokequeue_p.h"
#include "txnbatcher_p.h"

#include <memory>

namespace QEtcd::Internal {

class ClientLeases final : public ClientPart
{
public:
    // The client's, made on first use.
    static ClientLeases &of(ClientPrivate *client);

    // Null when the client's options were refused, and once the client is being destroyed.
    KeepAliveHub *keepAliveHub() const { return m_hub.get(); }
    // Dispatcher thread only.
    HealGate &healGate() { return m_healGate; }
    // Any thread.
    TxnBatcher &establishments() { return m_establishments; }
    // Any thread.
    RevokeQueue &revokes() { return m_revokes; }
    // From a thread that may outlive the client: nothing once it is gone.
    static void revokeUnlessGone(const std::shared_ptr<ClientLifeline> &lifeline, qint64 id);

    void windDown() override
    {
        m_hub.reset();
        m_revokes.close();
    }

private:
    explicit ClientLeases(ClientPrivate *client);

    std::unique_ptr<KeepAliveHub> m_hub;
    HealGate m_healGate;
    TxnBatcher m_establishments;
    RevokeQueue m_revokes;
};

} // namespace QEtcd::Internal
