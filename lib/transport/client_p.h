// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "client.h"
#include "clientthread_p.h"
#include "continuation_p.h"
#include "testhooks_p.h"
#include "transport_p.h"
#include "unarycall_p.h"

#include <QtCore/QPromise>
#include <QtCore/QThread>

#include <atomic>
#include <functional>
#include <mutex>
#include <set>
#include <utility>

namespace QEtcd {

class WatcherPrivate;

namespace Internal {
class WatchHub;

// What a layer above transport keeps per client (the lease layer: its keep-alive hub and heal
// gate), known here only by this interface so that includes point down the layers. The client
// owns it: windDown() runs early in the client's destruction, while the transport's thread
// still runs; the part itself goes once the client's threads have stopped.
class ClientPart
{
public:
    virtual ~ClientPart() = default;
    virtual void windDown() = 0;
};

// The watchers of one client. A Watcher may outlive its Client (an app's teardown order);
// the client closes its watchers before its watch stream and dispatcher thread go, and a
// watcher that finds itself no longer registered knows both are gone. The lock is never held
// across a call to another thread: watchers die on the dispatcher thread too (children of a
// cache) while the client waits for that thread.
class WatcherRegistry
{
public:
    // False when the client is already being destroyed.
    bool add(WatcherPrivate *watcher);
    // False when the client closed it already.
    bool remove(WatcherPrivate *watcher);
    // Closes them on the dispatcher thread (dispatcherContext lives there; null when it never
    // started), so that none of the watchers deleted on that thread goes meanwhile.
    void closeAll(QObject *dispatcherContext);

private:
    std::mutex m_mutex;
    std::set<WatcherPrivate *> m_watchers;
    bool m_clientGone = false;
};
}

class ClientPrivate
{
public:
    ClientPrivate(Client *q, const ClientOptions &options);
    ~ClientPrivate();

    static ClientPrivate *get(Client *client) { return client->d.get(); }
    Internal::Transport *transport() const { return m_transport.get(); }
    // A call addressed to one member: endpoint (one of the client's, or empty for the one in
    // use) becomes callSpec's fixed endpoint, and *name its text; *built says why not when it
    // is none of the client's.
    Internal::CallSpec toOneMember(Internal::CallSpec callSpec, const QString &endpoint, Status *built, QString *name) const;
    // The library's own thread: lease healing, watch dispatch and the recipes' work run there.
    // Started on first use.
    QThread *dispatcher();
    // Lives on the dispatcher thread and goes with the client: the context for work that must
    // not outlive it.
    QObject *dispatcherContext();
    // Runs tell on the loss thread, which runs nothing but the events of exclusivity leases
    // (renewals stalled or resumed, the loss) and what their listeners do with them: neither a
    // heal nor a slot that keeps the dispatcher busy can hold a loss back. Started on first use.
    void tellOnLossThread(std::function<void()> tell);
    bool isLossThread() const;
    // The lease layer's part, made by make() on first use.
    Internal::ClientPart *leasePart(const std::function<std::unique_ptr<Internal::ClientPart>()> &make);
    // Every Watcher of this client shares its one Watch stream. Null when the options were refused.
    Internal::WatchHub *watchHub();
    const std::shared_ptr<Internal::WatcherRegistry> &watchers() const { return m_watchers; }
    const std::shared_ptr<Internal::ClientLifeline> &lifeline() const { return m_lifeline; }

    RpcResilience resilience(const Client::Rpc &rpc) const { return rpc.value_or(options.rpc); }

    // Runs one unary RPC and turns its answer into a Result through convert(response, &result);
    // requestStatus carries a problem found while building the request; nothing is sent then.
    // Answered through the returned future, or, given onAnswer, by handing the result to it on the
    // completion-queue thread (the returned future is then empty).
    template <class Result, class Request, class Response, class Convert>
    QFuture<Result> call(Internal::CallSpec spec, const Status &requestStatus, Request request,
                         typename Internal::UnaryCall<Request, Response>::Issue issue, Convert convert,
                         Client::OnAnswer<Result> onAnswer = {})
    {
        Status admitted = admission(spec, requestStatus);
        Internal::SendFault fault = Internal::SendFault::None;
        if (admitted) {
            Internal::BeforeSend hook = beforeSend();
            if (hook)
                fault = hook(spec.what());
            if (fault == Internal::SendFault::Refuse)
                admitted = Status(StatusCode::Unavailable, spec.what() + QStringLiteral(": refused by a test"));
            else if (fault == Internal::SendFault::TooManyRequests)
                spec.refusedAsTooManyRequests = [hook, what = spec.what(), first = true]() mutable {
                    return std::exchange(first, false) || hook(what) == Internal::SendFault::TooManyRequests;
                };
            else if (fault == Internal::SendFault::AnswerFromBehind && !std::is_same_v<Result, TxnResult>)
                admitted = Status(StatusCode::Unavailable, spec.what() + QStringLiteral(": only a transaction can be "
                                                                                       "answered from behind"));
        }
        // A transaction answered from behind: Ok, not succeeded, and nothing in it.
        const bool answerFromBehind = admitted && fault == Internal::SendFault::AnswerFromBehind;
        std::shared_ptr<QPromise<Result>> promise;
        if (!onAnswer) {
            promise = std::make_shared<QPromise<Result>>();
            // A progress range, set while nobody watches, spares each answer Qt's Progress event: a
            // watcher then hears ResultsReady and Finished only, one wake-up fewer of its thread.
            promise->setProgressRange(0, 0);
            promise->start();
        }
        auto deliver = [promise, onAnswer = std::move(onAnswer)](Result &&result) {
            if (onAnswer)
                return onAnswer(result);
            promise->addResult(std::move(result));
            promise->finish();
        };
        if (!admitted || answerFromBehind) {
            Result result;
            result.status = admitted;
            if (promise) {
                deliver(std::move(result));
            } else {
                // Never inside the call: an onAnswer that starts its next call must not recurse.
                Internal::onFuturesThread(
                    [deliver = std::move(deliver), result = std::move(result)]() mutable { deliver(std::move(result)); });
            }
            return promise ? promise->future() : QFuture<Result>();
        }
        Internal::UnaryCall<Request, Response>::start(
            m_transport.get(), std::move(spec), std::move(request), std::move(issue),
            [deliver = std::move(deliver), convert, fault](const Status &answered, const Response &response) {
                const Status status = fault == Internal::SendFault::LoseAnswer
                    ? Status(StatusCode::DeadlineExceeded, QStringLiteral("the answer was lost by a test"))
                    : answered;
                Result result;
                result.status = status;
                if (status)
                    convert(response, &result);
                deliver(std::move(result));
            });
        return promise ? promise->future() : QFuture<Result>();
    }

    // Client::leaseRevoke(); given onAnswer, answered through it on the completion-queue thread
    // (the future is then empty).
    QFuture<Result> leaseRevoke(qint64 id, const RpcResilience &resilience, Client::OnAnswer<Result> onAnswer = {});

    Internal::BeforeSend beforeSend() const
    {
        std::lock_guard lock(m_beforeSendMutex);
        return m_beforeSend;
    }
    void setBeforeSend(Internal::BeforeSend hook)
    {
        std::lock_guard lock(m_beforeSendMutex);
        m_beforeSend = std::move(hook);
    }

    ClientOptions options;
    Internal::KeyCodec codec;
    Status configurationStatus;
    QList<Endpoint> endpoints;

    // Ok, or why a call must not be sent: refused options, a write on a read-only client, a bad
    // request. Jobs of many calls (an import, a bulk delete) ask it before their first.
    Status admission(const Internal::CallSpec &spec, const Status &requestStatus) const;

private:
    std::unique_ptr<Internal::Transport> m_transport;
    std::once_flag m_dispatcherStarted;
    std::unique_ptr<QThread> m_dispatcher;
    std::unique_ptr<QObject> m_dispatcherContext;
    std::once_flag m_lossThreadStarted;
    std::unique_ptr<QThread> m_lossThread;
    std::unique_ptr<QObject> m_lossContext;
    std::atomic<QThread *> m_lossThreadHandle{nullptr};  // read by isLossThread() from any thread
    std::once_flag m_leasePartMade;
    std::unique_ptr<Internal::ClientPart> m_leasePart;
    std::once_flag m_watchHubCreated;
    std::unique_ptr<Internal::WatchHub> m_watchHub;
    mutable std::mutex m_beforeSendMutex;
    Internal::BeforeSend m_beforeSend;
    const std::shared_ptr<Internal::WatcherRegistry> m_watchers = std::make_shared<Internal::WatcherRegistry>();
    const std::shared_ptr<Internal::ClientLifeline> m_lifeline;
};

} // namespace QEtcd
