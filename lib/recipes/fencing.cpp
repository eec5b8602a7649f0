// SPDX-License-Identifier: Apache-2.0
#include "fencing_p.h"

#include "continuation_p.h"

namespace QEtcd::Internal {

QFuture<TxnResult> guardedTxn(Client *client, const QList<Compare> &guards, const Txn &txn, const QString &context)
{
    Txn guarded;
    guarded.compares = guards;
    guarded.success = {TxnOp::nested(txn)};
    return after(client->txn(guarded), [context](const TxnResult &result) {
        if (!result.status)
            return result;
        if (!result.succeeded) {
            TxnResult lost;
            lost.header = result.header;
            lost.status = Status(StatusCode::OwnershipLost, context + QStringLiteral(": the hold is no longer ours"));
            return lost;
        }
        TxnResult inner = *result.responses.value(0).txn;
        inner.status = result.status;
        return inner;
    });
}

QFuture<Status> guardedPut(Client *client, const QList<Compare> &guards, const QByteArray &key,
                           const QByteArray &value, const PutOptions &options, const QString &context)
{
    Txn txn;
    txn.success = {TxnOp::put(key, value, options)};
    return after(guardedTxn(client, guards, txn, context), [](const TxnResult &result) {
        if (!result.status)
            return result.status;
        return result.succeeded ? Status() : Status(StatusCode::FailedPrecondition, QStringLiteral("compare failed"));
    });
}

} // namespace QEtcd::Internal
