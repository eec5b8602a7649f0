// SPDX-License-Identifier: Apache-2.0
#include "coordinationinterventions.h"

#include "barriermarks_p.h"
#include "client.h"
#include "continuation_p.h"

namespace QEtcd {

namespace {
using Internal::after;
using Internal::thenOn;
using Kind = CoordinationObject::Kind;

QFuture<InterventionResult> refused(StatusCode code, const QString &message)
{
    InterventionResult result;
    result.status = Status(code, message);
    return QtFuture::makeReadyFuture(result);
}

QString quoted(const QByteArray &key)
{
    return QStringLiteral("\"%1\"").arg(QString::fromUtf8(key));
}

QString leaseText(qint64 lease)
{
    return QStringLiteral("lease ") + QString::number(quint64(lease), 16);
}

// Why a guarded write on key found nothing to do: gone, or another entry in its place.
Status notTheEntryShown(const CoordinationEntry &entry, const QList<KeyValue> &now)
{
    if (now.isEmpty())
        return Status(StatusCode::NotFound, QStringLiteral("%1 is gone already").arg(quoted(entry.key)));
    return Status(StatusCode::Mismatch,
                  QStringLiteral("%1 was replaced since it was read (create revision %2, now %3): nothing was written")
                      .arg(quoted(entry.key))
                      .arg(entry.createRevision)
                      .arg(now.first().createRevision));
}

// The client goes before the chain ends: its calls are cancelled, and so is the intervention.
InterventionResult clientGone()
{
    InterventionResult result;
    result.status = Status(StatusCode::Cancelled, QStringLiteral("the client was destroyed"));
    return result;
}

template <class T>
auto clientGoneFor()
{
    return [](const T &) { return QtFuture::makeReadyFuture(clientGone()); };
}

Status checkEntry(Client *client, const CoordinationEntry &entry)
{
    if (!client)
        return Status(StatusCode::InvalidArgument, QStringLiteral("no client"));
    // Said at once: a revoke would be refused only after the reads that lead to it.
    if (client->options().readOnly)
        return Status(StatusCode::ReadOnly, QStringLiteral("refused: the client is read-only"));
    if (entry.key.isEmpty())
        return Status(StatusCode::InvalidArgument, QStringLiteral("the entry names no key"));
    if (entry.createRevision <= 0) {
        return Status(StatusCode::InvalidArgument,
                      QStringLiteral("%1: no create revision to guard the write with").arg(quoted(entry.key)));
    }
    return {};
}

// One transaction: entry.key goes only while it is the very key that was shown, and with it
// the keys that only describe it.
QFuture<InterventionResult> deleteGuarded(Client *client, const CoordinationEntry &entry,
                                          const QList<QByteArray> &alongWith = {})
{
    Txn txn;
    txn.compares = {Compare::createRevision(entry.key, CompareResult::Equal, entry.createRevision)};
    txn.success = {TxnOp::remove(entry.key)};
    for (const QByteArray &key : alongWith)
        txn.success.append(TxnOp::remove(key));
    txn.failure = {TxnOp::range(entry.key)};
    return after(client->txn(txn), [entry](const TxnResult &answer) {
        InterventionResult result;
        if (!answer.status) {
            result.status = answer.status.withContext(QStringLiteral("delete %1").arg(quoted(entry.key)));
        } else if (!answer.succeeded) {
            result.status = notTheEntryShown(entry, answer.responses.value(0).range.kvs);
        } else {
            result.method = InterventionResult::Method::KeysDeleted;
            result.removedKeys = {entry.key};
            result.revision = answer.header.revision;
        }
        return result;
    });
}

QFuture<InterventionResult> revoke(Client *client, const CoordinationEntry &holder, const QList<QByteArray> &keys)
{
    return after(client->leaseRevoke(holder.lease), [holder, keys](const Result &answer) {
        InterventionResult result;
        if (answer.status.isLeaseNotFound()) {
            result.status = Status(StatusCode::NotFound,
                                   QStringLiteral("%1 expired meanwhile: the hold has ended already").arg(leaseText(holder.lease)));
        } else if (!answer.status) {
            result.status = answer.status.withContext(QStringLiteral("revoke %1").arg(leaseText(holder.lease)));
        } else {
            result.method = InterventionResult::Method::LeaseRevoked;
            result.lease = holder.lease;
            result.removedKeys = keys;
            result.revision = answer.header.revision;
        }
        return result;
    });
}
} // namespace

QString InterventionResult::methodName() const
{
    switch (method) {
    case Method::LeaseRevoked:
        return QStringLiteral("lease_revoked");
    case Method::KeysDeleted:
        return QStringLiteral("keys_deleted");
    case Method::None:
        break;
    }
    return QStringLiteral("none");
}

QFuture<InterventionResult> CoordinationInterventions::breakHold(Client *client, const CoordinationEntry &holder)
{
    if (const Status bad = checkEntry(client, holder); !bad)
        return refused(bad.code(), bad.message());
    if (holder.lease == 0)
        return deleteGuarded(client, holder);
    // First that the hold is still the one shown, on the lease shown; then whether the lease
    // carries anything else. A revoke cannot be guarded, so the check comes right before it.
    Txn check;
    check.compares = {Compare::createRevision(holder.key, CompareResult::Equal, holder.createRevision),
                      Compare::lease(holder.key, CompareResult::Equal, holder.lease)};
    check.failure = {TxnOp::range(holder.key)};
    const auto sameHold = [client, holder](const TxnResult &answer) {
        if (!answer.status || !answer.succeeded) {
            InterventionResult result;
            const QList<KeyValue> now = answer.responses.value(0).range.kvs;
            if (!answer.status) {
                result.status = answer.status.withContext(QStringLiteral("read %1").arg(quoted(holder.key)));
            } else if (!now.isEmpty() && now.first().createRevision == holder.createRevision) {
                result.status = Status(StatusCode::Mismatch,
                                       QStringLiteral("%1 moved to another lease since it was read: nothing was written")
                                           .arg(quoted(holder.key)));
            } else {
                result.status = notTheEntryShown(holder, now);
            }
            return QtFuture::makeReadyFuture(result);
        }
        return thenOn(client->leaseTimeToLive(holder.lease, true), client,
            [client, holder](const LeaseTimeToLiveResult &lease) {
                if (!lease.status && !lease.status.isLeaseNotFound()) {
                    InterventionResult result;
                    result.status = lease.status.withContext(QStringLiteral("read %1").arg(leaseText(holder.lease)));
                    return QtFuture::makeReadyFuture(result);
                }
                // A lease shared with other keys (a Go session holding several locks) keeps
                // them: only this hold's key goes.
                if (lease.keys != QList<QByteArray>{holder.key})
                    return deleteGuarded(client, holder);
                return revoke(client, holder, lease.keys);
            },
            clientGoneFor<LeaseTimeToLiveResult>());
    };
    return thenOn(client->txn(check), client, sameHold, clientGoneFor<TxnResult>());
}

QFuture<InterventionResult> CoordinationInterventions::removeEntry(Client *client, const CoordinationEntry &entry)
{
    if (const Status bad = checkEntry(client, entry); !bad)
        return refused(bad.code(), bad.message());
    return deleteGuarded(client, entry);
}

QFuture<InterventionResult> CoordinationInterventions::liftBarrier(Client *client, const CoordinationObject &barrier)
{
    if (barrier.kind != Kind::Barrier || !barrier.set || barrier.holders.isEmpty()) {
        return refused(StatusCode::InvalidArgument,
                       QStringLiteral("%1 is not a set barrier").arg(quoted(barrier.path)));
    }
    const CoordinationEntry owner = barrier.holders.first();
    if (const Status bad = checkEntry(client, owner); !bad)
        return refused(bad.code(), bad.message());
    // Marked first, on the owner's lease (which its keep-alive ignores), so that waiters read
    // from the deleted key that it was lifted on purpose: the owner, told, may revoke its lease
    // before they ask whether it expired.
    Txn mark;
    mark.compares = {Compare::createRevision(owner.key, CompareResult::Equal, owner.createRevision)};
    PutOptions keepLease;
    keepLease.ignoreLease = true;
    mark.success = {TxnOp::put(owner.key, owner.value + Internal::barrierLiftedSuffix, keepLease)};
    mark.failure = {TxnOp::range(owner.key)};
    return thenOn(client->txn(mark), client, [client, owner](const TxnResult &marked) {
            if (!marked.status || !marked.succeeded) {
                InterventionResult result;
                result.status = !marked.status ? marked.status.withContext(QStringLiteral("mark %1").arg(quoted(owner.key)))
                                               : notTheEntryShown(owner, marked.responses.value(0).range.kvs);
                return QtFuture::makeReadyFuture(result);
            }
            return deleteGuarded(client, owner);
        },
        clientGoneFor<TxnResult>());
}

QFuture<InterventionResult> CoordinationInterventions::forceReelection(Client *client, const CoordinationObject &election)
{
    if (election.kind != Kind::Election)
        return refused(StatusCode::InvalidArgument, QStringLiteral("%1 is not an election").arg(quoted(election.path)));
    if (election.holders.isEmpty())
        return refused(StatusCode::NotFound, QStringLiteral("nobody leads %1").arg(quoted(election.path)));
    return breakHold(client, election.holders.first());
}

QFuture<InterventionResult> CoordinationInterventions::releaseRound(Client *client, const CoordinationObject &barrier)
{
    if (barrier.kind != Kind::CountedBarrier) {
        return refused(StatusCode::InvalidArgument,
                       QStringLiteral("%1 is not a counted barrier").arg(quoted(barrier.path)));
    }
    if (!barrier.set || barrier.holders.isEmpty())
        return refused(StatusCode::NotFound, QStringLiteral("no round of %1 is open").arg(quoted(barrier.path)));
    return removeEntry(client, barrier.holders.first());
}

QFuture<InterventionResult> CoordinationInterventions::removeQueueItem(Client *client, const CoordinationObject &queue,
                                                                        const CoordinationEntry &item)
{
    if (const Status bad = checkEntry(client, item); !bad)
        return refused(bad.code(), bad.message());
    const QByteArray under = queue.path + '/';
    if (queue.kind == Kind::Queue || queue.kind == Kind::PriorityQueue) {
        if (item.key.startsWith(under))
            return deleteGuarded(client, item);
    } else if (queue.kind == Kind::WorkQueue) {
        for (const QByteArray &waiting : {under + "items/", under + "delayed/"}) {
            const QByteArray id = item.key.mid(waiting.size());
            if (item.key.startsWith(waiting) && !id.isEmpty() && !id.contains('/'))
                return deleteGuarded(client, item, {under + "attempts/" + id});
        }
    }
    return refused(StatusCode::InvalidArgument,
                   QStringLiteral("%1 is not an item waiting in the queue %2").arg(quoted(item.key), quoted(queue.path)));
}

} // namespace QEtcd
