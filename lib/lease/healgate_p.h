// SPDX-License-Identifier: Apache-2.0
#pragma once

// One client's lease heals take turns (ClientOptions::maxConcurrentHeals at a time): after a
// partition every lease of the client expires together, and granting thousands at once makes
// etcd refuse part of them, which then sit out their backoff while their keys stay gone. A
// lease's first grant, at its start, takes a turn the same way. What
// follows a heal (revoking the lease it replaced) takes turns too, once no heal waits or runs:
// it only tidies up, and must not hold back a key that is still gone.
//
// A burst leaves memory behind: each grant in flight holds its gRPC call's (about 21 KiB), which
// the allocator keeps once freed among the leases' lasting allocations, megabytes after a few
// hundred at once. The gate says when it falls idle after one, for that memory to go back.
//
// Dispatcher thread only.

#include <QtCore/QObject>
#include <QtCore/QPointer>

#include <algorithm>
#include <deque>
#include <functional>
#include <utility>

namespace QEtcd::Internal {

class HealGate
{
public:
    // Not "slots": Qt defines that word away.
    // afterBurst runs once the gate falls idle (tidying done too) after BurstInFlight or more
    // turns ran at once.
    HealGate(int capacity, std::function<void()> afterBurst)
        : m_capacity(capacity), m_free(capacity), m_afterBurst(std::move(afterBurst))
    {
    }

    // Below this many at once, what a burst leaves is not worth the allocator's walk.
    static constexpr int BurstInFlight = 16;

    // Runs turn now while a slot is free, else once one is, in arrival order. A turn whose
    // context is gone by then is skipped. A heal let in gives its slot back with leave().
    void enter(QObject *context, std::function<void()> turn)
    {
        m_heals.emplace_back(context, std::move(turn));
        admit();
    }
    // The same for the tidying after a heal, let in only while no heal waits or runs: each
    // request of it would slow a heal whose keys are still gone. Gives its slot back with
    // leaveTidying().
    void enterAfterHeals(QObject *context, std::function<void()> turn)
    {
        m_tidying.emplace_back(context, std::move(turn));
        admit();
    }
    void leave()
    {
        --m_healing;
        ++m_free;
        admit();
        endOfBurst();
    }
    void leaveTidying()
    {
        ++m_free;
        admit();
        endOfBurst();
    }

private:
    using Turn = std::function<void()>;
    using Queue = std::deque<std::pair<QPointer<QObject>, Turn>>;

    // Iterative, though a turn may leave at once: thousands of heals given up while they
    // waited would otherwise nest as deep.
    void admit()
    {
        if (m_admitting)
            return;
        m_admitting = true;
        while (m_free > 0) {
            if (Turn turn = takeLive(m_heals)) {
                --m_free;
                ++m_healing;
                turn();
            } else if (Turn tidying = m_healing == 0 ? takeLive(m_tidying) : Turn()) {
                --m_free;
                tidying();
            } else {
                break;
            }
            m_mostInFlight = std::max(m_mostInFlight, m_capacity - m_free);
        }
        m_admitting = false;
    }

    void endOfBurst()
    {
        if (m_free < m_capacity || m_mostInFlight < BurstInFlight)
            return;
        m_mostInFlight = 0;
        m_afterBurst();
    }

    static Turn takeLive(Queue &queue)
    {
        while (!queue.empty()) {
            auto [context, turn] = std::move(queue.front());
            queue.pop_front();
            if (context)
                return std::move(turn);
        }
        return {};
    }

    const int m_capacity;
    int m_free;
    const std::function<void()> m_afterBurst;
    int m_mostInFlight = 0;
    int m_healing = 0;
    bool m_admitting = false;
    Queue m_heals;
    Queue m_tidying;
};

} // namespace QEtcd::Internal
