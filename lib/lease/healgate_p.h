// SPDX-License-Identifier: Apache-2.0
#pragma once

// One client's lease heals take turns (ClientOptions::maxConcurrentHeals at a time): after a
// partition every lease of the client expires together, and granting thousands at once makes
// etcd refuse part of them, which then sit out their backoff while their keys stay gone. A
// lease's first grant, at its start, takes a turn the same way. What
// follows a heal (revoking the lease it replaced) takes turns too, once no heal waits or runs:
// it only tidies up, and must not hold back a key that is still gone.
//
// Dispatcher thread only.

#include <QtCore/QObject>
#include <QtCore/QPointer>

#include <deque>
#include <functional>
#include <utility>

namespace QEtcd::Internal {

class HealGate
{
public:
    // Not "slots": Qt defines that word away.
    explicit HealGate(int capacity) : m_free(capacity) {}

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
    }
    void leaveTidying()
    {
        ++m_free;
        admit();
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
        }
        m_admitting = false;
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

    int m_free;
    int m_healing = 0;
    bool m_admitting = false;
    Queue m_heals;
    Queue m_tidying;
};

} // namespace QEtcd::Internal
