// SPDX-License-Identifier: Apache-2.0
#include "stoptoken.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace QEtcd {

namespace Internal {
class StopState
{
public:
    std::atomic<bool> stopped{false};
    std::mutex mutex;
    quint64 nextId = 1;
    std::map<quint64, std::function<void()>> callbacks;
    // The callback requestStop() is running, on which thread: its StopCallback's destructor
    // waits for it there, or its owner could be gone while the callback still posts to it.
    quint64 running = 0;
    std::thread::id runner;
    std::condition_variable ran;
};
} // namespace Internal

bool StopToken::stopRequested() const
{
    return m_state && m_state->stopped.load();
}

StopSource::StopSource() : m_state(std::make_shared<Internal::StopState>()) {}

bool StopSource::requestStop()
{
    // A callback may destroy this source; the state must outlive the loop.
    const std::shared_ptr<Internal::StopState> keep = m_state;
    Internal::StopState &state = *keep;
    std::unique_lock lock(state.mutex);
    if (state.stopped.exchange(true))
        return false;
    state.runner = std::this_thread::get_id();
    // One at a time, each unregistered as it starts: a callback may destroy StopCallbacks of
    // this same source, or register new ones (which then run at once, on their own thread).
    while (!state.callbacks.empty()) {
        {
            auto first = state.callbacks.begin();
            state.running = first->first;
            std::function<void()> callback = std::move(first->second);
            state.callbacks.erase(first);
            lock.unlock();
            callback();
        }  // its captures are released unlocked too: they may own StopCallbacks
        lock.lock();
        state.running = 0;
        state.ran.notify_all();
    }
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
    std::unique_lock lock(m_state->mutex);
    if (m_state->callbacks.erase(m_id) > 0)
        return;
    // Already run, being run here (from inside the callback itself), or being run on another
    // thread: only the last is waited for.
    if (m_state->runner != std::this_thread::get_id())
        m_state->ran.wait(lock, [this] { return m_state->running != m_id; });
}

} // namespace QEtcd
