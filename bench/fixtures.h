// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the console benchmarks put into etcd before they measure: many keys under one prefix,
// many leases.

#include "benchsupport.h"

#include <QEtcd/client.h>

namespace Bench {

inline QByteArray keyName(const QByteArray &prefix, int i)
{
    return prefix + QByteArray::number(i).rightJustified(8, '0');
}

// Writes count keys under prefix, 100 to a transaction, a few transactions in flight.
inline void fillKeys(QEtcd::Client &client, const QByteArray &prefix, int count)
{
    QList<QFuture<QEtcd::TxnResult>> inFlight;
    for (int i = 0; i < count; i += 100) {
        QEtcd::Txn txn;
        for (int j = i; j < std::min(count, i + 100); ++j)
            txn.success.append(QEtcd::TxnOp::put(keyName(prefix, j), "value-of-sixteen"));
        inFlight.append(client.txn(txn));
        if (inFlight.size() == 8 || i + 100 >= count) {
            for (const auto &future : std::as_const(inFlight)) {
                if (!await(future, QStringLiteral("fill")).succeeded)
                    fail(QStringLiteral("a fill transaction failed"));
            }
            inFlight.clear();
        }
    }
}

// Grants count leases of ttlSeconds, 200 in flight at a time.
inline void grantLeases(QEtcd::Client &client, int count, qint64 ttlSeconds)
{
    QList<QFuture<QEtcd::LeaseGrantResult>> grants;
    for (int i = 0; i < count; ++i) {
        grants.append(client.leaseGrant(ttlSeconds));
        if (grants.size() == 200 || i + 1 == count) {
            for (const auto &future : std::as_const(grants)) {
                if (!await(future, QStringLiteral("lease grant")).status)
                    fail(QStringLiteral("a lease grant failed"));
            }
            grants.clear();
        }
    }
}

} // namespace Bench
