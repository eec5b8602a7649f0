#include "kvtypes.h"

namespace QEtcd {

QByteArray prefixRangeEnd(const QByteArray &prefix)
{
    QByteArray end = prefix;
    for (qsizetype i = end.size() - 1; i >= 0; --i) {
        if (quint8(end[i]) < 0xff) {
            end[i] = char(quint8(end[i]) + 1);
            end.truncate(i + 1);
            return end;
        }
    }
    // Every byte is 0xff (or the prefix is empty): the range runs to the end of the keyspace.
    return QByteArray(1, '\0');
}

namespace {
Compare makeCompare(Compare::Target target, const QByteArray &key, CompareResult result)
{
    Compare compare;
    compare.target = target;
    compare.key = key;
    compare.result = result;
    return compare;
}
} // namespace

Compare Compare::version(const QByteArray &key, CompareResult result, qint64 version)
{
    Compare compare = makeCompare(Target::Version, key, result);
    compare.operand = version;
    return compare;
}

Compare Compare::createRevision(const QByteArray &key, CompareResult result, qint64 revision)
{
    Compare compare = makeCompare(Target::CreateRevision, key, result);
    compare.operand = revision;
    return compare;
}

Compare Compare::modRevision(const QByteArray &key, CompareResult result, qint64 revision)
{
    Compare compare = makeCompare(Target::ModRevision, key, result);
    compare.operand = revision;
    return compare;
}

Compare Compare::value(const QByteArray &key, CompareResult result, const QByteArray &value)
{
    Compare compare = makeCompare(Target::Value, key, result);
    compare.valueOperand = value;
    return compare;
}

Compare Compare::lease(const QByteArray &key, CompareResult result, qint64 leaseId)
{
    Compare compare = makeCompare(Target::Lease, key, result);
    compare.operand = leaseId;
    return compare;
}

TxnOp TxnOp::range(const QByteArray &key, const RangeOptions &options)
{
    TxnOp op;
    op.kind = Kind::Range;
    op.key = key;
    op.rangeOptions = options;
    return op;
}

TxnOp TxnOp::put(const QByteArray &key, const QByteArray &value, const PutOptions &options)
{
    TxnOp op;
    op.kind = Kind::Put;
    op.key = key;
    op.value = value;
    op.putOptions = options;
    return op;
}

TxnOp TxnOp::remove(const QByteArray &key, const DeleteOptions &options)
{
    TxnOp op;
    op.kind = Kind::Delete;
    op.key = key;
    op.deleteOptions = options;
    return op;
}

TxnOp TxnOp::nested(const QEtcd::Txn &txn)
{
    TxnOp op;
    op.kind = Kind::Txn;
    op.txn = std::make_shared<const QEtcd::Txn>(txn);
    return op;
}

} // namespace QEtcd
