// SPDX-License-Identifier: Apache-2.0
#pragma once

// What get, put and del ask for and how they print the answer, apart from sending it: `qetcd
// txn` reads each of its requests as one of these commands' lines and prints their answers alike.

#include "command.h"

#include <QEtcd/kvtypes.h>

#include <optional>

namespace QEtcd::Cli {

// get's KEY [RANGE_END] and options, checked; nullopt with *error naming what was wrong.
struct GetRequest
{
    QByteArray key;
    RangeOptions options;
    bool valuesOnly = false;  // --print-value-only
};
std::optional<GetRequest> getRequest(const Invocation &invocation, QString *error);
void printGetAnswer(Invocation &invocation, const GetRequest &request, const RangeResult &result);

// put's KEY VALUE and options; fence: what --fence compares, when given.
struct PutRequest
{
    QByteArray key;
    QByteArray value;
    PutOptions options;
    std::optional<Compare> fence;
};
// piped: the value read from stdin, for a put given KEY alone (etcdctl's way).
std::optional<PutRequest> putRequest(const Invocation &invocation, QString *error,
                                     const std::optional<QByteArray> &piped = std::nullopt);
void printPutAnswer(Invocation &invocation, const PutResult &result);

// del's KEY [RANGE_END], --prefix, --from-key and --prev-kv (its other options are del's own).
struct DeleteRequest
{
    QByteArray key;
    DeleteOptions options;
};
std::optional<DeleteRequest> deleteRequest(const Invocation &invocation, QString *error);
void printDeleteAnswer(Invocation &invocation, const DeleteRequest &request, const DeleteResult &result);

// etcdctl's -w json and -w fields for get, put and del, field for field and in its order, with
// what its JSON leaves out when zero or empty left out too: what scripts written for etcdctl parse.
namespace Etcdctl {
QByteArray getJson(const RangeResult &result);
QByteArray putJson(const PutResult &result);
QByteArray deleteJson(const DeleteResult &result);
void printHeaderFields(Invocation &invocation, const ResponseHeader &header);
void printGet(Invocation &invocation, const RangeResult &result);
void printPut(Invocation &invocation, const PutResult &result);
void printDelete(Invocation &invocation, const DeleteResult &result);
// Formats that print etcdctl's document rather than text or JSON lines.
bool wanted(const Invocation &invocation);
} // namespace Etcdctl

} // namespace QEtcd::Cli
