// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <chrono>
#include <memory>

namespace QEtcd {

class DistributedDoubleBarrierPrivate;

/// Participants enter together and leave together.
///
/// enter() blocks until memberCount participants have entered, leave() until as many have
/// left: two DistributedBarrierWithCount rendezvous at `<path>/enter` and `<path>/leave`
/// (etcd-recipes' layout). Unlike the reference it takes a TTL, a clientId and a resilience
/// configuration, and its connection state aggregates both rendezvous.
class QETCD_EXPORT DistributedDoubleBarrier : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// A double barrier of \a memberCount (> 0) members at \a path, through \a client.
    DistributedDoubleBarrier(Client *client, const QByteArray &path, qint64 memberCount,
                             const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    /// Closes both rendezvous: parked waiters return false (Cancelled).
    ~DistributedDoubleBarrier() override;

    /// Where the barrier lives.
    QByteArray path() const;
    /// How many members enter and leave together.
    qint64 memberCount() const;

    /// Blocks until memberCount members have entered: DistributedBarrierWithCount::waitOnBarrier()
    /// at `<path>/enter`.
    bool enter(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of enter().
    QFuture<Status> enterAsync(std::chrono::milliseconds timeout = WaitForever);
    /// Blocks until memberCount members have left: the same at `<path>/leave`.
    bool leave(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of leave().
    QFuture<Status> leaveAsync(std::chrono::milliseconds timeout = WaitForever);

    /// How many members wait to enter right now; -1 when the read failed.
    QFuture<qint64> enterWaiterCount() const;
    /// How many members wait to leave right now; -1 when the read failed.
    QFuture<qint64> leaveWaiterCount() const;

protected:
    void doClose() override;

private:
    std::unique_ptr<DistributedDoubleBarrierPrivate> d;
};

} // namespace QEtcd
