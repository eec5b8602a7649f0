// SPDX-License-Identifier: Apache-2.0
#include "txnbatcher_p.h"

#include "continuation_p.h"
#include "logging_p.h"

#include <QEtcd/client.h>

#include <QtCore/QPromise>

#include <algorithm>
#include <deque>
#include <mutex>
#include <vector>

namespace QEtcd::Internal {

namespace {
// Two, so that the next batch is gathered while one is answered, and etcd always has one.
constexpr int batchesInFlight = 2;
// etcd refuses a branch of more than --max-txn-ops operations, 128 unless configured.
constexpr int defaultMaxMembers = 64;
// Well under etcd's request limit (1.5 MiB unless configured), so values of any usual size fit.
constexpr qsizetype maxBatchBytes = 512 * 1024;

qsizetype bytesOf(const Txn &txn)
{
    qsizetype bytes = 0;
    for (const Compare &compare : txn.compares)
        bytes += compare.key.size() + compare.valueOperand.size();
    for (const QList<TxnOp> *branch : {&txn.success, &txn.failure}) {
        for (const TxnOp &op : *branch)
            bytes += op.key.size() + op.value.size() + (op.txn ? bytesOf(*op.txn) : 0);
    }
    return bytes;
}

struct Member
{
    Txn txn;
    TxnBatcher::Judge judge;
    std::shared_ptr<QPromise<Status>> promise;
};

void settle(const Member &member, const TxnResult &result)
{
    member.promise->addResult(member.judge(result));
    member.promise->finish();
}

TxnResult failed(const Status &status)
{
    TxnResult result;
    result.status = status;
    return result;
}
} // namespace

struct TxnBatcher::State : std::enable_shared_from_this<State>
{
    explicit State(std::shared_ptr<ClientLifeline> lifeline) : client(std::move(lifeline)) {}

    void enqueue(Member member)
    {
        {
            std::lock_guard lock(mutex);
            waiting.push_back(std::move(member));
        }
        sendNextBatch();
    }

    void sendNextBatch()
    {
        std::vector<Member> batch;
        {
            std::lock_guard lock(mutex);
            if (inFlight >= batchesInFlight || waiting.empty())
                return;
            ++inFlight;
            qsizetype bytes = 0;
            while (!waiting.empty() && int(batch.size()) < maxMembers) {
                const qsizetype size = bytesOf(waiting.front().txn);
                if (!batch.empty() && bytes + size > maxBatchBytes)
                    break;
                bytes += size;
                batch.push_back(std::move(waiting.front()));
                waiting.pop_front();
            }
        }
        const auto self = shared_from_this();
        const auto batchDone = [self] {
            {
                std::lock_guard lock(self->mutex);
                --self->inFlight;
            }
            self->sendNextBatch();
        };
        if (batch.size() == 1)
            return sendAlone(batch.front(), batchDone);
        Txn together;
        for (const Member &member : batch)
            together.success.append(TxnOp::nested(member.txn));
        QFuture<TxnResult> answer;
        if (!client->use([&](Client *c) { answer = c->txn(together); })) {
            for (const Member &member : batch)
                settle(member, failed(closing()));
            return batchDone();
        }
        after(answer, [self, batch, batchDone](const TxnResult &result) {
            self->answer(batch, result);
            batchDone();
        });
    }

    void answer(const std::vector<Member> &batch, const TxnResult &result)
    {
        if (result.status) {
            const bool complete = result.responses.size() == qsizetype(batch.size())
                && std::all_of(result.responses.cbegin(), result.responses.cend(),
                               [](const TxnOpResult &own) { return bool(own.txn); });
            const Status incomplete = complete ? Status()
                                               : Status(StatusCode::Internal,
                                                        QStringLiteral("etcd answered a batch of %1 transactions "
                                                                       "with %2 answers")
                                                            .arg(batch.size())
                                                            .arg(result.responses.size()));
            for (size_t i = 0; i < batch.size(); ++i) {
                TxnResult alone = complete ? *result.responses[qsizetype(i)].txn : failed(incomplete);
                alone.header = result.header;
                settle(batch[i], alone);
            }
            return;
        }
        if (refusedAsAWhole(result.status)) {
            if (result.status.message().contains(QLatin1String("too many operations"))) {
                std::lock_guard lock(mutex);
                maxMembers = std::max(1, std::min(maxMembers, int(batch.size()) / 2));
            }
            qCInfo(lcLease).noquote() << QStringLiteral("etcd refused %1 establishments sent together (%2); sending "
                                                        "them one at a time")
                                             .arg(batch.size())
                                             .arg(result.status.message());
            for (const Member &member : batch)
                sendAlone(member, [] {});
            return;
        }
        for (const Member &member : batch)
            settle(member, failed(result.status));
    }

    // Said of the request, not of any member's compares: each member may well succeed alone.
    static bool refusedAsAWhole(const Status &status)
    {
        return status.code() == StatusCode::PermissionDenied || status.code() == StatusCode::InvalidArgument;
    }

    void sendAlone(const Member &member, const std::function<void()> &then)
    {
        QFuture<TxnResult> answer;
        if (!client->use([&](Client *c) { answer = c->txn(member.txn); })) {
            settle(member, failed(closing()));
            return then();
        }
        after(answer, [member, then](const TxnResult &result) {
            settle(member, result);
            then();
        });
    }

    static Status closing() { return Status(StatusCode::Cancelled, QStringLiteral("the client is closing")); }

    const std::shared_ptr<ClientLifeline> client;
    std::mutex mutex;
    std::deque<Member> waiting;
    int inFlight = 0;
    int maxMembers = defaultMaxMembers;
};

TxnBatcher::TxnBatcher(std::shared_ptr<ClientLifeline> client) : m_state(std::make_shared<State>(std::move(client)))
{
}

QFuture<Status> TxnBatcher::submit(const Txn &txn, Judge judge)
{
    auto promise = std::make_shared<QPromise<Status>>();
    promise->start();
    QFuture<Status> future = promise->future();
    m_state->enqueue(Member{txn, std::move(judge), std::move(promise)});
    return future;
}

} // namespace QEtcd::Internal
