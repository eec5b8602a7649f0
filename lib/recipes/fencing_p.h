// SPDX-License-Identifier: Apache-2.0
#pragma once

// Shared by every recipe whose holds are fenced: a caller's transaction that commits only
// while the hold is still ours.

#include "client.h"

#include <QtCore/QFuture>

namespace QEtcd::Internal {

// Runs txn nested inside a transaction whose compares are guards (the hold's ownership), so
// neither of txn's branches can commit once a guard fails; that is reported as OwnershipLost
// with nothing written. context names the recipe in the message.
QFuture<TxnResult> guardedTxn(Client *client, const QList<Compare> &guards, const Txn &txn, const QString &context);
// A put through guardedTxn; Ok only when it was written.
QFuture<Status> guardedPut(Client *client, const QList<Compare> &guards, const QByteArray &key,
                           const QByteArray &value, const PutOptions &options, const QString &context);

} // namespace QEtcd::Internal
