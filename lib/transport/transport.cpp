// SPDX-License-Identifier: Apache-2.0
#include "transport_p.h"

#include "logging_p.h"
#include "unarycall_p.h"

#include <QtCore/QFile>

#include <absl/synchronization/mutex.h>
#include <grpc/support/log.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <mutex>

#include <pthread.h>

namespace QEtcd::Internal {

namespace {
std::string readPem(const QString &path)
{
    if (path.isEmpty())
        return {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().toStdString();
}

std::shared_ptr<grpc::ChannelCredentials> credentialsFor(const Endpoint &endpoint, const TlsOptions &tls)
{
    if (!endpoint.tls)
        return grpc::InsecureChannelCredentials();
    if (tls.skipServerVerification) {
        // SslCredentials always verifies; TLS credentials can be told not to check the chain
        // (set_verify_server_certs) nor the name (a verifier that accepts, no per-call host check).
        grpc::experimental::TlsChannelCredentialsOptions unverified;
        unverified.set_verify_server_certs(false);
        unverified.set_certificate_verifier(std::make_shared<grpc::experimental::NoOpCertificateVerifier>());
        unverified.set_check_call_host(false);
        if (!tls.certFile.isEmpty()) {
            const std::vector<grpc::experimental::IdentityKeyCertPair> identity{
                {readPem(tls.keyFile), readPem(tls.certFile)}};
            unverified.set_certificate_provider(
                std::make_shared<grpc::experimental::StaticDataCertificateProvider>(identity));
            unverified.watch_identity_key_cert_pairs();
        }
        return grpc::experimental::TlsCredentials(unverified);
    }
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = readPem(tls.caFile);
    ssl.pem_cert_chain = readPem(tls.certFile);
    ssl.pem_private_key = readPem(tls.keyFile);
    return grpc::SslCredentials(ssl);
}

grpc::ChannelArguments channelArguments(const ClientOptions &options)
{
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, int(options.keepAliveTime.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, int(options.keepAliveTimeout.count()));
    // Leases and watches sit idle on open streams for long stretches; the pings are what
    // notices a silent partition there.
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    args.SetMaxReceiveMessageSize(options.maxReceiveMessageSize);
    args.SetMaxSendMessageSize(options.maxReceiveMessageSize);
    // gRPC's reconnect backoff grows to two minutes; a restarted member should be used again
    // within seconds. The minimum backoff doubles as gRPC's connect timeout.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 250);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, int(options.dialTimeout.count()));
    // Two Clients must never share a TCP connection, or cutting one off would cut both.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    if (!options.tls.serverNameOverride.isEmpty())
        args.SetSslTargetNameOverride(options.tls.serverNameOverride.toStdString());
    return args;
}

// Process-wide settings of gRPC and its Abseil, made once before the first channel.
void configureGrpc()
{
    static std::once_flag once;
    std::call_once(once, [] {
        // Debian builds Abseil without NDEBUG, which leaves its lock-order deadlock detector on:
        // every gRPC mutex lock and unlock then updates one global graph under one global lock,
        // about a tenth of a round trip's instructions and a point where gRPC's threads meet.
        absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
        // gRPC core prints to stderr by default; send it through Qt's logging so it is silent
        // unless an operator enables qetcd.grpc.
        gpr_set_log_verbosity(lcGrpc().isDebugEnabled() ? GPR_LOG_SEVERITY_DEBUG : GPR_LOG_SEVERITY_ERROR);
        gpr_set_log_function([](gpr_log_func_args *args) {
            qCDebug(lcGrpc, "%s:%d %s", args->file, args->line, args->message);
        });
    });
}

bool serverAnswered(const Status &status)
{
    switch (status.code()) {
    case StatusCode::Unavailable:
    case StatusCode::DeadlineExceeded:
    case StatusCode::Cancelled:
    case StatusCode::TlsError:
        return false;
    default:
        return true;
    }
}
} // namespace

std::shared_ptr<CompletionThread> CompletionThread::acquire()
{
    static std::mutex mutex;
    static std::weak_ptr<CompletionThread> shared;
    std::lock_guard lock(mutex);
    std::shared_ptr<CompletionThread> running = shared.lock();
    if (!running) {
        running.reset(new CompletionThread, [](CompletionThread *completion) { completion->retire(); });
        shared = running;
    }
    return running;
}

CompletionThread::CompletionThread() : m_thread([this] { run(); })
{
    // Named for top -H and debuggers, beside qetcd-dispatch and qetcd-futures.
    pthread_setname_np(m_thread.native_handle(), "qetcd-grpc");
}

void CompletionThread::retire()
{
    // Every Transport drained its own calls before letting go, so nothing is left to deliver.
    m_queue.Shutdown();
    if (isCurrent()) {
        // The last Client went from inside a delivery on this very thread: the loop is still
        // running below, so it ends and deletes what it ran on.
        m_deleteWhenDrained = true;
        m_thread.detach();
        return;
    }
    m_thread.join();
    delete this;
}

void CompletionThread::run()
{
    void *tag = nullptr;
    bool ok = false;
    while (m_queue.Next(&tag, &ok))
        static_cast<CqTag *>(tag)->onEvent(ok);
    if (m_deleteWhenDrained)
        delete this;
}

Transport::Transport(const ClientOptions &options, const QList<Endpoint> &endpoints,
                     std::function<void(int)> activeEndpointChanged)
    : m_options(options), m_activeEndpointChanged(std::move(activeEndpointChanged))
{
    configureGrpc();
    const grpc::ChannelArguments args = channelArguments(options);
    for (const Endpoint &endpoint : endpoints) {
        auto entry = std::make_unique<EndpointChannel>();
        entry->endpoint = endpoint;
        entry->channel = grpc::CreateCustomChannel(endpoint.authority().toStdString(),
                                                   credentialsFor(endpoint, options.tls), args);
        entry->kv = etcdserverpb::KV::NewStub(entry->channel);
        entry->lease = etcdserverpb::Lease::NewStub(entry->channel);
        entry->watch = etcdserverpb::Watch::NewStub(entry->channel);
        entry->cluster = etcdserverpb::Cluster::NewStub(entry->channel);
        entry->maintenance = etcdserverpb::Maintenance::NewStub(entry->channel);
        entry->auth = etcdserverpb::Auth::NewStub(entry->channel);
        m_channels.push_back(std::move(entry));
    }
}

Transport::~Transport()
{
    {
        std::unique_lock lock(m_callsMutex);
        m_closing = true;
        for (LiveCall *call : m_calls)
            call->cancel();
        // Cancelled calls still deliver their final event; wait for every one so no call
        // touches the queue after it shut down.
        m_callsDrained.wait(lock, [this] { return m_calls.empty(); });
    }
}

int Transport::pickEndpoint(bool *waitForReady)
{
    const int count = endpointCount();
    const int active = m_active.load();
    for (int step = 0; step < count; ++step) {
        const int index = (active + step) % count;
        EndpointChannel &candidate = channel(index);
        if (candidate.channel->GetState(true) == GRPC_CHANNEL_TRANSIENT_FAILURE && count > 1)
            continue;
        int expected = active;
        if (index != active && m_active.compare_exchange_strong(expected, index)) {
            qCInfo(lcTransport).noquote() << "failing over to" << candidate.endpoint.toString();
            m_activeEndpointChanged(index);
        }
        // With somewhere else to go, fail fast here and let the caller move on.
        *waitForReady = count == 1 && candidate.everConnected.load();
        return index;
    }
    // Every endpoint is down: wait on the current one for as long as the deadline allows.
    *waitForReady = channel(active).everConnected.load();
    return active;
}

void Transport::reportOutcome(int endpoint, const Status &status)
{
    if (endpoint < 0)
        return;
    if (serverAnswered(status)) {
        channel(endpoint).everConnected = true;
        notifyReachable();
        return;
    }
    if (status.code() == StatusCode::Cancelled || endpointCount() < 2)
        return;
    int expected = endpoint;
    const int next = (endpoint + 1) % endpointCount();
    if (m_active.compare_exchange_strong(expected, next)) {
        qCInfo(lcTransport).noquote() << channel(endpoint).endpoint.toString() << "failed (" << status.toString()
                                      << "); trying" << channel(next).endpoint.toString();
        m_activeEndpointChanged(next);
    }
}

void Transport::withToken(AuthWaiter ready)
{
    std::unique_lock lock(m_authMutex);
    if (!m_token.empty() || m_serverWithoutAuth) {
        lock.unlock();
        ready({});
        return;
    }
    m_authWaiters.push_back(std::move(ready));
    if (m_authInFlight)
        return;
    m_authInFlight = true;
    lock.unlock();
    authenticate();
}

void Transport::authenticate()
{
    etcdserverpb::AuthenticateRequest request;
    request.set_name(m_options.user.toStdString());
    request.set_password(m_options.password.toStdString());
    CallSpec spec;
    spec.describe = [user = m_options.user] { return QStringLiteral("authenticate as user \"%1\"").arg(user); };
    spec.resilience = m_options.rpc;
    spec.authenticated = false;
    UnaryCall<etcdserverpb::AuthenticateRequest, etcdserverpb::AuthenticateResponse>::start(
        this, spec, request,
        [](EndpointChannel &c, grpc::ClientContext *ctx, const auto &r, grpc::CompletionQueue *q) {
            return c.auth->AsyncAuthenticate(ctx, r, q);
        },
        [this](const Status &status, const etcdserverpb::AuthenticateResponse &response) {
            finishAuthentication(status, response.token());
        });
}

void Transport::finishAuthentication(const Status &status, const std::string &token)
{
    std::vector<AuthWaiter> waiters;
    {
        std::lock_guard lock(m_authMutex);
        m_authInFlight = false;
        if (status)
            m_token = token;
        // Like etcdctl: credentials for a server without auth are not an error.
        m_serverWithoutAuth = status.message().contains(QLatin1String("authentication is not enabled"));
        waiters.swap(m_authWaiters);
    }
    Status outcome = m_serverWithoutAuth ? Status() : status;
    // etcd 3.4 answers a password given for a user that has none (one for certificate logins)
    // with an error it maps to no gRPC code; it is the same mistake as a wrong password, which
    // it answers with InvalidArgument.
    if (outcome.code() == StatusCode::Unknown && outcome.message().contains(QLatin1String("authentication failed")))
        outcome = Status(StatusCode::InvalidArgument, outcome.message());
    for (AuthWaiter &waiter : waiters)
        waiter(outcome);
}

std::string Transport::token() const
{
    std::lock_guard lock(m_authMutex);
    return m_token;
}

void Transport::invalidateToken(const std::string &stale)
{
    std::lock_guard lock(m_authMutex);
    if (m_token == stale)
        m_token.clear();
}

void Transport::forgetAuthentication()
{
    std::lock_guard lock(m_authMutex);
    m_token.clear();
    m_serverWithoutAuth = false;
}

void Transport::whenReachable(std::function<void()> callback)
{
    {
        std::lock_guard lock(m_reachabilityMutex);
        m_reachabilityWaiters.push_back(std::move(callback));
        if (m_probeInFlight)
            return;
        m_probeInFlight = true;
    }
    probeReachability();
}

void Transport::probeReachability()
{
    etcdserverpb::RangeRequest request;
    request.set_key("health-check-probe");
    request.set_count_only(true);
    CallSpec spec;
    spec.describe = [] { return QStringLiteral("reachability probe"); };
    // Short attempts, retried every 200 ms for as long as it takes: any answer at all, even a
    // refusal, proves a member is reachable again.
    spec.resilience = RpcResilience{RetryPolicy::bounded(INT_MAX, std::chrono::milliseconds(200)),
                                    std::chrono::milliseconds(1000)};
    UnaryCall<etcdserverpb::RangeRequest, etcdserverpb::RangeResponse>::start(
        this, spec, request,
        [](EndpointChannel &c, grpc::ClientContext *ctx, const auto &r, grpc::CompletionQueue *q) {
            return c.kv->AsyncRange(ctx, r, q);
        },
        [this](const Status &, const etcdserverpb::RangeResponse &) {
            {
                std::lock_guard lock(m_reachabilityMutex);
                m_probeInFlight = false;
            }
            notifyReachable();
        });
}

void Transport::notifyReachable()
{
    std::vector<std::function<void()>> waiters;
    {
        std::lock_guard lock(m_reachabilityMutex);
        waiters.swap(m_reachabilityWaiters);
    }
    for (auto &waiter : waiters)
        waiter();
}

bool Transport::enlist(LiveCall *call)
{
    std::lock_guard lock(m_callsMutex);
    if (m_closing)
        return false;
    m_calls.insert(call);
    return true;
}

void Transport::discharge(LiveCall *call)
{
    std::lock_guard lock(m_callsMutex);
    m_calls.erase(call);
    if (m_calls.empty())
        m_callsDrained.notify_all();
}

} // namespace QEtcd::Internal
