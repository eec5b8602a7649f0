// SPDX-License-Identifier: Apache-2.0
#include "transientkeyvalue.h"

#include "client.h"
#include "selfhealingkeepalive.h"

namespace QEtcd {

class TransientKeyValuePrivate
{
public:
    QByteArray key;
    QByteArray value;
    std::unique_ptr<SelfHealingKeepAlive> keeper;
};

TransientKeyValue::TransientKeyValue(Client *client, const QByteArray &key, const QByteArray &value,
                                     const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("TransientKeyValue"), key, options, parent),
      d(std::make_unique<TransientKeyValuePrivate>())
{
    d->key = key;
    d->value = value;
    d->keeper = std::make_unique<SelfHealingKeepAlive>(
        client, options.ttlSeconds,
        [client, key, value](qint64 lease, qint64 previous) { return casEstablish(client, key, value, lease, previous); },
        options.resilience.lease);
    connect(d->keeper.get(), &SelfHealingKeepAlive::leaseEvent, this, &TransientKeyValue::leaseEvent,
            Qt::DirectConnection);
    const int source = track(d->keeper.get(), QStringLiteral("lease"));
    d->keeper->followKey(key);
    // The one key it keeps is gone for good: Lost, as when another owner took it in a heal.
    connect(d->keeper.get(), &SelfHealingKeepAlive::keyTakenAway, this,
            [this, source](const QByteArray &, qint64 revision, const Status &cause) {
                Q_EMIT removedByOther(revision, cause);  // told first, then what it did to the state
                recordError(QStringLiteral("lease"), cause);
                reportSource(source, SourceHealth::Lost);
            },
            Qt::DirectConnection);
}

TransientKeyValue::~TransientKeyValue()
{
    close();
}

QFuture<Status> TransientKeyValue::start()
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->key.isEmpty())
        return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument, context() + QStringLiteral(": key is empty")));
    if (Status refused = beginStart(); !refused)
        return QtFuture::makeReadyFuture(refused);
    return d->keeper->start();
}

void TransientKeyValue::doClose()
{
    d->keeper->close();
}

QByteArray TransientKeyValue::key() const
{
    return d->key;
}

QByteArray TransientKeyValue::value() const
{
    return d->value;
}

qint64 TransientKeyValue::currentLeaseId() const
{
    return d->keeper->currentLeaseId();
}

} // namespace QEtcd
