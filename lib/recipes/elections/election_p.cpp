#include "election_p.h"

#include "client_p.h"
#include "continuation_p.h"
#include "leaderlatch.h"
#include "leaderselector.h"
#include "threading_p.h"
#include "waiting_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace QEtcd::Internal {

using namespace std::chrono;

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

namespace {
// Drives one waitForTurn() on the dispatcher thread and finishes its promise once.
class TurnWait : public QObject
{
public:
    TurnWait(Client *client, const QByteArray &prefix, const QByteArray &key, qint64 revision,
             const WatchResilience &resilience, const StopToken &stop)
        : m_client(client), m_prefix(prefix), m_key(key), m_revision(revision), m_resilience(resilience),
          m_stop(stop)
    {
    }

    QFuture<Status> begin()
    {
        m_promise.start();
        QFuture<Status> future = m_promise.future();
        round();
        return future;
    }

private:
    void round()
    {
        if (m_stop.stopRequested())
            return finish(Status(StatusCode::Cancelled, QStringLiteral("stopped while waiting")));
        Txn txn;
        txn.compares = {Compare::createRevision(m_key, CompareResult::Equal, m_revision)};
        txn.success = {TxnOp::range(m_prefix, newestEntries(1, m_revision))};
        thenOn(m_client->txn(txn), this, [this](const TxnResult &result) {
            if (m_stop.stopRequested())
                return finish(Status(StatusCode::Cancelled, QStringLiteral("stopped while waiting")));
            if (!result.status)
                return finish(result.status);
            if (!result.succeeded)
                return finish(Status(StatusCode::OwnershipLost,
                                     QString::fromUtf8(m_key) + QStringLiteral(" vanished while queued")));
            const QList<KeyValue> older = result.responses.value(0).range.kvs;
            if (older.isEmpty())
                return finish({});
            thenOn(waitForDeletion(m_client, older.first(), result.header.revision, m_resilience, m_stop),
                   this, [this](const Status &deleted) {
                    if (!deleted)
                        return finish(deleted);
                    round();
                });
        });
    }

    void finish(const Status &status)
    {
        m_promise.addResult(status);
        m_promise.finish();
        deleteLater();
    }

    Client *m_client;
    const QByteArray m_prefix;
    const QByteArray m_key;
    const qint64 m_revision;
    const WatchResilience m_resilience;
    const StopToken m_stop;
    QPromise<Status> m_promise;
};
} // namespace

QFuture<Status> waitForTurn(Client *client, const QByteArray &prefix, const QByteArray &key, qint64 revision,
                            const WatchResilience &resilience, const StopToken &stop)
{
    auto *wait = new TurnWait(client, prefix, key, revision, resilience, stop);
    wait->moveToThread(ClientPrivate::get(client)->dispatcher());
    QFuture<Status> future;
    runOn(wait, [wait, &future] { future = wait->begin(); });
    return future;
}

// --- Candidacy ---------------------------------------------------------------------------

template <class Owner>
Candidacy<Owner>::Candidacy(Owner *q, const QByteArray &path, const QByteArray &value, Events events)
    : q(q), client(q->client()), prefix(electionPrefix(path)), ttlSeconds(q->options().ttlSeconds),
      resilience(q->options().resilience), events(std::move(events)),
      campaignSource(q->addSource(QStringLiteral("candidacy"))),
      proclamation(value.isEmpty() ? identityValue(q->clientId(), QStringLiteral("candidate")) : value)
{
}

template <class Owner>
Candidacy<Owner>::~Candidacy() = default;

template <class Owner>
QFuture<Status> Candidacy<Owner>::campaign()
{
    if (phase != Phase::Idle && phase != Phase::Campaigning)
        return QtFuture::makeReadyFuture(Status());
    if (phase == Phase::Campaigning && revision > 0)
        return QtFuture::makeReadyFuture(Status());
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    queued.append(promise);
    if (phase == Phase::Idle) {
        phase = Phase::Campaigning;
        failures = 0;
        enqueue();
    }
    return promise->future();
}

template <class Owner>
void Candidacy<Owner>::enqueue()
{
    const quint64 current = ++generation;
    attemptStop = StopSource();
    auto fresh = std::make_unique<ExclusivityLease>(client, ttlSeconds);
    ExclusivityLease *granting = fresh.get();
    // The loss is told from the loss thread (tellLoss); what follows from it, here.
    connect(granting, &ExclusivityLease::lost, this,
            [this, current](const Status &cause) { onLeaseLost(current, cause); }, Qt::QueuedConnection);
    if (q) {
        leaseSource = q->track(granting, QStringLiteral("candidacy lease"),
                               [this, granting](const Status &cause) { tellLoss(granting, cause); });
    }
    {
        QMutexLocker locker(&mutex);
        lease = std::move(fresh);
    }
    thenOn(granting->grant(), this, [this, current](const Status &granted) {
        if (current != generation)
            return;
        if (!granted)
            return retryLater(granted);
        joinQueue(current);
    });
}

// Go's Campaign: create our key unless it exists, and learn who is first, in one transaction.
template <class Owner>
void Candidacy<Owner>::joinQueue(quint64 current)
{
    const qint64 leaseId = lease->leaseId();
    const QByteArray candidateKey = prefix + QByteArray::number(leaseId, 16);
    written = proclamation;
    RangeOptions firstCreated;
    firstCreated.range = KeyRange::prefix();
    firstCreated.sortTarget = SortTarget::CreateRevision;
    firstCreated.sortOrder = SortOrder::Ascending;
    firstCreated.limit = 1;
    PutOptions onLease;
    onLease.lease = leaseId;
    Txn txn;
    txn.compares = {Compare::createRevision(candidateKey, CompareResult::Equal, 0)};
    txn.success = {TxnOp::put(candidateKey, written, onLease), TxnOp::range(prefix, firstCreated)};
    txn.failure = {TxnOp::range(candidateKey), TxnOp::range(prefix, firstCreated)};
    thenOn(client->txn(txn), this, [this, current, candidateKey](const TxnResult &result) {
        if (current != generation)
            return;
        if (!result.status)
            return retryLater(result.status);
        const qint64 created = result.succeeded ? result.header.revision
                                                : result.responses.value(0).range.kvs.value(0).createRevision;
        {
            QMutexLocker locker(&mutex);
            ownKey = candidateKey;
            revision = created;
        }
        failures = 0;
        if (q) {
            q->reportSource(campaignSource, Recipe::SourceHealth::Healthy);
            q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                             QStringLiteral("queued as %1 (create revision %2)")
                                 .arg(QString::fromUtf8(candidateKey))
                                 .arg(created));
        }
        settleCampaign({});
        if (written != proclamation)
            writeProclamation();
        const QList<KeyValue> first = result.responses.value(1).range.kvs;
        if (first.isEmpty() || first.first().createRevision == created)
            return becomeLeader();
        awaitTurn(current);
    });
}

template <class Owner>
void Candidacy<Owner>::awaitTurn(quint64 current)
{
    thenOn(waitForTurn(client, prefix, ownKey, revision, resilience.watch, attemptStop.token()),
           this, [this, current](const Status &turn) {
            if (current != generation)
                return;
            if (turn)
                return becomeLeader();
            if (turn.code() == StatusCode::OwnershipLost)
                return requeue(QStringLiteral("our key vanished while queued"));
            retryLater(turn);
        });
}

template <class Owner>
void Candidacy<Owner>::becomeLeader()
{
    if (!lease->isValid())
        return requeue(QStringLiteral("lease lost just before leadership was claimed"));
    phase = Phase::Leading;
    {
        QMutexLocker locker(&mutex);
        token = revision;
        leading = true;
    }
    if (q)
        q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                         QStringLiteral("elected as %1 (fencing token %2)").arg(QString::fromUtf8(ownKey)).arg(revision));
    events.elected(revision);
    QMutexLocker locker(&mutex);
    termAnnounced = true;
}

template <class Owner>
void Candidacy<Owner>::onLeaseLost(quint64 current, const Status &cause)
{
    if (current != generation)
        return;
    if (phase == Phase::Campaigning)
        return requeue(QStringLiteral("candidacy lease lost while queued (%1)").arg(cause.toString()));
    if (phase == Phase::Leading)
        loseLeadership(cause);
}

template <class Owner>
void Candidacy<Owner>::tellLoss(const ExclusivityLease *lost, const Status &cause)
{
    {
        QMutexLocker locker(&mutex);
        // Before the owner announced the term, the loss waits for the dispatcher: it is told
        // after the election, never before.
        if (!leading || !termAnnounced || lease.get() != lost)
            return;
    }
    tellLostLeadership(cause);
}

template <class Owner>
void Candidacy<Owner>::loseLeadership(const Status &cause)
{
    phase = Phase::LostLeadership;
    tellLostLeadership(cause);
}

template <class Owner>
void Candidacy<Owner>::tellLostLeadership(const Status &cause)
{
    {
        QMutexLocker locker(&mutex);
        termAnnounced = false;
        if (!std::exchange(leading, false))
            return;
    }
    // Lost stays the recipe's state until it is queued again: dropping the lost lease's own
    // source must not make the loss look handled.
    if (q)
        q->reportSource(campaignSource, Recipe::SourceHealth::Lost);
    events.lost(cause);
}

template <class Owner>
void Candidacy<Owner>::settleLoss()
{
    if (phase != Phase::Leading || lease->isValid())
        return;
    const Status cause(StatusCode::LeaseLost,
                       QStringLiteral("lease %1 passed its loss deadline").arg(lease->leaseId(), 0, 16));
    if (q) {
        q->recordHistory(RecipeHistoryEntry::Source::Lease, QStringLiteral("candidacy lease: ") + cause.message());
        q->reportSource(leaseSource, Recipe::SourceHealth::Lost);
    }
    loseLeadership(cause);
}

template <class Owner>
void Candidacy<Owner>::requeue(const QString &why)
{
    if (q)
        q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("re-queues with a fresh lease: ") + why);
    dropLease();
    enqueue();
}

// A failed grant, transaction or watch: try again with a fresh lease, paced like a heal.
template <class Owner>
void Candidacy<Owner>::retryLater(const Status &why)
{
    const quint64 current = ++generation;
    dropLease();
    const auto now = steady_clock::now();
    if (failures++ == 0)
        firstFailure = now;
    const RetryPolicy::Delay delay =
        resilience.lease.retryPolicy.nextDelay(failures, duration_cast<milliseconds>(now - firstFailure));
    if (q)
        q->recordError(QStringLiteral("campaign"), why);
    if (!delay) {
        phase = Phase::Idle;
        if (q) {
            q->reportSource(campaignSource, Recipe::SourceHealth::Lost);
            q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                             QStringLiteral("stopped campaigning: the retry policy gave up"));
        }
        settleCampaign(why);
        return;
    }
    if (q)
        q->reportSource(campaignSource, Recipe::SourceHealth::Suspended);
    QTimer::singleShot(*delay, this, [this, current] {
        if (current == generation)
            enqueue();
    });
}

template <class Owner>
void Candidacy<Owner>::resign()
{
    settleLoss();
    ++generation;
    phase = Phase::Idle;
    const bool hadKey = !ownKey.isEmpty();
    dropLease();
    settleCampaign(Status(StatusCode::Cancelled, QStringLiteral("left the election before our key was queued")));
    if (q && hadKey)
        q->recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("left the election"));
}

// Revoking the lease removes our key. A lease already declared lost is revoked too: etcd may
// not have expired it yet, and the candidates behind us should not wait for that.
template <class Owner>
void Candidacy<Owner>::dropLease()
{
    attemptStop.requestStop();
    std::unique_ptr<ExclusivityLease> old;
    {
        QMutexLocker locker(&mutex);
        old = std::move(lease);
        ownKey.clear();
        revision = 0;
        token = 0;
        leading = false;
        termAnnounced = false;
    }
    if (!old)
        return;
    if (q)
        q->removeSource(leaseSource);
    leaseSource = -1;
    const bool declaredLost = !old->lossCause().isOk();
    old->release();
    if (declaredLost && old->leaseId() > 0)
        client->leaseRevoke(old->leaseId());
}

template <class Owner>
void Candidacy<Owner>::settleCampaign(const Status &status)
{
    for (const auto &promise : std::exchange(queued, {})) {
        promise->addResult(status);
        promise->finish();
    }
}

template <class Owner>
QFuture<Status> Candidacy<Owner>::proclaim(const QByteArray &value)
{
    proclamation = value.isEmpty() && q ? identityValue(q->clientId(), QStringLiteral("candidate")) : value;
    if (phase == Phase::LostLeadership)
        return QtFuture::makeReadyFuture(Status(StatusCode::OwnershipLost, QStringLiteral("leadership was lost")));
    // Not queued yet: the campaign in flight writes the newest value once its key exists.
    if (phase == Phase::Idle || revision == 0)
        return QtFuture::makeReadyFuture(Status());
    return writeProclamation();
}

// Go's Proclaim: rewrite our value, on our lease, only while the key is still the one we made.
template <class Owner>
QFuture<Status> Candidacy<Owner>::writeProclamation()
{
    written = proclamation;
    PutOptions onLease;
    onLease.lease = lease->leaseId();
    Txn txn;
    txn.compares = {Compare::createRevision(ownKey, CompareResult::Equal, revision)};
    txn.success = {TxnOp::put(ownKey, written, onLease)};
    return after(client->txn(txn), [key = ownKey](const TxnResult &result) {
        if (!result.status)
            return result.status;
        return result.succeeded ? Status()
                                : Status(StatusCode::OwnershipLost, QString::fromUtf8(key) + QStringLiteral(" is gone"));
    });
}

template <class Owner>
bool Candidacy<Owner>::isLeader() const
{
    QMutexLocker locker(&mutex);
    return leading && lease && lease->isValid();
}

template <class Owner>
qint64 Candidacy<Owner>::fencingToken() const
{
    QMutexLocker locker(&mutex);
    return token;
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
    return token > 0 ? Compare::createRevision(ownKey, CompareResult::Equal, token)
                     : Compare::createRevision(prefix, CompareResult::Equal, -1);
}

template class Candidacy<LeaderSelector>;
template class Candidacy<LeaderLatch>;

} // namespace QEtcd::Internal
