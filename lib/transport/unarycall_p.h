// SPDX-License-Identifier: Apache-2.0
#pragma once

// One unary RPC from first attempt to final answer, driven entirely by completion-queue
// events: attempts with a deadline each, retries paced by a grpc::Alarm on the same queue
// (so shutdown can cancel them), fail-over between endpoints, and one transparent
// re-authentication when etcd says the token went stale. Done runs exactly once.

#include "logging_p.h"
#include "resilience.h"
#include "transport_p.h"

#include <grpcpp/alarm.h>

#include <chrono>

namespace QEtcd::Internal {

struct CallSpec
{
    // Names the call ("put \"/k\"") for error messages, built only when one is written: escaping
    // a key cost a successful get more than the rest of the library's bookkeeping together.
    std::function<QString()> describe;
    RpcResilience resilience;
    bool retriable = true;       // false for txn and lease revoke: an ambiguous commit is the caller's to judge
    int fixedEndpoint = -1;      // Maintenance calls address one member, never fail over
    bool authenticated = true;   // false only for Authenticate itself
    bool writes = false;         // changes the cluster: a read-only client refuses it unsent
    // The test seam's "too many requests": asked before each attempt, and an attempt it says
    // yes to is answered so without being sent. Empty outside tests.
    std::function<bool()> refusedAsTooManyRequests = {};

    QString what() const { return describe(); }
};

template <class Request, class Response>
class UnaryCall final : public LiveCall
{
public:
    using Reader = grpc::ClientAsyncResponseReader<Response>;
    using Issue = std::function<std::unique_ptr<Reader>(EndpointChannel &, grpc::ClientContext *, const Request &,
                                                        grpc::CompletionQueue *)>;
    using Done = std::function<void(const Status &, const Response &)>;

    static void start(Transport *transport, CallSpec spec, Request request, Issue issue, Done done)
    {
        auto *call = new UnaryCall(transport, std::move(spec), std::move(request), std::move(issue), std::move(done));
        if (!transport->enlist(call)) {
            call->m_done(Status(StatusCode::Cancelled, call->m_spec.what() + QStringLiteral(": the client is closing")),
                         Response());
            delete call;
            return;
        }
        call->m_clock = std::chrono::steady_clock::now();
        call->beginAttempt();
    }

    void cancel() override
    {
        std::lock_guard lock(m_mutex);
        m_cancelled = true;
        if (m_phase == Phase::InFlight && m_context)
            m_context->TryCancel();
        else if (m_phase == Phase::Backoff || m_phase == Phase::RefusedUnsent)
            m_alarm.Cancel();
    }

    void onEvent(bool ok) override
    {
        Phase phase;
        {
            std::lock_guard lock(m_mutex);
            phase = m_phase;
        }
        if (phase == Phase::Backoff) {
            if (!ok)
                return finish(Status(StatusCode::Cancelled, QStringLiteral("the client is closing")));
            return beginAttempt();
        }
        if (phase == Phase::RefusedUnsent) {
            if (!ok)
                return finish(Status(StatusCode::Cancelled, QStringLiteral("the client is closing")));
            return onAnswer(Status(StatusCode::ResourceExhausted, QStringLiteral("etcdserver: too many requests")));
        }
        onAnswer(statusFromGrpc(m_grpcStatus));
    }

private:
    enum class Phase { Idle, Authenticating, InFlight, Backoff, RefusedUnsent };

    UnaryCall(Transport *transport, CallSpec spec, Request request, Issue issue, Done done)
        : m_transport(transport), m_spec(std::move(spec)), m_request(std::move(request)), m_issue(std::move(issue)),
          m_done(std::move(done))
    {
    }

    void beginAttempt()
    {
        if (m_spec.authenticated && m_transport->usesAuth()) {
            setPhase(Phase::Authenticating);
            m_transport->withToken([this](const Status &status) {
                if (!status)
                    return finish(status);
                issueAttempt();
            });
            return;
        }
        issueAttempt();
    }

    void issueAttempt()
    {
        if (!tryIssue())
            finish(Status(StatusCode::Cancelled, QStringLiteral("the client is closing")));
    }

    bool tryIssue()
    {
        std::lock_guard lock(m_mutex);
        if (m_cancelled || m_transport->isClosing())
            return false;
        bool waitForReady = true;
        if (m_spec.fixedEndpoint >= 0) {
            m_endpoint = m_spec.fixedEndpoint;
            waitForReady = m_transport->channel(m_endpoint).everConnected.load();
        } else {
            m_endpoint = m_transport->pickEndpoint(&waitForReady);
        }
        m_context = std::make_unique<grpc::ClientContext>();
        if (m_spec.resilience.operationTimeout != NoTimeout)
            m_context->set_deadline(std::chrono::system_clock::now() + m_spec.resilience.operationTimeout);
        m_context->set_wait_for_ready(waitForReady);
        if (m_spec.authenticated && m_transport->usesAuth()) {
            m_tokenUsed = m_transport->token();
            if (!m_tokenUsed.empty())  // empty when the server runs without auth
                m_context->AddMetadata("token", m_tokenUsed);
        }
        m_response = Response();
        if (m_spec.refusedAsTooManyRequests && m_spec.refusedAsTooManyRequests()) {
            // Answered through the queue, as etcd's refusal would be, never inside this call.
            m_phase = Phase::RefusedUnsent;
            m_alarm.Set(m_transport->queue(), std::chrono::system_clock::now(), this);
            return true;
        }
        m_phase = Phase::InFlight;
        m_reader = m_issue(m_transport->channel(m_endpoint), m_context.get(), m_request, m_transport->queue());
        m_reader->Finish(&m_response, &m_grpcStatus, this);
        return true;
    }

    void onAnswer(const Status &status)
    {
        m_transport->reportOutcome(m_endpoint, status);
        if (status)
            return finish(status);
        if (neverLeftTheClient(status) && m_failovers + 1 < m_transport->endpointCount()) {
            // Nothing was sent, so even a transaction may go to the next endpoint at once.
            ++m_failovers;
            return beginAttempt();
        }
        if (status.code() == StatusCode::Unauthenticated && m_spec.authenticated && m_transport->usesAuth()
            && !m_reauthenticated) {
            // Simple tokens expire on the server; fetch a new one and repeat the same attempt.
            m_reauthenticated = true;
            qCInfo(lcTransport).noquote() << "etcd rejected the auth token (" << status.message()
                                          << "); authenticating again";
            m_transport->invalidateToken(m_tokenUsed);
            return beginAttempt();
        }
        // A call that never left the client may be repeated even when it is not idempotent, and
        // so may one etcd refused as too many: it refuses before proposing, so nothing was applied.
        const bool repeatable = m_spec.retriable || neverLeftTheClient(status) || status.isTooManyRequests();
        if (repeatable && status.isTransient() && !isCancelled()) {
            const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - m_clock);
            if (const auto delay = m_spec.resilience.retryPolicy.nextDelay(m_retries + 1, elapsed)) {
                std::lock_guard lock(m_mutex);
                ++m_retries;
                m_phase = Phase::Backoff;
                m_alarm.Set(m_transport->queue(), std::chrono::system_clock::now() + *delay, this);
                return;
            }
        }
        finish(status);
    }

    static bool neverLeftTheClient(const Status &status)
    {
        return status.code() == StatusCode::Unavailable
            && status.message().contains(QLatin1String("failed to connect to all addresses"));
    }

    bool isCancelled()
    {
        std::lock_guard lock(m_mutex);
        return m_cancelled;
    }

    void setPhase(Phase phase)
    {
        std::lock_guard lock(m_mutex);
        m_phase = phase;
    }

    void finish(Status status)
    {
        if (!status) {
            if (m_transport->channel(std::max(m_endpoint, 0)).endpoint.tls)
                status = withRejectedCertificateHint(status);
            QString context = m_spec.what();
            if (m_retries > 0)
                context += QStringLiteral(" (after %1 attempts)").arg(m_retries + 1);
            if (m_endpoint >= 0 && m_transport->endpointCount() > 1)
                context += QStringLiteral(" via ") + m_transport->channel(m_endpoint).endpoint.toString();
            status = status.withContext(context);
        }
        m_done(status, m_response);
        m_transport->discharge(this);
        delete this;
    }

    Transport *m_transport;
    CallSpec m_spec;
    Request m_request;
    Issue m_issue;
    Done m_done;

    std::mutex m_mutex;
    Phase m_phase = Phase::Idle;
    bool m_cancelled = false;
    std::unique_ptr<grpc::ClientContext> m_context;
    std::unique_ptr<Reader> m_reader;
    grpc::Alarm m_alarm;

    Response m_response;
    grpc::Status m_grpcStatus;
    std::string m_tokenUsed;
    int m_endpoint = -1;
    int m_retries = 0;
    int m_failovers = 0;
    bool m_reauthenticated = false;
    std::chrono::steady_clock::time_point m_clock;
};

} // namespace QEtcd::Internal
