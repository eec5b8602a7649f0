// SPDX-License-Identifier: Apache-2.0
#include "selfhealingkeepalive.h"
#include "selfhealingkeepalive_p.h"

#include "client.h"
#include "client_p.h"
#include "clientleases_p.h"
#include "continuation_p.h"
#include "keepalivehub_p.h"
#include "leasemetrics_p.h"
#include "leasereport_p.h"
#include "logging_p.h"
#include "mailbox_p.h"
#include "threading_p.h"
#include "watcher.h"

#include <QtCore/QBasicTimer>
#include <QtCore/QMetaEnum>
#include <QtCore/QTimer>
#include <QtCore/QTimerEvent>

namespace QEtcd {

using namespace Internal;
using namespace std::chrono;

QString LeaseEvent::toString() const
{
    QString text = QString::fromLatin1(QMetaEnum::fromType<LeaseEventKind>().valueToKey(int(kind)))
        + QStringLiteral(" lease=%1").arg(leaseId, 0, 16);
    if (kind == LeaseEventKind::Restored)
        text += QStringLiteral(" new=%1").arg(newLeaseId, 0, 16);
    if (!cause.isOk())
        text += QStringLiteral(" cause=") + cause.toString();
    return text;
}

namespace {
// Failures a reachable server would not have produced: worth retrying the moment it answers.
// An overloaded one answers at once, so its refusal waits out the policy's delay instead.
bool isConnectivity(const Status &status)
{
    return (status.isTransient() && !status.isTooManyRequests()) || status.code() == StatusCode::LeaseLost;
}
} // namespace

// Lives on the client's dispatcher thread; everything but the atomics is touched only there.
class SelfHealingKeepAlivePrivate : public QObject, public LeaseSink
{
public:
    SelfHealingKeepAlivePrivate(SelfHealingKeepAlive *q, Client *client, qint64 ttlSeconds,
                                SelfHealingKeepAlive::Establish establish, const LeaseResilience &resilience)
        : q(q), client(client), clientPrivate(ClientPrivate::get(client)), ttl(ttlSeconds),
          establish(std::move(establish)), resilience(resilience), mailbox(Mailbox::create(this))
    {
        moveToThread(clientPrivate->dispatcher());
    }

    // A heal cut short by our end never reaches its continuation, which would give the turn back.
    ~SelfHealingKeepAlivePrivate() override
    {
        giveBackTurn();
        if (startWaiting)
            finishStart(startWaiting, closedStatus());
    }

    // --- LeaseSink: completion-queue thread, hub lock held ---------------------------------
    void leaseRenewed(qint64 id, Clock::time_point deadline) override
    {
        if (id != leaseId.load())
            return;  // a candidate: reported once adopted
        report->setDeadline(deadline);
        if (suspended.exchange(false))
            mailbox->post([this, id] { emitSignal([&] { Q_EMIT q->keepAliveResumed(id); }); });
    }
    void leaseGone(qint64 id, const Status &cause) override
    {
        mailbox->post([this, id, cause] { onExpired(id, cause); });
    }
    void keepAliveSuspended(qint64 id, const Status &cause) override
    {
        if (id != leaseId.load())
            return;  // a lease still being established: its expiry is what counts
        suspended = true;
        mailbox->post([this, id, cause] { emitEvent(LeaseEventKind::Suspended, id, -1, cause); });
    }

    // --- dispatcher thread --------------------------------------------------------------
    // The heal timer: a QBasicTimer, not a QTimer, since a QTimer and its connection would cost
    // each of a client's thousands of leases more than the rest of its bookkeeping.
    void timerEvent(QTimerEvent *event) override
    {
        if (event->timerId() != healTimer.timerId()) {
            QObject::timerEvent(event);
            return;
        }
        healTimer.stop();
        attemptHeal();
    }

    // A start takes its turn at the heal gate as a heal does: thousands of leases started at
    // once would otherwise be thousands of grants at once, which etcd refuses in part and which
    // hold their calls' memory until answered.
    void start(std::shared_ptr<QPromise<Status>> promise, int attempt = 0, Clock::time_point firstSent = Clock::now())
    {
        if (closed)
            return finishStart(promise, closedStatus());
        startWaiting = promise;
        ClientLeases::of(clientPrivate).healGate().enter(this, [this, promise, attempt, firstSent] {
            startWaiting.reset();
            holdingTurn = true;
            if (closed) {
                giveBackTurn();
                return finishStart(promise, closedStatus());
            }
            grantAndEstablishFirst(promise, attempt, firstSent);
        });
    }

    // Holds a turn at the heal gate; every way out gives it back.
    void grantAndEstablishFirst(const std::shared_ptr<QPromise<Status>> &promise, int attempt, Clock::time_point firstSent)
    {
        const Clock::time_point sentAt = Clock::now();
        // Destroyed meanwhile: close() let any candidate go; what is left is to revoke what
        // was granted after that, and to answer start().
        const auto orphaned = [lifeline = lifelineOf(client), promise](const LeaseGrantResult &grant) {
            if (grant.status)
                ClientLeases::revokeUnlessGone(lifeline, grant.id);
            finishStart(promise, closedStatus());
        };
        const auto told = [promise](const auto &) { finishStart(promise, closedStatus()); };
        thenOn(client->leaseGrant(ttl, 0), this, [this, promise, sentAt, told, attempt, firstSent](const LeaseGrantResult &grant) {
            if (!grant.status || closed) {
                giveBackTurn();
                finishStart(promise, grant.status ? closedStatus() : grant.status);
                return revokeIfGranted(grant);
            }
            renewFromGrant(grant, sentAt);
            thenOn(establish(grant.id, 0), this, [this, promise, grant, told, attempt, firstSent](const Status &established) {
                giveBackTurn();
                if (established.isLeaseNotFound() && !closed && retryStart(promise, attempt, firstSent, established))
                    return;
                if (!established || closed) {
                    const Status outcome = established ? closedStatus()
                                                       : established.withContext(
                                                             QStringLiteral("establishing lease %1").arg(grant.id, 0, 16));
                    dropCandidate();
                    // Finish only once the lease is gone, so the caller never sees it linger.
                    thenOn(client->leaseRevoke(grant.id), this, [promise, outcome](const Result &) {
                        finishStart(promise, outcome);
                    }, told);
                    return;
                }
                adopt(grant.id);
                finishStart(promise, {});
            }, told);
        }, orphaned);
    }

    // The lease ran out before its keys were written: the process was frozen, or cut off,
    // between the grant and the write. Nothing was established and nothing is lost yet, so
    // the start grants again after the heal policy's delay, as a heal would, rather than fail.
    // Returns false once the policy gives up.
    bool retryStart(const std::shared_ptr<QPromise<Status>> &promise, int attempt, Clock::time_point firstSent,
                    const Status &cause)
    {
        const auto delay = resilience.retryPolicy.nextDelay(attempt + 1, duration_cast<milliseconds>(Clock::now() - firstSent));
        if (!delay)
            return false;
        dropCandidate();
        qCInfo(lcLease).noquote() << "lease expired before its keys were written (" << cause.toString()
                                  << "); granting another";
        startWaiting = promise;
        QTimer::singleShot(*delay, this, [this, promise, attempt, firstSent] {
            startWaiting.reset();
            if (closed)
                return finishStart(promise, closedStatus());
            start(promise, attempt + 1, firstSent);
        });
        return true;
    }

    void onExpired(qint64 id, const Status &cause)
    {
        if (id == candidate) {
            candidateLost = cause;  // acted on once its establishment is over
            return;
        }
        if (closed || healing || takenAway || id != leaseId.load())
            return;  // stale generation, or a second expiry while healing
        healing = true;
        unfollow();  // the heal's compare-and-set decides who owns the keys now
        setHealthy(false);
        emitEvent(LeaseEventKind::Expired, id, -1, cause);
        attempt = 0;
        healStarted = Clock::now();
        lastCause = cause;
        scheduleHeal();
    }

    void scheduleHeal()
    {
        if (attempt > 0)
            countLease(report->metricsKind, LeaseCount::HealAttemptFailed);
        const auto elapsed = duration_cast<milliseconds>(Clock::now() - healStarted);
        const auto delay = resilience.retryPolicy.nextDelay(attempt + 1, elapsed);
        if (!delay)
            return fail(lastCause);
        qCDebug(lcLease).noquote() << "lease" << QString::number(leaseId.load(), 16) << "heal attempt" << attempt + 1
                                   << "in" << delay->count() << "ms; last cause:" << lastCause.toString();
        healTimer.start(int(delay->count()), Qt::CoarseTimer, this);
        if (isConnectivity(lastCause)) {
            const quint64 generation = ++reachabilityGeneration;
            clientPrivate->transport()->whenReachable([box = mailbox, this, generation] {
                box->post([this, generation] {
                    if (generation == reachabilityGeneration && healTimer.isActive()) {
                        healTimer.stop();
                        attemptHeal();
                    }
                });
            });
        }
    }

    // Waits for a turn at the client's heal gate first; the timer and the reachability probe
    // may both ask while one wait is already queued.
    void attemptHeal()
    {
        if (closed || !healing || awaitingTurn)
            return;
        awaitingTurn = true;
        ClientLeases::of(clientPrivate).healGate().enter(this, [this] {
            awaitingTurn = false;
            holdingTurn = true;
            if (closed || !healing)
                return giveBackTurn();
            healOnce();
        });
    }

    // Holds a turn at the heal gate; every way out gives it back.
    void healOnce()
    {
        ++attempt;
        ++reachabilityGeneration;
        if (candidate > 0)
            return settleCandidate();
        grantAndEstablish();
    }

    RpcResilience onceOnly() const { return {RetryPolicy::never(), resilience.healOperationTimeout}; }

    void grantAndEstablish()
    {
        const Clock::time_point sentAt = Clock::now();
        const qint64 previous = leaseId.load();
        const auto orphaned = [lifeline = lifelineOf(client)](const LeaseGrantResult &grant) {
            if (grant.status)
                ClientLeases::revokeUnlessGone(lifeline, grant.id);
        };
        thenOn(client->leaseGrant(ttl, 0, onceOnly()), this, [this, sentAt, previous](const LeaseGrantResult &grant) {
            if (closed) {
                giveBackTurn();
                return revokeIfGranted(grant);
            }
            if (!grant.status) {
                giveBackTurn();
                lastCause = grant.status;
                return scheduleHeal();
            }
            renewFromGrant(grant, sentAt);
            thenOn(establish(grant.id, previous), this, [this, grant, previous](const Status &established) {
                giveBackTurn();
                if (closed) {
                    // The owner may close on a consequence of this very establishment (a
                    // barrier tripping on the key put back): there is nothing left to restore.
                    qCDebug(lcLease).noquote() << QStringLiteral("closed while healing lease %1; its establishment on %2 "
                                                                 "answered: %3")
                                                      .arg(QString::number(previous, 16), QString::number(grant.id, 16),
                                                           established.toString());
                    return;  // shutDown() let the candidate go
                }
                if (established.code() == StatusCode::OwnershipLost) {
                    countLease(report->metricsKind, LeaseCount::HealAttemptFailed);
                    dropCandidate();
                    revokeIfGranted(grant);
                    return fail(established);
                }
                if (!established) {
                    // Perhaps committed, its answer lost: the candidate stays ours and renewed,
                    // and the next attempt finds out before granting another.
                    lastCause = established;
                    return scheduleHeal();
                }
                restored(previous, grant.id);
            });
        }, orphaned);
    }

    // An earlier attempt's establishment went unanswered and may have committed on the
    // candidate: a fresh lease would then find the keys on that one, our own, and give up. So
    // ask etcd whether the candidate holds keys; if it does, it is established.
    void settleCandidate()
    {
        const qint64 id = candidate;
        const qint64 previous = leaseId.load();
        thenOn(client->leaseTimeToLive(id, true, onceOnly()), this, [this, id, previous](const LeaseTimeToLiveResult &held) {
            if (closed)
                return giveBackTurn();
            qCDebug(lcLease).noquote() << "candidate lease" << QString::number(id, 16) << "asked about:" << held.status.toString()
                                       << "ttl" << held.ttl << "keys" << held.keys.size() << "lost:" << candidateLost.toString();
            if (!held.status) {
                giveBackTurn();
                lastCause = held.status;
                return scheduleHeal();
            }
            if (held.ttl > 0 && !held.keys.isEmpty()) {
                if (candidateLost.isOk()) {
                    giveBackTurn();
                    return restored(previous, id);
                }
                return revokeGhost(id);
            }
            // It holds nothing: the establishment never committed, or the keys went with it.
            dropCandidate();
            revokeUnawaited(id);
            grantAndEstablish();  // in the same turn
        });
    }

    // The candidate holds the keys in etcd, but our clock gave it up (its renewals went
    // unanswered too long), so it cannot be adopted. A fresh lease may take the keys only
    // from the previous lease, not from the candidate: they must be gone first. So the revoke
    // is waited for; should it fail, the candidate is asked about again on the next attempt.
    void revokeGhost(qint64 id)
    {
        thenOn(client->leaseRevoke(id, onceOnly()), this, [this](const Result &revoked) {
            if (closed)
                return giveBackTurn();
            if (!revoked.status && !revoked.status.isLeaseNotFound()) {
                giveBackTurn();
                lastCause = revoked.status;
                return scheduleHeal();
            }
            dropCandidate();
            grantAndEstablish();  // in the same turn
        });
    }

    void restored(qint64 previous, qint64 id)
    {
        healing = false;
        adopt(id);
        emitEvent(LeaseEventKind::Restored, previous, id, {});
        // The old lease may still be alive on the server if only our clock gave up on it; it
        // owns nothing now, so let it go rather than wait out its TTL, once no heal waits or
        // runs. Almost always etcd expired it already, so ask first: the leader answers that
        // from memory, where a revoke is a write every member logs (after a partition, one per
        // healed lease, competing with the heals of the others). The tidying is the client's,
        // not ours: we may go first.
        QObject *context = clientPrivate->dispatcherContext();
        HealGate &gate = ClientLeases::of(clientPrivate).healGate();
        gate.enterAfterHeals(context, [lifeline = lifelineOf(client), context, &gate, previous] {
            askAboutReplaced(lifeline, context, gate, previous);
        });
    }

    static void askAboutReplaced(const std::shared_ptr<ClientLifeline> &lifeline, QObject *context, HealGate &gate, qint64 previous)
    {
        lifeline->use([&](Client *client) {
            thenOn(client->leaseTimeToLive(previous), context, [lifeline, context, &gate, previous](const LeaseTimeToLiveResult &left) {
                if (left.status && left.ttl <= 0)
                    return gate.leaveTidying();
                revokeReplaced(lifeline, context, gate, previous);
            });
        });
    }

    static void revokeReplaced(const std::shared_ptr<ClientLifeline> &lifeline, QObject *context, HealGate &gate, qint64 previous)
    {
        lifeline->use([&](Client *client) {
            thenOn(client->leaseRevoke(previous), context, [&gate](const Result &) { gate.leaveTidying(); });
        });
    }

    void giveBackTurn()
    {
        if (std::exchange(holdingTurn, false))
            ClientLeases::of(clientPrivate).healGate().leave();
    }

    // Renewed from the grant on, not once established: on a slow server establishing can
    // take most of a short TTL, and the keys would go with a lease nobody renewed meanwhile.
    void renewFromGrant(const LeaseGrantResult &grant, Clock::time_point sentAt)
    {
        candidate = grant.id;
        candidateTtl = grant.ttl;
        candidateDeadline = sentAt + seconds(grant.ttl);  // a presence lease's deadline is its plain TTL
        candidateLost = Status();
        if (auto *hub = ClientLeases::of(clientPrivate).keepAliveHub())
            hub->add(grant.id, grant.ttl, sentAt, LeaseKind::Presence, this);
    }

    // The candidate will not be adopted: stop renewing it.
    void dropCandidate()
    {
        if (auto *hub = ClientLeases::of(clientPrivate).keepAliveHub())
            hub->remove(candidate);
        candidate = 0;
    }

    void adopt(qint64 id)
    {
        const Status lostMeanwhile = candidateLost;
        candidate = 0;
        report->ttlSeconds = candidateTtl;
        report->setDeadline(candidateDeadline);
        leaseId = id;
        suspended = false;
        emitSignal([&] { Q_EMIT q->currentLeaseIdChanged(id); });
        setHealthy(true);
        follow(id);
        // Told once the adoption itself has been reported.
        if (!lostMeanwhile.isOk())
            QMetaObject::invokeMethod(this, [this, id, lostMeanwhile] { onExpired(id, lostMeanwhile); },
                                      Qt::QueuedConnection);
    }

    // --- following the keys: another client's delete or move is honoured, not healed ----
    // From "now" on, with one read of each key to cover the moments since it was established.
    void follow(qint64 id)
    {
        unfollow();
        if (followedKeys.isEmpty() || !following)
            return;
        const quint64 generation = followGeneration;
        for (const QByteArray &key : std::as_const(followedKeys)) {
            auto *watch = new Watcher(client, key, {}, {}, this);
            watch->setResyncWith([this, key, id, generation] {
                return thenOn(client->get(key), this, [this, key, id, generation](const RangeResult &read) -> qint64 {
                    if (!read.status)
                        return 0;  // a failed recovery attempt: the watcher tries again
                    judgeKey(key, id, generation, read.kvs.isEmpty() ? std::nullopt : std::optional(read.kvs.first()),
                             read.header.revision);
                    return read.header.revision + 1;
                }, [](const RangeResult &) -> qint64 { return 0; });
            });
            connect(watch, &Watcher::eventsReceived, this, [this, key, id, generation](const QList<WatchEvent> &events) {
                for (const WatchEvent &event : events)
                    judgeKey(key, id, generation,
                             event.type == WatchEvent::Type::Put ? std::optional(event.kv) : std::nullopt,
                             event.kv.modRevision);
            });
            connect(watch, &Watcher::recovery, this, [key](const WatchRecoveryEvent &event) {
                if (event.kind == WatchRecoveryKind::Failed)
                    qCWarning(lcLease).noquote() << describeKey(key) << "is no longer followed; another client "
                                                 << "deleting it would go untold:" << event.cause.toString();
            });
            thenOn(watch->start(), this, [this, key, id, generation](const Status &started) {
                if (!isFollowing(id, generation))
                    return;  // let go before it started: a heal, close()
                if (!started) {
                    qCWarning(lcLease).noquote() << "following" << describeKey(key) << "failed:" << started.toString();
                    return;
                }
                thenOn(client->get(key), this, [this, key, id, generation](const RangeResult &read) {
                    if (read.status)
                        judgeKey(key, id, generation,
                                 read.kvs.isEmpty() ? std::nullopt : std::optional(read.kvs.first()),
                                 read.header.revision);
                });
            });
            followWatches.append(watch);
        }
    }

    void unfollow()
    {
        ++followGeneration;
        for (Watcher *watch : std::exchange(followWatches, {})) {
            watch->close();
            watch->deleteLater();
        }
    }

    bool isFollowing(qint64 id, quint64 generation) const
    {
        return following && !closed && !healing && !failed && !takenAway && generation == followGeneration
            && id == leaseId.load();
    }

    // now: the key as it is at revision, absent when deleted. Only while our lease is alive is
    // a change another client's doing: with the lease gone (revoked, expired) the key went with
    // it, which the renewals tell and a heal answers, by compare-and-set against any new owner.
    void judgeKey(const QByteArray &key, qint64 id, quint64 generation, const std::optional<KeyValue> &now,
                  qint64 revision)
    {
        if (!isFollowing(id, generation) || (now && now->lease == id))
            return;  // our own put: an update, a marker
        const QString what = now ? QStringLiteral("%1 was moved to %2 by another client at revision %3")
                                       .arg(describeKey(key),
                                            now->lease ? QStringLiteral("lease %1").arg(now->lease, 0, 16)
                                                       : QStringLiteral("no lease"))
                                       .arg(revision)
                                 : QStringLiteral("%1 was deleted by another client at revision %2")
                                       .arg(describeKey(key))
                                       .arg(revision);
        thenOn(client->leaseTimeToLive(id), this, [this, key, id, generation, revision, what](const LeaseTimeToLiveResult &alive) {
            if (!isFollowing(id, generation))
                return;
            if (!alive.status) {
                qCWarning(lcLease).noquote() << "perhaps" << what << "(asking whether lease"
                                             << QString::number(id, 16) << "lives failed:" << alive.status.toString()
                                             << "); not told";
                return;
            }
            if (alive.ttl >= 0)  // -1: gone; 0: alive, less than a second left
                takeAway(key, revision, what);
        });
    }

    // An operator's decision, honoured: nothing is put back, and the lease, its keys' only
    // reason to be, goes. Not at once, but when its next renewal would have been due: whoever
    // else saw the key go may ask whether its lease still lives, as a barrier's waiters do to
    // tell a deletion from an expiry, and must hear that it does, as we did before deciding.
    void takeAway(const QByteArray &key, qint64 revision, const QString &what)
    {
        takenAway = true;
        const qint64 id = stopRenewing();
        QTimer::singleShot(KeepAliveHub::renewalInterval(ttl), clientPrivate->dispatcherContext(),
                           [lifeline = lifelineOf(client), id] { ClientLeases::revokeUnlessGone(lifeline, id); });
        setHealthy(false);
        const Status cause(StatusCode::OwnershipLost, what + QStringLiteral("; it is not put back"));
        qCInfo(lcLease).noquote() << cause.message();
        emitSignal([&] { Q_EMIT q->keyTakenAway(key, revision, cause); });
    }

    void fail(const Status &cause)
    {
        healing = false;
        failed = true;
        qCWarning(lcLease).noquote() << "healing lease" << QString::number(leaseId.load(), 16)
                                     << "stopped:" << cause.toString();
        emitEvent(LeaseEventKind::Failed, leaseId.load(), -1, cause);
    }

    // Stops following the keys, any pending heal and the renewals of the current lease (a heal
    // that completed while close() was on its way registered a new one); returns that lease.
    qint64 stopRenewing()
    {
        unfollow();
        healTimer.stop();
        ++reachabilityGeneration;
        const qint64 id = leaseId.load();
        if (auto *hub = ClientLeases::of(clientPrivate).keepAliveHub())
            hub->remove(id);
        return id;
    }

    void shutDown()
    {
        const qint64 id = stopRenewing();
        if (id > 0 && !failed && !takenAway)
            revokeUnawaited(id);
        if (candidate > 0) {
            revokeUnawaited(candidate);
            dropCandidate();
        }
        setHealthy(false);
    }

    void revokeIfGranted(const LeaseGrantResult &grant)
    {
        if (grant.status && grant.id > 0)
            revokeUnawaited(grant.id);
    }

    void revokeUnawaited(qint64 id) { ClientLeases::of(clientPrivate).revokes().revoke(id); }

    static void finishStart(const std::shared_ptr<QPromise<Status>> &promise, const Status &status)
    {
        promise->addResult(status);
        promise->finish();
    }

    static Status closedStatus() { return Status(StatusCode::Closed, QStringLiteral("closed before it started")); }

    void setHealthy(bool value)
    {
        if (healthy.exchange(value) != value)
            emitSignal([&] { Q_EMIT q->healthyChanged(value); });
    }

    void emitEvent(LeaseEventKind kind, qint64 id, qint64 newId, const Status &cause)
    {
        const LeaseEvent event{kind, id, newId, cause,
                               duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count()};
        qCDebug(lcLease).noquote() << event.toString();
        countEvent(kind);
        emitSignal([&] { Q_EMIT q->leaseEvent(event); });
    }

    // Failed is not counted here: its attempt was, and a key taken away is no loss of the lease.
    void countEvent(LeaseEventKind kind)
    {
        if (kind == LeaseEventKind::Suspended)
            countLease(report->metricsKind, LeaseCount::Suspension);
        else if (kind == LeaseEventKind::Expired)
            countLease(report->metricsKind, LeaseCount::Loss);
        else if (kind == LeaseEventKind::Restored)
            countHeal(report->metricsKind, duration_cast<milliseconds>(Clock::now() - healStarted));
    }

    template <class Emit>
    void emitSignal(Emit emitter)
    {
        if (q)
            emitter();
    }

    SelfHealingKeepAlive *q;
    Client *client;
    ClientPrivate *clientPrivate;
    const qint64 ttl;
    const SelfHealingKeepAlive::Establish establish;
    const LeaseResilience resilience;
    const std::shared_ptr<Mailbox> mailbox;

    const std::shared_ptr<LeaseReport> report = std::make_shared<LeaseReport>();
    std::atomic<qint64> &leaseId = report->leaseId;
    std::atomic<bool> healthy{false};
    std::atomic<bool> closed{false};
    std::atomic<bool> suspended{false};
    std::atomic<bool> started{false};  // start() was accepted once

    // A start waiting for its turn at the heal gate or for its retry: answered here if
    // destroyed first.
    std::shared_ptr<QPromise<Status>> startWaiting;
    qint64 candidate = 0;   // granted and renewed, its keys not established yet
    Status candidateLost;   // the candidate expired while being established
    qint64 candidateTtl = 0;
    Clock::time_point candidateDeadline;  // as of its grant; renewals move it once adopted
    bool healing = false;
    bool awaitingTurn = false;  // a heal queued at the client's heal gate
    bool holdingTurn = false;   // let in: a heal or the start's first grant is in flight
    bool failed = false;
    bool takenAway = false;  // another client deleted or moved a followed key
    int attempt = 0;
    quint64 reachabilityGeneration = 0;
    Clock::time_point healStarted;
    Status lastCause;
    QBasicTimer healTimer;

    QList<QByteArray> followedKeys;  // set before start()
    std::atomic<bool> following{true};
    QList<Watcher *> followWatches;
    quint64 followGeneration = 0;  // a change of lease or a heal makes older answers moot
};

SelfHealingKeepAlive::SelfHealingKeepAlive(Client *client, qint64 ttlSeconds, Establish establish,
                                           const LeaseResilience &resilience, QObject *parent)
    : QObject(parent),
      d(std::make_unique<SelfHealingKeepAlivePrivate>(this, client, ttlSeconds, std::move(establish), resilience))
{
    m_report = d->report;
    static const int kind = leaseMetricsKind(QStringLiteral("SelfHealingKeepAlive"));
    d->report->metricsKind = kind;
}

SelfHealingKeepAlive::~SelfHealingKeepAlive()
{
    close();
    SelfHealingKeepAlivePrivate *priv = d.release();
    runOn(priv, [priv] { priv->q = nullptr; });
    priv->deleteLater();
}

QFuture<Status> SelfHealingKeepAlive::start()
{
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    QFuture<Status> future = promise->future();
    Status refused;
    if (!d->clientPrivate->configurationStatus)
        refused = d->clientPrivate->configurationStatus;
    else if (d->ttl <= 0)
        refused = Status(StatusCode::InvalidArgument, QStringLiteral("TTL must be > 0 seconds (got %1)").arg(d->ttl));
    else if (!d->resilience.retryPolicy.isValid())
        refused = d->resilience.retryPolicy.validation();
    else if (!d->establish)
        refused = Status(StatusCode::InvalidArgument, QStringLiteral("no establish function was given"));
    else if (d->closed)
        refused = Status(StatusCode::Closed, QStringLiteral("close() was already called"));
    else if (d->started.exchange(true))  // the lease is granted later: leaseId() says nothing yet
        refused = Status(StatusCode::AlreadyStarted, QStringLiteral("start() was already called"));
    if (!refused.isOk()) {
        promise->addResult(refused);
        promise->finish();
        return future;
    }
    d->mailbox->post([priv = d.get(), promise] { priv->start(promise); });
    return future;
}

void SelfHealingKeepAlive::close()
{
    if (d->closed.exchange(true))
        return;
    d->mailbox->close();
    if (auto *hub = ClientLeases::of(d->clientPrivate).keepAliveHub())
        hub->remove(d->leaseId.load());
    SelfHealingKeepAlivePrivate *priv = d.get();
    runOn(priv, [priv] { priv->shutDown(); });
}

void SelfHealingKeepAlive::followKey(const QByteArray &key)
{
    if (d->started) {
        qCWarning(lcLease).noquote() << "followKey(" << describeKey(key) << ") after start() is ignored";
        return;
    }
    d->followedKeys.append(key);
}

void SelfHealingKeepAlive::stopFollowingKeys()
{
    d->following = false;
}

qint64 SelfHealingKeepAlive::currentLeaseId() const
{
    return d->leaseId.load();
}

bool SelfHealingKeepAlive::isHealthy() const
{
    return d->healthy.load();
}

qint64 SelfHealingKeepAlive::ttlSeconds() const
{
    return d->ttl;
}

namespace {
Txn establishment(const QByteArray &key, const QByteArray &value, qint64 newLeaseId, qint64 previousLeaseId)
{
    PutOptions onLease;
    onLease.lease = newLeaseId;
    Txn txn;
    txn.compares = {Compare::absent(key)};
    txn.success = {TxnOp::put(key, value, onLease)};
    if (previousLeaseId > 0) {
        Txn reclaim;
        reclaim.compares = {Compare::lease(key, CompareResult::Equal, previousLeaseId)};
        reclaim.success = {TxnOp::put(key, value, onLease)};
        reclaim.failure = {TxnOp::range(key)};
        txn.failure = {TxnOp::nested(reclaim)};
    } else {
        txn.failure = {TxnOp::range(key)};
    }
    return txn;
}

// What establishment()'s own answer means.
Status judgeEstablishment(const TxnResult &result, const QByteArray &key, qint64 previousLeaseId)
{
    if (result.succeeded)
        return Status();
    const TxnResult *last = &result;
    if (previousLeaseId > 0 && !result.responses.isEmpty() && result.responses[0].txn) {
        last = result.responses[0].txn.get();
        if (last->succeeded)
            return Status();
    }
    const KeyValue owner = last->responses.value(0).range.kvs.value(0);
    return Status(StatusCode::OwnershipLost,
                  QStringLiteral("%1 now belongs to %2; it is left alone")
                      .arg(describeKey(key),
                           owner.lease ? QStringLiteral("lease %1").arg(owner.lease, 0, 16)
                                       : QStringLiteral("a key without a lease")));
}

TxnBatcher &establishmentsOf(Client *client)
{
    return ClientLeases::of(ClientPrivate::get(client)).establishments();
}
} // namespace

QFuture<Status> casEstablish(Client *client, const QByteArray &key, const QByteArray &value, qint64 newLeaseId,
                             qint64 previousLeaseId)
{
    return establishmentsOf(client).submit(establishment(key, value, newLeaseId, previousLeaseId),
                                           [key, previousLeaseId](const TxnResult &result) {
                                               if (!result.status)
                                                   return result.status;
                                               return judgeEstablishment(result, key, previousLeaseId);
                                           });
}

QFuture<Status> Internal::casEstablishWhile(Client *client, const QByteArray &key, const QByteArray &value,
                                            qint64 newLeaseId, qint64 previousLeaseId, const Compare &condition,
                                            const Status &whenNot)
{
    Txn guarded;
    guarded.compares = {condition};
    guarded.success = {TxnOp::nested(establishment(key, value, newLeaseId, previousLeaseId))};
    return establishmentsOf(client).submit(guarded, [key, previousLeaseId, whenNot](const TxnResult &result) {
        if (!result.status)
            return result.status;
        if (!result.succeeded)
            return whenNot;
        const std::shared_ptr<const TxnResult> inner = result.responses.value(0).txn;
        if (!inner)
            return Status(StatusCode::Internal, QStringLiteral("establishing %1: etcd left out the nested answer")
                                                    .arg(describeKey(key)));
        return judgeEstablishment(*inner, key, previousLeaseId);
    });
}

} // namespace QEtcd
