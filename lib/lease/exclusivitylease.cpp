// SPDX-License-Identifier: Apache-2.0
#include "exclusivitylease.h"
#include "exclusivitylease_p.h"

#include "client.h"
#include "client_p.h"
#include "clientleases_p.h"
#include "continuation_p.h"
#include "keepalivehub_p.h"
#include "leasemetrics_p.h"
#include "leasereport_p.h"
#include "lossgate_p.h"

#include <QtCore/QMutex>

namespace QEtcd {

using namespace Internal;
using namespace std::chrono;

class ExclusivityLeasePrivate : public QObject, public LeaseSink
{
public:
    ExclusivityLeasePrivate(ExclusivityLease *q, Client *client, qint64 ttlSeconds)
        : q(q), client(client), clientPrivate(ClientPrivate::get(client)), ttl(ttlSeconds)
    {
        moveToThread(clientPrivate->dispatcher());
    }

    // --- LeaseSink: completion-queue thread, hub lock held ---------------------------------
    void leaseRenewed(qint64 id, Clock::time_point deadline) override
    {
        report->setDeadline(deadline);
        if (suspended.exchange(false))
            tell([this, id] { Q_EMIT q->keepAliveResumed(id); });
    }
    void leaseGone(qint64 id, const Status &cause) override { tellLoss(LeaseEventKind::Expired, id, cause); }
    void keepAliveSuspended(qint64 id, const Status &cause) override
    {
        suspended = true;
        tell([this, id, cause] { emitEvent(LeaseEventKind::Suspended, id, cause); });
    }

    // Once, whichever comes first: etcd's word through the hub, or declareLost().
    void tellLoss(LeaseEventKind kind, qint64 id, const Status &cause)
    {
        {
            QMutexLocker locker(&causeMutex);
            if (lostFlag)
                return;
            lostCause = cause;
            lostFlag = true;
        }
        tell([this, kind, id, cause, gate = gate] {
            emitEvent(kind, id, cause);
            if (gate->isOpen())
                Q_EMIT q->lost(cause);
        });
    }

    // Every event of the lease travels the client's loss thread, in order, and through the gate
    // that the lease's destructor closes; none follows release().
    template <class Emit>
    void tell(Emit emitter)
    {
        clientPrivate->tellOnLossThread([gate = gate, this, emitter = std::move(emitter)] {
            gate->run([&] {
                if (!released)
                    emitter();
            });
        });
    }

    // Counted as told: a loss once, and none after release().
    void emitEvent(LeaseEventKind kind, qint64 id, const Status &cause)
    {
        countLease(report->metricsKind, kind == LeaseEventKind::Suspended ? LeaseCount::Suspension : LeaseCount::Loss);
        const LeaseEvent event{kind, id, -1, cause,
                               duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count()};
        Q_EMIT q->leaseEvent(event);
    }

    ExclusivityLease *const q;
    Client *client;
    ClientPrivate *clientPrivate;
    const qint64 ttl;
    const std::shared_ptr<LossGate> gate = std::make_shared<LossGate>();

    const std::shared_ptr<LeaseReport> report = std::make_shared<LeaseReport>();
    std::atomic<qint64> &leaseId = report->leaseId;
    std::atomic<bool> granting{false};
    std::atomic<bool> released{false};
    std::atomic<bool> lostFlag{false};
    std::atomic<bool> suspended{false};
    // A grant lands (released checked, the lease registered) and release() looks for a lease
    // under it, so that one of the two always sees the other: without it a release() between
    // the check and the registration found no lease, and the lease renewed on for ever.
    QMutex landingMutex;
    mutable QMutex causeMutex;
    Status lostCause;
};

ExclusivityLease::ExclusivityLease(Client *client, qint64 ttlSeconds, QObject *parent)
    : QObject(parent), d(std::make_unique<ExclusivityLeasePrivate>(this, client, ttlSeconds))
{
    m_report = d->report;
    static const int kind = leaseMetricsKind(QStringLiteral("ExclusivityLease"));
    d->report->metricsKind = kind;
}

ExclusivityLease::~ExclusivityLease()
{
    release();
    d->gate->close();  // waits out an event being told right now
    d.release()->deleteLater();  // a grant in flight finishes into it on the dispatcher thread
}

QFuture<Status> ExclusivityLease::grant()
{
    if (!d->clientPrivate->configurationStatus)
        return QtFuture::makeReadyFuture(d->clientPrivate->configurationStatus);
    if (d->ttl <= 0)
        return QtFuture::makeReadyFuture(
            Status(StatusCode::InvalidArgument, QStringLiteral("TTL must be > 0 seconds (got %1)").arg(d->ttl)));
    if (d->granting.exchange(true))
        return QtFuture::makeReadyFuture(Status(StatusCode::AlreadyStarted, QStringLiteral("grant() was already called")));
    const Clock::time_point sentAt = Clock::now();
    ExclusivityLeasePrivate *priv = d.get();
    // Continues on the dispatcher thread with priv as context: a lease destroyed while its
    // grant is in flight must not be touched when the answer arrives, but what it was granted
    // is revoked.
    const auto orphaned = [lifeline = lifelineOf(d->client)](const LeaseGrantResult &grant) {
        if (!grant.status)
            return grant.status;
        ClientLeases::revokeUnlessGone(lifeline, grant.id);
        return Status(StatusCode::Closed, QStringLiteral("destroyed while the grant was in flight"));
    };
    return thenOn(d->client->leaseGrant(d->ttl), priv, [priv, sentAt](const LeaseGrantResult &grant) {
        if (!grant.status)
            return grant.status;
        QMutexLocker landing(&priv->landingMutex);
        if (priv->released) {
            ClientLeases::of(priv->clientPrivate).revokes().revoke(grant.id);
            return Status(StatusCode::Closed, QStringLiteral("released while the grant was in flight"));
        }
        priv->report->ttlSeconds = grant.ttl;
        priv->report->setDeadline(sentAt + seconds(grant.ttl) - KeepAliveHub::safetyMargin(grant.ttl));
        auto *hub = ClientLeases::of(priv->clientPrivate).keepAliveHub();
        if (!hub)
            return Status(StatusCode::Closed, QStringLiteral("the client is closing"));
        runGrantLandingHook();
        priv->leaseId = grant.id;
        hub->add(grant.id, grant.ttl, sentAt, LeaseKind::Exclusivity, priv);
        return Status();
    }, orphaned);
}

QFuture<Status> ExclusivityLease::release()
{
    QMutexLocker landing(&d->landingMutex);
    if (d->released.exchange(true))
        return QtFuture::makeReadyFuture(Status());
    const qint64 id = d->leaseId.load();
    landing.unlock();
    if (id <= 0)
        return QtFuture::makeReadyFuture(Status());
    if (auto *hub = ClientLeases::of(d->clientPrivate).keepAliveHub())  // gone while the client is torn down
        hub->remove(id);
    // A lease lost by its deadline may live on in etcd until its TTL runs out, keeping what it
    // held from whoever is next: revoke it anyway, best effort.
    return after(d->client->leaseRevoke(id), [](const Result &revoked) {
        return revoked.status.isLeaseNotFound() ? Status() : revoked.status;
    });
}

namespace {
QBasicMutex grantLandingHookMutex;
std::function<void()> grantLandingHook;
} // namespace

void Internal::setGrantLandingHook(std::function<void()> hook)
{
    QMutexLocker locker(&grantLandingHookMutex);
    grantLandingHook = std::move(hook);
}

void Internal::runGrantLandingHook()
{
    std::function<void()> hook;
    {
        QMutexLocker locker(&grantLandingHookMutex);
        hook = grantLandingHook;
    }
    if (hook)
        hook();
}

void ExclusivityLease::declareLost(LeaseEventKind kind, const Status &cause)
{
    const qint64 id = d->leaseId.load();
    if (id <= 0 || d->released)
        return;
    if (auto *hub = ClientLeases::of(d->clientPrivate).keepAliveHub())
        hub->remove(id);  // renewing what no longer holds anything would only keep it in etcd
    d->tellLoss(kind, id, cause);
}

qint64 ExclusivityLease::leaseId() const
{
    return d->leaseId.load();
}

qint64 ExclusivityLease::ttlSeconds() const
{
    return d->ttl;
}

bool ExclusivityLease::isValid() const
{
    return d->leaseId.load() > 0 && !d->released && !d->lostFlag
        && Clock::now() < d->report->deadline();
}

std::chrono::steady_clock::time_point ExclusivityLease::lossDeadline() const
{
    return LeaseClock::toSteady(d->report->deadline());
}

Status ExclusivityLease::whyInvalid() const
{
    if (isValid())
        return {};
    if (Status cause = lossCause(); !cause.isOk())
        return cause;
    if (d->released)
        return Status(StatusCode::Closed, QStringLiteral("lease %1 was released").arg(leaseId(), 0, 16));
    return Status(StatusCode::LeaseLost,
                  QStringLiteral("the loss deadline of lease %1 passed before a renewal was acknowledged")
                      .arg(leaseId(), 0, 16));
}

Status ExclusivityLease::lossCause() const
{
    QMutexLocker locker(&d->causeMutex);
    return d->lostCause;
}

} // namespace QEtcd
