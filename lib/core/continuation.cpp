// SPDX-License-Identifier: Apache-2.0
#include "continuation_p.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QThread>

#include <mutex>
#include <unordered_map>

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

struct ContextMailboxes
{
    std::mutex mutex;
    std::unordered_map<QObject *, std::shared_ptr<Mailbox>> byContext;
};

ContextMailboxes &contextMailboxes()
{
    static auto *instance = new ContextMailboxes;  // never destroyed, as the futures thread
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

std::shared_ptr<Mailbox> contextMailbox(QObject *context)
{
    if (!context)
        return {};
    ContextMailboxes &all = contextMailboxes();
    std::shared_ptr<Mailbox> made;
    {
        std::lock_guard lock(all.mutex);
        auto [entry, inserted] = all.byContext.try_emplace(context);
        if (!inserted)
            return entry->second;
        made = entry->second = Mailbox::create(context);
    }
    // Connected outside the lock: a context dying on another thread takes it once closed.
    QObject::connect(context, &QObject::destroyed, [context, made] {
        made->close();
        ContextMailboxes &all = contextMailboxes();
        std::lock_guard lock(all.mutex);
        if (const auto entry = all.byContext.find(context); entry != all.byContext.end() && entry->second == made)
            all.byContext.erase(entry);
    });
    return made;
}

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
