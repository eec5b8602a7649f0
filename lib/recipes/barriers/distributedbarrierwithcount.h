// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <chrono>
#include <memory>

namespace QEtcd {

class DistributedBarrierWithCountPrivate;

/// A rendezvous: waiters block until memberCount of them have arrived.
///
/// A rendezvous of memberCount participants: each waiter blocks until that many have arrived,
/// and the last to arrive releases them all. etcd-recipes' layout:
///
///     <path>/ready                       the open round; value: the first arriver's token. Not
///                                        leased, so an abandoned round leaves it behind.
///     <path>/waiting/<clientId>:<token>  one per waiting member, value: the same token, on the
///                                        member's own self-healing lease
///
/// The last arrival deletes `<path>/ready`, which every waiter sees. Only members that arrived
/// after the round opened are counted, so keys left by the previous round cannot trip it.
/// Every way out of a wait (release, timeout, close(), interruption, failure) removes the
/// waiter's key, so a member that gave up stops counting. close() releases parked waiters with
/// false (Cancelled).
/// A waiter whose key another client deletes while its lease is alive (or moves to another
/// lease) no longer counts, and its wait ends with OwnershipLost instead of the key being put
/// back behind the remover's back; a lease expiry still heals.
class QETCD_EXPORT DistributedBarrierWithCount : public Recipe
{
    Q_OBJECT

public:
    /// The timeout that means "wait as long as it takes".
    static constexpr std::chrono::milliseconds WaitForever = std::chrono::milliseconds::max();

    /// A rendezvous of \a memberCount (> 0) members at \a path, through \a client.
    DistributedBarrierWithCount(Client *client, const QByteArray &path, qint64 memberCount,
                                const RecipeOptions &options = RecipeOptions(), QObject *parent = nullptr);
    /// Closes the rendezvous: parked waiters return false (Cancelled).
    ~DistributedBarrierWithCount() override;

    /// Where the rendezvous lives.
    QByteArray path() const;
    /// How many members it waits for.
    qint64 memberCount() const;

    /// True once memberCount members have arrived; false on timeout, close(), interruption or
    /// failure. The twin says which: Ok, DeadlineExceeded, Cancelled, WouldDeadlock, ...
    bool waitOnBarrier(std::chrono::milliseconds timeout = WaitForever);
    /// The non-blocking twin of waitOnBarrier().
    QFuture<Status> waitOnBarrierAsync(std::chrono::milliseconds timeout = WaitForever);

    /// How many members wait right now (keys under `<path>/waiting/`); -1 when the read failed.
    QFuture<qint64> waiterCount() const;

Q_SIGNALS:
    /// A wait's key is written: from now on this member counts in the round that opened at
    /// etcd revision \a round (the create revision of `<path>/ready`), which it trips or waits
    /// out. From the client's dispatcher thread, once per wait.
    void arrived(qint64 round);

protected:
    void doClose() override;

private:
    friend class DistributedBarrierWithCountPrivate;
    std::unique_ptr<DistributedBarrierWithCountPrivate> d;
};

} // namespace QEtcd
