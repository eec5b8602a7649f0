// SPDX-License-Identifier: Apache-2.0
#pragma once

// Shared mechanics of every recipe that queues: the identity value a participant writes, and
// waiting for a key to disappear.

#include "client.h"
#include "resilience.h"
#include "stoptoken.h"
#include "watcher.h"

#include <QEtcd/qetcdexport.h>

#include <QtCore/QFuture>

#include <functional>
#include <optional>

namespace QEtcd::Internal {

// {"clientId":…,"host":…,"pid":…,"requestedAt":…,"role":…}: lets a console name the
// participant behind a key; role ("lock" or "candidate") tells a lock's queue from an
// election's, which share etcd's layout. Other tools write nothing (a lock) or their
// proclamation; readers must accept any value.
QByteArray identityValue(const QString &clientId, const QString &role);

// "<clientId>:<7-char random token>": etcd-recipes' per-participant value and key suffix.
QByteArray uniqueToken(const QString &clientId);

// The entries under a prefix created last, newest first, without values: how a queueing recipe
// finds the entry just ahead of its own. createdBefore (0: no bound) keeps only older ones.
RangeOptions newestEntries(qint64 limit, qint64 createdBefore = 0);

// Finishes Ok once the key the caller saw at observedRevision (observed.key, in the incarnation
// observed.createRevision) is deleted, Cancelled when stop is requested, or with the watch's
// failure when it cannot be recovered. A key re-created under the same name meanwhile (a lease
// reused for the next acquisition) counts as deleted: waiting for the new one could wait for
// ourselves.
// The watch starts at etcd's current revision and, when that has moved past observedRevision,
// is followed by one existence check (DeletionWatch::fromNow): a deletion that lands while the
// watch is being set up is caught by the check, and etcd serves the watch from its fast
// "synced" path.
QFuture<Status> waitForDeletion(Client *client, const KeyValue &observed, qint64 observedRevision,
                                const WatchResilience &resilience, const StopToken &stop);

// The same wait for callers that need to know more than "it is gone".
struct DeletionWatch
{
    // Ask etcd for the key as it was just before the deletion (what the deleter left there).
    bool previousValue = false;
    // The incarnation waited for (0: any): the key found with another create revision counts
    // as deleted.
    qint64 createRevision = 0;
    // After a compaction swallowed part of the history, a read that finds the key absent
    // counts as its deletion. Turn it off for a key that was already absent when the wait
    // began: its absence then proves nothing.
    bool absenceAfterResync = true;
    // Told every recovery event of the watch, on the dispatcher thread, while the wait lasts.
    std::function<void(const WatchRecoveryEvent &)> onRecovery;
    // Watch from etcd's current revision and then check once that the key still exists,
    // instead of anchoring at observedRevision + 1. On a busy queue other waiters' writes move
    // the revision between the caller's read and the watch's creation, and etcd then serves an
    // anchored watch from its catch-up loop, which runs every 100 ms: every lock hand-off would
    // wait for it. Single keys without previousValue only. etcd 3.4 still files such a watch
    // under that loop when a write lands while it registers the watch, so a second watch from
    // now follows the first: the wait is slow only when both are.
    bool fromNow = false;
    // KeyRange::prefix(): the deletion of any key under key. After a compaction no read can
    // tell which one went, so a resync then ends the wait and the caller re-checks.
    KeyRange range;
    // The waiter's own key, in the incarnation guardCreateRevision (fromNow and single keys
    // only). The watch and the existence check cover it too, and Deletion::guardStood tells
    // whether the awaited keys went while the guard provably still stood. The guard's own
    // deletion ends the wait with guardStood false: the waiter's entry is gone, and it reads
    // again to learn why. A lock's waiter with nobody else ahead is admitted on that alone, without
    // reading the queue again.
    QByteArray guard;
    qint64 guardCreateRevision = 0;
    // With a guard: more keys, each in its incarnation, that must all be deleted too before the
    // wait ends (every entry ahead of a waiter, when its read found them all; the key itself may
    // be among them).
    QList<KeyValue> alongWith;
    // Tests only: stands in for the existence check's read (Client::get), e.g. to make it fail.
    std::function<QFuture<RangeResult>(const QByteArray &key, const RangeOptions &options)> probeRead;
};

struct Deletion
{
    Status status;
    std::optional<KeyValue> previous;  // with previousValue, when etcd still had it
    // With a guard: the key was deleted at a revision where the guard was still there. False
    // whenever that is not proven (the guard went, or the news came from the second watch).
    bool guardStood = false;
};

QETCD_INTERNAL_EXPORT QFuture<Deletion> watchDeletion(Client *client, const QByteArray &key, qint64 observedRevision,
                                                      const WatchResilience &resilience, const StopToken &stop,
                                                      const DeletionWatch &how);

// watchDeletion() for callers that only need the status.
QFuture<Status> waitForDeletion(Client *client, const QByteArray &key, qint64 observedRevision,
                                const WatchResilience &resilience, const StopToken &stop, const DeletionWatch &how);

// Finishes Ok once a key under prefix (a '/'-terminated prefix) is put after observedRevision
// (the revision of the read that found nothing to take), or when the watch resumed after an
// outage (Resubscribed, Resynced): an event may have been missed then, so the caller re-reads
// either way. Cancelled when stop is requested, the watch's failure when it cannot recover.
// onRecovery is told every recovery event on the dispatcher thread while the wait lasts.
// Puts that land between that read and the watch are found by one read once the watch exists,
// and a second watch from etcd's current revision hears later ones while etcd's catch-up loop
// (100 ms) still owes the first watch its events.
QETCD_INTERNAL_EXPORT QFuture<Status> waitForPut(Client *client, const QByteArray &prefix, qint64 observedRevision,
                           const WatchResilience &resilience, const StopToken &stop,
                           std::function<void(const WatchRecoveryEvent &)> onRecovery = {});

} // namespace QEtcd::Internal
