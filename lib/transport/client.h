// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/clientoptions.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <functional>
#include <memory>
#include <optional>

namespace QEtcd {

class ClientPrivate;

/// An asynchronous etcd v3 client over gRPC: KV, transactions, leases, cluster status and
/// maintenance, users and roles.
///
/// Every call returns at once with a QFuture that finishes exactly once, with a result whose
/// status tells success or names what went wrong; nothing blocks the calling thread and nothing
/// throws. Any thread may start calls, the GUI thread included: the network work happens on the
/// library's completion-queue thread, one for all clients of the process (so never block in a
/// continuation that runs there). Watch the future with a QFutureWatcher, or take the answer
/// through the call's overload with a context object (on that object's thread) or with onAnswer
/// alone (on the completion-queue thread): Qt 6.4's then(), attached while another thread
/// finishes the future (the library's threads finish every one it returns), can run the
/// continuation twice and crash, however soon after the call it is attached.
///
/// Bad input (an empty key, a TTL of 0) is refused before anything is sent, with a status that
/// names it. With several endpoints a call that cannot reach its member moves to the next. TLS,
/// mutual TLS, user/password authentication, a key namespace and read-only mode are configured
/// through ClientOptions. Destroying the client cancels every call still running: their futures
/// finish with Cancelled.
class QETCD_EXPORT Client : public QObject
{
    Q_OBJECT
    /// The endpoint calls go to now, as a URL ("http://127.0.0.1:2379").
    Q_PROPERTY(QString activeEndpoint READ activeEndpoint NOTIFY activeEndpointChanged)

public:
    /// A client of the cluster that \a options names. Nothing connects until the first call. Refused
    /// options still make a client, one whose every call fails with configurationStatus().
    explicit Client(const ClientOptions &options, QObject *parent = nullptr);
    /// Cancels every call still running and waits for the client's threads to end.
    ~Client() override;
    Q_DISABLE_COPY_MOVE(Client)

    /// Ok, or why the options were refused; a refused client fails every call with this status.
    Status configurationStatus() const;
    /// The options the client was made with.
    const ClientOptions &options() const;
    /// The endpoints, parsed and written as URLs; empty when the options were refused.
    QStringList endpoints() const;
    /// The endpoint calls go to now.
    QString activeEndpoint() const;

    /// How one call is retried and bounded; left unset, the client's options().rpc.
    using Rpc = std::optional<RpcResilience>;

    /// Reads \a key, or the range \a options describe.
    QFuture<RangeResult> get(const QByteArray &key, const RangeOptions &options = {}, const Rpc &rpc = {});
    /// Writes \a value to \a key. A read-only client refuses it with ReadOnly.
    QFuture<PutResult> put(const QByteArray &key, const QByteArray &value, const PutOptions &options = {},
                           const Rpc &rpc = {});
    /// Deletes \a key, or the range \a options describe. A read-only client refuses it.
    QFuture<DeleteResult> remove(const QByteArray &key, const DeleteOptions &options = {}, const Rpc &rpc = {});
    /// Runs a transaction; one that only reads is retried as get() is. One that writes only when
    /// it could not be sent: a commit failed in flight may have happened, which only the caller's
    /// compares can tell. operationTimeout bounds it. A read-only client refuses one that writes.
    QFuture<TxnResult> txn(const Txn &txn, const Rpc &rpc = {});

    /// Takes one call's answer where it arrives, for the overloads of get(), put(), remove() and
    /// txn() that end in one. They hand the result to it on the completion-queue thread the moment
    /// it arrives, instead of through a future. A future watched from an event loop costs a wake-up
    /// of the watching thread on every answer, tens of microseconds on a virtual machine and a good
    /// part of a loopback round trip; these overloads are for code that keeps its own state
    /// thread-safe and wants the round trip alone. onAnswer runs exactly once and never inside the
    /// call that started it: a call refused before anything was sent is answered on the library's
    /// futures thread (while the QCoreApplication lives). It may start the next call; it must not
    /// block or take long, because every client's answers wait behind it.
    template <class Result>
    using OnAnswer = std::function<void(const Result &)>;

    /// get(), answered through \a onAnswer (see OnAnswer).
    void get(const QByteArray &key, const RangeOptions &options, const Rpc &rpc, OnAnswer<RangeResult> onAnswer);
    /// put(), answered through \a onAnswer (see OnAnswer).
    void put(const QByteArray &key, const QByteArray &value, const PutOptions &options, const Rpc &rpc,
             OnAnswer<PutResult> onAnswer);
    /// remove(), answered through \a onAnswer (see OnAnswer).
    void remove(const QByteArray &key, const DeleteOptions &options, const Rpc &rpc, OnAnswer<DeleteResult> onAnswer);
    /// txn(), answered through \a onAnswer (see OnAnswer).
    void txn(const Txn &txn, const Rpc &rpc, OnAnswer<TxnResult> onAnswer);

    /// The overloads of get(), put(), remove() and txn() that take a \a context run \a onAnswer on
    /// the context's thread, as one queued call posted to it when the answer arrives: what
    /// QFuture::then(context, ...) promises, without Qt 6.4's double run, and cheaper than a
    /// QFutureWatcher, which costs five posted events and a promise per call. onAnswer runs at
    /// most once, never inside the call, and only while the context lives: once it is destroyed
    /// the answer is dropped, and onAnswer is destroyed unrun, perhaps on the completion-queue
    /// thread, so what it captures must be safe to destroy there (capture a QPointer or a weak
    /// pointer, not an owner of something that must die on the context's thread). A null
    /// context sends nothing and warns, naming the call.
    void get(const QByteArray &key, const RangeOptions &options, const Rpc &rpc, QObject *context,
             OnAnswer<RangeResult> onAnswer);
    /// put(), answered on \a context's thread (see the get() overload with a context).
    void put(const QByteArray &key, const QByteArray &value, const PutOptions &options, const Rpc &rpc,
             QObject *context, OnAnswer<PutResult> onAnswer);
    /// remove(), answered on \a context's thread (see the get() overload with a context).
    void remove(const QByteArray &key, const DeleteOptions &options, const Rpc &rpc, QObject *context,
                OnAnswer<DeleteResult> onAnswer);
    /// txn(), answered on \a context's thread (see the get() overload with a context).
    void txn(const Txn &txn, const Rpc &rpc, QObject *context, OnAnswer<TxnResult> onAnswer);

    /// Grants a lease of \a ttlSeconds (> 0), with the ID \a id, or one etcd picks for 0.
    /// Renewing it is the caller's business; the recipes do their own.
    QFuture<LeaseGrantResult> leaseGrant(qint64 ttlSeconds, qint64 id = 0, const Rpc &rpc = {});
    /// Revokes lease \a id; etcd deletes its keys at once. Retried only when it could not even be
    /// sent; a lease that was already gone reports NotFound.
    QFuture<Result> leaseRevoke(qint64 id, const Rpc &rpc = {});
    /// Renews lease \a id once, over a keep-alive stream of its own that ends with the answer,
    /// as etcdctl's `lease keep-alive --once` does: for a lease granted elsewhere (the recipes
    /// renew their own). NotFound when the lease has expired or was revoked. Renewing keeps
    /// etcd's keys alive: refused under ClientOptions::readOnly. Not retried; a renewal that did
    /// not reach etcd is the caller's to send again before the lease runs out.
    QFuture<LeaseKeepAliveResult> leaseKeepAliveOnce(qint64 id, const Rpc &rpc = {});
    /// How long lease \a id has left, and with \a withKeys which keys are bound to it.
    QFuture<LeaseTimeToLiveResult> leaseTimeToLive(qint64 id, bool withKeys = false, const Rpc &rpc = {});
    /// Every lease etcd has.
    QFuture<LeaseListResult> leaseList(const Rpc &rpc = {});

    /// Discards the history before \a revision (> 0): watches and reads cannot reach it after.
    /// With \a physical the answer waits until the space is freed on disk.
    QFuture<Result> compact(qint64 revision, bool physical = false, const Rpc &rpc = {});
    /// The cluster's members.
    QFuture<MemberListResult> memberList(const Rpc &rpc = {});
    /// Adds a member reachable at \a peerUrls; it then has to be started with the cluster's
    /// members as its initial cluster. A voting member counts toward quorum at once, so one that
    /// never starts leaves the cluster less room for failures; a learner (\a isLearner) does not
    /// vote until memberPromote(). Refused under ClientOptions::readOnly; never retried.
    QFuture<MemberAddResult> memberAdd(const QStringList &peerUrls, bool isLearner = false, const Rpc &rpc = {});
    /// Removes member \a id from the cluster (a member removing itself stops). Refused under
    /// ClientOptions::readOnly; never retried: a removal that was applied would be repeated as
    /// NotFound.
    QFuture<MemberListResult> memberRemove(quint64 id, const Rpc &rpc = {});
    /// Changes the peer URLs of member \a id. Refused under ClientOptions::readOnly. (etcd 3.4
    /// then lists a learner as a voting member, Member::isLearner false, though it still only
    /// learns.)
    QFuture<MemberListResult> memberUpdate(quint64 id, const QStringList &peerUrls, const Rpc &rpc = {});
    /// Makes learner \a id a voting member; etcd refuses while the learner's log is behind the
    /// leader's. Refused under ClientOptions::readOnly; never retried.
    QFuture<MemberListResult> memberPromote(quint64 id, const Rpc &rpc = {});
    /// Asks one member about itself: \a endpoint, one of endpoints(), or for an empty one the
    /// endpoint in use. Never fails over to another member.
    QFuture<EndpointStatusResult> endpointStatus(const QString &endpoint = {}, const Rpc &rpc = {});
    /// The alarms raised in the cluster (NOSPACE, CORRUPT).
    QFuture<AlarmListResult> alarms(const Rpc &rpc = {});
    /// Clears \a alarm (one alarms() listed). A NOSPACE alarm is raised again by the next write
    /// unless space was freed first (compact(), then defragment() every member). Refused under
    /// read-only.
    QFuture<Result> disarmAlarm(const Alarm &alarm, const Rpc &rpc = {});
    /// Defragments the member at \a endpoint (one of endpoints(); empty: the endpoint in use),
    /// giving the space compaction freed back to the file system. The member serves nothing
    /// while it runs: defragment members one at a time. Never retried, never fails over;
    /// without \a rpc one attempt may take ten minutes (a large database); refused under
    /// read-only.
    QFuture<Result> defragment(const QString &endpoint = {}, const Rpc &rpc = {});
    /// The hash of the keys of the member at \a endpoint up to \a revision (0: its latest): at
    /// one revision every member of a healthy cluster has the same. Never fails over.
    QFuture<HashKVResult> hashKV(const QString &endpoint, qint64 revision = 0, const Rpc &rpc = {});
    /// Hands the leadership to the member \a targetMemberId. Only the leader can: \a
    /// leaderEndpoint is its endpoint (endpointStatus() says which member leads). Never
    /// retried, never fails over; refused under read-only.
    QFuture<Result> moveLeader(quint64 targetMemberId, const QString &leaderEndpoint, const Rpc &rpc = {});
    // Auth: users, roles and their permissions. Names must not be empty; passwords are never
    // logged nor put in an error message. Reading auth data takes the root role once auth is on:
    // anyone else gets PermissionDenied naming the call. The writes are refused under read-only
    // and never retried once sent (a second "user add" after a lost answer would fail on the
    // first one's success).

    /// Adds user \a name with \a password (not empty).
    QFuture<Result> userAdd(const QString &name, const QString &password, const Rpc &rpc = {});
    /// Adds user \a name without a password: it can be authenticated only by the common name of
    /// its TLS client certificate (etcd with --client-cert-auth); a login with any password fails.
    QFuture<Result> userAddWithoutPassword(const QString &name, const Rpc &rpc = {});
    /// Deletes user \a name.
    QFuture<Result> userDelete(const QString &name, const Rpc &rpc = {});
    /// User \a name and the roles granted to it.
    QFuture<UserResult> userGet(const QString &name, const Rpc &rpc = {});
    /// Every user.
    QFuture<UserListResult> userList(const Rpc &rpc = {});
    /// Sets the password of user \a name to \a password (not empty).
    QFuture<Result> userChangePassword(const QString &name, const QString &password, const Rpc &rpc = {});
    /// Grants role \a role to user \a user.
    QFuture<Result> userGrantRole(const QString &user, const QString &role, const Rpc &rpc = {});
    /// Takes role \a role away from user \a user.
    QFuture<Result> userRevokeRole(const QString &user, const QString &role, const Rpc &rpc = {});
    /// Adds role \a name, which grants nothing yet.
    QFuture<Result> roleAdd(const QString &name, const Rpc &rpc = {});
    /// Deletes role \a name; its users lose what it granted.
    QFuture<Result> roleDelete(const QString &name, const Rpc &rpc = {});
    /// Role \a name and its permissions.
    QFuture<RoleResult> roleGet(const QString &name, const Rpc &rpc = {});
    /// Every role.
    QFuture<RoleListResult> roleList(const Rpc &rpc = {});
    /// Grants \a permission to role \a role.
    QFuture<Result> roleGrantPermission(const QString &role, const Permission &permission, const Rpc &rpc = {});
    /// Takes away the permission of role \a role over exactly the keys \a keys names (its type
    /// is not looked at: one range has one permission).
    QFuture<Result> roleRevokePermission(const QString &role, const Permission &keys, const Rpc &rpc = {});
    /// Turns authentication on. Refused before sending, FailedPrecondition, unless user "root"
    /// exists and has role "root": etcd would otherwise lock everyone out. From then on every
    /// client, this one too, needs a user (ClientOptions::user).
    QFuture<Result> authEnable(const Rpc &rpc = {});
    /// Turns authentication off: anyone may then do anything.
    QFuture<Result> authDisable(const Rpc &rpc = {});
    /// Whether authentication is on. etcd 3.4 has no call that says: this asks, without a
    /// token, for the roles, which etcd refuses for want of a user exactly when auth is on.
    QFuture<AuthStatusResult> authStatus(const Rpc &rpc = {});

    /// Can the cluster be reached right now: a count-only read of one key, bounded by
    /// RpcResilience::probe() unless told otherwise.
    QFuture<Result> ping(const Rpc &rpc = RpcResilience::probe());

Q_SIGNALS:
    /// Calls go to \a endpoint now, after the one before stopped answering. Emitted on the
    /// client's thread.
    void activeEndpointChanged(const QString &endpoint);

private:
    friend class ClientPrivate;
    std::unique_ptr<ClientPrivate> d;
};

} // namespace QEtcd
