// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QFuture>
#include <QtCore/QMetaObject>
#include <QtCore/QObject>
#include <QtCore/QThread>

#include <atomic>
#include <functional>
#include <memory>

namespace QEtcd::Internal {

// The thread a one-shot job over many keys (export, import, bulk delete) runs on: the job reads
// and writes files and waits for one call at a time there, as a plain sequence, and neither the
// owner's thread (the GUI's) nor the library's threads ever wait for it. The owner hears of it
// through report(), which runs on the owner's thread and never after the owner is gone.
class KeyJobThread
{
public:
    explicit KeyJobThread(QObject *owner) : m_owner(owner) {}
    // Cancels the job and waits for its thread: what it reports meanwhile is dropped with the
    // owner's pending events.
    ~KeyJobThread()
    {
        cancel();
        if (m_thread)
            m_thread->wait();
    }
    Q_DISABLE_COPY_MOVE(KeyJobThread)

    void start(const QString &name, std::function<void()> work)
    {
        m_thread.reset(QThread::create(std::move(work)));
        m_thread->setObjectName(name);
        m_thread->start();
    }
    // Seen by the job between calls: a call in flight is waited for, each bounded by its timeout.
    void cancel() { m_cancelled = true; }
    bool isCancelled() const { return m_cancelled; }

    QObject *owner() const { return m_owner; }
    // Runs what on the owner's thread.
    template <class What>
    void report(What what) const
    {
        QMetaObject::invokeMethod(m_owner, std::move(what), Qt::QueuedConnection);
    }

    // The job's thread may block: it is its own.
    template <class T>
    static T await(QFuture<T> future)
    {
        future.waitForFinished();
        return future.result();
    }

private:
    QObject *m_owner;
    std::atomic<bool> m_cancelled{false};
    std::unique_ptr<QThread> m_thread;
};

} // namespace QEtcd::Internal
