#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QtGlobal>

#include <functional>
#include <memory>

namespace QEtcd {

namespace Internal {
class StopState;
}

// A C++17 stand-in for std::stop_token: the holder of a lock or a leadership reads it to learn
// that its hold ended (interruptOnLockLoss, interruptOnLeaseLoss). Cheap to copy, thread-safe.
// A default-constructed token never stops.
class QETCD_EXPORT StopToken
{
public:
    StopToken() = default;
    bool stopRequested() const;
    bool stopPossible() const { return bool(m_state); }

private:
    friend class StopSource;
    friend class StopCallback;
    explicit StopToken(std::shared_ptr<Internal::StopState> state) : m_state(std::move(state)) {}
    std::shared_ptr<Internal::StopState> m_state;
};

class QETCD_EXPORT StopSource
{
public:
    StopSource();
    StopToken token() const { return StopToken(m_state); }
    // True the first time; runs every registered callback on the calling thread.
    bool requestStop();
    bool stopRequested() const;

private:
    std::shared_ptr<Internal::StopState> m_state;
};

// Runs callback once when the token's source requests a stop (at once if it already did),
// unless this object is destroyed first.
class QETCD_EXPORT StopCallback
{
public:
    StopCallback(const StopToken &token, std::function<void()> callback);
    ~StopCallback();
    StopCallback(const StopCallback &) = delete;
    StopCallback &operator=(const StopCallback &) = delete;

private:
    std::shared_ptr<Internal::StopState> m_state;
    quint64 m_id = 0;
};

} // namespace QEtcd
