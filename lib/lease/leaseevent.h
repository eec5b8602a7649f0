// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/enums.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QMetaType>

namespace QEtcd {

/// What happened to a lease: its renewals stalled, it expired, it was healed, or healing stopped.
struct QETCD_EXPORT LeaseEvent
{
    LeaseEventKind kind = LeaseEventKind::Suspended;  ///< What happened.
    qint64 leaseId = -1;     ///< The lease the event is about (the old one for Restored).
    qint64 newLeaseId = -1;  ///< Restored only: the lease that replaces it.
    Status cause;            ///< Why, for every kind but Restored.
    qint64 monotonicMs = 0;  ///< When, by std::chrono::steady_clock, in milliseconds.

    /// The event in one line, lease IDs in hex ("Expired lease=694d8a3c5e1f2b07 cause=..."), for
    /// logs and histories.
    QString toString() const;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::LeaseEvent)
