// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every lease of a Client renews over one LeaseKeepAlive stream. The hub runs on the
// completion-queue thread (answers) and a thread of its own (LeaseTicker: a tick when the
// earliest lease is due, and only then), so no listener and no slow receiver can delay a
// renewal. It keeps each lease's loss deadline by the boot clock (LeaseClock, which counts a
// system suspend as etcd does, and so does the tick's timer):
//
//     send time of the last renewal etcd acknowledged + granted TTL − safety margin
//
// etcd cannot expire the lease before that instant, so a holder told at the deadline hears of
// the loss before anyone else can be granted what it held, partitioned or not.
//
// A tick visits only the leases with something due (a renewal, a stall check, a deadline), found
// in a queue ordered by time: a client may hold tens of thousands of leases, each due every few
// seconds at most. Renewals fall on a grid (renewalAfter), so that the leases of a client renew
// in a few large batches, each one write and one burst of answers, rather than a few at every
// tick.

#include "bidistream_p.h"
#include "leaseclock_p.h"
#include "leaseticker_p.h"
#include "transport_p.h"

#include <array>
#include <chrono>
#include <memory>
#include <unordered_map>
#include <vector>

namespace QEtcd::Internal {

using Clock = LeaseClock;

enum class LeaseKind : quint8 {
    Presence,     // heals; the deadline is the plain TTL
    Exclusivity,  // never heals; the deadline keeps a safety margin
};

// Called on the completion-queue thread or the hub's ticker thread, with the hub's lock held:
// post, never block, never call back into the hub.
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

class KeepAliveHub final
{
public:
    explicit KeepAliveHub(Transport *transport);
    ~KeepAliveHub();
    Q_DISABLE_COPY_MOVE(KeepAliveHub)

    static std::chrono::milliseconds safetyMargin(qint64 ttlSeconds);
    // How long a renewal may go unanswered before the lease counts as suspended.
    static std::chrono::milliseconds stallThreshold(qint64 ttlSeconds);
    // How long after a renewal is sent the next is due: a third of the TTL, as etcd's own
    // client renews (renewals are then brought forward to a shared grid).
    static std::chrono::milliseconds renewalInterval(qint64 ttlSeconds);

    // grantSentAt: taken just before the grant request left, so the deadline errs early.
    void add(qint64 leaseId, qint64 ttlSeconds, Clock::time_point grantSentAt, LeaseKind kind, LeaseSink *sink);
    // After this returns the sink is never called again for this lease.
    void remove(qint64 leaseId);

    int size() const;

private:
    // Send times of renewals not answered yet, oldest first. etcd answers a stream's renewals
    // in order, and a lease whose renewals go unanswered is lost within its TTL, by which time
    // it has sent three; a lease with this many outstanding sends no more until one is answered.
    class Unacknowledged
    {
    public:
        bool empty() const { return m_count == 0; }
        bool full() const { return m_count == m_sent.size(); }
        Clock::time_point oldest() const { return m_sent[m_first]; }
        void push(Clock::time_point sent) { m_sent[(m_first + m_count++) % m_sent.size()] = sent; }
        Clock::time_point pop()
        {
            const Clock::time_point sent = m_sent[m_first];
            m_first = quint8((m_first + 1) % m_sent.size());
            --m_count;
            return sent;
        }
        void clear() { m_count = 0; }

    private:
        std::array<Clock::time_point, 4> m_sent;
        quint8 m_first = 0;
        quint8 m_count = 0;
    };

    struct Registration
    {
        LeaseSink *sink = nullptr;
        Clock::time_point nextRenewal;
        Clock::time_point lossDeadline;
        Clock::time_point dueAt;  // of its live entry in m_due
        Unacknowledged unacknowledged;
        qint64 ttlSeconds = 0;
        LeaseKind kind = LeaseKind::Presence;
        bool suspended = false;
    };

    // An entry is live while its lease is registered and due at the same time; the others are
    // dropped when they come up. Ordered earliest first.
    struct Due
    {
        Clock::time_point at;
        qint64 leaseId;
        bool operator>(const Due &other) const { return at > other.at; }
    };

    using Stream = BidiStream<etcdserverpb::LeaseKeepAliveRequest, etcdserverpb::LeaseKeepAliveResponse>;

    Clock::time_point deadlineAfter(const Registration &registration, Clock::time_point sentAt) const;
    static Clock::time_point renewalAfter(Clock::time_point sentAt, qint64 ttlSeconds);
    // When the lease next needs the tick: whichever of its deadline, its stall check and its
    // renewal (while the stream can carry one) comes first.
    Clock::time_point nextDue(const Registration &registration) const;
    // Queues the lease again if it is due before its live entry.
    void scheduleLocked(qint64 leaseId, Registration &registration);
    // Checks one due lease, adding its renewal, if one is due, to renewals; false when it is gone.
    bool visitLocked(qint64 leaseId, Registration &registration, Clock::time_point now,
                     std::vector<etcdserverpb::LeaseKeepAliveRequest> &renewals);
    void armTickLocked();
    void tick();
    void openStreamLocked();
    void onResponse(const etcdserverpb::LeaseKeepAliveResponse &response);
    void onStreamClosed(const Status &status);

    Transport *m_transport;
    mutable std::mutex m_mutex;
    std::condition_variable m_quiet;
    std::unordered_map<qint64, Registration> m_leases;
    std::vector<Due> m_due;  // a heap
    std::unique_ptr<LeaseTicker> m_ticker;  // from the first lease on
    Clock::time_point m_tickAt = Clock::time_point::max();  // when the armed tick comes
    Stream *m_stream = nullptr;
    bool m_streamReady = false;
    Clock::time_point m_reopenAt;
    std::chrono::milliseconds m_reopenBackoff{0};
    bool m_closing = false;
};

} // namespace QEtcd::Internal
