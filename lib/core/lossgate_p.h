// SPDX-License-Identifier: Apache-2.0
#pragma once

// Losses are told from the client's loss thread into objects that other threads own and may be
// destroying at that moment. A tell runs through the object's gate; the owner closes the gate
// before it goes, which waits out a tell in progress, and no tell runs after that. The mutex
// is recursive so that a listener may close, or destroy, what told it from inside the tell.

#include <QtCore/QMutex>

namespace QEtcd::Internal {

class LossGate
{
public:
    template <class Tell>
    void run(Tell &&tell)
    {
        QMutexLocker locker(&m_mutex);
        if (m_open)
            tell();
    }

    // Inside a tell: false once a listener closed the gate, and with it perhaps destroyed the
    // object that is telling.
    bool isOpen()
    {
        QMutexLocker locker(&m_mutex);
        return m_open;
    }

    void close()
    {
        QMutexLocker locker(&m_mutex);
        m_open = false;
    }

private:
    QRecursiveMutex m_mutex;
    bool m_open = true;
};

} // namespace QEtcd::Internal
