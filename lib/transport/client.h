#pragma once

#include <QEtcd/clientoptions.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <memory>
#include <optional>

namespace QEtcd {

class ClientPrivate;

// A Qt-native etcd v3 client. Every call returns at once with a QFuture that finishes exactly
// once, with a result whose status tells success or names what went wrong; nothing blocks the
// calling thread and nothing throws. Any thread may start calls; results may be awaited off the
// GUI thread or consumed with QFuture::then(context, ...).
class QETCD_EXPORT Client : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QString activeEndpoint READ activeEndpoint NOTIFY activeEndpointChanged)

public:
    explicit Client(const ClientOptions &options, QObject *parent = nullptr);
    ~Client() override;
    Q_DISABLE_COPY_MOVE(Client)

    // Ok, or why the options were refused; a refused client fails every call with this status.
    Status configurationStatus() const;
    const ClientOptions &options() const;
    QStringList endpoints() const;
    QString activeEndpoint() const;

    using Rpc = std::optional<RpcResilience>;  // unset: the client's options().rpc

    QFuture<RangeResult> get(const QByteArray &key, const RangeOptions &options = {}, const Rpc &rpc = {});
    QFuture<PutResult> put(const QByteArray &key, const QByteArray &value, const PutOptions &options = {},
                           const Rpc &rpc = {});
    QFuture<DeleteResult> remove(const QByteArray &key, const DeleteOptions &options = {}, const Rpc &rpc = {});
    // Never retried: a commit that failed in flight may have happened, and only the caller's
    // compares can tell. The rpc's operationTimeout still bounds it.
    QFuture<TxnResult> txn(const Txn &txn, const Rpc &rpc = {});

    QFuture<LeaseGrantResult> leaseGrant(qint64 ttlSeconds, qint64 id = 0, const Rpc &rpc = {});
    // Never retried; a lease that was already gone reports NotFound.
    QFuture<Result> leaseRevoke(qint64 id, const Rpc &rpc = {});
    QFuture<LeaseTimeToLiveResult> leaseTimeToLive(qint64 id, bool withKeys = false, const Rpc &rpc = {});
    QFuture<LeaseListResult> leaseList(const Rpc &rpc = {});

    QFuture<Result> compact(qint64 revision, bool physical = false, const Rpc &rpc = {});
    QFuture<MemberListResult> memberList(const Rpc &rpc = {});
    // Asks one member about itself; empty endpoint: the one in use. Never fails over.
    QFuture<EndpointStatusResult> endpointStatus(const QString &endpoint = {}, const Rpc &rpc = {});
    QFuture<AlarmListResult> alarms(const Rpc &rpc = {});
    // A count-only read of one key, bounded by RpcResilience::probe() unless told otherwise.
    QFuture<Result> ping(const Rpc &rpc = RpcResilience::probe());

Q_SIGNALS:
    void activeEndpointChanged(const QString &endpoint);

private:
    friend class ClientPrivate;
    std::unique_ptr<ClientPrivate> d;
};

} // namespace QEtcd
