// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "holdqueue_p.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QThread>

#include <memory>

namespace QEtcd::Internal {

// The holds that belong to a thread (the mutex's, each side of the read/write lock's): one per
// thread and kind, reentrant, with the API both recipes show for the current thread's hold.
class ThreadHolds
{
public:
    explicit ThreadHolds(HoldQueue *queue) : m_queue(queue) {}

    // Any thread. The hold of thread, unless it is on its way back.
    std::shared_ptr<QueuedHold> of(int kind, QThread *thread = QThread::currentThread()) const;
    // Counts the current thread into its hold of kind once more when it is still valid.
    bool reenter(int kind);
    // The owner thread's unlock(): false when its hold was lost or released by close().
    bool unlock(int kind, const QString &what);
    void insert(const std::shared_ptr<QueuedHold> &hold);
    void remove(const std::shared_ptr<QueuedHold> &hold);
    QList<std::shared_ptr<QueuedHold>> all() const;

    bool isHeld(int kind) const;
    int holdCount(int kind) const;
    qint64 fencingToken(int kind) const;
    QByteArray holdKey(int kind) const;
    qint64 leaseId(int kind) const;
    StopToken stopToken(int kind) const;

private:
    HoldQueue *const m_queue;
    mutable QMutex m_mutex;
    QHash<std::pair<int, QThread *>, std::shared_ptr<QueuedHold>> m_holds;  // guarded by m_mutex
};

} // namespace QEtcd::Internal
