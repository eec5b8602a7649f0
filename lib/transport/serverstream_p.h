// SPDX-License-Identifier: Apache-2.0
#pragma once

// A server-streaming gRPC call driven by completion-queue events, read at the consumer's pace:
// after a message the stream asks gRPC for the next one only when onMessage says so, or later
// when the consumer calls readNext(). A consumer that writes messages somewhere slow so keeps a
// bounded number of them, and gRPC's flow control keeps the server from sending far ahead. Handlers run on the completion-queue
// thread and must not block. onClosed runs exactly once, after which the stream deletes itself;
// the consumer steers it through a StreamHandle, which outlives it and then does nothing.

#include "grpcconvert_p.h"
#include "transport_p.h"

namespace QEtcd::Internal {

// What a consumer holds of a ServerStream: safe from any thread, before the stream has started
// and after it has gone.
class StreamHandle
{
public:
    virtual ~StreamHandle() = default;
    // Asks for the next message; the stream ends after the last one.
    virtual void readNext() = 0;
    // Ends the stream; onClosed still runs, with Cancelled.
    virtual void cancel() = 0;
};

template <class Request, class Response>
class ServerStream final : public LiveCall
{
public:
    using Reader = grpc::ClientAsyncReader<Response>;
    using Prepare = std::function<std::unique_ptr<Reader>(EndpointChannel &, grpc::ClientContext *, const Request &,
                                                          grpc::CompletionQueue *)>;
    struct Handlers
    {
        // A message arrived: true reads the next at once, false waits for readNext().
        std::function<bool(Response &)> onMessage;
        std::function<void(const Status &)> onClosed;
    };

    // Opens the stream on endpoint, after fetching a token when the client uses auth. When the
    // transport is shutting down onClosed runs at once, with Cancelled.
    static std::shared_ptr<StreamHandle> open(Transport *transport, int endpoint, Request request, Prepare prepare,
                                              Handlers handlers)
    {
        auto *stream = new ServerStream(transport, endpoint, std::move(request), std::move(prepare), std::move(handlers));
        auto handle = std::make_shared<Handle>(stream);
        stream->m_handle = handle;
        if (!transport->enlist(stream)) {
            stream->closeUnstarted(Status(StatusCode::Cancelled, QStringLiteral("the client is closing")), false);
            return handle;
        }
        if (!transport->usesAuth()) {
            stream->startCall();
            return handle;
        }
        transport->withToken([stream](const Status &status) {
            if (!status)
                return stream->closeUnstarted(status);
            stream->startCall();
        });
        return handle;
    }

    void readNext()
    {
        std::lock_guard lock(m_mutex);
        if (m_cancelled)
            return finishLocked();
        readLocked();
    }

    void cancel() override
    {
        std::lock_guard lock(m_mutex);
        m_cancelled = true;
        if (!m_started)
            return;  // startCall() or the token's answer sees the flag
        m_context.TryCancel();
        // Waiting for readNext() nothing is pending that the cancel would complete.
        if (m_pending == 0)
            finishLocked();
    }

    void onEvent(bool) override {}  // events arrive through the per-operation tags below

private:
    enum class Op { Start, Read, Finish };

    class Handle final : public StreamHandle
    {
    public:
        explicit Handle(ServerStream *stream) : m_stream(stream) {}
        void readNext() override
        {
            std::lock_guard lock(m_mutex);
            if (m_stream)
                m_stream->readNext();
        }
        void cancel() override
        {
            std::lock_guard lock(m_mutex);
            if (m_stream)
                m_stream->cancel();
        }
        void detach()
        {
            std::lock_guard lock(m_mutex);
            m_stream = nullptr;
        }

    private:
        std::mutex m_mutex;
        ServerStream *m_stream;
    };

    struct Tag final : CqTag
    {
        Tag(ServerStream *s, Op o) : stream(s), op(o) {}
        void onEvent(bool ok) override { stream->onOperation(op, ok); }
        ServerStream *stream;
        Op op;
    };

    ServerStream(Transport *transport, int endpoint, Request request, Prepare prepare, Handlers handlers)
        : m_transport(transport), m_endpoint(endpoint), m_request(std::move(request)), m_prepare(std::move(prepare)),
          m_handlers(std::move(handlers))
    {
    }

    void startCall()
    {
        std::unique_lock lock(m_mutex);
        if (m_cancelled || m_transport->isClosing()) {
            lock.unlock();
            return closeUnstarted(Status(StatusCode::Cancelled, QStringLiteral("cancelled before it started")));
        }
        if (const std::string token = m_transport->usesAuth() ? m_transport->token() : std::string(); !token.empty())
            m_context.AddMetadata("token", token);
        m_context.set_wait_for_ready(m_transport->channel(m_endpoint).everConnected.load());
        m_reader = m_prepare(m_transport->channel(m_endpoint), &m_context, m_request, m_transport->queue());
        m_started = true;
        ++m_pending;
        m_reader->StartCall(&m_startTag);
    }

    void closeUnstarted(const Status &status, bool enlisted = true)
    {
        m_handle->detach();
        m_handlers.onClosed(status);
        if (enlisted)
            m_transport->discharge(this);
        delete this;
    }

    void onOperation(Op op, bool ok)
    {
        std::unique_lock lock(m_mutex);
        --m_pending;
        switch (op) {
        case Op::Start:
            if (!ok || m_cancelled)
                finishLocked();
            else
                readLocked();
            break;
        case Op::Read:
            if (!ok || m_cancelled) {
                finishLocked();
                break;
            }
            lock.unlock();
            if (m_handlers.onMessage(m_response))
                readNext();
            lock.lock();
            break;
        case Op::Finish:
            m_finished = true;
            break;
        }
        if (m_finished && m_pending == 0) {
            lock.unlock();
            m_handle->detach();
            const Status status = statusFromGrpc(m_grpcStatus);
            m_transport->reportOutcome(m_endpoint, status);
            m_handlers.onClosed(status);
            m_transport->discharge(this);
            delete this;
        }
    }

    void readLocked()
    {
        if (m_finishing)
            return;
        ++m_pending;
        m_reader->Read(&m_response, &m_readTag);
    }

    void finishLocked()
    {
        if (m_finishing)
            return;
        m_finishing = true;
        ++m_pending;
        m_reader->Finish(&m_grpcStatus, &m_finishTag);
    }

    Transport *m_transport;
    const int m_endpoint;
    const Request m_request;
    Prepare m_prepare;
    Handlers m_handlers;
    std::shared_ptr<Handle> m_handle;
    grpc::ClientContext m_context;
    std::unique_ptr<Reader> m_reader;

    std::mutex m_mutex;
    Tag m_startTag{this, Op::Start};
    Tag m_readTag{this, Op::Read};
    Tag m_finishTag{this, Op::Finish};
    int m_pending = 0;
    bool m_started = false;
    bool m_cancelled = false;
    bool m_finishing = false;
    bool m_finished = false;
    Response m_response;
    grpc::Status m_grpcStatus;
};

} // namespace QEtcd::Internal
