// SPDX-License-Identifier: Apache-2.0
#include "revokequeue_p.h"

#include "client_p.h"
#include "logging_p.h"

namespace QEtcd::Internal {

void RevokeQueue::revoke(std::int64_t id)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_closed)
            return;
        m_waiting.push_back(id);
    }
    pump();
}

void RevokeQueue::close()
{
    std::lock_guard lock(m_mutex);
    m_closed = true;
    if (!m_waiting.empty())
        qCInfo(lcLease).noquote() << m_waiting.size()
                                  << "leases were not revoked before the client closed; etcd ends them when their TTL runs out";
    m_waiting.clear();
}

// One loop sends while slots are free: an answer that arrives at once (the client refusing the
// call) frees its slot from inside send, and must not nest another send there.
void RevokeQueue::pump()
{
    std::unique_lock lock(m_mutex);
    if (m_pumping)
        return;
    m_pumping = true;
    while (!m_closed && m_inFlight < maxInFlight && !m_waiting.empty()) {
        const std::int64_t id = m_waiting.front();
        m_waiting.pop_front();
        ++m_inFlight;
        lock.unlock();
        m_client->leaseRevoke(id, m_client->options.rpc, [this, id](const Result &revoked) {
            if (!revoked.status && !revoked.status.isLeaseNotFound() && revoked.status.code() != StatusCode::Cancelled)
                qCDebug(lcLease).noquote() << "revoking lease" << QString::number(id, 16)
                                          << "failed:" << revoked.status.toString();
            {
                std::lock_guard lock(m_mutex);
                --m_inFlight;
            }
            pump();
        });
        lock.lock();
    }
    m_pumping = false;
}

} // namespace QEtcd::Internal
