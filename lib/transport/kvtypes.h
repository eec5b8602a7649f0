// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <memory>
#include <optional>

namespace QEtcd {

/// What every etcd answer carries: who answered, and the store's revision at that moment.
struct QETCD_EXPORT ResponseHeader
{
    quint64 clusterId = 0;  ///< The cluster's ID.
    quint64 memberId = 0;   ///< The member that answered.
    qint64 revision = 0;    ///< The store's revision when the request was served.
    quint64 raftTerm = 0;   ///< The raft term when the request was served.
};

/// One key as etcd stores it.
struct QETCD_EXPORT KeyValue
{
    QByteArray key;             ///< The key, without the client's namespace.
    QByteArray value;           ///< Its value; empty for keys-only reads.
    qint64 createRevision = 0;  ///< The revision that created it (the fencing token of a lock's key).
    qint64 modRevision = 0;     ///< The revision that last changed it.
    qint64 version = 0;  ///< How often it was written since it was created, counting the creation.
    qint64 lease = 0;           ///< The lease it is bound to; 0 for none.
};

/// The first key after every key that starts with \a prefix; etcd's way of spelling "prefix range".
QETCD_EXPORT QByteArray prefixRangeEnd(const QByteArray &prefix);

// --- requests -----------------------------------------------------------------------------

/// What a range read sorts by.
enum class SortTarget {
    Key,             ///< The key's bytes.
    Version,         ///< KeyValue::version.
    CreateRevision,  ///< KeyValue::createRevision.
    ModRevision,     ///< KeyValue::modRevision.
    Value            ///< The value's bytes.
};
/// The direction of a range read's sort.
enum class SortOrder {
    None,        ///< etcd's own order, by key.
    Ascending,   ///< Smallest first.
    Descending   ///< Largest first.
};

/// Which keys a range, delete or compare covers besides the key itself.
struct QETCD_EXPORT KeyRange
{
    /// The shape of the range.
    enum class Kind {
        Single,    ///< The key alone.
        Prefix,    ///< Every key that starts with the key.
        FromKey,   ///< The key and every key after it.
        Explicit   ///< From the key up to, not including, rangeEnd.
    };
    Kind kind = Kind::Single;  ///< The shape.
    QByteArray rangeEnd;       ///< The first key past the range; Explicit only.

    /// The key alone.
    static KeyRange single() { return {}; }
    /// Every key that starts with the key.
    static KeyRange prefix() { return {Kind::Prefix, {}}; }
    /// The key and every key after it.
    static KeyRange fromKey() { return {Kind::FromKey, {}}; }
    /// From the key up to, not including, \a end.
    static KeyRange upTo(const QByteArray &end) { return {Kind::Explicit, end}; }
};

/// How Client::get() reads: which keys, at which revision, how many and in which order.
struct QETCD_EXPORT RangeOptions
{
    KeyRange range;                           ///< Which keys besides the one named.
    qint64 limit = 0;                         ///< At most this many keys; 0 for no limit.
    SortTarget sortTarget = SortTarget::Key;  ///< What to sort by.
    SortOrder sortOrder = SortOrder::None;    ///< Which way to sort.
    bool keysOnly = false;                    ///< Leave the values out.
    bool countOnly = false;                   ///< Only count the keys (RangeResult::count).
    qint64 revision = 0;                      ///< Read the store as it was then; 0 for now.
    bool serializable = false;  ///< Let the member answer from its own copy: faster, maybe stale.
    qint64 minCreateRevision = 0;  ///< Only keys created at or after this revision; 0: no bound.
    qint64 maxCreateRevision = 0;  ///< Only keys created at or before this revision; 0: no bound.
    qint64 minModRevision = 0;     ///< Only keys last changed at or after this revision; 0: no bound.
    qint64 maxModRevision = 0;     ///< Only keys last changed at or before this revision; 0: no bound.
};

/// How Client::put() writes.
struct QETCD_EXPORT PutOptions
{
    qint64 lease = 0;          ///< Bind the key to this lease; 0 for none.
    bool prevKv = false;       ///< Return the key as it was before (PutResult::prevKv).
    /// Keep the current value (to change only the lease); the key must exist.
    bool ignoreValue = false;
    /// Keep the current lease (to change only the value); the key must exist.
    bool ignoreLease = false;
};

/// How Client::remove() deletes.
struct QETCD_EXPORT DeleteOptions
{
    KeyRange range;       ///< Which keys besides the one named.
    bool prevKv = false;  ///< Return the deleted keys (DeleteResult::prevKvs).
};

/// How a Compare relates the key's field to its operand.
enum class CompareResult {
    Equal,     ///< field == operand
    Greater,   ///< field > operand
    Less,      ///< field < operand
    NotEqual   ///< field != operand
};

/// One condition of a transaction: a field of a key (or of every key in a range) compared with
/// an operand.
///
/// Build one with the static functions. A key that does not exist has version, create and mod
/// revision 0.
struct QETCD_EXPORT Compare
{
    /// The field compared.
    enum class Target {
        Version,         ///< KeyValue::version, against operand.
        CreateRevision,  ///< KeyValue::createRevision, against operand.
        ModRevision,     ///< KeyValue::modRevision, against operand.
        Value,           ///< KeyValue::value, against valueOperand.
        Lease            ///< KeyValue::lease, against operand.
    };
    Target target = Target::Version;              ///< The field compared.
    CompareResult result = CompareResult::Equal;  ///< How it must relate to the operand.
    QByteArray key;           ///< The key.
    KeyRange range;           ///< Compare every key in this range, not only the key.
    qint64 operand = 0;       ///< The version, revision or lease ID compared with.
    QByteArray valueOperand;  ///< The value compared with (Target::Value).

    /// The key's version relates to \a version as \a result says.
    static Compare version(const QByteArray &key, CompareResult result, qint64 version);
    /// The key's create revision relates to \a revision as \a result says.
    static Compare createRevision(const QByteArray &key, CompareResult result, qint64 revision);
    /// The key's mod revision relates to \a revision as \a result says.
    static Compare modRevision(const QByteArray &key, CompareResult result, qint64 revision);
    /// The key's value relates to \a value as \a result says.
    static Compare value(const QByteArray &key, CompareResult result, const QByteArray &value);
    /// The key's lease relates to \a leaseId as \a result says.
    static Compare lease(const QByteArray &key, CompareResult result, qint64 leaseId);
    /// The key does not exist (version 0), as etcd's own recipes spell it.
    static Compare absent(const QByteArray &key) { return version(key, CompareResult::Equal, 0); }
    /// The key exists.
    static Compare present(const QByteArray &key) { return version(key, CompareResult::Greater, 0); }
};

struct Txn;

/// One operation of a transaction: a read, a put, a delete, or a transaction nested in it.
///
/// Build one with the static functions.
struct QETCD_EXPORT TxnOp
{
    /// What the operation does.
    enum class Kind {
        Range,   ///< Reads key with rangeOptions.
        Put,     ///< Writes value to key with putOptions.
        Delete,  ///< Deletes key with deleteOptions.
        Txn      ///< Runs txn.
    };
    Kind kind = Kind::Range;       ///< What it does.
    QByteArray key;                ///< The key it is about (not Txn).
    QByteArray value;              ///< The value a Put writes.
    RangeOptions rangeOptions;     ///< How a Range reads.
    PutOptions putOptions;         ///< How a Put writes.
    DeleteOptions deleteOptions;   ///< How a Delete deletes.
    std::shared_ptr<const QEtcd::Txn> txn;  ///< The nested transaction.

    /// Reads \a key.
    static TxnOp range(const QByteArray &key, const RangeOptions &options = {});
    /// Writes \a value to \a key.
    static TxnOp put(const QByteArray &key, const QByteArray &value, const PutOptions &options = {});
    /// Deletes \a key.
    static TxnOp remove(const QByteArray &key, const DeleteOptions &options = {});
    /// Runs \a txn inside this one.
    static TxnOp nested(const QEtcd::Txn &txn);
};

/// A transaction: if every compare holds, the success operations run, else the failure
/// operations, all at one revision.
struct QETCD_EXPORT Txn
{
    QList<Compare> compares;  ///< The conditions; all must hold.
    QList<TxnOp> success;     ///< Run when they do.
    QList<TxnOp> failure;     ///< Run when one does not.
};

// --- results ------------------------------------------------------------------------------

/// What every call answers: its Status and etcd's header.
///
/// The other fields of a result are meaningful only when status is ok.
struct QETCD_EXPORT Result
{
    Status status;          ///< Ok, or why the call failed.
    ResponseHeader header;  ///< etcd's header of the answer.
};

/// The answer to Client::get() and to a transaction's range.
struct QETCD_EXPORT RangeResult : Result
{
    QList<KeyValue> kvs;  ///< The keys read, in the order asked for.
    bool more = false;    ///< The limit left keys out.
    qint64 count = 0;     ///< How many keys the range holds, the limit aside.
};

/// The answer to Client::put() and to a transaction's put.
struct QETCD_EXPORT PutResult : Result
{
    /// The key before the put, with PutOptions::prevKv and when it existed.
    std::optional<KeyValue> prevKv;
};

/// The answer to Client::remove() and to a transaction's delete.
struct QETCD_EXPORT DeleteResult : Result
{
    qint64 deleted = 0;        ///< How many keys were deleted.
    QList<KeyValue> prevKvs;   ///< The deleted keys, with DeleteOptions::prevKv.
};

struct TxnResult;

/// The answer to one TxnOp: the field that matches its kind is filled in.
struct QETCD_EXPORT TxnOpResult
{
    TxnOp::Kind kind = TxnOp::Kind::Range;  ///< Which operation this answers.
    RangeResult range;                      ///< A Range's answer.
    PutResult put;                          ///< A Put's answer.
    DeleteResult remove;                    ///< A Delete's answer.
    std::shared_ptr<const TxnResult> txn;   ///< A nested transaction's answer.
};

/// The answer to Client::txn().
struct QETCD_EXPORT TxnResult : Result
{
    bool succeeded = false;         ///< Every compare held: the success branch ran.
    QList<TxnOpResult> responses;   ///< One answer per operation of the branch that ran.
};

/// The answer to Client::leaseGrant().
struct QETCD_EXPORT LeaseGrantResult : Result
{
    qint64 id = 0;   ///< The lease granted.
    qint64 ttl = 0;  ///< Its TTL in seconds, as etcd granted it.
};

/// The answer to Client::leaseKeepAliveOnce().
struct QETCD_EXPORT LeaseKeepAliveResult : Result
{
    qint64 id = 0;   ///< The lease renewed.
    qint64 ttl = 0;  ///< The seconds it has again, counted from the renewal.
};

/// The answer to Client::leaseTimeToLive().
struct QETCD_EXPORT LeaseTimeToLiveResult : Result
{
    qint64 id = 0;           ///< The lease asked about.
    qint64 ttl = -1;         ///< Remaining seconds; -1 when the lease has expired or never existed.
    qint64 grantedTtl = 0;   ///< The TTL it was granted with, in seconds.
    QList<QByteArray> keys;  ///< The keys bound to it, when asked for.
};

/// The answer to Client::leaseList().
struct QETCD_EXPORT LeaseListResult : Result
{
    QList<qint64> ids;  ///< Every lease etcd has.
};

/// One member of the cluster.
struct QETCD_EXPORT Member
{
    quint64 id = 0;           ///< Its ID.
    QString name;             ///< Its name (etcd's --name); empty until it has started.
    QStringList peerUrls;     ///< Where the other members reach it.
    QStringList clientUrls;   ///< Where clients reach it.
    bool isLearner = false;   ///< A learner: it follows the log but does not vote.
};

/// The answer to Client::memberList(), and to memberRemove(), memberUpdate() and
/// memberPromote(): the members after the change.
struct QETCD_EXPORT MemberListResult : Result
{
    QList<Member> members;  ///< Every member of the cluster.
};

/// The answer to Client::memberAdd().
struct QETCD_EXPORT MemberAddResult : MemberListResult
{
    Member member;  ///< The member added: its ID and peer URLs; no name until it starts.
};

/// The answer to Client::endpointStatus(): one member about itself.
struct QETCD_EXPORT EndpointStatusResult : Result
{
    QString endpoint;             ///< The endpoint asked.
    QString version;              ///< The member's etcd version.
    qint64 dbSize = 0;            ///< The size of its database file, in bytes.
    qint64 dbSizeInUse = 0;       ///< How much of that holds data, in bytes.
    quint64 leader = 0;           ///< The member ID of the leader, as this member knows it.
    quint64 raftIndex = 0;        ///< Its raft index.
    quint64 raftTerm = 0;         ///< Its raft term.
    quint64 raftAppliedIndex = 0; ///< The raft index it has applied.
    QStringList errors;           ///< Alarms and errors the member reports about itself.
    bool isLearner = false;       ///< The member is a learner.
};

/// What an etcd alarm is about.
enum class AlarmType {
    None,     ///< No alarm.
    NoSpace,  ///< The database reached its quota: etcd refuses writes until space is freed.
    Corrupt   ///< A member's data disagrees with the others'.
};

/// One raised alarm.
struct QETCD_EXPORT Alarm
{
    quint64 memberId = 0;              ///< The member that raised it.
    AlarmType type = AlarmType::None;  ///< What it is about.
};

/// The answer to Client::alarms().
struct QETCD_EXPORT AlarmListResult : Result
{
    QList<Alarm> alarms;  ///< Every alarm raised in the cluster.
};

/// The answer to Client::hashKV(): one member's hash of its keys, to compare with the others'.
struct QETCD_EXPORT HashKVResult : Result
{
    QString endpoint;            ///< The endpoint asked.
    quint32 hash = 0;            ///< The hash of its keys' history up to the revision asked.
    qint64 compactRevision = 0;  ///< Its compacted revision: the hash covers what comes after.
};

/// What a role's permission lets its users do with the keys it covers.
enum class PermissionType {
    Read,      ///< Read them (get, watch, a transaction's compares and reads).
    Write,     ///< Write them (put, delete, a transaction's writes).
    ReadWrite  ///< Both.
};

/// One permission of a role: a kind of access to a key, a prefix or a range of keys.
///
/// Permissions are the cluster's: a client's key namespace does not apply to them.
struct QETCD_EXPORT Permission
{
    PermissionType type = PermissionType::Read;  ///< What it lets the role's users do.
    QByteArray key;   ///< The key, the prefix, or the range's first key; empty with a prefix: every key.
    KeyRange range;   ///< Which keys besides the one named.

    /// The first key past the range as etcd stores it: empty for a single key, one zero byte for
    /// every key from the key on.
    QByteArray rangeEnd() const;
    /// The keys it covers as the range they mean, the way etcdctl shows them: "/k" for one key,
    /// "[/app/, /app0) (prefix /app/)", "[/a, /b)", "[/k, <open ended>".
    QString describeKeys() const;
    /// "read", "write" or "readwrite", as etcdctl spells them.
    QString typeName() const;
};

/// The answer to Client::userGet().
struct QETCD_EXPORT UserResult : Result
{
    QString name;       ///< The user asked about.
    QStringList roles;  ///< The roles granted to it.
};

/// The answer to Client::userList().
struct QETCD_EXPORT UserListResult : Result
{
    QStringList users;  ///< Every user, in etcd's order (by name).
};

/// The answer to Client::roleGet().
struct QETCD_EXPORT RoleResult : Result
{
    QString name;                   ///< The role asked about.
    QList<Permission> permissions;  ///< What it grants.
};

/// The answer to Client::roleList().
struct QETCD_EXPORT RoleListResult : Result
{
    QStringList roles;  ///< Every role, in etcd's order (by name).
};

/// The answer to Client::authStatus().
struct QETCD_EXPORT AuthStatusResult : Result
{
    bool enabled = false;  ///< etcd checks users and their roles' permissions on every request.
};

} // namespace QEtcd
