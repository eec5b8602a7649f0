// SPDX-License-Identifier: Apache-2.0
#pragma once

// Revokes nobody waits for (a keep-alive closed or destroyed, a lease granted to one that went
// away meanwhile), at most a fixed number in flight per client. Each gRPC call holds about
// 10 KiB until answered: sent all at once, the revokes of 10,000 keep-alives destroyed together
// grew the process by 146 MiB, and etcd took five times as long to answer them all.
//
// Thread-safe. Answers are taken on the completion-queue thread, which sends the next.

#include <cstdint>
#include <deque>
#include <mutex>

namespace QEtcd {
class ClientPrivate;
}

namespace QEtcd::Internal {

class RevokeQueue
{
public:
    // 10,000 revokes: 2.6 s at 64, 2.0 s at 128, 1.8 s at 256 (docs/leases-and-loss.md); this
    // many cost about 5 MiB while in flight.
    static constexpr int maxInFlight = 128;

    explicit RevokeQueue(ClientPrivate *client) : m_client(client) {}

    // Revokes id once a slot is free, best effort: an error is logged, not retried.
    void revoke(std::int64_t id);
    // The client is going: what still waits is left to run out its TTL on the server.
    void close();

private:
    void pump();

    ClientPrivate *const m_client;
    std::mutex m_mutex;
    std::deque<std::int64_t> m_waiting;
    int m_inFlight = 0;
    bool m_pumping = false;
    bool m_closed = false;
};

} // namespace QEtcd::Internal
