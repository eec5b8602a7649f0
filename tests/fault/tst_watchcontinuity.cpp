// SPDX-License-Identifier: Apache-2.0
#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/watcher.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QMutex>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtCore/QUrl>
#include <QtTest/QtTest>

#include <atomic>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
constexpr int valueCount = 300;
const QByteArray watchedKey = QByteArrayLiteral("/continuity/counter");

// Puts 1..valueCount on its own thread, each after the previous one was acknowledged, so the
// test's thread can block in killMember()/restartMember() while writes go on. A put that fails
// for good is sent again; if a failed attempt was applied after all, etcd's history holds one
// more revision than the writer heard of, which the final comparison allows for.
class Writer : public QObject
{
public:
    explicit Writer(Client *client) : m_client(client) {}

    void begin() { QMetaObject::invokeMethod(this, [this] { next(); }); }

    int written() const { return m_written.load(); }
    bool done() const { return m_written.load() == valueCount; }
    int failures() const { return m_failures.load(); }
    QList<qint64> revisions() const
    {
        QMutexLocker lock(&m_mutex);
        return m_revisions;
    }

private:
    void next()
    {
        const int value = m_written.load() + 1;
        // Short attempts, many of them: a put parked on a member that lost its leader should
        // move on rather than wait out etcd's own request timeout.
        const RpcResilience rpc{RetryPolicy::bounded(50, 100ms), 2000ms};
        whenFinishedOn(m_client->put(watchedKey, QByteArray::number(value), {}, rpc), this, [this](const PutResult &put) {
            if (!put.status) {
                ++m_failures;
                QTimer::singleShot(50, this, [this] { next(); });
                return;
            }
            {
                QMutexLocker lock(&m_mutex);
                m_revisions.append(put.header.revision);
            }
            if (++m_written < valueCount)
                QTimer::singleShot(15, this, [this] { next(); });  // spread the writes over the faults
        });
    }

    Client *m_client;
    std::atomic<int> m_written{0};
    std::atomic<int> m_failures{0};
    mutable QMutex m_mutex;
    QList<qint64> m_revisions;
};

// What a watcher delivered. Sabotaged (the self-check only), it drops the first event delivered
// after the watch resumed, as a watcher that resubscribed one revision too late would.
class EventLog : public QObject
{
public:
    enum class Sabotage { None, DropOneAfterResume };

    explicit EventLog(Watcher *watcher, Sabotage sabotage = Sabotage::None)
    {
        // Direct: recorded on the dispatcher thread in emission order, read under the mutex.
        connect(
            watcher, &Watcher::eventsReceived, this,
            [this](const QList<WatchEvent> &events, qint64) {
                QMutexLocker lock(&m_mutex);
                for (const WatchEvent &event : events) {
                    if (std::exchange(m_dropNext, false)) {
                        m_dropped = event.kv.modRevision;
                        continue;
                    }
                    m_revisions.append(event.kv.modRevision);
                    m_values.append(event.kv.value);
                }
            },
            Qt::DirectConnection);
        connect(
            watcher, &Watcher::recovery, this,
            [this, sabotage](const WatchRecoveryEvent &event) {
                QMutexLocker lock(&m_mutex);
                m_recoveries.append(event);
                if (sabotage == Sabotage::DropOneAfterResume && event.kind == WatchRecoveryKind::Resubscribed
                    && m_dropped == 0)
                    m_dropNext = true;
            },
            Qt::DirectConnection);
    }

    // The revision the saboteur dropped; 0 while it has not.
    qint64 dropped() const
    {
        QMutexLocker lock(&m_mutex);
        return m_dropped;
    }

    QList<qint64> revisions() const
    {
        QMutexLocker lock(&m_mutex);
        return m_revisions;
    }
    QList<QByteArray> values() const
    {
        QMutexLocker lock(&m_mutex);
        return m_values;
    }
    QList<WatchRecoveryEvent> recoveries() const
    {
        QMutexLocker lock(&m_mutex);
        return m_recoveries;
    }
    qint64 lastRevision() const
    {
        QMutexLocker lock(&m_mutex);
        return m_revisions.isEmpty() ? 0 : m_revisions.last();
    }

private:
    mutable QMutex m_mutex;
    QList<qint64> m_revisions;
    QList<QByteArray> m_values;
    QList<WatchRecoveryEvent> m_recoveries;
    bool m_dropNext = false;
    qint64 m_dropped = 0;
};

// Empty when a watcher delivered etcd's history of its key exactly (every revision once, in
// order), else the first place where it did not.
QString continuityBroken(const QList<qint64> &delivered, const QList<qint64> &history)
{
    for (qsizetype i = 0; i < history.size(); ++i) {
        if (i == delivered.size())
            return QStringLiteral("revision %1 and %2 after it were never delivered").arg(history[i]).arg(history.size() - i - 1);
        if (delivered[i] == history[i])
            continue;
        if (delivered[i] > history[i]) {
            return QStringLiteral("revision %1 was skipped: the watcher went from revision %2 to %3")
                .arg(history[i])
                .arg(i > 0 ? delivered[i - 1] : 0)
                .arg(delivered[i]);
        }
        return QStringLiteral("revision %1 was delivered again or out of order after revision %2, where etcd has %3")
            .arg(delivered[i])
            .arg(i > 0 ? delivered[i - 1] : 0)
            .arg(history[i]);
    }
    if (delivered.size() > history.size())
        return QStringLiteral("revision %1 was delivered but is not in etcd's history").arg(delivered[history.size()]);
    return {};
}

QString kindsOf(const QList<WatchRecoveryEvent> &events)
{
    QStringList names;
    for (const WatchRecoveryEvent &event : events)
        names.append(event.toString());
    return names.join(QLatin1String("; "));
}
// A watch that resumes within a second of losing its member, whichever it was on.
WatchResilience resumingQuickly()
{
    RetryPolicy::ExponentialBackoff backoff;
    backoff.initialDelay = 100ms;
    backoff.maxDelay = 1s;
    return WatchResilience{RetryPolicy::exponentialBackoff(backoff), true};
}

// The writer at work on a thread of its own, so that the test's waits do not pace it.
struct WriterThread
{
    explicit WriterThread(Client *client) : writer(client)
    {
        thread.start();
        writer.moveToThread(&thread);
        writer.begin();
    }
    ~WriterThread()
    {
        thread.quit();
        thread.wait();
    }
    Q_DISABLE_COPY_MOVE(WriterThread)

    QThread thread;
    Writer writer;
};

} // namespace

class tst_WatchContinuity : public QObject
{
    Q_OBJECT

private:
    EtcdCluster m_cluster{threeMembers()};

    static EtcdCluster::Options threeMembers()
    {
        EtcdCluster::Options options;
        options.members = 3;
        return options;
    }

    int memberAt(const QString &url) const
    {
        const int port = QUrl(url).port();
        for (int i = 0; i < m_cluster.memberCount(); ++i) {
            if (m_cluster.clientPort(i) == port)
                return i;
        }
        return -1;
    }

    // The member etcd currently calls leader, asked of a running member; -1 while there is none.
    int leaderIndex(Client *admin) const
    {
        for (int i = 0; i < m_cluster.memberCount(); ++i) {
            if (!m_cluster.isRunning(i))
                continue;
            const QFuture<EndpointStatusResult> statusFuture = admin->endpointStatus(m_cluster.clientUrl(i));
            if (!awaitFuture(statusFuture) || !statusFuture.result().status || statusFuture.result().leader == 0)
                continue;
            const QFuture<MemberListResult> membersFuture = admin->memberList();
            if (!awaitFuture(membersFuture) || !membersFuture.result().status)
                continue;
            for (const Member &member : membersFuture.result().members) {
                if (member.id != statusFuture.result().leader)
                    continue;
                for (int m = 0; m < m_cluster.memberCount(); ++m) {
                    if (m_cluster.memberName(m) == member.name)
                        return m;
                }
            }
        }
        return -1;
    }

    bool moveLeader(Client *admin, int target)
    {
        const QFuture<MemberListResult> membersFuture = admin->memberList();
        if (!awaitFuture(membersFuture) || !membersFuture.result().status)
            return false;
        for (const Member &member : membersFuture.result().members) {
            if (member.name != m_cluster.memberName(target))
                continue;
            int exitCode = -1;
            QByteArray standardError;
            m_cluster.etcdctl({QStringLiteral("move-leader"), QString::number(member.id, 16)}, &exitCode,
                              &standardError);
            if (exitCode != 0)
                qWarning("move-leader failed: %s", standardError.constData());
            return exitCode == 0;
        }
        return false;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<WatchEvent>();
        qRegisterMetaType<WatchRecoveryEvent>();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
    }

    void memberAndLeaderKillsLoseAndRepeatNothing_data()
    {
        QTest::addColumn<bool>("watchedIsLeader");
        // The killed leader is the member the watcher streams from (its stream breaks again),
        // or another one (the stream stays, and its member goes through an election).
        QTest::newRow("leader is the watched member") << true;
        QTest::newRow("leader is another member") << false;
    }

    // A writer puts 1..N while the member the watcher streams from is killed and restarted,
    // then the leader is: the watcher must see every revision of the key exactly once, in order.
    void memberAndLeaderKillsLoseAndRepeatNothing()
    {
        QFETCH(bool, watchedIsLeader);
        QElapsedTimer clock;
        clock.start();
        Client admin(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        Client watching(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        Client writing(ClientOptions::fromEndpoints(m_cluster.clientUrls()));

        PutResult baseline;
        QETCD_AWAIT(admin.put("/continuity/baseline", "0"), baseline);
        QVERIFY(baseline.status.isOk());

        Watcher watcher(&watching, watchedKey, {}, resumingQuickly());
        EventLog log(&watcher);
        Status started;
        QETCD_AWAIT(watcher.start(), started);
        QVERIFY2(started.isOk(), qPrintable(started.toString()));

        WriterThread writerThread(&writing);
        Writer &writer = writerThread.writer;

        // 1. Kill the member the watcher streams from, and later bring it back.
        QTRY_VERIFY_WITH_TIMEOUT(writer.written() >= 50, scaledMs(20000));
        const int watched = memberAt(watching.activeEndpoint());
        QVERIFY2(watched >= 0, qPrintable(watching.activeEndpoint()));
        QVERIFY2(m_cluster.killMember(watched), qPrintable(m_cluster.errorString()));
        const int writtenAtKill = writer.written();
        QTRY_VERIFY_WITH_TIMEOUT(writer.written() >= writtenAtKill + 40, scaledMs(20000));
        QVERIFY2(m_cluster.restartMember(watched), qPrintable(m_cluster.errorString()));
        qInfo("member %d killed at value %d, back at value %d (%lld ms)", watched, writtenAtKill, writer.written(),
              qint64(clock.elapsed()));

        // 2. Kill the leader, and later bring it back.
        QTRY_VERIFY_WITH_TIMEOUT(writer.written() >= writtenAtKill + 80, scaledMs(20000));
        int leader = -1;
        QTRY_VERIFY_WITH_TIMEOUT((leader = leaderIndex(&admin)) >= 0, scaledMs(10000));
        const int streamingFrom = memberAt(watching.activeEndpoint());
        QVERIFY(streamingFrom >= 0);
        if (watchedIsLeader != (leader == streamingFrom)) {
            const int target = watchedIsLeader ? streamingFrom : (streamingFrom + 1) % m_cluster.memberCount();
            QVERIFY(moveLeader(&admin, target));
            QTRY_VERIFY_WITH_TIMEOUT((leader = leaderIndex(&admin)) == target, scaledMs(10000));
        }
        QCOMPARE(leader == memberAt(watching.activeEndpoint()), watchedIsLeader);
        QVERIFY2(m_cluster.killMember(leader), qPrintable(m_cluster.errorString()));
        const int writtenAtLeaderKill = writer.written();
        QTRY_VERIFY_WITH_TIMEOUT(writer.written() >= writtenAtLeaderKill + 40 || writer.done(), scaledMs(30000));
        QVERIFY2(m_cluster.restartMember(leader), qPrintable(m_cluster.errorString()));
        qInfo("leader %d killed at value %d, back at value %d (%lld ms)", leader, writtenAtLeaderKill, writer.written(),
              qint64(clock.elapsed()));

        QTRY_VERIFY_WITH_TIMEOUT(writer.done(), scaledMs(30000));
        const QList<qint64> acknowledged = writer.revisions();
        QCOMPARE(acknowledged.size(), valueCount);
        QTRY_VERIFY_WITH_TIMEOUT(log.lastRevision() >= acknowledged.last(), scaledMs(20000));

        // etcd's own history of the key, read once the cluster is calm.
        WatchOptions replay;
        replay.startRevision = baseline.header.revision;
        Watcher historian(&admin, watchedKey, replay);
        EventLog history(&historian);
        QETCD_AWAIT(historian.start(), started);
        QVERIFY(started.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(history.lastRevision() >= acknowledged.last(), scaledMs(10000));

        const QList<qint64> seen = log.revisions();
        const QString broken = continuityBroken(seen, history.revisions());
        QVERIFY2(broken.isEmpty(), qPrintable(broken));
        for (int i = 1; i < seen.size(); ++i)
            QVERIFY(seen[i] > seen[i - 1]);
        // Every acknowledged put is among them; extra revisions can only be attempts whose
        // answer was lost, and those repeat the value that follows them.
        int cursor = 0;
        for (const qint64 revision : acknowledged) {
            while (cursor < seen.size() && seen[cursor] < revision)
                ++cursor;
            QVERIFY2(cursor < seen.size() && seen[cursor] == revision,
                     qPrintable(QStringLiteral("revision %1 was acknowledged but never seen").arg(revision)));
        }
        const QList<QByteArray> values = log.values();
        QCOMPARE(values.first(), QByteArray("1"));
        QCOMPARE(values.last(), QByteArray::number(valueCount));
        for (int i = 1; i < values.size(); ++i) {
            const int step = values[i].toInt() - values[i - 1].toInt();
            QVERIFY2(step == 1 || step == 0, qPrintable(QStringLiteral("%1 then %2").arg(values[i - 1], values[i])));
        }

        // The first kill certainly cut the watcher's stream: each outage is Suspended, then
        // Resubscribed; never Resynced (nothing was compacted) and never Failed.
        const QList<WatchRecoveryEvent> recoveries = log.recoveries();
        QVERIFY2(recoveries.size() >= (watchedIsLeader ? 4 : 2), qPrintable(kindsOf(recoveries)));
        for (int i = 0; i < recoveries.size(); ++i) {
            const WatchRecoveryKind expected = i % 2 == 0 ? WatchRecoveryKind::Suspended
                                                          : WatchRecoveryKind::Resubscribed;
            QVERIFY2(recoveries[i].kind == expected, qPrintable(kindsOf(recoveries)));
        }
        QCOMPARE(recoveries.size() % 2, 0);
        QVERIFY(watcher.isHealthy());
        qInfo("%lld events, %lld extra revisions from retried puts, %d failed puts, recoveries: %s; %lld ms",
              qint64(seen.size()), qint64(seen.size() - acknowledged.size()), writer.failures(),
              qPrintable(kindsOf(recoveries)), qint64(clock.elapsed()));
    }

    // The self-check: a watcher that drops the first event after it resumes (killing the member
    // it streams from makes it resume on another) must fail the continuity verdict, which must
    // name the revision dropped.
    void catchesAWatcherThatDropsAnEventAfterAResume()
    {
        QElapsedTimer clock;
        clock.start();
        Client admin(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        Client watching(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        Client writing(ClientOptions::fromEndpoints(m_cluster.clientUrls()));
        PutResult baseline;
        QETCD_AWAIT(admin.put("/continuity/baseline", "0"), baseline);
        QVERIFY(baseline.status.isOk());
        Watcher watcher(&watching, watchedKey, {}, resumingQuickly());
        EventLog log(&watcher, EventLog::Sabotage::DropOneAfterResume);
        Status started;
        QETCD_AWAIT(watcher.start(), started);
        QVERIFY2(started.isOk(), qPrintable(started.toString()));

        WriterThread writerThread(&writing);
        Writer &writer = writerThread.writer;
        QTRY_VERIFY_WITH_TIMEOUT(writer.written() >= 50, scaledMs(20000));
        const int watched = memberAt(watching.activeEndpoint());
        QVERIFY2(watched >= 0, qPrintable(watching.activeEndpoint()));
        QVERIFY2(m_cluster.killMember(watched), qPrintable(m_cluster.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(log.dropped() != 0, scaledMs(30000));
        QVERIFY2(m_cluster.restartMember(watched), qPrintable(m_cluster.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(writer.done(), scaledMs(60000));
        const qint64 last = writer.revisions().last();
        QTRY_VERIFY_WITH_TIMEOUT(log.lastRevision() >= last, scaledMs(20000));

        WatchOptions replay;
        replay.startRevision = baseline.header.revision;
        Watcher historian(&admin, watchedKey, replay);
        EventLog history(&historian);
        QETCD_AWAIT(historian.start(), started);
        QVERIFY(started.isOk());
        QTRY_VERIFY_WITH_TIMEOUT(history.lastRevision() >= last, scaledMs(10000));
        const QString broken = continuityBroken(log.revisions(), history.revisions());
        qInfo("dropped revision %lld; the verdict: %s (%lld ms)", log.dropped(), qPrintable(broken),
              qint64(clock.elapsed()));
        QVERIFY2(broken.startsWith(QStringLiteral("revision %1 was skipped").arg(log.dropped())),
                 qPrintable(QStringLiteral("the continuity check did not name the dropped revision %1 (%2)")
                                .arg(log.dropped())
                                .arg(broken.isEmpty() ? QStringLiteral("nothing found") : broken)));
    }
};

QTEST_GUILESS_MAIN(tst_WatchContinuity)
#include "tst_watchcontinuity.moc"
