// SPDX-License-Identifier: Apache-2.0
#pragma once

// A bidirectional gRPC stream driven by completion-queue events. Writes queue up and go out one
// at a time (gRPC allows a single outstanding write); reads run continuously. Handlers run on
// the completion-queue thread and must not block: the layers above hand events to their own
// threads. onClosed runs exactly once, after which the stream deletes itself.

#include "grpcconvert_p.h"
#include "transport_p.h"

#include <chrono>
#include <deque>
#include <iterator>
#include <optional>
#include <vector>

namespace QEtcd::Internal {

template <class Request, class Response>
class BidiStream final : public LiveCall
{
public:
    using ReaderWriter = grpc::ClientAsyncReaderWriter<Request, Response>;
    using Prepare = std::function<std::unique_ptr<ReaderWriter>(EndpointChannel &, grpc::ClientContext *,
                                                                grpc::CompletionQueue *)>;
    struct Handlers
    {
        std::function<void()> onReady;
        std::function<void(Response &)> onMessage;
        std::function<void(const Status &)> onClosed;
    };

    // Null when the transport is shutting down (then nothing is called back). With a deadline,
    // the stream is closed with DeadlineExceeded when it is still open then.
    static BidiStream *open(Transport *transport, Prepare prepare, Handlers handlers,
                            std::optional<std::chrono::system_clock::time_point> deadline = std::nullopt)
    {
        auto *stream = new BidiStream(transport, std::move(handlers));
        if (!transport->enlist(stream)) {
            delete stream;
            return nullptr;
        }
        if (deadline)
            stream->m_context.set_deadline(*deadline);
        bool waitForReady = true;
        stream->m_endpoint = transport->pickEndpoint(&waitForReady);
        stream->m_context.set_wait_for_ready(waitForReady);
        if (const std::string token = transport->usesAuth() ? transport->token() : std::string(); !token.empty())
            stream->m_context.AddMetadata("token", token);
        // etcd only answers lease and watch streams while it has a leader.
        stream->m_context.AddMetadata("hasleader", "true");
        std::lock_guard lock(stream->m_mutex);
        stream->m_stream = prepare(transport->channel(stream->m_endpoint), &stream->m_context, transport->queue());
        ++stream->m_pending;
        stream->m_stream->StartCall(&stream->m_startTag);
        return stream;
    }

    int endpoint() const { return m_endpoint; }

    void write(const Request &request)
    {
        std::lock_guard lock(m_mutex);
        if (m_finishing)
            return;
        m_writes.push_back(request);
        writeNextLocked();
    }

    // Queued together, they leave together (see writeNextLocked).
    void write(std::vector<Request> requests)
    {
        std::lock_guard lock(m_mutex);
        if (m_finishing)
            return;
        std::move(requests.begin(), requests.end(), std::back_inserter(m_writes));
        writeNextLocked();
    }

    void cancel() override
    {
        std::lock_guard lock(m_mutex);
        m_context.TryCancel();
    }

    // Closes the stream; onClosed still runs (with Cancelled).
    void close() { cancel(); }

    void onEvent(bool) override {}  // events arrive through the per-operation tags below

private:
    enum class Op { Start, Read, Write, Finish };

    struct Tag final : CqTag
    {
        Tag(BidiStream *s, Op o) : stream(s), op(o) {}
        void onEvent(bool ok) override { stream->onOperation(op, ok); }
        BidiStream *stream;
        Op op;
    };

    BidiStream(Transport *transport, Handlers handlers) : m_transport(transport), m_handlers(std::move(handlers)) {}

    void onOperation(Op op, bool ok)
    {
        std::unique_lock lock(m_mutex);
        --m_pending;
        switch (op) {
        case Op::Start:
            if (!ok) {
                finishLocked();
                break;
            }
            m_started = true;
            lock.unlock();
            m_transport->reportOutcome(m_endpoint, {});
            m_handlers.onReady();
            lock.lock();
            readLocked();
            writeNextLocked();
            break;
        case Op::Read:
            if (!ok) {
                finishLocked();
                break;
            }
            lock.unlock();
            m_handlers.onMessage(m_response);
            lock.lock();
            readLocked();
            break;
        case Op::Write:
            m_writing = false;
            if (ok && !m_writes.empty())
                m_writes.pop_front();
            if (ok)
                writeNextLocked();
            break;
        case Op::Finish:
            m_finished = true;
            break;
        }
        if (m_finished && m_pending == 0) {
            lock.unlock();
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
        m_stream->Read(&m_response, &m_readTag);
    }

    void writeNextLocked()
    {
        if (!m_started || m_writing || m_finishing || m_writes.empty())
            return;
        m_writing = true;
        ++m_pending;
        // With more queued behind it, gRPC may hold this one (its completion comes at once) and
        // send them all with the last, unhinted one: a burst of lease renewals then costs one
        // system call, not one each.
        grpc::WriteOptions options;
        if (m_writes.size() > 1)
            options.set_buffer_hint();
        m_stream->Write(m_writes.front(), options, &m_writeTag);
    }

    void finishLocked()
    {
        if (m_finishing)
            return;
        m_finishing = true;
        ++m_pending;
        m_stream->Finish(&m_grpcStatus, &m_finishTag);
    }

    Transport *m_transport;
    Handlers m_handlers;
    grpc::ClientContext m_context;
    std::unique_ptr<ReaderWriter> m_stream;
    int m_endpoint = -1;

    std::mutex m_mutex;
    Tag m_startTag{this, Op::Start};
    Tag m_readTag{this, Op::Read};
    Tag m_writeTag{this, Op::Write};
    Tag m_finishTag{this, Op::Finish};
    int m_pending = 0;
    bool m_started = false;
    bool m_writing = false;
    bool m_finishing = false;
    bool m_finished = false;
    std::deque<Request> m_writes;
    Response m_response;
    grpc::Status m_grpcStatus;
};

} // namespace QEtcd::Internal
