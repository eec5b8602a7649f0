#pragma once

#include <QtCore/QObject>
#include <QtCore/QThread>

namespace QEtcd::Internal {

// Runs function on context's thread and waits for it: directly when already there, so a call
// from the dispatcher thread itself cannot deadlock.
template <class Function>
void runOn(QObject *context, Function function)
{
    if (QThread::currentThread() == context->thread())
        function();
    else
        QMetaObject::invokeMethod(context, std::move(function), Qt::BlockingQueuedConnection);
}

} // namespace QEtcd::Internal
