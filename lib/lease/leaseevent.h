#pragma once

#include <QEtcd/enums.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QMetaType>

namespace QEtcd {

struct QETCD_EXPORT LeaseEvent
{
    LeaseEventKind kind = LeaseEventKind::Suspended;
    qint64 leaseId = -1;     // the lease the event is about (the old one for Restored)
    qint64 newLeaseId = -1;  // Restored only
    Status cause;
    qint64 monotonicMs = 0;  // std::chrono::steady_clock, in milliseconds

    QString toString() const;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::LeaseEvent)
