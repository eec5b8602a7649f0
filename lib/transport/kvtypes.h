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

struct QETCD_EXPORT ResponseHeader
{
    quint64 clusterId = 0;
    quint64 memberId = 0;
    qint64 revision = 0;
    quint64 raftTerm = 0;
};

struct QETCD_EXPORT KeyValue
{
    QByteArray key;
    QByteArray value;
    qint64 createRevision = 0;
    qint64 modRevision = 0;
    qint64 version = 0;
    qint64 lease = 0;
};

// The first key after every key that starts with prefix; etcd's way of spelling "prefix range".
QETCD_EXPORT QByteArray prefixRangeEnd(const QByteArray &prefix);

// --- requests -----------------------------------------------------------------------------

enum class SortTarget { Key, Version, CreateRevision, ModRevision, Value };
enum class SortOrder { None, Ascending, Descending };

// Which keys a range, delete or compare covers besides the key itself.
struct QETCD_EXPORT KeyRange
{
    enum class Kind { Single, Prefix, FromKey, Explicit };
    Kind kind = Kind::Single;
    QByteArray rangeEnd;  // Explicit only

    static KeyRange single() { return {}; }
    static KeyRange prefix() { return {Kind::Prefix, {}}; }
    static KeyRange fromKey() { return {Kind::FromKey, {}}; }
    static KeyRange upTo(const QByteArray &end) { return {Kind::Explicit, end}; }
};

struct QETCD_EXPORT RangeOptions
{
    KeyRange range;
    qint64 limit = 0;
    SortTarget sortTarget = SortTarget::Key;
    SortOrder sortOrder = SortOrder::None;
    bool keysOnly = false;
    bool countOnly = false;
    qint64 revision = 0;
    bool serializable = false;
    // Only keys whose revisions fall within these bounds (0: unbounded).
    qint64 minCreateRevision = 0;
    qint64 maxCreateRevision = 0;
    qint64 minModRevision = 0;
    qint64 maxModRevision = 0;
};

struct QETCD_EXPORT PutOptions
{
    qint64 lease = 0;
    bool prevKv = false;
    bool ignoreValue = false;
    bool ignoreLease = false;
};

struct QETCD_EXPORT DeleteOptions
{
    KeyRange range;
    bool prevKv = false;
};

enum class CompareResult { Equal, Greater, Less, NotEqual };

struct QETCD_EXPORT Compare
{
    enum class Target { Version, CreateRevision, ModRevision, Value, Lease };
    Target target = Target::Version;
    CompareResult result = CompareResult::Equal;
    QByteArray key;
    KeyRange range;
    qint64 operand = 0;  // version, revisions or lease id
    QByteArray valueOperand;

    static Compare version(const QByteArray &key, CompareResult result, qint64 version);
    static Compare createRevision(const QByteArray &key, CompareResult result, qint64 revision);
    static Compare modRevision(const QByteArray &key, CompareResult result, qint64 revision);
    static Compare value(const QByteArray &key, CompareResult result, const QByteArray &value);
    static Compare lease(const QByteArray &key, CompareResult result, qint64 leaseId);
    // "the key does not exist" / "the key exists", as etcd's own recipes spell them.
    static Compare absent(const QByteArray &key) { return version(key, CompareResult::Equal, 0); }
    static Compare present(const QByteArray &key) { return version(key, CompareResult::Greater, 0); }
};

struct Txn;

struct QETCD_EXPORT TxnOp
{
    enum class Kind { Range, Put, Delete, Txn };
    Kind kind = Kind::Range;
    QByteArray key;
    QByteArray value;
    RangeOptions rangeOptions;
    PutOptions putOptions;
    DeleteOptions deleteOptions;
    std::shared_ptr<const QEtcd::Txn> txn;

    static TxnOp range(const QByteArray &key, const RangeOptions &options = {});
    static TxnOp put(const QByteArray &key, const QByteArray &value, const PutOptions &options = {});
    static TxnOp remove(const QByteArray &key, const DeleteOptions &options = {});
    static TxnOp nested(const QEtcd::Txn &txn);
};

struct QETCD_EXPORT Txn
{
    QList<Compare> compares;
    QList<TxnOp> success;
    QList<TxnOp> failure;
};

// --- results ------------------------------------------------------------------------------
// Every result carries the Status of its call; the other fields are meaningful only when ok.

struct QETCD_EXPORT Result
{
    Status status;
    ResponseHeader header;
};

struct QETCD_EXPORT RangeResult : Result
{
    QList<KeyValue> kvs;
    bool more = false;
    qint64 count = 0;
};

struct QETCD_EXPORT PutResult : Result
{
    std::optional<KeyValue> prevKv;
};

struct QETCD_EXPORT DeleteResult : Result
{
    qint64 deleted = 0;
    QList<KeyValue> prevKvs;
};

struct TxnResult;

struct QETCD_EXPORT TxnOpResult
{
    TxnOp::Kind kind = TxnOp::Kind::Range;
    RangeResult range;
    PutResult put;
    DeleteResult remove;
    std::shared_ptr<const TxnResult> txn;
};

struct QETCD_EXPORT TxnResult : Result
{
    bool succeeded = false;
    QList<TxnOpResult> responses;
};

struct QETCD_EXPORT LeaseGrantResult : Result
{
    qint64 id = 0;
    qint64 ttl = 0;
};

struct QETCD_EXPORT LeaseTimeToLiveResult : Result
{
    qint64 id = 0;
    qint64 ttl = -1;  // remaining seconds; -1 when the lease has expired or never existed
    qint64 grantedTtl = 0;
    QList<QByteArray> keys;
};

struct QETCD_EXPORT LeaseListResult : Result
{
    QList<qint64> ids;
};

struct QETCD_EXPORT Member
{
    quint64 id = 0;
    QString name;
    QStringList peerUrls;
    QStringList clientUrls;
    bool isLearner = false;
};

struct QETCD_EXPORT MemberListResult : Result
{
    QList<Member> members;
};

struct QETCD_EXPORT EndpointStatusResult : Result
{
    QString endpoint;
    QString version;
    qint64 dbSize = 0;
    qint64 dbSizeInUse = 0;
    quint64 leader = 0;
    quint64 raftIndex = 0;
    quint64 raftTerm = 0;
    quint64 raftAppliedIndex = 0;
    QStringList errors;
    bool isLearner = false;
};

enum class AlarmType { None, NoSpace, Corrupt };

struct QETCD_EXPORT Alarm
{
    quint64 memberId = 0;
    AlarmType type = AlarmType::None;
};

struct QETCD_EXPORT AlarmListResult : Result
{
    QList<Alarm> alarms;
};

} // namespace QEtcd
