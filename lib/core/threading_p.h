// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QObject>
#include <QtCore/QThread>
#include <QtCore/QTimer>

#include <memory>

namespace QEtcd::Internal {

// Runs function on context's thread and waits for it: directly when already there, so a call
// from the dispatcher thread itself cannot deadlock, and directly when that thread has stopped
// (a client being torn down) or is gone with its client (QML may destroy an EtcdClient before
// the models on it), where nothing could ever answer.
template <class Function>
void runOn(QObject *context, Function function)
{
    QThread *thread = context->thread();  // null once the QThread object is destroyed
    if (!thread || QThread::currentThread() == thread || !thread->isRunning())
        function();
    else
        QMetaObject::invokeMethod(context, std::move(function), Qt::BlockingQueuedConnection);
}

// The timer behind a caller's timeout: single-shot and precise, because a coarse timer may fire
// 5% early and a timeout is a promise not to give up sooner.
inline std::unique_ptr<QTimer> makeDeadlineTimer()
{
    auto timer = std::make_unique<QTimer>();
    timer->setSingleShot(true);
    timer->setTimerType(Qt::PreciseTimer);
    return timer;
}

} // namespace QEtcd::Internal
