// SPDX-License-Identifier: Apache-2.0
#pragma once

// How a lost hold taken with interruptOnLockLoss (or interruptOnPermitLoss) cancels its owner
// thread's blocking qetcd calls: while armed, a stop requested on the hold's token makes every
// waitBlocking() on that thread return Cancelled. QThread::requestInterruption() would do the
// same, but nothing takes it back: a pooled thread that moves on to other work would have every
// later wait refused. This one ends when the owner lets go of the hold.

#include "stoptoken.h"

#include <QtCore/QThread>

#include <atomic>

namespace QEtcd::Internal {

class LossInterruption
{
public:
    LossInterruption() = default;
    ~LossInterruption() { disarm(); }
    Q_DISABLE_COPY_MOVE(LossInterruption)

    // Any thread. A hold is armed once, when it is claimed.
    void arm(QThread *owner, const StopToken &hold);
    // Any thread; idempotent.
    void disarm();

    // A hold armed for thread was lost.
    static bool pendingFor(QThread *thread);

private:
    std::atomic<quint64> m_id{0};
};

} // namespace QEtcd::Internal
