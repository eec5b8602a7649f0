#pragma once

// One client's lease heals take turns (ClientOptions::maxConcurrentHeals at a time): after a
// partition every lease of the client expires together, and granting thousands at once makes
// etcd refuse part of them, which then sit out their backoff while their keys stay gone. What
// follows a heal (revoking the lease it replaced) takes turns too, behind every heal that waits:
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
    // context is gone by then is skipped. Whoever was let in gives the slot back with leave().
    void enter(QObject *context, std::function<void()> turn) { enterQueue(m_heals, context, std::move(turn)); }
    // The same for the tidying after a heal: let in only when no heal waits.
    void enterAfterHeals(QObject *context, std::function<void()> turn)
    {
        enterQueue(m_tidying, context, std::move(turn));
    }

    void leave()
    {
        for (Queue *queue : {&m_heals, &m_tidying}) {
            while (!queue->empty()) {
                auto [context, turn] = std::move(queue->front());
                queue->pop_front();
                if (context) {
                    turn();  // the slot passes straight on
                    return;
                }
            }
        }
        ++m_free;
    }

private:
    using Queue = std::deque<std::pair<QPointer<QObject>, std::function<void()>>>;

    // While a slot is free neither queue holds anyone.
    void enterQueue(Queue &queue, QObject *context, std::function<void()> turn)
    {
        if (m_free > 0) {
            --m_free;
            turn();
            return;
        }
        queue.emplace_back(context, std::move(turn));
    }

    int m_free;
    Queue m_heals;
    Queue m_tidying;
};

} // namespace QEtcd::Internal
