// SPDX-License-Identifier: Apache-2.0
#include "watchhub_p.h"

#include "logging_p.h"

namespace QEtcd::Internal {

namespace {
Status cancelCause(const etcdserverpb::WatchResponse &response)
{
    const QString reason = QString::fromStdString(response.cancel_reason());
    if (response.compact_revision() > 0)
        return Status(StatusCode::OutOfRange,
                      QStringLiteral("etcdserver: mvcc: required revision has been compacted (history starts after "
                                     "revision %1)")
                          .arg(response.compact_revision()));
    if (reason.contains(QLatin1String("invalid auth token")))
        return Status(StatusCode::Unauthenticated, reason);
    if (reason.contains(QLatin1String("permission denied")))
        return Status(StatusCode::PermissionDenied, reason);
    if (reason.isEmpty())
        return Status(StatusCode::OutOfRange, QStringLiteral("etcd cancelled the watch without saying why"));
    return Status(StatusCode::FailedPrecondition, reason);
}
} // namespace

WatchHub::WatchHub(Transport *transport, KeyCodec codec) : m_transport(transport), m_codec(std::move(codec)) {}

WatchHub::~WatchHub()
{
    std::unique_lock lock(m_mutex);
    m_closing = true;
    m_registrations.clear();
    if (m_stream)
        m_stream->close();
    if (m_idleCheckArmed)
        m_idleCheck.Cancel();
    // The stream (onClosed) and the idle check each come back once more through the queue.
    m_quiet.wait(lock, [this] { return !m_stream && !m_idleCheckArmed; });
}

quint64 WatchHub::add(const etcdserverpb::WatchCreateRequest &request, qint64 resumeRevision, WatchSink *sink)
{
    std::lock_guard lock(m_mutex);
    const quint64 handle = m_nextHandle++;
    Registration &registration = m_registrations[handle];
    registration.request = request;
    registration.request.clear_start_revision();
    registration.sink = sink;
    registration.resume = resumeRevision;
    registration.delivered = resumeRevision;
    return handle;
}

void WatchHub::subscribe(quint64 handle, qint64 resumeFrom)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_registrations.find(handle);
    if (m_closing || it == m_registrations.end() || it->second.state != State::Idle)
        return;
    Registration &registration = it->second;
    if (resumeFrom > 0) {
        // A resync rebuilt the caller's state as of resumeFrom - 1: whatever follows is news.
        registration.resume = resumeFrom;
        registration.delivered = resumeFrom;
    }
    registration.state = State::Wanted;
    m_wanted.push_back(handle);
    flushLocked();
}

void WatchHub::remove(quint64 handle)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_registrations.find(handle);
    if (it == m_registrations.end())
        return;
    if (it->second.state == State::Live) {
        sendCancelLocked(it->second.watchId);
        m_byWatchId.erase(it->second.watchId);
    }
    // A create still in flight stays in m_creating; its answer finds no registration and the
    // new watch is cancelled then.
    m_registrations.erase(it);
    if (m_registrations.empty() && m_stream && !m_streamClosing) {
        m_idleSince = std::chrono::steady_clock::now();
        armIdleCheckLocked(idleStreamLinger);
    }
}

void WatchHub::armIdleCheckLocked(std::chrono::steady_clock::duration after)
{
    if (m_idleCheckArmed || m_closing)
        return;
    m_idleCheckArmed = true;
    m_idleCheck.Set(m_transport->queue(), std::chrono::system_clock::now() + after, this);
}

void WatchHub::onEvent(bool ok)
{
    std::lock_guard lock(m_mutex);
    m_idleCheckArmed = false;
    if (!ok || m_closing) {
        m_quiet.notify_all();
        return;
    }
    if (!m_registrations.empty() || !m_stream || m_streamClosing)
        return;  // in use again: the next time the last registration goes arms a new check
    const auto idle = std::chrono::steady_clock::now() - m_idleSince;
    if (idle < idleStreamLinger) {
        armIdleCheckLocked(idleStreamLinger - idle);  // used and left idle again since this was armed
        return;
    }
    m_streamClosing = true;
    m_stream->close();
}

int WatchHub::size() const
{
    std::lock_guard lock(m_mutex);
    return int(m_registrations.size());
}

void WatchHub::flushLocked()
{
    if (m_closing || m_wanted.empty())
        return;
    if (!m_stream)
        openStreamLocked();
    if (!m_stream || m_streamClosing)
        return;  // the next stream takes them
    while (!m_wanted.empty()) {
        const quint64 handle = m_wanted.front();
        m_wanted.pop_front();
        const auto it = m_registrations.find(handle);
        if (it != m_registrations.end() && it->second.state == State::Wanted)
            sendCreateLocked(handle, it->second);
    }
}

void WatchHub::openStreamLocked()
{
    // Writes queue inside the stream until it has started, so creates can go at once.
    // Only one stream exists at a time: a new one opens after the last one's onClosed, and a
    // stream delivers nothing after that, so the handlers need not tell streams apart.
    m_stream = Stream::open(
        m_transport,
        [](EndpointChannel &c, grpc::ClientContext *ctx, grpc::CompletionQueue *q) {
            return c.watch->PrepareAsyncWatch(ctx, q);
        },
        Stream::Handlers{[] {}, [this](etcdserverpb::WatchResponse &response) { onResponse(response); },
                         [this](const Status &status) { onStreamClosed(status); }});
    m_streamClosing = false;
    if (m_stream) {
        qCDebug(lcWatch).noquote() << "watch stream opened on"
                                   << m_transport->channel(m_stream->endpoint()).endpoint.toString();
    }
}

void WatchHub::sendCreateLocked(quint64 handle, Registration &registration)
{
    etcdserverpb::WatchRequest request;
    etcdserverpb::WatchCreateRequest *create = request.mutable_create_request();
    *create = registration.request;
    create->set_start_revision(registration.resume);
    registration.createdFrom = registration.resume;
    registration.state = State::Creating;
    m_creating.push_back(handle);
    m_stream->write(request);
}

void WatchHub::sendCancelLocked(qint64 watchId)
{
    if (!m_stream || m_streamClosing || watchId < 0)
        return;
    etcdserverpb::WatchRequest request;
    request.mutable_cancel_request()->set_watch_id(watchId);
    m_stream->write(request);
}

void WatchHub::onResponse(const etcdserverpb::WatchResponse &response)
{
    std::lock_guard lock(m_mutex);
    if (m_closing || !m_stream)
        return;
    if (response.created())
        onCreated(response);
    else if (response.canceled())
        onCanceled(response);
    else
        onEvents(response);
}

void WatchHub::onCreated(const etcdserverpb::WatchResponse &response)
{
    if (m_creating.empty()) {
        qCWarning(lcWatch) << "etcd answered a watch create that was never sent; watch id" << response.watch_id();
        return;
    }
    const quint64 handle = m_creating.front();
    m_creating.pop_front();
    const auto it = m_registrations.find(handle);
    if (it == m_registrations.end()) {
        // Removed while its create was in flight.
        if (!response.canceled())
            sendCancelLocked(response.watch_id());
        return;
    }
    Registration &registration = it->second;
    if (response.canceled()) {
        const Status cause = cancelCause(response);
        if (cause.code() == StatusCode::Unauthenticated) {
            // The stream carries its token from the moment it opened: fetch a new one and
            // reopen, or every later create on this stream is turned down the same way.
            m_transport->invalidateToken(m_transport->token());
            m_transport->withToken([](const Status &) {});
            endLocked(registration, cause, 0, false);
            if (!m_streamClosing) {
                m_streamClosing = true;
                m_stream->close();
            }
            return;
        }
        endLocked(registration, cause, 0, true);
        return;
    }
    registration.state = State::Live;
    registration.watchId = response.watch_id();
    m_byWatchId[registration.watchId] = handle;
    // A watch from "now" starts right after the revision in this answer's header, so from here
    // on it can resume without a gap even if it never sees an event.
    if (registration.createdFrom == 0)
        registration.resume = std::max<qint64>(registration.resume, response.header().revision() + 1);
    registration.sink->watchCreated(registration.resume, registration.createdFrom, response.header().revision());
    if (response.events_size() > 0)
        onEvents(response);
}

void WatchHub::onCanceled(const etcdserverpb::WatchResponse &response)
{
    const auto found = m_byWatchId.find(response.watch_id());
    if (found == m_byWatchId.end())
        return;  // the answer to our own cancel, or about a watch that is gone
    const auto it = m_registrations.find(found->second);
    m_byWatchId.erase(found);
    if (it == m_registrations.end())
        return;
    endLocked(it->second, cancelCause(response), response.compact_revision(), false);
}

void WatchHub::onEvents(const etcdserverpb::WatchResponse &response)
{
    // Progress answers to a ProgressRequest carry watch id -1; we never ask for those (etcd
    // 3.4 answers them without checking that every watch caught up), so only per-watch ones
    // arrive here.
    const auto found = m_byWatchId.find(response.watch_id());
    if (found == m_byWatchId.end())
        return;
    const auto it = m_registrations.find(found->second);
    if (it == m_registrations.end())
        return;
    Registration &registration = it->second;
    const qint64 headerRevision = qint64(response.header().revision());
    if (response.events_size() == 0) {
        registration.resume = std::max<qint64>(registration.resume, headerRevision + 1);
        registration.sink->watchProgress(registration.resume, headerRevision);
        return;
    }
    QList<WatchEvent> events;
    events.reserve(response.events_size());
    qint64 newest = 0;
    for (const mvccpb::Event &event : response.events()) {
        const qint64 revision = qint64(event.kv().mod_revision());
        if (revision < registration.delivered) {
            qCDebug(lcWatch) << "dropping an event delivered before, revision" << revision;
            continue;
        }
        WatchEvent out;
        out.type = event.type() == mvccpb::Event::DELETE ? WatchEvent::Type::Delete : WatchEvent::Type::Put;
        out.kv = m_codec.fromProto(event.kv());
        if (event.has_prev_kv())
            out.prevKv = m_codec.fromProto(event.prev_kv());
        events.append(std::move(out));
        newest = std::max<qint64>(newest, revision);
    }
    if (events.isEmpty())
        return;
    // etcd never splits one revision's events across responses, so the next one starts after.
    registration.delivered = std::max(registration.delivered, newest + 1);
    registration.resume = std::max(registration.resume, newest + 1);
    registration.sink->watchEvents(registration.resume, events, headerRevision);
}

void WatchHub::onStreamClosed(const Status &status)
{
    std::lock_guard lock(m_mutex);
    m_stream = nullptr;
    const bool deliberate = m_streamClosing;
    m_streamClosing = false;
    m_creating.clear();
    m_byWatchId.clear();
    if (m_closing) {
        m_quiet.notify_all();
        return;
    }
    if (!m_registrations.empty())  // an idle stream that broke concerns nobody
        qCInfo(lcWatch).noquote() << "watch stream closed:" << status.toString();
    if (status.code() == StatusCode::Unauthenticated) {
        m_transport->invalidateToken(m_transport->token());
        m_transport->withToken([](const Status &) {});
    }
    const Status cause = status.isOk() || (deliberate && status.code() == StatusCode::Cancelled)
        ? Status(StatusCode::Unavailable, QStringLiteral("watch stream ended"))
        : status.withContext(QStringLiteral("watch stream"));
    for (auto &[handle, registration] : m_registrations) {
        if (registration.state == State::Creating || registration.state == State::Live)
            endLocked(registration, cause, 0, false);
    }
    // Whoever asked while this stream was winding down goes out on a fresh one.
    flushLocked();
}

void WatchHub::endLocked(Registration &registration, const Status &cause, qint64 compactRevision, bool refused)
{
    registration.state = State::Idle;
    registration.watchId = -1;
    registration.sink->watchEnded(registration.resume, cause, compactRevision, refused);
}

} // namespace QEtcd::Internal
