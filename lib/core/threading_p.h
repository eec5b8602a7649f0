#pragma once

#include <QtCore/QObject>
#include <QtCore/QThread>

namespace QEtcd::Internal {

// Runs function on context's thread and waits for it: directly when already there, so a call
// from the dispatcher thread itself cannot deadlock, and directly when that thread has stopped
// (a client being torn down), where nothing could ever answer.
template <class Function>
void runOn(QObject *context, Function function)
{
    QThread *thread = context->thread();
    if (QThread::currentThread() == thread || !thread->isRunning())
        function();
    else
        QMetaObject::invokeMethod(context, std::move(function), Qt::BlockingQueuedConnection);
}

} // namespace QEtcd::Internal
