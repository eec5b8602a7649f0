// SPDX-License-Identifier: Apache-2.0
#include "stoptoken.h"

#include <atomic>
#include <map>
#include <mutex>

namespace QEtcd {

namespace Internal {
class StopState
{
public:
    std::atomic<bool> stopped{false};
    std::mutex mutex;
    quint64 nextId = 1;
    std::map<quint64, std::function<void()>> callbacks;
};
} // namespace Internal

bool StopToken::stopRequested() const
{
    return m_state && m_state->stopped.load();
}

StopSource::StopSource() : m_state(std::make_shared<Internal::StopState>()) {}

bool StopSource::requestStop()
{
    std::map<quint64, std::function<void()>> callbacks;
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->stopped.exchange(true))
            return false;
        callbacks.swap(m_state->callbacks);
    }
    for (auto &[id, callback] : callbacks)
        callback();
    return true;
}

bool StopSource::stopRequested() const
{
    return m_state->stopped.load();
}

StopCallback::StopCallback(const StopToken &token, std::function<void()> callback) : m_state(token.m_state)
{
    if (!m_state)
        return;
    {
        std::lock_guard lock(m_state->mutex);
        if (!m_state->stopped.load()) {
            m_id = m_state->nextId++;
            m_state->callbacks.emplace(m_id, std::move(callback));
            return;
        }
    }
    callback();
}

StopCallback::~StopCallback()
{
    if (!m_state || !m_id)
        return;
    std::lock_guard lock(m_state->mutex);
    m_state->callbacks.erase(m_id);
}

} // namespace QEtcd
