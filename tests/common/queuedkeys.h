// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "awaitfuture.h"

#include <QEtcd/client.h>

namespace QEtcd::Testing {

// The keys under prefix, oldest first: the order in which lock-like recipes queue.
// Empty when the read fails or times out.
inline QList<KeyValue> keysByCreation(Client *client, const QByteArray &prefix)
{
    RangeOptions options;
    options.range = KeyRange::prefix();
    options.sortTarget = SortTarget::CreateRevision;
    options.sortOrder = SortOrder::Ascending;
    const auto future = client->get(prefix, options);
    return awaitFuture(future) ? future.result().kvs : QList<KeyValue>();
}

} // namespace QEtcd::Testing
