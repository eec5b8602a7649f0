// SPDX-License-Identifier: Apache-2.0
// CoordinationMetrics following a real etcd member while qetcd CLI processes lock, campaign and
// queue: the numbers an operator's alerts read, as render() writes them.
#include "../common/awaitfuture.h"
#include "../common/qetcdprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationmetrics.h>
#include <QEtcd/coordinationmonitor.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/testtimeouts.h>

#include <QtTest/QtTest>

#include <memory>

using namespace QEtcd;
using namespace QEtcd::Testing;

class tst_CoordinationMetricsLive : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster;
    std::unique_ptr<Client> m_client;

    std::unique_ptr<Qetcd> qetcd(const QStringList &arguments)
    {
        return std::make_unique<Qetcd>(m_cluster.clientUrl(0), arguments);
    }

    // The value of one series in a rendering, or an empty string when it is not there.
    static QString sample(const QByteArray &rendered, const QString &series)
    {
        for (const QByteArray &line : rendered.split('\n')) {
            const QString text = QString::fromUtf8(line);
            if (text.startsWith(series + QLatin1Char(' ')))
                return text.mid(series.size() + 1);
        }
        return {};
    }

    // The holder label of the lock's qetcd_lock_held_seconds, and its value; empty when none.
    static std::pair<QString, QString> held(const QByteArray &rendered, const QString &lock)
    {
        const QString start = QStringLiteral("qetcd_lock_held_seconds{name=\"%1\",holder=\"").arg(lock);
        for (const QByteArray &line : rendered.split('\n')) {
            const QString text = QString::fromUtf8(line);
            if (text.startsWith(start)) {
                const qsizetype end = text.indexOf(QLatin1String("\"} "), start.size());
                return {text.mid(start.size(), end - start.size()), text.mid(end + 3)};
            }
        }
        return {};
    }
    // qetcd's identity names a holder "host:pid:token".
    static bool isProcess(const QString &holder, const ToolProcess &process)
    {
        return holder.section(QLatin1Char(':'), 1, 1) == QString::number(process.pid());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
    }

    void cleanupTestCase() { m_client.reset(); }

    void participantsShowInTheMetrics()
    {
        // Already there when the metrics start: no hand-off, no leader change for it.
        auto first = qetcd({"lock", "/mx/lock", "--hold", "120s"});
        QTRY_VERIFY2_WITH_TIMEOUT(first->has("acquired"), first->transcript().constData(), scaledMs(15000));

        CoordinationMonitor monitor(m_client.get(), "/mx/");
        CoordinationMetrics metrics;
        metrics.follow(&monitor);
        const QFuture<Status> started = monitor.start();
        QVERIFY(awaitFuture(started));
        QVERIFY2(started.result(), qPrintable(started.result().message()));
        const auto render = [&] { return metrics.render(QDateTime::currentMSecsSinceEpoch()); };
        QCOMPARE(sample(render(), R"(qetcd_lock_waiters{name="/mx/lock"})"), QStringLiteral("0"));
        QCOMPARE(sample(render(), R"(qetcd_lock_handoffs_total{name="/mx/lock"})"), QStringLiteral("0"));
        QVERIFY2(isProcess(held(render(), "/mx/lock").first, *first), render().constData());

        auto second = qetcd({"lock", "/mx/lock", "--hold", "120s"});
        // Queued in this order: the second is next.
        QTRY_COMPARE_WITH_TIMEOUT(keysUnder(m_client.get(), "/mx/lock/"), 2, scaledMs(15000));
        auto third = qetcd({"lock", "/mx/lock", "--hold", "120s"});
        auto leader = qetcd({"elect", "/mx/election", "one", "--hold", "120s"});
        QTRY_VERIFY2_WITH_TIMEOUT(leader->has("elected"), leader->transcript().constData(), scaledMs(15000));
        auto follower = qetcd({"elect", "/mx/election", "two", "--hold", "120s"});
        for (const char *item : {"a", "b", "c"}) {
            auto put = qetcd({"queue", "put", "/mx/queue", item});
            QCOMPARE(put->waitForExit(), 0);
        }
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), R"(qetcd_lock_waiters{name="/mx/lock"})"), QStringLiteral("2"),
                                  scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), R"(qetcd_election_candidates{name="/mx/election"})"),
                                  QStringLiteral("1"), scaledMs(15000));
        QCOMPARE(sample(render(), R"(qetcd_election_has_leader{name="/mx/election"})"), QStringLiteral("1"));
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), R"(qetcd_queue_depth{name="/mx/queue"})"), QStringLiteral("3"),
                                  scaledMs(15000));
        // qetcd's queue writes when each item was put.
        const double age = sample(render(), R"(qetcd_queue_oldest_item_age_seconds{name="/mx/queue"})").toDouble();
        QVERIFY2(age >= 0 && age < 60, render().constData());

        // The holder lets go: the first waiter takes it, one hand-off.
        first->terminate();
        QCOMPARE(first->waitForExit(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), R"(qetcd_lock_handoffs_total{name="/mx/lock"})"),
                                  QStringLiteral("1"), scaledMs(15000));
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), R"(qetcd_lock_waiters{name="/mx/lock"})"), QStringLiteral("1"),
                                  scaledMs(15000));
        QTRY_VERIFY2_WITH_TIMEOUT(second->has("acquired"), second->transcript().constData(), scaledMs(15000));
        const auto [holder, seconds] = held(render(), "/mx/lock");
        QVERIFY2(isProcess(holder, *second), render().constData());
        QVERIFY2(seconds.toDouble() >= 0 && seconds.toDouble() < 30, render().constData());
        // Its lease revoked as it left: its one key went with it.
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), "qetcd_lease_expirations_total"), QStringLiteral("1"), scaledMs(15000));

        // The leader resigns: the candidate behind it leads, one leader change.
        leader->terminate();
        QCOMPARE(leader->waitForExit(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), R"(qetcd_election_leader_changes_total{name="/mx/election"})"),
                                  QStringLiteral("1"), scaledMs(15000));
        QCOMPARE(sample(render(), R"(qetcd_election_has_leader{name="/mx/election"})"), QStringLiteral("1"));
        QCOMPARE(metrics.droppedSeries(), 0);
    }

    // Two hand-offs inside one burst the monitor folds into one objectsChanged(): each counted
    // once, from the monitor's events, not once for the holder seen to change.
    void handoffsInOneBurstCountEach()
    {
        CoordinationMonitor monitor(m_client.get(), "/mx/burst/");
        monitor.setInterval(std::chrono::milliseconds(scaledMs(3000)));
        CoordinationMetrics metrics;
        metrics.follow(&monitor);
        QSignalSpy changed(&monitor, &CoordinationMonitor::objectsChanged);
        const QFuture<Status> started = monitor.start();
        QVERIFY(awaitFuture(started));
        QVERIFY2(started.result(), qPrintable(started.result().message()));
        const auto render = [&] { return metrics.render(QDateTime::currentMSecsSinceEpoch()); };

        // Three clients queued on a lock in etcd's layout (a key per lease, the oldest holds).
        QList<qint64> leases;
        for (int i = 0; i < 3; ++i) {
            const QFuture<LeaseGrantResult> granted = m_client->leaseGrant(60);
            QVERIFY(awaitFuture(granted));
            QVERIFY(granted.result().status);
            leases.append(granted.result().id);
            PutOptions onLease;
            onLease.lease = leases.last();
            const QFuture<PutResult> put =
                m_client->put("/mx/burst/locks/l/" + QByteArray::number(leases.last(), 16), {}, onLease);
            QVERIFY(awaitFuture(put));
            QVERIFY(put.result().status);
        }
        QTRY_COMPARE_WITH_TIMEOUT(sample(render(), R"(qetcd_lock_waiters{name="/mx/burst/locks/l"})"),
                                  QStringLiteral("2"), scaledMs(15000));
        QCOMPARE(sample(render(), R"(qetcd_lock_handoffs_total{name="/mx/burst/locks/l"})"), QStringLiteral("0"));

        changed.clear();
        for (const qint64 lease : {leases[0], leases[1]}) {
            const QFuture<Result> revoked = m_client->leaseRevoke(lease);
            QVERIFY(awaitFuture(revoked));
            QVERIFY(revoked.result().status);
        }
        QVERIFY(changed.wait(scaledMs(15000)));
        QCOMPARE(changed.size(), 1);  // one burst: the holder went from the first to the third
        const QByteArray rendered = render();
        QCOMPARE(sample(rendered, R"(qetcd_lock_handoffs_total{name="/mx/burst/locks/l"})"), QStringLiteral("2"));
        QCOMPARE(sample(rendered, R"(qetcd_lock_waiters{name="/mx/burst/locks/l"})"), QStringLiteral("0"));
        QCOMPARE(sample(rendered, "qetcd_lease_expirations_total"), QStringLiteral("2"));
    }
};

QTEST_GUILESS_MAIN(tst_CoordinationMetricsLive)
#include "tst_coordinationmetricslive.moc"
