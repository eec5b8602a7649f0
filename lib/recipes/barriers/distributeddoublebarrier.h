#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <chrono>
#include <memory>

namespace QEtcd {

class DistributedDoubleBarrierPrivate;

// enter() blocks until memberCount participants have entered, leave() until as many have
// left: two DistributedBarrierWithCount rendezvous at <path>/enter and <path>/leave
// (etcd-recipes' layout). Unlike the reference it takes a TTL, a clientId and a resilience
// configuration, and its connection state aggregates both rendezvous.
class QETCD_EXPORT DistributedDoubleBarrier : public Recipe
{
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    DistributedDoubleBarrier(Client *client, const QByteArray &path, qint64 memberCount,
                             const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    ~DistributedDoubleBarrier() override;

    QByteArray path() const;
    qint64 memberCount() const;

    // As DistributedBarrierWithCount::waitOnBarrier(), at <path>/enter and <path>/leave.
    bool enter(std::chrono::milliseconds timeout = WaitForever);
    QFuture<Status> enterAsync(std::chrono::milliseconds timeout = WaitForever);
    bool leave(std::chrono::milliseconds timeout = WaitForever);
    QFuture<Status> leaveAsync(std::chrono::milliseconds timeout = WaitForever);

    // -1 when the read failed.
    QFuture<qint64> enterWaiterCount() const;
    QFuture<qint64> leaveWaiterCount() const;

protected:
    void doClose() override;

private:
    std::unique_ptr<DistributedDoubleBarrierPrivate> d;
};

} // namespace QEtcd
