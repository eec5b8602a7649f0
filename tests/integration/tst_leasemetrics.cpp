// SPDX-License-Identifier: Apache-2.0
// LeaseMetrics counting what really happens to a process's leases: a client cut off behind a
// FaultProxy for longer than its TTLs loses a mutex's hold (an exclusivity lease) and has a
// transient key's presence lease expire and heal once the link is back. The counts, by the
// recipe that owns each lease, say exactly that.
#include "../common/awaitfuture.h"
#include "../common/recipefixture.h"

#include <QEtcd/coordinationmetrics.h>
#include <QEtcd/distributedmutex.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/leasemetrics.h>
#include <QEtcd/transientkeyvalue.h>

#include <QtTest/QtTest>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
LeaseKindMetrics countsOf(const QString &kind)
{
    for (const LeaseKindMetrics &each : LeaseMetrics::instance()->snapshot()) {
        if (each.kind == kind)
            return each;
    }
    LeaseKindMetrics none;
    none.kind = kind;
    none.healBuckets.fill(0, LeaseMetrics::healBucketBounds().size());
    return none;
}

// What happened between two snapshots of one kind.
LeaseKindMetrics since(const LeaseKindMetrics &before, const LeaseKindMetrics &after)
{
    LeaseKindMetrics delta = after;
    delta.suspensions -= before.suspensions;
    delta.losses -= before.losses;
    delta.heals -= before.heals;
    delta.healAttemptsFailed -= before.healAttemptsFailed;
    delta.healSecondsSum -= before.healSecondsSum;
    for (qsizetype bound = 0; bound < delta.healBuckets.size(); ++bound)
        delta.healBuckets[bound] -= before.healBuckets.value(bound);
    return delta;
}
} // namespace

class tst_LeaseMetrics : public QObject, protected RecipeFixture
{
    Q_OBJECT

    template <class Options = RecipeOptions>
    static Options quickOptions(qint64 ttl)
    {
        Options options = withTtl<Options>(ttl);
        RetryPolicy::ExponentialBackoff backoff;
        backoff.maxDelay = 2s;
        options.resilience.lease = LeaseResilience{RetryPolicy::exponentialBackoff(backoff), 1s};
        return options;
    }

    KeyValue read(const QByteArray &key)
    {
        const auto future = m_client->get(key);
        return awaitFuture(future) ? future.result().kvs.value(0) : KeyValue();
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(startEtcd(), qPrintable(m_cluster.errorString())); }

    void partitionCountsAHealAndALoss()
    {
        FaultProxy proxy(QStringLiteral("127.0.0.1"), m_cluster.clientPort(0));
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        Client cutOff(ClientOptions::fromEndpoints({proxy.url()}));
        TransientKeyValue presence(&cutOff, "/lm/presence", "here", quickOptions(2));
        DistributedMutex mutex(&cutOff, "/lm/mutex", quickOptions<LockOptions>(2));
        QSignalSpy presenceEvents(&presence, &TransientKeyValue::leaseEvent);
        QSignalSpy holdLost(&mutex, &DistributedMutex::lockLost);
        Status started;
        QETCD_AWAIT(presence.start(), started);
        QVERIFY2(started.isOk(), qPrintable(started.toString()));
        QCOMPARE(mutex.lock(), Status());

        const LeaseKindMetrics presenceBefore = countsOf(QStringLiteral("TransientKeyValue"));
        const LeaseKindMetrics mutexBefore = countsOf(QStringLiteral("DistributedMutex"));
        // changed() comes from whichever thread counted, at times from two at once; a QSignalSpy
        // appended to from two threads corrupts its list, so the count is taken on this thread.
        QObject onThisThread;
        int changes = 0;
        connect(LeaseMetrics::instance(), &LeaseMetrics::changed, &onThisThread, [&changes] { ++changes; });

        proxy.setMode(FaultProxy::Mode::Blackhole);
        QTRY_COMPARE_WITH_TIMEOUT(holdLost.size(), 1, scaledMs(10000));
        QTRY_COMPARE_WITH_TIMEOUT(leaseEventKinds(presenceEvents),
                                  (QList{LeaseEventKind::Suspended, LeaseEventKind::Expired}), scaledMs(10000));
        QTRY_VERIFY_WITH_TIMEOUT(read("/lm/presence").key.isEmpty(), scaledMs(10000));  // etcd expired it
        proxy.setMode(FaultProxy::Mode::Pass);
        QTRY_COMPARE_WITH_TIMEOUT(presenceEvents.size(), 3, scaledMs(15000));
        QCOMPARE(leaseEventKinds(presenceEvents).last(), LeaseEventKind::Restored);
        QTRY_COMPARE_WITH_TIMEOUT(read("/lm/presence").lease, presence.currentLeaseId(), scaledMs(10000));
        QTRY_VERIFY_WITH_TIMEOUT(changes > 0, scaledMs(5000));

        const LeaseKindMetrics healed = since(presenceBefore, countsOf(QStringLiteral("TransientKeyValue")));
        QCOMPARE(healed.suspensions, 1u);
        QCOMPARE(healed.losses, 1u);
        QCOMPARE(healed.heals, 1u);
        QCOMPARE(healed.healBuckets.last(), 1u);  // the last bound is minutes
        // From the expiry to the key back, as the lease's own events tell it.
        const qint64 expiredMs = presenceEvents.at(1).at(0).value<LeaseEvent>().monotonicMs;
        const qint64 restoredMs = presenceEvents.at(2).at(0).value<LeaseEvent>().monotonicMs;
        const double toldSeconds = double(restoredMs - expiredMs) / 1000.0;
        QVERIFY2(qAbs(healed.healSecondsSum - toldSeconds) < 0.5,
                 qPrintable(QStringLiteral("%1 s counted, %2 s told").arg(healed.healSecondsSum).arg(toldSeconds)));

        const LeaseKindMetrics lost = since(mutexBefore, countsOf(QStringLiteral("DistributedMutex")));
        QCOMPARE(lost.suspensions, 1u);
        QCOMPARE(lost.losses, 1u);
        QCOMPARE(lost.heals, 0u);
        QCOMPARE(lost.healAttemptsFailed, 0u);

        // The exporter's rendering of this process says the same.
        const QByteArray rendered = CoordinationMetrics().render(0);
        QVERIFY2(rendered.contains("qetcd_lease_heals_total{kind=\"TransientKeyValue\"} "
                                   + QByteArray::number(presenceBefore.heals + 1) + '\n'),
                 rendered.constData());
        QVERIFY2(rendered.contains("qetcd_lease_losses_total{kind=\"DistributedMutex\"} "
                                   + QByteArray::number(mutexBefore.losses + 1) + '\n'),
                 rendered.constData());
        QVERIFY(!mutex.unlock());
    }
};

QTEST_GUILESS_MAIN(tst_LeaseMetrics)
#include "tst_leasemetrics.moc"
