// SPDX-License-Identifier: Apache-2.0
#include "grpcconvert_p.h"

namespace QEtcd::Internal {

namespace {
std::string toStd(const QByteArray &bytes)
{
    return std::string(bytes.constData(), size_t(bytes.size()));
}

Status emptyKey()
{
    return Status(StatusCode::InvalidArgument, QStringLiteral("key is empty"));
}

etcdserverpb::Compare::CompareResult compareResult(CompareResult result)
{
    switch (result) {
    case CompareResult::Equal: return etcdserverpb::Compare::EQUAL;
    case CompareResult::Greater: return etcdserverpb::Compare::GREATER;
    case CompareResult::Less: return etcdserverpb::Compare::LESS;
    case CompareResult::NotEqual: return etcdserverpb::Compare::NOT_EQUAL;
    }
    return etcdserverpb::Compare::EQUAL;
}
} // namespace

std::string KeyCodec::key(const QByteArray &key) const
{
    return toStd(m_namespace + key);
}

Status KeyCodec::range(const QByteArray &key, const KeyRange &range, std::string *outKey, std::string *outEnd) const
{
    const QByteArray full = m_namespace + key;
    switch (range.kind) {
    case KeyRange::Kind::Single:
        if (key.isEmpty())
            return emptyKey();
        break;
    case KeyRange::Kind::Prefix:
        // Inside a namespace "everything" is the namespace itself, never the whole keyspace.
        *outEnd = toStd(prefixRangeEnd(full));
        break;
    case KeyRange::Kind::FromKey:
        *outEnd = m_namespace.isEmpty() ? std::string(1, '\0') : toStd(prefixRangeEnd(m_namespace));
        break;
    case KeyRange::Kind::Explicit:
        if (key.isEmpty())
            return emptyKey();
        if (range.rangeEnd.isEmpty())
            return Status(StatusCode::InvalidArgument, QStringLiteral("range end is empty"));
        *outEnd = range.rangeEnd == QByteArray(1, '\0') && !m_namespace.isEmpty()
            ? toStd(prefixRangeEnd(m_namespace))
            : toStd(m_namespace + range.rangeEnd);
        break;
    }
    // etcd refuses an empty key; "\0" is its spelling of "from the very first key".
    *outKey = full.isEmpty() ? std::string(1, '\0') : toStd(full);
    return {};
}

QByteArray KeyCodec::strip(const std::string &key) const
{
    QByteArray bytes(key.data(), qsizetype(key.size()));
    if (!m_namespace.isEmpty() && bytes.startsWith(m_namespace))
        bytes.remove(0, m_namespace.size());
    return bytes;
}

KeyValue KeyCodec::fromProto(const mvccpb::KeyValue &kv) const
{
    KeyValue out;
    out.key = strip(kv.key());
    out.value = QByteArray(kv.value().data(), qsizetype(kv.value().size()));
    out.createRevision = kv.create_revision();
    out.modRevision = kv.mod_revision();
    out.version = kv.version();
    out.lease = kv.lease();
    return out;
}

Status KeyCodec::toProto(const QByteArray &key, const RangeOptions &options, etcdserverpb::RangeRequest *request) const
{
    if (Status status = range(key, options.range, request->mutable_key(), request->mutable_range_end()); !status)
        return status;
    if (options.limit < 0)
        return Status(StatusCode::InvalidArgument, QStringLiteral("limit must be >= 0"));
    if (options.revision < 0)
        return Status(StatusCode::InvalidArgument, QStringLiteral("revision must be >= 0"));
    request->set_limit(options.limit);
    request->set_revision(options.revision);
    request->set_serializable(options.serializable);
    request->set_keys_only(options.keysOnly);
    request->set_min_create_revision(options.minCreateRevision);
    request->set_max_create_revision(options.maxCreateRevision);
    request->set_min_mod_revision(options.minModRevision);
    request->set_max_mod_revision(options.maxModRevision);
    request->set_count_only(options.countOnly);
    switch (options.sortOrder) {
    case SortOrder::None: request->set_sort_order(etcdserverpb::RangeRequest::NONE); break;
    case SortOrder::Ascending: request->set_sort_order(etcdserverpb::RangeRequest::ASCEND); break;
    case SortOrder::Descending: request->set_sort_order(etcdserverpb::RangeRequest::DESCEND); break;
    }
    switch (options.sortTarget) {
    case SortTarget::Key: request->set_sort_target(etcdserverpb::RangeRequest::KEY); break;
    case SortTarget::Version: request->set_sort_target(etcdserverpb::RangeRequest::VERSION); break;
    case SortTarget::CreateRevision: request->set_sort_target(etcdserverpb::RangeRequest::CREATE); break;
    case SortTarget::ModRevision: request->set_sort_target(etcdserverpb::RangeRequest::MOD); break;
    case SortTarget::Value: request->set_sort_target(etcdserverpb::RangeRequest::VALUE); break;
    }
    return {};
}

Status KeyCodec::toProto(const QByteArray &key, const QByteArray &value, const PutOptions &options,
                         etcdserverpb::PutRequest *request) const
{
    if (key.isEmpty())
        return emptyKey();
    if (options.ignoreValue && !value.isEmpty())
        return Status(StatusCode::InvalidArgument, QStringLiteral("a value was given together with ignoreValue"));
    if (options.ignoreLease && options.lease != 0)
        return Status(StatusCode::InvalidArgument, QStringLiteral("a lease was given together with ignoreLease"));
    request->set_key(this->key(key));
    request->set_value(toStd(value));
    request->set_lease(options.lease);
    request->set_prev_kv(options.prevKv);
    request->set_ignore_value(options.ignoreValue);
    request->set_ignore_lease(options.ignoreLease);
    return {};
}

Status KeyCodec::toProto(const QByteArray &key, const DeleteOptions &options,
                         etcdserverpb::DeleteRangeRequest *request) const
{
    if (Status status = range(key, options.range, request->mutable_key(), request->mutable_range_end()); !status)
        return status;
    request->set_prev_kv(options.prevKv);
    return {};
}

Status KeyCodec::toProto(const Txn &txn, etcdserverpb::TxnRequest *request) const
{
    for (const Compare &compare : txn.compares) {
        etcdserverpb::Compare *out = request->add_compare();
        if (Status status = range(compare.key, compare.range, out->mutable_key(), out->mutable_range_end()); !status)
            return status.withContext(QStringLiteral("compare"));
        out->set_result(compareResult(compare.result));
        switch (compare.target) {
        case Compare::Target::Version:
            out->set_target(etcdserverpb::Compare::VERSION);
            out->set_version(compare.operand);
            break;
        case Compare::Target::CreateRevision:
            out->set_target(etcdserverpb::Compare::CREATE);
            out->set_create_revision(compare.operand);
            break;
        case Compare::Target::ModRevision:
            out->set_target(etcdserverpb::Compare::MOD);
            out->set_mod_revision(compare.operand);
            break;
        case Compare::Target::Value:
            out->set_target(etcdserverpb::Compare::VALUE);
            out->set_value(toStd(compare.valueOperand));
            break;
        case Compare::Target::Lease:
            out->set_target(etcdserverpb::Compare::LEASE);
            out->set_lease(compare.operand);
            break;
        }
    }
    const auto addOps = [this](const QList<TxnOp> &ops, auto *list) -> Status {
        for (const TxnOp &op : ops) {
            etcdserverpb::RequestOp *out = list->Add();
            Status status;
            switch (op.kind) {
            case TxnOp::Kind::Range: status = toProto(op.key, op.rangeOptions, out->mutable_request_range()); break;
            case TxnOp::Kind::Put: status = toProto(op.key, op.value, op.putOptions, out->mutable_request_put()); break;
            case TxnOp::Kind::Delete:
                status = toProto(op.key, op.deleteOptions, out->mutable_request_delete_range());
                break;
            case TxnOp::Kind::Txn:
                status = op.txn ? toProto(*op.txn, out->mutable_request_txn())
                                : Status(StatusCode::InvalidArgument, QStringLiteral("nested txn is empty"));
                break;
            }
            if (!status)
                return status.withContext(QStringLiteral("txn operation on ") + describeKey(op.key));
        }
        return {};
    };
    if (Status status = addOps(txn.success, request->mutable_success()); !status)
        return status;
    return addOps(txn.failure, request->mutable_failure());
}

void KeyCodec::fromProto(const etcdserverpb::RangeResponse &response, RangeResult *result) const
{
    result->header = headerFromProto(response.header());
    result->more = response.more();
    result->count = response.count();
    result->kvs.reserve(response.kvs_size());
    for (const auto &kv : response.kvs())
        result->kvs.append(fromProto(kv));
}

void KeyCodec::fromProto(const etcdserverpb::PutResponse &response, PutResult *result) const
{
    result->header = headerFromProto(response.header());
    if (response.has_prev_kv())
        result->prevKv = fromProto(response.prev_kv());
}

void KeyCodec::fromProto(const etcdserverpb::DeleteRangeResponse &response, DeleteResult *result) const
{
    result->header = headerFromProto(response.header());
    result->deleted = response.deleted();
    for (const auto &kv : response.prev_kvs())
        result->prevKvs.append(fromProto(kv));
}

void KeyCodec::fromProto(const etcdserverpb::TxnResponse &response, TxnResult *result) const
{
    result->header = headerFromProto(response.header());
    result->succeeded = response.succeeded();
    for (const auto &op : response.responses()) {
        TxnOpResult out;
        switch (op.response_case()) {
        case etcdserverpb::ResponseOp::kResponseRange:
            out.kind = TxnOp::Kind::Range;
            fromProto(op.response_range(), &out.range);
            break;
        case etcdserverpb::ResponseOp::kResponsePut:
            out.kind = TxnOp::Kind::Put;
            fromProto(op.response_put(), &out.put);
            break;
        case etcdserverpb::ResponseOp::kResponseDeleteRange:
            out.kind = TxnOp::Kind::Delete;
            fromProto(op.response_delete_range(), &out.remove);
            break;
        case etcdserverpb::ResponseOp::kResponseTxn: {
            out.kind = TxnOp::Kind::Txn;
            auto nested = std::make_shared<TxnResult>();
            fromProto(op.response_txn(), nested.get());
            out.txn = std::move(nested);
            break;
        }
        case etcdserverpb::ResponseOp::RESPONSE_NOT_SET:
            break;
        }
        result->responses.append(std::move(out));
    }
}

void KeyCodec::fromProto(const etcdserverpb::LeaseTimeToLiveResponse &response, LeaseTimeToLiveResult *result) const
{
    result->header = headerFromProto(response.header());
    result->id = response.id();
    result->ttl = response.ttl();
    result->grantedTtl = response.grantedttl();
    for (const std::string &key : response.keys())
        result->keys.append(strip(key));
}

ResponseHeader headerFromProto(const etcdserverpb::ResponseHeader &header)
{
    return ResponseHeader{header.cluster_id(), header.member_id(), header.revision(), header.raft_term()};
}

Status statusFromGrpc(const grpc::Status &status)
{
    if (status.ok())
        return {};
    const QString message = QString::fromStdString(status.error_message());
    const QString lower = message.toLower();
    // gRPC reports a failed handshake as UNAVAILABLE; it is a configuration problem that no
    // retry cures, so it gets its own code and a hint where to look.
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE
        && (lower.contains(QLatin1String("ssl")) || lower.contains(QLatin1String("handshake"))
            || lower.contains(QLatin1String("certificate")) || lower.contains(QLatin1String("tls")))) {
        return Status(StatusCode::TlsError,
                      QStringLiteral("TLS handshake failed (check the CA, client certificate and key): ") + message);
    }
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED && lower.contains(QLatin1String("larger than max"))) {
        return Status(StatusCode::ResourceExhausted,
                      QStringLiteral("the answer is larger than the client's receive limit "
                                     "(maxReceiveMessageSize): ask for less (a limit, keys only) or raise the limit: ")
                          + message);
    }
    const Status converted(StatusCode(int(status.error_code())), message.isEmpty() ? QStringLiteral("no message") : message);
    // One code for etcd's overload refusal whichever version sent it (3.4 says Unknown).
    if (converted.isTooManyRequests())
        return Status(StatusCode::ResourceExhausted, message);
    return converted;
}

Status withRejectedCertificateHint(const Status &status)
{
    if (status.code() != StatusCode::Unavailable)
        return status;
    const QString message = status.message();
    if (!message.contains(QLatin1String("Endpoint read failed")) && !message.contains(QLatin1String("Socket closed"))
        && !message.contains(QLatin1String("Connection reset")))
        return status;
    return Status(status.code(),
                  message
                      + QStringLiteral(" — over TLS this is also how a server that refuses the client certificate "
                                       "(missing, expired, or signed by a CA it does not trust) hangs up: check the "
                                       "client certificate and key, and the server's log"));
}

QString describeKey(const QByteArray &key)
{
    constexpr qsizetype limit = 80;
    QString text;
    for (char c : key.left(limit)) {
        const uchar u = uchar(c);
        if (u >= 0x20 && u < 0x7f && c != '"' && c != '\\')
            text += QLatin1Char(c);
        else
            text += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
    }
    if (key.size() > limit)
        text += QStringLiteral("…(%1 bytes)").arg(key.size());
    return QLatin1Char('"') + text + QLatin1Char('"');
}

} // namespace QEtcd::Internal
