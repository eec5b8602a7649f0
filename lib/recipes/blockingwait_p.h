// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one way a blocking recipe call waits for its asynchronous twin: on a condition variable
// woken by the future, by the hold's stop token, by the deadline, by
// QThread::requestInterruption() or by the loss of a hold that interrupts this thread
// (LossInterruption; both noticed within 50 ms). It refuses to wait on the threads the
// library needs to finish the work, where waiting would deadlock.

#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "lossinterruption_p.h"
#include "status.h"
#include "stoptoken.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QFuture>
#include <QtCore/QThread>

#include <condition_variable>
#include <mutex>

namespace QEtcd::Internal {

struct Wakeup
{
    std::mutex mutex;
    std::condition_variable condition;
    void notify()
    {
        std::lock_guard lock(mutex);
        condition.notify_all();
    }
};

// Ok when the future finished (its result is then ready), otherwise why the wait ended first.
template <class T>
Status waitBlocking(Client *client, const QFuture<T> &future, const QDeadlineTimer &deadline,
                    const StopToken &stop, const QString &what)
{
    ClientPrivate *clientPrivate = ClientPrivate::get(client);
    if (QThread::currentThread() == clientPrivate->dispatcher()
        || (clientPrivate->transport() && clientPrivate->transport()->isCompletionThread())) {
        return Status(StatusCode::WouldDeadlock,
                      what + QStringLiteral(": a blocking call on the library's own thread would never finish; "
                                            "use the asynchronous variant"));
    }
    if (clientPrivate->isLossThread()) {
        return Status(StatusCode::WouldDeadlock,
                      what + QStringLiteral(": a blocking call on the thread that tells losses would hold back "
                                            "every other loss of this client; use the asynchronous variant or a "
                                            "queued connection"));
    }
    auto wakeup = std::make_shared<Wakeup>();
    whenFinished(future, [wakeup](const QFuture<T> &) { wakeup->notify(); });
    const StopCallback onStop(stop, [wakeup] { wakeup->notify(); });
    std::unique_lock lock(wakeup->mutex);
    while (!future.isFinished()) {
        if (stop.stopRequested() || QThread::currentThread()->isInterruptionRequested()
            || LossInterruption::pendingFor(QThread::currentThread()))
            return Status(StatusCode::Cancelled, what + QStringLiteral(": interrupted"));
        if (deadline.hasExpired())
            return Status(StatusCode::DeadlineExceeded, what + QStringLiteral(": timed out"));
        const auto slice = std::min<std::chrono::milliseconds>(
            std::chrono::milliseconds(50),
            std::chrono::ceil<std::chrono::milliseconds>(deadline.remainingTimeAsDuration()));
        wakeup->condition.wait_for(lock, slice);
    }
    return {};
}

} // namespace QEtcd::Internal
