#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QObject>

// Every enum qetcd exposes to Qt's meta-object system lives in this one namespace block:
// moc allows a single Q_NAMESPACE per namespace.
namespace QEtcd {
Q_NAMESPACE_EXPORT(QETCD_EXPORT)
// Suspended names a value of three enums: QML must spell Etcd.ConnectionState.Suspended, and
// registering the values unscoped as well would only make it warn about the clash.
Q_CLASSINFO("RegisterEnumClassesUnscoped", "false")

// gRPC codes keep their wire values so a Status read from a log maps straight to the
// gRPC documentation; qetcd's own failures start at 256 and never collide with them.
enum class StatusCode : int {
    Ok = 0,
    Cancelled = 1,
    Unknown = 2,
    InvalidArgument = 3,
    DeadlineExceeded = 4,
    NotFound = 5,
    AlreadyExists = 6,
    PermissionDenied = 7,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    Aborted = 10,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
    DataLoss = 15,
    Unauthenticated = 16,

    InvalidConfiguration = 256,
    NotStarted,
    AlreadyStarted,
    Closed,
    WouldDeadlock,
    LeaseLost,
    LeaseDeclined,
    OwnershipLost,
    RetriesExhausted,
    TlsError,
    Mismatch,
    Unsupported,
    ReadOnly,  // a write through a client whose ClientOptions::readOnly is set
};
Q_ENUM_NS(StatusCode)

// Curator's vocabulary: a recipe starts Connected, never re-enters it, and moves between the
// other three as its leases and watches report trouble and recovery.
enum class ConnectionState {
    Connected,
    Suspended,
    Reconnected,
    Lost,
};
Q_ENUM_NS(ConnectionState)

// What happened to a self-healing lease (see LeaseEvent).
enum class LeaseEventKind {
    Suspended,  // the keep-alive stream failed; the lease is probably fine, renewals resume later
    Expired,    // the lease is gone; healing starts
    Restored,   // a new lease was granted and every owned key re-established on it
    Failed,     // healing stopped for good: the policy gave up, or the keys belong to someone else
};
Q_ENUM_NS(LeaseEventKind)

// What happened to a resilient watch (see WatchRecoveryEvent).
enum class WatchRecoveryKind {
    Suspended,     // the stream failed or etcd cancelled the watch; recovery follows
    Resubscribed,  // re-created from the next revision: nothing was missed
    Resynced,      // re-created after a compaction; the resync hook re-read what was missed
    Failed,        // the retry policy gave up; the watcher is dead
};
Q_ENUM_NS(WatchRecoveryKind)

} // namespace QEtcd
