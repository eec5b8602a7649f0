// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/leaseevent.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <chrono>
#include <memory>

namespace QEtcd {

class Client;
class ExclusivityLeasePrivate;
class Recipe;
namespace Internal {
struct LeaseReport;
}

/// A lease that is never healed, whose loss is known before etcd can act on it.
///
/// A lease behind something only one holder may have: a lock hold, a permit, a leadership.
/// It never heals. It is declared lost at
///
///     send time of the last renewal etcd acknowledged + TTL − max(250 ms, TTL/10)
///
/// by the boot clock (CLOCK_BOOTTIME, which keeps counting while the system is suspended, as
/// etcd's clock does), partitioned or not, and when etcd says the lease is gone. etcd cannot
/// expire it earlier, so the holder hears of the loss before anyone else can be granted the
/// thing. isValid() compares the clock with that deadline when it is called, so a thread that
/// wakes from a long pause or a suspend learns the truth before it acts, even before lost()
/// arrives. A process or VM that is paused (SIGSTOP, a frozen guest) sees no time pass and
/// cannot tell locally; writes that must never land after a loss need a fencing token.
///
/// The signals come from the client's loss thread, which runs nothing else: neither a busy
/// holder thread nor a busy dispatcher (heals, other slots) can hold them back. A slot
/// connected directly runs there and must not block; a blocking recipe call made there is
/// refused (WouldDeadlock), since it would hold back every other loss of the client.
class QETCD_EXPORT ExclusivityLease : public QObject
{
    Q_OBJECT

public:
    /// A lease of \a ttlSeconds through \a client; nothing is granted until grant().
    ExclusivityLease(Client *client, qint64 ttlSeconds, QObject *parent = nullptr);
    /// Releases the lease.
    ~ExclusivityLease() override;
    Q_DISABLE_COPY_MOVE(ExclusivityLease)

    /// Grants the lease and starts renewing it; finishes once. AlreadyStarted on a second call.
    QFuture<Status> grant();
    /// Stops renewing and revokes; no lost() follows. Idempotent. Finishes with the revoke's
    /// answer: Ok also when etcd had no such lease or there was nothing to revoke, and at once on
    /// a second call. A process that exits right after a release waits for it, or the lease (and
    /// whatever key it carries) stays in etcd until its TTL runs out.
    QFuture<Status> release();

    /// What the lease stands for was taken away while etcd still had the lease (its key deleted
    /// or moved to another lease by someone else), or etcd dropped the lease and its watcher
    /// heard first: the lease is lost with \a cause, told as a leaseEvent() of \a kind (Failed
    /// for a takeover, Expired for a lease gone from etcd) and lost(), exactly as when the
    /// keep-alive finds it gone, and renewals stop. Any thread; nothing happens before grant()
    /// has finished, after release(), or once the loss was told.
    void declareLost(QEtcd::LeaseEventKind kind, const QEtcd::Status &cause);

    /// The lease; -1 before grant().
    qint64 leaseId() const;
    /// The TTL it was asked for, in seconds.
    qint64 ttlSeconds() const;
    /// Granted, not released, not lost, and the loss deadline is still ahead.
    bool isValid() const;
    /// When the lease counts as lost unless a renewal lands first, translated to steady_clock
    /// at the moment of the call.
    std::chrono::steady_clock::time_point lossDeadline() const;
    /// What the loss was told with; Ok while it was not told.
    Status lossCause() const;
    /// Why isValid() says no, or Ok while it says yes: the cause the loss was told with, Closed
    /// after release(), else a LeaseLost for a deadline that passed before the keep-alive hub
    /// noticed it (a holder that reads its clock first must still tell its loss).
    Status whyInvalid() const;

Q_SIGNALS:
    /// The lease is lost; \a cause says how. Emitted once, and not after release().
    void lost(const QEtcd::Status &cause);
    /// Suspended while renewals go unanswered; Expired when lost, Failed when what it stood for
    /// was taken away (declareLost()). Never Restored.
    void leaseEvent(const QEtcd::LeaseEvent &event);
    /// Renewals flow again after a Suspended, on the same lease.
    void keepAliveResumed(qint64 leaseId);

private:
    friend class Recipe;  // reports the lease's deadline
    std::shared_ptr<const Internal::LeaseReport> m_report;
    std::unique_ptr<ExclusivityLeasePrivate> d;
};

} // namespace QEtcd
