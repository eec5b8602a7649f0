// SPDX-License-Identifier: Apache-2.0
#include "queuekeys_p.h"

#include "client.h"
#include "clientthread_p.h"
#include "continuation_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QRandomGenerator>

#include <mutex>

namespace QEtcd::Internal {

namespace {
// Zero-padded so that key order is time order.
QByteArray millis19(qint64 millis)
{
    return QByteArray::number(millis).rightJustified(19, '0');
}

QByteArray random3()
{
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    QByteArray token;
    for (int i = 0; i < 3; ++i)
        token += alphabet[QRandomGenerator::global()->bounded(int(sizeof(alphabet) - 1))];
    return token;
}

QByteArray drawnName(qint64 millis, int index)
{
    QByteArray name = millis19(millis) + '-';
    if (index >= 0)
        name += QByteArray::number(index).rightJustified(5, '0') + '-';
    return name + random3();
}

std::mutex nameSourceMutex;
ItemNameSource nameSource;
} // namespace

QByteArray itemName(qint64 millis, int index)
{
    ItemNameSource source;
    {
        std::lock_guard lock(nameSourceMutex);
        source = nameSource;
    }
    return source ? source(millis, index) : drawnName(millis, index);
}

void setItemNameSource(ItemNameSource source)
{
    std::lock_guard lock(nameSourceMutex);
    nameSource = std::move(source);
}

namespace {
// Whether some name's key, under prefix or one of the places the item moves on to, holds the
// value put there: read back by a transaction's failure branch, one range per compare.
bool holdsAnyValue(const TxnResult &result, const QList<QByteArray> &values, int placesPerName)
{
    for (int i = 0; i < values.size(); ++i) {
        for (int place = 0; place < placesPerName; ++place) {
            const QList<KeyValue> found = result.responses.value(i * placesPerName + place).range.kvs;
            if (!found.isEmpty() && found.first().value == values[i])
                return true;
        }
    }
    return false;
}

// A name holds only three random characters after its millisecond, so producers busy in the
// same millisecond draw the same name now and then: a plain put would overwrite an item. Each
// put holds only while its key is absent, and a collision draws fresh names.
//
// An answer that never came (a transient failure) leaves the put unknown: it may have
// committed. Drawing fresh names then would enqueue the items twice, and so would a caller
// trying again; the same names are sent again instead, which cannot land twice. Should they be
// found taken, the failure branch reads what holds them: our own values (where the item is,
// or where it moved on to since) mean the lost put committed. An item received and
// acknowledged before the answer could be had leaves no trace and goes in again: at least once.
QFuture<Status> putAbsentAttempt(Client *client, const QString &context, const QByteArray &prefix,
                                 const QList<QByteArray> &values, bool batch, std::chrono::milliseconds delay,
                                 const QList<QByteArray> &alsoFreeUnder, int attempt, QList<QByteArray> names)
{
    constexpr int MaxAttempts = 10;
    const bool repeated = !names.isEmpty();
    if (!repeated) {
        const qint64 at = QDateTime::currentMSecsSinceEpoch() + delay.count();
        for (int i = 0; i < values.size(); ++i)
            names.append(batch ? itemName(at, i) : itemName(at));
    }
    const QList<QByteArray> places = QList<QByteArray>{prefix} + alsoFreeUnder;
    Txn txn;
    for (int i = 0; i < values.size(); ++i) {
        for (const QByteArray &place : places) {
            txn.compares.append(Compare::createRevision(place + names[i], CompareResult::Equal, 0));
            txn.failure.append(TxnOp::range(place + names[i]));
        }
        txn.success.append(TxnOp::put(prefix + names[i], values[i]));
    }
    // Drawn again on the client's own thread, which goes with it: a client destroyed meanwhile
    // ends the attempts instead of being called.
    return thenOn(
        client->txn(txn), dispatcherContext(client),
        [=](const TxnResult &result) {
            if (result.status.isOk() && (result.succeeded || (repeated && holdsAnyValue(result, values, int(places.size())))))
                return QtFuture::makeReadyFuture(Status());
            if (!result.status && !result.status.isTransient())
                return QtFuture::makeReadyFuture(result.status);
            if (attempt >= MaxAttempts)
                return QtFuture::makeReadyFuture(
                    result.status ? Status(StatusCode::RetriesExhausted,
                                           context + QStringLiteral(": every item name drawn was taken (%1 attempts)").arg(MaxAttempts))
                                  : result.status);
            return putAbsentAttempt(client, context, prefix, values, batch, delay, alsoFreeUnder, attempt + 1,
                                    result.status ? QList<QByteArray>() : names);
        },
        [context](const TxnResult &result) {
            return QtFuture::makeReadyFuture(result.status && !result.succeeded
                                                 ? Status(StatusCode::Closed, context + QStringLiteral(": the client is gone"))
                                                 : result.status);
        });
}
} // namespace

QFuture<Status> putAbsent(Client *client, const QString &context, const QByteArray &prefix,
                          const QList<QByteArray> &values, bool batch, std::chrono::milliseconds delay,
                          const QList<QByteArray> &alsoFreeUnder)
{
    return putAbsentAttempt(client, context, prefix, values, batch, delay, alsoFreeUnder, 1, {});
}

} // namespace QEtcd::Internal
