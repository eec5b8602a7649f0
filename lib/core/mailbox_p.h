// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "lifeline_p.h"

#include <QtCore/QObject>

#include <memory>

namespace QEtcd::Internal {

// Hands work from another thread (the completion-queue thread, the futures thread) to a
// QObject's own thread. The mailbox is closed as the object dies, by its owner first thing in
// its destructor or by contextMailbox() (continuation_p.h); after that nothing more is posted,
// and what was already posted is discarded by Qt when the object dies. This is how transport
// code reaches a QObject; the one exception is an exclusivity lease's events, which go to the
// client's loss thread instead (ClientPrivate::tellOnLossThread, through the lease's LossGate).
class Mailbox
{
public:
    explicit Mailbox(QObject *target) : m_target(target) {}

    static std::shared_ptr<Mailbox> create(QObject *target) { return std::make_shared<Mailbox>(target); }

    template <class Function>
    void post(Function &&function)
    {
        m_target.use([&function](QObject *target) {
            QMetaObject::invokeMethod(target, std::forward<Function>(function), Qt::QueuedConnection);
        });
    }

    void close() { m_target.cut(); }

private:
    Lifeline<QObject> m_target;
};

} // namespace QEtcd::Internal
