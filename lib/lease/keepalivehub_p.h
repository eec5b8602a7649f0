#pragma once

// Every lease of a Client renews over one LeaseKeepAlive stream. The hub runs on the
// completion-queue thread, driven by a 50 ms tick, so no listener and no slow receiver can
// delay a renewal. It also keeps each lease's loss deadline by the boot clock (LeaseClock,
// which counts a system suspend as etcd does):
//
//     send time of the last renewal etcd acknowledged + granted TTL − safety margin
//
// etcd cannot expire the lease before that instant, so a holder told at the deadline hears of
// the loss before anyone else can be granted what it held, partitioned or not.

#include "bidistream_p.h"
#include "leaseclock_p.h"
#include "transport_p.h"

#include <grpcpp/alarm.h>

#include <chrono>
#include <unordered_map>

namespace QEtcd::Internal {

using Clock = LeaseClock;

enum class LeaseKind {
    Presence,     // heals; the deadline is the plain TTL
    Exclusivity,  // never heals; the deadline keeps a safety margin
};

// Called on the completion-queue thread with the hub's lock held: post, never block, never
// call back into the hub.
class LeaseSink
{
public:
    virtual ~LeaseSink() = default;
    virtual void leaseRenewed(qint64 leaseId, Clock::time_point lossDeadline) = 0;
    // The lease is gone (etcd said so, or its deadline passed); it was unregistered.
    virtual void leaseGone(qint64 leaseId, const Status &cause) = 0;
    // The stream failed; renewals resume when it is back, and leaseRenewed follows.
    virtual void keepAliveSuspended(qint64 leaseId, const Status &cause) = 0;
};

class KeepAliveHub final : public CqTag
{
public:
    explicit KeepAliveHub(Transport *transport);
    ~KeepAliveHub() override;
    Q_DISABLE_COPY_MOVE(KeepAliveHub)

    static std::chrono::milliseconds safetyMargin(qint64 ttlSeconds);
    // How long a renewal may go unanswered before the lease counts as suspended.
    static std::chrono::milliseconds stallThreshold(qint64 ttlSeconds);

    // grantSentAt: taken just before the grant request left, so the deadline errs early.
    void add(qint64 leaseId, qint64 ttlSeconds, Clock::time_point grantSentAt, LeaseKind kind, LeaseSink *sink);
    // After this returns the sink is never called again for this lease.
    void remove(qint64 leaseId);

    int size() const;
    quint64 renewalsSent() const { return m_renewalsSent.load(); }

    void onEvent(bool ok) override;  // the tick

private:
    struct Registration
    {
        qint64 ttlSeconds = 0;
        LeaseKind kind = LeaseKind::Presence;
        LeaseSink *sink = nullptr;
        Clock::time_point nextRenewal;
        Clock::time_point lossDeadline;
        std::deque<Clock::time_point> unacknowledged;  // send times, oldest first
        bool suspended = false;
    };

    using Stream = BidiStream<etcdserverpb::LeaseKeepAliveRequest, etcdserverpb::LeaseKeepAliveResponse>;

    Clock::time_point deadlineAfter(const Registration &registration, Clock::time_point sentAt) const;
    void armTickLocked();
    void openStreamLocked();
    void onResponse(const etcdserverpb::LeaseKeepAliveResponse &response);
    void onStreamClosed(const Status &status);

    Transport *m_transport;
    mutable std::mutex m_mutex;
    std::condition_variable m_quiet;
    std::unordered_map<qint64, Registration> m_leases;
    grpc::Alarm m_tick;
    bool m_tickArmed = false;
    Stream *m_stream = nullptr;
    bool m_streamReady = false;
    Clock::time_point m_reopenAt;
    std::chrono::milliseconds m_reopenBackoff{0};
    bool m_closing = false;
    std::atomic<quint64> m_renewalsSent{0};
};

} // namespace QEtcd::Internal
