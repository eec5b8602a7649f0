// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QObject>

// Every enum qetcd exposes to Qt's meta-object system lives in this one namespace block:
// moc allows a single Q_NAMESPACE per namespace.

/// qetcd's library: the etcd client, leases, watches and the coordination recipes.
///
/// Every asynchronous call returns a QFuture that finishes exactly once with a Status, never an
/// exception; every blocking call has an `...Async` twin the GUI thread can use.
namespace QEtcd {
Q_NAMESPACE_EXPORT(QETCD_EXPORT)
// Suspended names a value of three enums: QML must spell Etcd.ConnectionState.Suspended, and
// registering the values unscoped as well would only make it warn about the clash.
Q_CLASSINFO("RegisterEnumClassesUnscoped", "false")

/// What a Status reports: success, one of gRPC's codes, or one of qetcd's own.
///
/// gRPC codes keep their wire values so a Status read from a log maps straight to the
/// gRPC documentation; qetcd's own failures start at 256 and never collide with them.
enum class StatusCode : int {
    Ok = 0,                  ///< The operation succeeded.
    Cancelled = 1,           ///< Stopped on request: close(), an interruption, a stop token.
    Unknown = 2,             ///< gRPC could not classify the failure.
    InvalidArgument = 3,     ///< A bad argument, refused by the library or by etcd.
    DeadlineExceeded = 4,    ///< A timeout passed: the call's own, or a wait's.
    NotFound = 5,            ///< The key, lease or instance asked about does not exist.
    AlreadyExists = 6,       ///< Something with that name exists already.
    PermissionDenied = 7,    ///< The user's roles do not allow the request.
    ResourceExhausted = 8,   ///< etcd is overloaded, or an answer exceeds maxReceiveMessageSize.
    FailedPrecondition = 9,  ///< The state does not allow the request (etcd's, or the recipe's).
    Aborted = 10,            ///< etcd aborted the request.
    OutOfRange = 11,         ///< A revision outside what etcd keeps (compacted, future); a counter past 64 bits.
    Unimplemented = 12,      ///< The server does not offer the call.
    Internal = 13,           ///< An internal error in gRPC or etcd; retried as transient.
    Unavailable = 14,        ///< No member could be reached; retried as transient.
    DataLoss = 15,           ///< Unrecoverable data loss or corruption.
    Unauthenticated = 16,    ///< No valid credentials: a wrong password, an expired token.

    InvalidConfiguration = 256,  ///< ClientOptions refused: endpoints, TLS files, keep-alive.
    NotStarted,        ///< The call needs start() first.
    AlreadyStarted,    ///< start() (or grant()) was called before.
    Closed,            ///< The object was closed, released or destroyed while the call was pending.
    WouldDeadlock,     ///< A blocking call on one of the library's own threads, refused at once.
    LeaseLost,         ///< A lease behind a hold, permit or leadership was lost.
    LeaseDeclined,     ///< Reserved; no call reports it at present.
    OwnershipLost,     ///< A key this participant relied on belongs to someone else now, or is gone.
    RetriesExhausted,  ///< The retry policy gave up; the message names the last failure.
    TlsError,          ///< The TLS handshake failed (CA, client certificate or key).
    Mismatch,          ///< A stored value is not the one expected (compareAndSet(), permit count).
    Unsupported,       ///< Not possible in this state (a write lock under one's own read lock).
    ReadOnly,          ///< A write through a client whose ClientOptions::readOnly is set.
};
Q_ENUM_NS(StatusCode)

/// How a recipe's connection to etcd stands, aggregated over every lease and watch it owns.
///
/// Curator's vocabulary: a recipe starts Connected, never re-enters it, and moves between the
/// other three as its leases and watches report trouble and recovery.
enum class ConnectionState {
    Connected,    ///< The start: nothing the recipe owns has reported trouble yet.
    Suspended,    ///< Renewals or a watch get no answers; nothing is lost yet.
    Reconnected,  ///< Everything the recipe owns is healthy again after some trouble.
    /// Something it owns is gone: a hold, a permit, a leadership, an expired presence lease, a
    /// watch given up.
    Lost,
};
Q_ENUM_NS(ConnectionState)

/// What happened to a lease (see LeaseEvent).
enum class LeaseEventKind {
    Suspended,  ///< The keep-alive stream failed; the lease is probably fine, renewals resume later.
    Expired,    ///< The lease is gone; a self-healing lease starts healing.
    Restored,   ///< A new lease was granted and every owned key re-established on it.
    Failed,     ///< Healing stopped for good: the policy gave up, or the keys belong to someone else.
};
Q_ENUM_NS(LeaseEventKind)

/// What happened to a resilient watch (see WatchRecoveryEvent).
enum class WatchRecoveryKind {
    Suspended,     ///< The stream failed or etcd cancelled the watch; recovery follows.
    Resubscribed,  ///< Re-created from the next revision: nothing was missed.
    Resynced,      ///< Re-created after a compaction; the resync hook re-read what was missed.
    Failed,        ///< The retry policy gave up; the watcher is dead.
};
Q_ENUM_NS(WatchRecoveryKind)

} // namespace QEtcd
