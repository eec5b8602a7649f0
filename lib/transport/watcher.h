// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/enums.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/resilience.h>
#include <QEtcd/status.h>

#include <QtCore/QFuture>
#include <QtCore/QList>
#include <QtCore/QMetaType>
#include <QtCore/QObject>

#include <functional>
#include <memory>
#include <optional>

namespace QEtcd {

class Client;
class WatcherPrivate;

/// One change etcd reported, in etcd's order. The key has the client's namespace stripped.
struct QETCD_EXPORT WatchEvent
{
    /// What changed.
    enum class Type {
        Put,     ///< The key was created or written.
        Delete   ///< The key was deleted, or went with its lease.
    };
    Type type = Type::Put;           ///< What changed.
    KeyValue kv;  ///< The key as written; for a Delete, the key and the deleting revision (modRevision).
    /// The key before; only with WatchOptions::prevKv, and only if etcd still had it.
    std::optional<KeyValue> prevKv;
};

/// What a Watcher watches.
struct QETCD_EXPORT WatchOptions
{
    KeyRange range;  ///< The key alone (the default), a prefix, from the key on, or up to an end.
    qint64 startRevision = 0;  ///< 0: changes from now on; > 0: replay history from this revision.
    bool prevKv = false;       ///< Deliver each key as it was before the change (WatchEvent::prevKv).
    bool noPut = false;        ///< Leave puts out.
    bool noDelete = false;     ///< Leave deletes out.
};

/// What happened to a watch's connection to etcd (see Watcher::recovery).
struct QETCD_EXPORT WatchRecoveryEvent
{
    WatchRecoveryKind kind = WatchRecoveryKind::Suspended;  ///< What happened.
    QByteArray watchedKey;       ///< The key the watch is on.
    qint64 resumeRevision = 0;  ///< Resubscribed: the revision the watch was re-created from (0: "now").
    qint64 compactRevision = 0;  ///< Resynced: etcd had compacted its history up to here.
    qint64 anchorRevision = 0;   ///< Resynced: the revision the watch was re-created from.
    Status cause;                ///< Suspended and Failed: what went wrong.
    qint64 monotonicMs = 0;      ///< When, by std::chrono::steady_clock, in milliseconds.

    /// The event in one line, for logs and histories.
    QString toString() const;
};

/// A watch on a key or range that resumes after every failure without losing or repeating a
/// revision.
///
/// After a broken connection, a member restart or a leader change it is re-created, on
/// whichever endpoint the client fails over to, from the revision after the last one it
/// delivered: recovery() says Suspended, then Resubscribed. Every Watcher of a Client shares
/// that Client's one Watch stream. Attempts are paced by WatchResilience::retryPolicy; when it
/// gives up the watcher reports Failed and stops.
///
/// When etcd has compacted away the revisions a recovering watch needs, the resyncWith hook (if
/// set) re-reads the world and says where to resume; the watcher then reports
/// Resynced(compactRevision, anchorRevision). Without a hook it resumes after the compaction
/// and the gap is only reported.
///
/// Signals are emitted from the client's dispatcher thread, events in etcd's order; connect
/// with the default AutoConnection. Getters are safe from any thread. Destroy every Watcher
/// before its Client.
class QETCD_EXPORT Watcher : public QObject
{
    Q_OBJECT

public:
    /// The resync hook: runs on the dispatcher thread after a compaction to re-read, rebuild,
    /// and return the revision to resume from (typically the read's header.revision + 1). A
    /// failed or cancelled future, or a revision <= 0, counts as a failed recovery attempt.
    using Resync = std::function<QFuture<qint64>()>;

    /// A watch on \a key (and the range \a options name) through \a client; nothing happens
    /// until start().
    Watcher(Client *client, const QByteArray &key, const WatchOptions &options = {},
            const WatchResilience &resilience = {}, QObject *parent = nullptr);
    /// Closes the watch.
    ~Watcher() override;
    Q_DISABLE_COPY_MOVE(Watcher)

    /// Sets the resync hook. Before start(); ignored (with a warning) afterwards.
    void setResyncWith(Resync resync);

    /// Creates the watch. Finishes once: Ok when etcd has created the watch, else why not (a
    /// refused request, close() first, or the retry policy gave up before the watch was ever
    /// created); AlreadyStarted on a second call.
    QFuture<Status> start();
    /// Cancels the watch. Idempotent; no signal is emitted after it returns.
    void close();

    /// The key watched.
    QByteArray key() const;
    /// The revision the watch would be re-created from: the one after the last delivered event,
    /// or after the last progress notification, whichever is newer. Thread-safe.
    qint64 resumeRevision() const;
    /// The revision the watch delivered from when start() finished Ok: what resumeRevision() was
    /// then, before any event moved it on. 0 before that. Thread-safe.
    qint64 startRevision() const;
    /// The store's revision when etcd created the watch that start() reported (its answer's
    /// header). Above startRevision() - 1, other writes landed before the watch existed: etcd
    /// then serves it from its catch-up loop, every 100 ms, until it has caught up. 0 before
    /// start() finished Ok. Thread-safe.
    qint64 createdAtRevision() const;
    /// Created on the server and not in an outage. Thread-safe.
    bool isHealthy() const;

Q_SIGNALS:
    /// Changes, in etcd's order, from one answer whose header had \a headerRevision.
    void eventsReceived(const QList<QEtcd::WatchEvent> &events, qint64 headerRevision);
    /// etcd confirmed every change up to \a revision has been delivered (progress notification).
    void progressed(qint64 revision);
    /// The watch's stream failed, recovered, or gave up.
    void recovery(const QEtcd::WatchRecoveryEvent &event);

private:
    std::unique_ptr<WatcherPrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::WatchEvent)
Q_DECLARE_METATYPE(QEtcd::WatchRecoveryEvent)
