// SPDX-License-Identifier: Apache-2.0
#pragma once

// Fills a member started with a small --quota-backend-bytes until etcd refuses a write.

#include "awaitfuture.h"

#include <QtCore/QDeadlineTimer>

namespace QEtcd::Testing {

// Writes four keys over and over (their history, not the keys, fills the quota) until a write
// is refused, and returns that refusal; Ok if none was within 30 s (scaled). etcd measures its
// database as last committed, every 100 ms, so a fast machine writes many times the quota
// before the first refusal: the bound is a time, not a count.
inline Status fillUntilRefused(Client &client)
{
    const QByteArray large(100 * 1024, 'x');
    const QDeadlineTimer filling(scaledMs(30000));
    for (int i = 0; !filling.hasExpired(); ++i) {
        const QFuture<PutResult> put = client.put("/full/" + QByteArray::number(i % 4), large);
        if (!awaitFuture(put))
            return Status(StatusCode::DeadlineExceeded, QStringLiteral("a put to fill the quota was not answered"));
        if (!put.result().status)
            return put.result().status;
    }
    return {};
}

} // namespace QEtcd::Testing
