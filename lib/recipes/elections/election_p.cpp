// SPDX-License-Identifier: Apache-2.0
#include "election_p.h"

#include "continuation_p.h"
#include "leaderlatch.h"
#include "leaderselector.h"
#include "waiting_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace QEtcd::Internal {

Participant participantFrom(const KeyValue &kv, bool isLeader)
{
    Participant participant;
    participant.key = kv.key;
    participant.value = kv.value;
    participant.createRevision = kv.createRevision;
    participant.leaseId = kv.lease;
    participant.isLeader = isLeader;
    const QJsonDocument identity = QJsonDocument::fromJson(kv.value);
    if (identity.isObject())
        participant.clientId = identity.object().value(QStringLiteral("clientId")).toString();
    return participant;
}

QFuture<ParticipantsResult> readParticipants(Client *client, const QByteArray &path)
{
    RangeOptions inQueueOrder;
    inQueueOrder.range = KeyRange::prefix();
    inQueueOrder.sortTarget = SortTarget::CreateRevision;
    inQueueOrder.sortOrder = SortOrder::Ascending;
    return after(client->get(electionPrefix(path), inQueueOrder), [](const RangeResult &range) {
        ParticipantsResult result;
        result.status = range.status;
        result.header = range.header;
        for (const KeyValue &kv : range.kvs)
            result.participants.append(participantFrom(kv, result.participants.isEmpty()));
        return result;
    });
}

// --- Candidacy ---------------------------------------------------------------------------

template <class Owner>
Candidacy<Owner>::Candidacy(Owner *q, const QByteArray &path, const QByteArray &value, Events events)
    : HoldQueue(q, path, false), q(q), prefix(electionPrefix(path)), events(std::move(events)),
      campaignSource(q->addSource(QStringLiteral("candidacy"))),
      proclamation(value.isEmpty() ? identityValue(q->clientId(), QStringLiteral("candidate")) : value)
{
    waitingLeasesCount = true;
    lostHoldsLetGoAtOnce = false;
}

template <class Owner>
QFuture<Status> Candidacy<Owner>::campaign()
{
    {
        QMutexLocker locker(&mutex);
        if (term || (campaigning && ownRevision > 0))
            return QtFuture::makeReadyFuture(Status());
    }
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    waiting.append(promise);
    if (!campaigning) {
        failures = 0;
        campaigning = std::make_shared<QueuedAttempt>();
        submit(campaigning, NoTimeout);
    }
    return promise->future();
}

// Go's Campaign: our key, named after our lease, and then the wait for the one just ahead.
template <class Owner>
QByteArray Candidacy<Owner>::entryKey(const QueuedAttempt &attempt) const
{
    return prefix + QByteArray::number(attempt.lease->leaseId(), 16);
}

template <class Owner>
QByteArray Candidacy<Owner>::entryValue(const QueuedAttempt &) const
{
    written = proclamation;
    return written;
}

template <class Owner>
QList<TxnOp> Candidacy<Owner>::lookAhead(const QueuedAttempt &attempt) const
{
    return {TxnOp::range(prefix, ahead(attempt, entriesAheadRead))};
}

template <class Owner>
Turn Candidacy<Owner>::turn(QueuedAttempt &, const QList<TxnOpResult> &ahead)
{
    return Turn::afterNearest(ahead);
}

template <class Owner>
void Candidacy<Owner>::queued(const std::shared_ptr<QueuedAttempt> &attempt)
{
    {
        QMutexLocker locker(&mutex);
        ownKey = attempt->key;
        ownRevision = attempt->revision;
    }
    failures = 0;
    if (q) {
        q->reportSource(campaignSource, Recipe::SourceHealth::Healthy);
        q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("queued as %1 (create revision %2)")
                                                                 .arg(QString::fromUtf8(attempt->key))
                                                                 .arg(attempt->revision));
    }
    settleCampaign({});
    if (written != proclamation)
        writeProclamation(attempt->key, attempt->revision, attempt->lease->leaseId());
}

// A failed grant, transaction or watch: try again with a fresh lease, paced like a heal.
template <class Owner>
void Candidacy<Owner>::failed(std::shared_ptr<QueuedAttempt> attempt, const Status &why)
{
    {
        QMutexLocker locker(&mutex);
        ownKey.clear();
        ownRevision = 0;
    }
    const auto now = std::chrono::steady_clock::now();
    if (failures++ == 0)
        firstFailure = now;
    // A read-only client or a user without the permission is refused again on every attempt:
    // retried, the refusal would look like an outage until a timeout.
    const bool refused = why.code() == StatusCode::ReadOnly || why.code() == StatusCode::PermissionDenied;
    const RetryPolicy::Delay delay = refused ? RetryPolicy::Delay{}
                                             : options.resilience.lease.retryPolicy.nextDelay(
                                                   failures, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                 now - firstFailure));
    if (q)
        q->recordError(QStringLiteral("campaign"), why);
    if (delay) {
        if (q)
            q->reportSource(campaignSource, Recipe::SourceHealth::Suspended);
        return retryAfter(attempt, *delay);
    }
    if (q) {
        q->reportSource(campaignSource, Recipe::SourceHealth::Lost);
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         refused ? QStringLiteral("stopped campaigning: refused (%1), which no retry changes").arg(why.message())
                                 : QStringLiteral("stopped campaigning: the retry policy gave up"));
    }
    campaigning.reset();
    finish(attempt, why);
    settleCampaign(why);
}

template <class Owner>
QString Candidacy<Owner>::leaseName(const QByteArray &) const
{
    return QStringLiteral("candidacy lease");
}

template <class Owner>
void Candidacy<Owner>::publish(const std::shared_ptr<QueuedHold> &hold)
{
    campaigning.reset();
    {
        QMutexLocker locker(&mutex);
        term = hold;
    }
    if (q)
        q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("elected as %1 (fencing token %2)")
                                                                 .arg(QString::fromUtf8(hold->key))
                                                                 .arg(hold->revision));
    events.elected(hold->revision);
}

// The loss thread, inside the recipe's loss gate, or the dispatcher for a loss found late.
// Lost stays the recipe's state until it is queued again: dropping the lost lease's own source
// must not make the loss look handled.
template <class Owner>
void Candidacy<Owner>::announceLoss(const std::shared_ptr<QueuedHold> &, const Status &cause)
{
    if (q)
        q->reportSource(campaignSource, Recipe::SourceHealth::Lost);
    events.lost(cause);
}

template <class Owner>
void Candidacy<Owner>::settleLoss()
{
    QMutexLocker locker(&mutex);
    const std::shared_ptr<QueuedHold> leading = term;
    locker.unlock();
    if (leading)
        tellLateLoss(leading);
}

template <class Owner>
void Candidacy<Owner>::resign()
{
    if (campaigning)
        stopAttempt(std::exchange(campaigning, nullptr),
                    Status(StatusCode::Cancelled, QStringLiteral("left the election")));
    settleCampaign(Status(StatusCode::Cancelled, QStringLiteral("left the election before our key was queued")));
    std::shared_ptr<QueuedHold> ended;
    bool hadKey = false;
    {
        QMutexLocker locker(&mutex);
        ended = std::exchange(term, nullptr);
        hadKey = !ownKey.isEmpty();
        ownKey.clear();
        ownRevision = 0;
    }
    if (ended)
        release(ended);
    if (q && hadKey)
        q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("left the election"));
}

template <class Owner>
void Candidacy<Owner>::settleCampaign(const Status &status)
{
    for (const auto &promise : std::exchange(waiting, {})) {
        promise->addResult(status);
        promise->finish();
    }
}

template <class Owner>
QFuture<Status> Candidacy<Owner>::proclaim(const QByteArray &value)
{
    proclamation = value.isEmpty() && q ? identityValue(q->clientId(), QStringLiteral("candidate")) : value;
    QMutexLocker locker(&mutex);
    const std::shared_ptr<QueuedHold> leading = term;
    const QByteArray queuedKey = ownKey;
    const qint64 queuedRevision = ownRevision;
    locker.unlock();
    if (leading && leading->lost)
        return QtFuture::makeReadyFuture(Status(StatusCode::OwnershipLost, QStringLiteral("leadership was lost")));
    if (leading)
        return writeProclamation(leading->key, leading->revision, leading->lease->leaseId());
    // Not queued yet: the campaign in flight writes the newest value once its key exists.
    if (!campaigning || queuedRevision == 0)
        return QtFuture::makeReadyFuture(Status());
    return writeProclamation(queuedKey, queuedRevision, campaigning->lease->leaseId());
}

// Go's Proclaim: rewrite our value, on our lease, only while the key is still the one we made.
template <class Owner>
QFuture<Status> Candidacy<Owner>::writeProclamation(const QByteArray &key, qint64 revision, qint64 leaseId)
{
    written = proclamation;
    PutOptions onLease;
    onLease.lease = leaseId;
    Txn txn;
    txn.compares = {Compare::createRevision(key, CompareResult::Equal, revision)};
    txn.success = {TxnOp::put(key, written, onLease)};
    return after(client->txn(txn), [key](const TxnResult &result) {
        if (!result.status)
            return result.status;
        return result.succeeded ? Status()
                                : Status(StatusCode::OwnershipLost, QString::fromUtf8(key) + QStringLiteral(" is gone"));
    });
}

template <class Owner>
bool Candidacy<Owner>::isLeading() const
{
    QMutexLocker locker(&mutex);
    return term && !term->lost;
}

template <class Owner>
bool Candidacy<Owner>::hasLostLeadership() const
{
    QMutexLocker locker(&mutex);
    return term && term->lost;
}

template <class Owner>
bool Candidacy<Owner>::isLeader() const
{
    QMutexLocker locker(&mutex);
    return term && term->isValid();
}

template <class Owner>
qint64 Candidacy<Owner>::fencingToken() const
{
    QMutexLocker locker(&mutex);
    return term ? term->revision : 0;
}

template <class Owner>
QByteArray Candidacy<Owner>::key() const
{
    QMutexLocker locker(&mutex);
    return ownKey;
}

template <class Owner>
Compare Candidacy<Owner>::ownershipCompare() const
{
    QMutexLocker locker(&mutex);
    // Outside a term the compare can never succeed: no key has create revision -1.
    return term ? Compare::createRevision(term->key, CompareResult::Equal, term->revision)
                : Compare::createRevision(prefix, CompareResult::Equal, -1);
}

template class Candidacy<LeaderSelector>;
template class Candidacy<LeaderLatch>;

} // namespace QEtcd::Internal
