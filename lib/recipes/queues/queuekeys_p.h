// SPDX-License-Identifier: Apache-2.0
#pragma once

// The key pieces of etcd-recipes' queue layouts, kept byte for byte for interop, and the one
// way both queues put new items under them.

#include "status.h"

#include <QEtcd/qetcdexport.h>

#include <QtCore/QByteArray>
#include <QtCore/QFuture>
#include <QtCore/QList>

#include <chrono>
#include <functional>

namespace QEtcd {
class Client;
}

namespace QEtcd::Internal {

// "<millis19>-<rand3>", or "<millis19>-<index5>-<rand3>" for the index-th item of a batch.
QByteArray itemName(qint64 millis, int index = -1);

// Puts values under prefix as new items named for now + delay (each one a batch index when
// batch is set), in one transaction that holds only while every name is free, under prefix
// and under each of alsoFreeUnder (where an item's name lives on while it is on its way). An
// answer lost on the way is settled by sending the same names again, never by drawing new ones.
QFuture<Status> putAbsent(Client *client, const QString &context, const QByteArray &prefix,
                          const QList<QByteArray> &values, bool batch,
                          std::chrono::milliseconds delay = std::chrono::milliseconds::zero(),
                          const QList<QByteArray> &alsoFreeUnder = {});

// Tests only: where itemName() draws its names from; an empty source restores the default.
using ItemNameSource = std::function<QByteArray(qint64 millis, int index)>;
QETCD_INTERNAL_EXPORT void setItemNameSource(ItemNameSource source);

} // namespace QEtcd::Internal
