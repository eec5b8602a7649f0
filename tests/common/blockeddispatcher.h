// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "clientthread_p.h"

#include <QEtcd/client.h>

#include <QtCore/QSemaphore>

#include <memory>

namespace QEtcd::Testing {

// Keeps a client's dispatcher thread busy from construction until free() or destruction: what
// the library posts there waits, while everything that runs elsewhere goes on. The semaphores
// are shared with the blocking function, which may outlive this object when it never ran.
class BlockedDispatcher
{
public:
    BlockedDispatcher(Client *client, int timeoutMs)
    {
        QMetaObject::invokeMethod(Internal::dispatcherContext(client), [blocked = m_blocked, freed = m_freed] {
            blocked->release();
            freed->acquire();
        });
        m_running = m_blocked->tryAcquire(1, timeoutMs);
    }
    ~BlockedDispatcher() { free(); }
    Q_DISABLE_COPY_MOVE(BlockedDispatcher)

    // True once the dispatcher runs nothing but the block.
    bool isBlocked() const { return m_running && !m_wasFreed; }

    void free()
    {
        if (!std::exchange(m_wasFreed, true))
            m_freed->release();
    }

private:
    std::shared_ptr<QSemaphore> m_blocked = std::make_shared<QSemaphore>();
    std::shared_ptr<QSemaphore> m_freed = std::make_shared<QSemaphore>();
    bool m_running = false;
    bool m_wasFreed = false;
};

} // namespace QEtcd::Testing
