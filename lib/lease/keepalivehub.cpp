// SPDX-License-Identifier: Apache-2.0
#include "keepalivehub_p.h"

#include "logging_p.h"

#include <algorithm>

namespace QEtcd::Internal {

using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
constexpr milliseconds shortestRenewalStep = 50ms;
constexpr milliseconds longestRenewalStep = 250ms;
constexpr milliseconds firstReopenDelay = 250ms;
constexpr milliseconds maxReopenDelay = 2000ms;
} // namespace

KeepAliveHub::KeepAliveHub(Transport *transport) : m_transport(transport) {}

KeepAliveHub::~KeepAliveHub()
{
    std::unique_ptr<LeaseTicker> ticker;
    {
        std::unique_lock lock(m_mutex);
        m_closing = true;
        m_leases.clear();
        if (m_stream)
            m_stream->close();
        // The stream comes back once more through the queue.
        m_quiet.wait(lock, [this] { return !m_stream; });
        ticker = std::move(m_ticker);
    }
    ticker.reset();  // joins its thread, whose tick takes the lock
}

milliseconds KeepAliveHub::stallThreshold(qint64 ttlSeconds)
{
    return std::max<milliseconds>(500ms, milliseconds(ttlSeconds * 1000 / 6));
}

milliseconds KeepAliveHub::safetyMargin(qint64 ttlSeconds)
{
    return std::max<milliseconds>(250ms, milliseconds(ttlSeconds * 1000 / 10));
}

Clock::time_point KeepAliveHub::deadlineAfter(const Registration &registration, Clock::time_point sentAt) const
{
    const milliseconds margin = registration.kind == LeaseKind::Exclusivity ? safetyMargin(registration.ttlSeconds)
                                                                            : 0ms;
    return sentAt + seconds(registration.ttlSeconds) - margin;
}

milliseconds KeepAliveHub::renewalInterval(qint64 ttlSeconds)
{
    return milliseconds(ttlSeconds * 1000 / 3);
}

// The renewal interval after the send, but brought forward to the last point of a grid a few
// ticks wide: every lease due within one step renews in the same batch. Early, never late, and
// the deadline counts from the send, so no lease is held any less safely.
Clock::time_point KeepAliveHub::renewalAfter(Clock::time_point sentAt, qint64 ttlSeconds)
{
    const milliseconds interval = renewalInterval(ttlSeconds);
    const Clock::duration step = std::clamp<milliseconds>(interval / 8, shortestRenewalStep, longestRenewalStep);
    const Clock::duration due = (sentAt + interval).time_since_epoch();
    return Clock::time_point(due - due % step);
}

Clock::time_point KeepAliveHub::nextDue(const Registration &registration) const
{
    Clock::time_point due = registration.lossDeadline;
    if (!registration.suspended && !registration.unacknowledged.empty())
        due = std::min(due, registration.unacknowledged.oldest() + stallThreshold(registration.ttlSeconds));
    if (m_streamReady && !registration.unacknowledged.full())
        due = std::min(due, registration.nextRenewal);
    return due;
}

void KeepAliveHub::scheduleLocked(qint64 leaseId, Registration &registration)
{
    const Clock::time_point due = nextDue(registration);
    if (due >= registration.dueAt)
        return;  // the live entry comes first and finds the lease due later; it queues it then
    registration.dueAt = due;
    m_due.push_back({due, leaseId});
    std::push_heap(m_due.begin(), m_due.end(), std::greater<>());
    if (due < m_tickAt && m_ticker) {
        m_tickAt = due;
        m_ticker->wakeAt(due);
    }
}

void KeepAliveHub::add(qint64 leaseId, qint64 ttlSeconds, Clock::time_point grantSentAt, LeaseKind kind,
                       LeaseSink *sink)
{
    std::lock_guard lock(m_mutex);
    if (m_closing)
        return;
    Registration registration;
    registration.ttlSeconds = ttlSeconds;
    registration.kind = kind;
    registration.sink = sink;
    registration.nextRenewal = renewalAfter(grantSentAt, ttlSeconds);
    registration.lossDeadline = deadlineAfter(registration, grantSentAt);
    registration.dueAt = Clock::time_point::max();
    if (!m_ticker)
        m_ticker = std::make_unique<LeaseTicker>([this] { tick(); });
    Registration &added = m_leases[leaseId] = registration;
    scheduleLocked(leaseId, added);
    if (!m_stream)
        openStreamLocked();
    armTickLocked();
}

void KeepAliveHub::remove(qint64 leaseId)
{
    std::lock_guard lock(m_mutex);
    m_leases.erase(leaseId);
}

int KeepAliveHub::size() const
{
    std::lock_guard lock(m_mutex);
    return int(m_leases.size());
}

void KeepAliveHub::armTickLocked()
{
    if (m_closing || m_leases.empty() || !m_ticker)
        return;
    Clock::time_point next = Clock::time_point::max();
    if (!m_due.empty())
        next = m_due.front().at;
    if (!m_stream)
        next = std::min(next, m_reopenAt);
    if (next >= m_tickAt)
        return;
    m_tickAt = next;
    m_ticker->wakeAt(next);
}

void KeepAliveHub::tick()
{
    std::lock_guard lock(m_mutex);
    if (m_closing)
        return;
    // While this tick runs, what it schedules waits for the one arming below.
    m_tickAt = Clock::time_point::min();
    const Clock::time_point now = Clock::now();
    std::vector<etcdserverpb::LeaseKeepAliveRequest> renewals;
    while (!m_due.empty() && m_due.front().at <= now) {
        std::pop_heap(m_due.begin(), m_due.end(), std::greater<>());
        const Due due = m_due.back();
        m_due.pop_back();
        const auto it = m_leases.find(due.leaseId);
        if (it == m_leases.end() || it->second.dueAt != due.at)
            continue;  // removed, or queued again for an earlier time
        if (visitLocked(it->first, it->second, now, renewals)) {
            it->second.dueAt = Clock::time_point::max();
            scheduleLocked(it->first, it->second);  // later than now: the loop ends
        } else {
            m_leases.erase(it);
        }
    }
    if (!renewals.empty())
        m_stream->write(std::move(renewals));
    // Entries of leases long gone would otherwise wait out their time.
    if (m_due.size() > 4 * m_leases.size() + 64) {
        m_due.clear();
        for (auto &[id, lease] : m_leases) {
            lease.dueAt = Clock::time_point::max();
            scheduleLocked(id, lease);
        }
    }
    if (!m_stream && !m_leases.empty() && now >= m_reopenAt)
        openStreamLocked();
    m_tickAt = Clock::time_point::max();
    armTickLocked();
}

bool KeepAliveHub::visitLocked(qint64 leaseId, Registration &lease, Clock::time_point now,
                               std::vector<etcdserverpb::LeaseKeepAliveRequest> &renewals)
{
    if (now >= lease.lossDeadline) {
        const qint64 overdueMs = duration_cast<milliseconds>(now - lease.lossDeadline).count();
        lease.sink->leaseGone(leaseId,
                              Status(lease.kind == LeaseKind::Exclusivity ? StatusCode::LeaseLost
                                                                          : StatusCode::DeadlineExceeded,
                                     QStringLiteral("no renewal of lease %1 was acknowledged in time; its deadline "
                                                    "passed %2 ms ago")
                                         .arg(leaseId, 0, 16)
                                         .arg(overdueMs)));
        return false;
    }
    if (!lease.suspended && !lease.unacknowledged.empty()
        && now - lease.unacknowledged.oldest() >= stallThreshold(lease.ttlSeconds)) {
        // Renewals go out but nothing comes back: a partition, or a paused server.
        lease.suspended = true;
        lease.sink->keepAliveSuspended(
            leaseId, Status(StatusCode::DeadlineExceeded,
                            QStringLiteral("renewal of lease %1 unanswered for %2 ms")
                                .arg(leaseId, 0, 16)
                                .arg(duration_cast<milliseconds>(now - lease.unacknowledged.oldest()).count())));
    }
    if (m_streamReady && now >= lease.nextRenewal && !lease.unacknowledged.full()) {
        renewals.emplace_back().set_id(leaseId);
        lease.unacknowledged.push(now);
        lease.nextRenewal = renewalAfter(now, lease.ttlSeconds);
    }
    return true;
}

void KeepAliveHub::openStreamLocked()
{
    m_streamReady = false;
    m_stream = Stream::open(
        m_transport,
        [](EndpointChannel &c, grpc::ClientContext *ctx, grpc::CompletionQueue *q) {
            return c.lease->PrepareAsyncLeaseKeepAlive(ctx, q);
        },
        Stream::Handlers{
            [this] {
                std::lock_guard lock(m_mutex);
                m_streamReady = true;
                // Whatever waited during the outage renews at the next tick.
                const Clock::time_point now = Clock::now();
                for (auto &[id, lease] : m_leases) {
                    lease.nextRenewal = now;
                    scheduleLocked(id, lease);
                }
            },
            [this](etcdserverpb::LeaseKeepAliveResponse &response) { onResponse(response); },
            [this](const Status &status) { onStreamClosed(status); }});
}

void KeepAliveHub::onResponse(const etcdserverpb::LeaseKeepAliveResponse &response)
{
    std::lock_guard lock(m_mutex);
    m_reopenBackoff = 0ms;
    const auto it = m_leases.find(response.id());
    if (it == m_leases.end())
        return;
    Registration &lease = it->second;
    if (response.ttl() <= 0) {
        LeaseSink *sink = lease.sink;
        m_leases.erase(it);
        sink->leaseGone(response.id(), Status(StatusCode::NotFound, QStringLiteral("etcdserver: requested lease not found")));
        return;
    }
    if (lease.unacknowledged.empty())
        return;  // an answer to a request sent on an earlier stream
    // An exclusivity lease whose deadline has passed may already count as lost to its holder
    // (isValid() reads the deadline): a late answer must not bring it back. The tick reports it.
    if (lease.kind == LeaseKind::Exclusivity && Clock::now() >= lease.lossDeadline)
        return;
    const Clock::time_point sentAt = lease.unacknowledged.pop();
    lease.ttlSeconds = response.ttl();
    lease.lossDeadline = std::max(lease.lossDeadline, deadlineAfter(lease, sentAt));
    lease.suspended = false;
    // Everything due moved later, except a renewal held back while the answers were overdue.
    scheduleLocked(it->first, lease);
    lease.sink->leaseRenewed(response.id(), lease.lossDeadline);
}

void KeepAliveHub::onStreamClosed(const Status &status)
{
    std::lock_guard lock(m_mutex);
    m_stream = nullptr;
    m_streamReady = false;
    if (m_closing) {
        m_quiet.notify_all();
        return;
    }
    qCInfo(lcLease).noquote() << "keep-alive stream closed:" << status.toString();
    if (status.code() == StatusCode::Unauthenticated) {
        // The simple token expired; fetch a new one so the reopened stream carries it.
        m_transport->invalidateToken(m_transport->token());
        m_transport->withToken([](const Status &) {});
    }
    const Status cause = status.isOk() ? Status(StatusCode::Unavailable, QStringLiteral("keep-alive stream ended"))
                                       : status.withContext(QStringLiteral("keep-alive stream"));
    for (auto &[id, lease] : m_leases) {
        lease.unacknowledged.clear();
        if (!lease.suspended) {
            lease.suspended = true;
            lease.sink->keepAliveSuspended(id, cause);
        }
    }
    m_reopenBackoff = m_reopenBackoff == 0ms ? firstReopenDelay : std::min(maxReopenDelay, m_reopenBackoff * 2);
    m_reopenAt = Clock::now() + m_reopenBackoff;
    armTickLocked();
}

} // namespace QEtcd::Internal
