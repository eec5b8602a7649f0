// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QtGlobal>

#include <functional>
#include <memory>

namespace QEtcd {

namespace Internal {
class StopState;
}

/// A C++17 stand-in for std::stop_token: the holder of a lock or a leadership reads it to learn
/// that its hold ended.
///
/// The recipes set it on loss when asked to (LockOptions::interruptOnLockLoss,
/// SemaphoreOptions::interruptOnPermitLoss, ElectionOptions::interruptOnLeaseLoss); a
/// LeaderSelector also sets its term's token when it is closed. Cheap to copy, thread-safe.
class QETCD_EXPORT StopToken
{
public:
    /// A token that never stops.
    StopToken() = default;
    /// Its source has requested a stop.
    bool stopRequested() const;
    /// A stop can ever be requested: false for a default-constructed token.
    bool stopPossible() const { return bool(m_state); }

private:
    friend class StopSource;
    friend class StopCallback;
    explicit StopToken(std::shared_ptr<Internal::StopState> state) : m_state(std::move(state)) {}
    std::shared_ptr<Internal::StopState> m_state;
};

/// Where stop requests come from: hands out StopTokens and requests the stop they observe.
/// Thread-safe.
class QETCD_EXPORT StopSource
{
public:
    /// A source whose stop is not requested yet.
    StopSource();
    /// A token that observes this source.
    StopToken token() const { return StopToken(m_state); }
    /// Requests the stop: true the first time, when it also runs every registered StopCallback on
    /// the calling thread; false after that.
    bool requestStop();
    /// A stop has been requested.
    bool stopRequested() const;

private:
    std::shared_ptr<Internal::StopState> m_state;
};

/// Runs a callback once when a token's source requests a stop, unless destroyed first.
class QETCD_EXPORT StopCallback
{
public:
    /// Registers \a callback with \a token's source; runs it at once, on this thread, when the
    /// stop was already requested. A token that cannot stop never runs it.
    StopCallback(const StopToken &token, std::function<void()> callback);
    /// Unregisters the callback. If a requestStop() on another thread is running it, waits until
    /// it has returned, as std::stop_callback does: once destroyed, the callback no longer runs
    /// and touches nothing. So a callback must not wait for the thread that destroys it.
    /// Destroyed from inside its own callback, it does not wait.
    ~StopCallback();
    StopCallback(const StopCallback &) = delete;
    StopCallback &operator=(const StopCallback &) = delete;

private:
    std::shared_ptr<Internal::StopState> m_state;
    quint64 m_id = 0;
};

} // namespace QEtcd
