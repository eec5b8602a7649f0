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
// A name holds only three random characters after its millisecond, so producers busy in the
// same millisecond draw the same name now and then: a plain put would overwrite an item. Each
// put holds only while its key is absent, and a collision draws fresh names.
QFuture<Status> putAbsentAttempt(Client *client, const QString &context, const QByteArray &prefix,
                                 const QList<QByteArray> &values, bool batch, std::chrono::milliseconds delay,
                                 const QList<QByteArray> &alsoFreeUnder, int attempt)
{
    constexpr int MaxAttempts = 10;
    const qint64 at = QDateTime::currentMSecsSinceEpoch() + delay.count();
    Txn txn;
    for (int i = 0; i < values.size(); ++i) {
        const QByteArray name = batch ? itemName(at, i) : itemName(at);
        txn.compares.append(Compare::createRevision(prefix + name, CompareResult::Equal, 0));
        for (const QByteArray &other : alsoFreeUnder)
            txn.compares.append(Compare::createRevision(other + name, CompareResult::Equal, 0));
        txn.success.append(TxnOp::put(prefix + name, values[i]));
    }
    // Drawn again on the client's own thread, which goes with it: a client destroyed meanwhile
    // ends the attempts instead of being called.
    return thenOn(
        client->txn(txn), dispatcherContext(client),
        [=](const TxnResult &result) {
            if (!result.status || result.succeeded)
                return QtFuture::makeReadyFuture(result.status);
            if (attempt >= MaxAttempts)
                return QtFuture::makeReadyFuture(Status(
                    StatusCode::RetriesExhausted,
                    context + QStringLiteral(": every item name drawn was taken (%1 attempts)").arg(MaxAttempts)));
            return putAbsentAttempt(client, context, prefix, values, batch, delay, alsoFreeUnder, attempt + 1);
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
    return putAbsentAttempt(client, context, prefix, values, batch, delay, alsoFreeUnder, 1);
}

} // namespace QEtcd::Internal
