// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QString>

#include <chrono>

namespace QEtcd::Internal {

enum class LeaseCount { Suspension, Loss, HealAttemptFailed };

// The slot of a kind in LeaseMetrics, added on first use; stable for the process's life, so a
// lease keeps it in an atomic int and counts without looking its name up.
QETCD_INTERNAL_EXPORT int leaseMetricsKind(const QString &kind);
QETCD_INTERNAL_EXPORT void countLease(int kind, LeaseCount what);
// A heal that took \a took from the expiry to the keys back.
QETCD_INTERNAL_EXPORT void countHeal(int kind, std::chrono::milliseconds took);

} // namespace QEtcd::Internal
