// SPDX-License-Identifier: Apache-2.0
#pragma once

// A pointer its owner cuts first thing in its destructor, for code on other threads that may
// outlive the owner: each use either happens before the cut, which waits it out, or not at all.

#include <mutex>

namespace QEtcd::Internal {

template <class T>
class Lifeline
{
public:
    explicit Lifeline(T *target) : m_target(target) {}

    // Runs use(target) unless cut; false then. The owner's destructor waits for a use in
    // progress, so a use only starts work (a request, a posted call) and returns.
    template <class Use>
    bool use(Use &&use)
    {
        std::lock_guard lock(m_mutex);
        if (!m_target)
            return false;
        use(m_target);
        return true;
    }

    void cut()
    {
        std::lock_guard lock(m_mutex);
        m_target = nullptr;
    }

private:
    std::mutex m_mutex;
    T *m_target;
};

} // namespace QEtcd::Internal
