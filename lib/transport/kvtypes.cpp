// SPDX-License-Identifier: Apache-2.0
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

namespace {
// A key as text: printable ASCII as it is, every other byte as \xNN.
QString printable(const QByteArray &key)
{
    QString text;
    for (const char c : key) {
        const uchar u = uchar(c);
        if (u >= 0x20 && u < 0x7f && c != '\\')
            text += QLatin1Char(c);
        else
            text += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
    }
    return text;
}
} // namespace

QByteArray Permission::rangeEnd() const
{
    switch (range.kind) {
    case KeyRange::Kind::Single:
        return {};
    case KeyRange::Kind::Prefix:
        return prefixRangeEnd(key);
    case KeyRange::Kind::FromKey:
        return QByteArray(1, '\0');
    case KeyRange::Kind::Explicit:
        return range.rangeEnd;
    }
    return {};
}

QString Permission::describeKeys() const
{
    if (range.kind == KeyRange::Kind::Single)
        return printable(key);
    if (range.kind == KeyRange::Kind::Prefix && key.isEmpty())
        return QStringLiteral("every key");
    const QByteArray end = rangeEnd();
    QString text = QLatin1Char('[') + printable(key) + QStringLiteral(", ");
    text += end == QByteArray(1, '\0') ? QStringLiteral("<open ended>") : printable(end) + QLatin1Char(')');
    if (range.kind == KeyRange::Kind::Prefix)
        text += QStringLiteral(" (prefix %1)").arg(printable(key));
    return text;
}

QString Permission::typeName() const
{
    switch (type) {
    case PermissionType::Read:
        return QStringLiteral("read");
    case PermissionType::Write:
        return QStringLiteral("write");
    case PermissionType::ReadWrite:
        break;
    }
    return QStringLiteral("readwrite");
}

} // namespace QEtcd
