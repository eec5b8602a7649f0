#pragma once

// One client's lease heals take turns (ClientOptions::maxConcurrentHeals at a time): after a
// partition every lease of the client expires together, and granting thousands at once makes
// etcd refuse part of them, which then sit out their backoff while their keys stay gone.
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
    void enter(QObject *context, std::function<void()> turn)
    {
        if (m_free > 0) {
            --m_free;
            turn();
            return;
        }
        m_waiting.emplace_back(context, std::move(turn));
    }

    void leave()
    {
        while (!m_waiting.empty()) {
            auto [context, turn] = std::move(m_waiting.front());
            m_waiting.pop_front();
            if (context) {
                turn();  // the slot passes straight on
                return;
            }
        }
        ++m_free;
    }

private:
    int m_free;
    std::deque<std::pair<QPointer<QObject>, std::function<void()>>> m_waiting;
};

} // namespace QEtcd::Internal
