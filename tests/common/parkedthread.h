// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QFile>

#include <sys/types.h>
#include <unistd.h>

#include <atomic>

namespace QEtcd::Testing {

// Tells when a thread that went into a blocking library call is parked in it, so a test can
// close or interrupt what it waits on knowing which answer is the right one. The thread calls
// enter() right before the blocking call; parked() is true once the kernel has shown it asleep
// (state S in /proc) on three looks in a row, which a passing lock never keeps it.
class ParkedThread
{
public:
    void enter() { m_tid = ::gettid(); }

    bool parked()
    {
        m_asleepLooks = asleep() ? m_asleepLooks + 1 : 0;
        return m_asleepLooks >= 3;
    }

private:
    bool asleep() const
    {
        const pid_t tid = m_tid;
        if (tid == 0)
            return false;
        QFile stat(QStringLiteral("/proc/self/task/%1/stat").arg(tid));
        if (!stat.open(QIODevice::ReadOnly))
            return false;
        const QByteArray line = stat.readAll();
        const qsizetype afterName = line.lastIndexOf(')');  // the name itself may hold ") "
        return afterName >= 0 && line.mid(afterName + 2, 1) == "S";
    }

    std::atomic<pid_t> m_tid{0};
    int m_asleepLooks = 0;
};

} // namespace QEtcd::Testing
