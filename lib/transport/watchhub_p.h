// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every watch of a Client rides one Watch stream. The hub runs on the completion-queue thread
// and owns the bookkeeping that makes a watch resumable: for each registration the revision it
// would be re-created from (after the last delivered event, or the last progress notification),
// and the revision below which an event would be a duplicate.
//
// The hub never retries on its own. When the stream fails, or etcd cancels a watch, the
// registration goes idle and its sink hears why; the Watcher above paces the next attempt with
// its own retry policy and calls subscribe() again. The stream is opened when some registration
// wants it and closed once no registration has wanted it for idleStreamLinger: a lock waiter's
// watch lasts one hand-off, and opening a stream per wait cost etcd a stream's set-up and
// tear-down per lock cycle, and the next waiter the round trip of the old stream's close.
//
// etcd answers creates in the order they were sent on a stream (created = true), so pending
// creates map to registrations first in, first out; events for a watch id only ever follow its
// created answer.

#include "bidistream_p.h"
#include "transport_p.h"
#include "watcher.h"

#include <grpcpp/alarm.h>

#include <chrono>
#include <deque>
#include <unordered_map>

namespace QEtcd::Internal {

// Called on the completion-queue thread with the hub's lock held: post, never block, never
// call back into the hub. The first argument of each is the registration's resume revision
// after the hub applied the message.
class WatchSink
{
public:
    virtual ~WatchSink() = default;
    // etcd created the watch; createdFrom is the start revision that was asked for (0: "now"),
    // headerRevision the store revision when it was created.
    virtual void watchCreated(qint64 resume, qint64 createdFrom, qint64 headerRevision) = 0;
    // Events in etcd's order, duplicates already dropped; never empty.
    virtual void watchEvents(qint64 resume, const QList<WatchEvent> &events, qint64 headerRevision) = 0;
    virtual void watchProgress(qint64 resume, qint64 revision) = 0;
    // The watch is no longer on any stream: the stream ended, or etcd cancelled or refused it.
    // compactRevision > 0 when the cause is that the resume point was compacted away; refused
    // when etcd turned down the create request itself.
    virtual void watchEnded(qint64 resume, const Status &cause, qint64 compactRevision, bool refused) = 0;
};

class WatchHub final : public CqTag
{
public:
    static constexpr std::chrono::seconds idleStreamLinger{10};

    WatchHub(Transport *transport, KeyCodec codec);
    ~WatchHub();
    Q_DISABLE_COPY_MOVE(WatchHub)

    // request: everything but start_revision. Returns a handle; nothing is sent yet.
    quint64 add(const etcdserverpb::WatchCreateRequest &request, qint64 resumeRevision, WatchSink *sink);
    // (Re-)creates the watch from its resume revision, or from resumeFrom when that is > 0
    // (after a resync; events from there on are delivered again even if seen before).
    // Ignored unless the registration is idle.
    void subscribe(quint64 handle, qint64 resumeFrom = 0);
    // Cancels the watch on the server. After this returns the sink is never called again.
    void remove(quint64 handle);

    int size() const;

    void onEvent(bool ok) override;  // the idle check

private:
    enum class State {
        Idle,      // on no stream; waits for subscribe()
        Wanted,    // subscribe() asked; the create goes out as soon as a stream takes writes
        Creating,  // create sent; waiting for its created answer
        Live,      // created; watchId is valid
    };

    struct Registration
    {
        etcdserverpb::WatchCreateRequest request;
        WatchSink *sink = nullptr;
        State state = State::Idle;
        qint64 watchId = -1;
        qint64 resume = 0;     // where a new create starts (0: now)
        qint64 delivered = 0;  // events below this revision were delivered already
        qint64 createdFrom = 0;
    };

    using Stream = BidiStream<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;

    void flushLocked();
    void openStreamLocked();
    void sendCreateLocked(quint64 handle, Registration &registration);
    void sendCancelLocked(qint64 watchId);
    void onResponse(const etcdserverpb::WatchResponse &response);
    void onCreated(const etcdserverpb::WatchResponse &response);
    void onCanceled(const etcdserverpb::WatchResponse &response);
    void onEvents(const etcdserverpb::WatchResponse &response);
    void onStreamClosed(const Status &status);
    void endLocked(Registration &registration, const Status &cause, qint64 compactRevision, bool refused);
    void armIdleCheckLocked(std::chrono::steady_clock::duration after);

    Transport *m_transport;
    const KeyCodec m_codec;
    mutable std::mutex m_mutex;
    std::condition_variable m_quiet;
    std::unordered_map<quint64, Registration> m_registrations;
    std::unordered_map<qint64, quint64> m_byWatchId;
    std::deque<quint64> m_wanted;    // subscribe() order
    std::deque<quint64> m_creating;  // creates on the current stream awaiting their answer
    quint64 m_nextHandle = 1;
    Stream *m_stream = nullptr;
    bool m_streamClosing = false;  // we closed it; take no new creates until it is gone
    bool m_closing = false;
    grpc::Alarm m_idleCheck;
    bool m_idleCheckArmed = false;
    std::chrono::steady_clock::time_point m_idleSince;  // when the last registration went
};

} // namespace QEtcd::Internal
