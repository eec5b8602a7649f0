// SPDX-License-Identifier: Apache-2.0
#pragma once

// The network side of a Client: one channel per endpoint, and the process's one completion queue
// with the one thread that drains it. Nothing here touches a QObject; results leave through
// callbacks that fulfil promises or post queued invocations.

#include "clientoptions.h"
#include "grpcconvert_p.h"

#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace QEtcd::Internal {

// Anything that puts a tag on the completion queue.
class CqTag
{
public:
    virtual ~CqTag() = default;
    virtual void onEvent(bool ok) = 0;
};

// A live operation the transport can cancel when it shuts down.
class LiveCall : public CqTag
{
public:
    virtual void cancel() = 0;
};

struct EndpointChannel
{
    Endpoint endpoint;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
    std::unique_ptr<etcdserverpb::Cluster::Stub> cluster;
    std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
    std::unique_ptr<etcdserverpb::Auth::Stub> auth;
    // Until an endpoint has answered once, calls fail fast on it so a wrong address or a TLS
    // mismatch is reported with its real cause instead of a bare deadline.
    std::atomic<bool> everConnected{false};
};

// The completion queue every Client of the process shares, and its thread. gRPC's epoll engine
// lets one thread at a time poll every connection of the process: with a queue per Client, the
// thread that read an answer had to wake the thread of the queue it belonged to, a second wake-up
// for each answer whenever a process has more than one Client. Kept while any Client lives.
class CompletionThread
{
public:
    static std::shared_ptr<CompletionThread> acquire();
    Q_DISABLE_COPY_MOVE(CompletionThread)

    grpc::CompletionQueue *queue() { return &m_queue; }
    bool isCurrent() const { return std::this_thread::get_id() == m_thread.get_id(); }

private:
    CompletionThread();
    ~CompletionThread() = default;
    // What the last owner's release does: shut the queue down, and join the thread or, when that
    // is the calling thread, leave the deleting to it.
    void retire();
    void run();

    grpc::CompletionQueue m_queue;
    std::thread m_thread;
    bool m_deleteWhenDrained = false;  // only ever touched on the thread itself
};

class Transport
{
public:
    using AuthWaiter = std::function<void(const Status &)>;

    Transport(const ClientOptions &options, const QList<Endpoint> &endpoints,
              std::function<void(int)> activeEndpointChanged);
    ~Transport();
    Q_DISABLE_COPY_MOVE(Transport)

    const ClientOptions &options() const { return m_options; }
    grpc::CompletionQueue *queue() { return m_completion->queue(); }
    bool isCompletionThread() const { return m_completion->isCurrent(); }

    int endpointCount() const { return int(m_channels.size()); }
    EndpointChannel &channel(int index) { return *m_channels[size_t(index)]; }
    int activeEndpoint() const { return m_active.load(); }
    // The endpoint a new attempt should use, failing over past endpoints known to be down.
    int pickEndpoint(bool *waitForReady);
    void reportOutcome(int endpoint, const Status &status);

    // Auth: the token to attach, fetching one first when credentials are configured.
    bool usesAuth() const { return !m_options.user.isEmpty(); }
    void withToken(AuthWaiter ready);
    std::string token() const;
    void invalidateToken(const std::string &stale);
    // After auth was turned on or off: what was learnt about the server (its token, or that it
    // runs without auth) no longer holds, so the next call authenticates afresh.
    void forgetAuthentication();

    // Runs callback once (on the completion-queue thread) when some member answers again, found
    // by a probe that keeps trying while anyone waits. Heals use it to skip their backoff.
    void whenReachable(std::function<void()> callback);

    // Returns false once shutdown began; the call must then finish as cancelled.
    bool enlist(LiveCall *call);
    void discharge(LiveCall *call);
    bool isClosing() const { return m_closing.load(); }

private:
    void authenticate();
    void finishAuthentication(const Status &status, const std::string &token);
    void probeReachability();
    void notifyReachable();

    ClientOptions m_options;
    std::vector<std::unique_ptr<EndpointChannel>> m_channels;
    std::atomic<int> m_active{0};
    std::function<void(int)> m_activeEndpointChanged;

    std::shared_ptr<CompletionThread> m_completion = CompletionThread::acquire();

    mutable std::mutex m_authMutex;
    std::string m_token;
    bool m_authInFlight = false;
    bool m_serverWithoutAuth = false;
    std::vector<AuthWaiter> m_authWaiters;

    std::mutex m_reachabilityMutex;
    std::vector<std::function<void()>> m_reachabilityWaiters;
    bool m_probeInFlight = false;

    std::mutex m_callsMutex;
    std::condition_variable m_callsDrained;
    std::set<LiveCall *> m_calls;
    std::atomic<bool> m_closing{false};
};

} // namespace QEtcd::Internal
