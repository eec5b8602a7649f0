// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "selfhealingkeepalive.h"

#include <QEtcd/kvtypes.h>

namespace QEtcd::Internal {

// casEstablish() that holds only while condition does: otherwise nothing is written and the
// answer is whenNot, which should be OwnershipLost for healing to stop. For keys that belong to
// something that can end while their lease is cut off (a barrier's round): a heal after the end
// must not put them back where they would count again.
QFuture<Status> casEstablishWhile(Client *client, const QByteArray &key, const QByteArray &value, qint64 newLeaseId,
                                  qint64 previousLeaseId, const Compare &condition, const Status &whenNot);

} // namespace QEtcd::Internal
