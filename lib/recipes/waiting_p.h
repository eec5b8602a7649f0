#pragma once

// Shared mechanics of every recipe that queues: the identity value a participant writes, and
// waiting for a key to disappear.

#include "client.h"
#include "resilience.h"
#include "stoptoken.h"

#include <QtCore/QFuture>

namespace QEtcd::Internal {

// {"clientId":…,"host":…,"pid":…,"requestedAt":…}: lets a console name the participant
// behind a key. Other tools write nothing; readers must accept an empty value.
QByteArray identityValue(const QString &clientId);

// Finishes Ok once key is deleted after revision observedRevision (at which the caller saw it),
// Cancelled when stop is requested, or with the watch's failure when it cannot be recovered.
// The watch is anchored at observedRevision + 1: a deletion that lands while the watch is
// being set up is replayed, and etcd serves the watch from its fast "synced" path.
QFuture<Status> waitForDeletion(Client *client, const QByteArray &key, qint64 observedRevision,
                                const WatchResilience &resilience, const StopToken &stop);

} // namespace QEtcd::Internal
