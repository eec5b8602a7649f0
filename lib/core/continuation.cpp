// SPDX-License-Identifier: Apache-2.0
#include "continuation_p.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QThread>

#include <mutex>

namespace QEtcd::Internal {

namespace {
struct FuturesThread
{
    std::mutex mutex;
    QThread *thread = nullptr;
    QObject *context = nullptr;
};

FuturesThread &futures()
{
    static auto *instance = new FuturesThread;  // never destroyed: clients may outlive static teardown
    return *instance;
}

// With the application goes its event loops: work posted after this is dropped, which cancels
// the futures it would have settled.
void stopFuturesThread()
{
    FuturesThread &state = futures();
    QThread *thread = nullptr;
    QObject *context = nullptr;
    {
        std::lock_guard lock(state.mutex);
        thread = std::exchange(state.thread, nullptr);
        context = std::exchange(state.context, nullptr);
    }
    if (!thread)
        return;
    thread->quit();
    thread->wait();
    delete context;
    delete thread;
}
} // namespace

void onFuturesThread(std::function<void()> work)
{
    FuturesThread &state = futures();
    std::lock_guard lock(state.mutex);
    if (!state.context && QCoreApplication::instance() && !QCoreApplication::closingDown()) {
        state.thread = new QThread;
        state.thread->setObjectName(QStringLiteral("qetcd-futures"));
        state.context = new QObject;
        state.context->moveToThread(state.thread);
        state.thread->start();
        qAddPostRoutine(stopFuturesThread);
    }
    // Posted under the lock, so the thread cannot be stopped in between.
    if (state.context)
        QMetaObject::invokeMethod(state.context, std::move(work), Qt::QueuedConnection);
}

} // namespace QEtcd::Internal
