// SPDX-License-Identifier: Apache-2.0
#pragma once

// Conversions between qetcd's Qt-typed values and etcd's protobuf messages. The key namespace
// is applied on the way out and stripped on the way back, here and nowhere else.

#include "kvtypes.h"
#include "status.h"

#include "etcd/etcdserver/etcdserverpb/rpc.pb.h"

#include <grpcpp/support/status.h>

namespace QEtcd::Internal {

class KeyCodec
{
public:
    explicit KeyCodec(QByteArray keyNamespace = {}) : m_namespace(std::move(keyNamespace)) {}

    const QByteArray &keyNamespace() const { return m_namespace; }
    std::string key(const QByteArray &key) const;
    // Fills key and range_end of a request; fails for an empty key outside prefix/from-key.
    Status range(const QByteArray &key, const KeyRange &range, std::string *outKey, std::string *outEnd) const;
    QByteArray strip(const std::string &key) const;

    KeyValue fromProto(const mvccpb::KeyValue &kv) const;
    Status toProto(const QByteArray &key, const RangeOptions &options, etcdserverpb::RangeRequest *request) const;
    Status toProto(const QByteArray &key, const QByteArray &value, const PutOptions &options,
                   etcdserverpb::PutRequest *request) const;
    Status toProto(const QByteArray &key, const DeleteOptions &options, etcdserverpb::DeleteRangeRequest *request) const;
    Status toProto(const Txn &txn, etcdserverpb::TxnRequest *request) const;

    void fromProto(const etcdserverpb::RangeResponse &response, RangeResult *result) const;
    void fromProto(const etcdserverpb::PutResponse &response, PutResult *result) const;
    void fromProto(const etcdserverpb::DeleteRangeResponse &response, DeleteResult *result) const;
    void fromProto(const etcdserverpb::TxnResponse &response, TxnResult *result) const;
    void fromProto(const etcdserverpb::LeaseTimeToLiveResponse &response, LeaseTimeToLiveResult *result) const;

private:
    QByteArray m_namespace;
};

ResponseHeader headerFromProto(const etcdserverpb::ResponseHeader &header);
Status statusFromGrpc(const grpc::Status &status);
// A TLS server that refuses the client's certificate hangs up after the handshake, which gRPC
// reports as a plain read failure: over TLS, such an Unavailable says what it may mean. It
// stays Unavailable (and retried): the same words also come from a server that went away.
Status withRejectedCertificateHint(const Status &status);
// How a key shows up in an error message: printable, and short.
QString describeKey(const QByteArray &key);

} // namespace QEtcd::Internal
