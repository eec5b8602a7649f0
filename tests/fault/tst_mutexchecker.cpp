#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>
#include <QEtcd/watcher.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtTest/QtTest>

#include <csignal>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

namespace {
const QByteArray lockPath = QByteArrayLiteral("/checker/lock");
const QByteArray lockPrefix = lockPath + '/';
const QByteArray fencedKey = QByteArrayLiteral("/checker/fenced");
const QByteArray endMarker = QByteArrayLiteral("/checker/end");
constexpr int participantCount = 5;
} // namespace

// Five processes contend for one DistributedMutex while a seeded driver partitions random
// ones (the holder more often than not) through their proxies, delays their traffic by more
// than the 2 s TTL, or freezes them with SIGSTOP. Inside each hold a participant makes blind
// writes to one key, guarded only by the fence (guardedTxn), and asks every 2 ms whether it
// still holds. Pass:
// - no two believed holds overlap;
// - etcd's own history (a watch from revision 1) shows every committed write landing while
//   its writer's lock key, with the token it wrote, was the lowest under the lock prefix;
// - every write answered "accepted" is in that history once, and none answered "refused";
// - the run exercised what it claims: every participant held, holds were lost while held,
//   stale writes reached etcd late and were refused, every line of output was understood,
//   and nothing was left under the lock prefix.
class tst_MutexChecker : public QObject
{
    Q_OBJECT

private:
    struct Participant
    {
        QString name;
        QByteArray pending;  // declared before the process: it may still write while it dies
        QList<QJsonObject> events;
        QList<QByteArray> unparsed;
        bool holding = false;  // by its last "acquired" / "hold" line
        bool faulted = false;
        std::unique_ptr<FaultProxy> proxy;
        std::unique_ptr<QProcess> process;

        void read()
        {
            pending += process->readAllStandardOutput();
            for (qsizetype end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
                const QByteArray line = pending.left(end);
                pending.remove(0, end + 1);
                QJsonParseError error;
                const QJsonObject event = QJsonDocument::fromJson(line, &error).object();
                if (error.error != QJsonParseError::NoError || !event.contains("event")) {
                    unparsed.append(line);
                    continue;
                }
                events.append(event);
                if (event.value("event") == "acquired")
                    holding = true;
                else if (event.value("event") == "hold")
                    holding = false;
            }
        }
    };

    struct Interval
    {
        qint64 start = 0;
        qint64 end = 0;
        QString name;
    };

private Q_SLOTS:
    void believedHoldsNeverOverlapAndFencedWritesLandInTheirHold()
    {
        const int seconds = qEnvironmentVariableIntValue("QETCD_CHECKER_SECONDS") > 0
            ? qEnvironmentVariableIntValue("QETCD_CHECKER_SECONDS")
            : 45;
        const quint32 seed = qEnvironmentVariableIsSet("QETCD_CHECKER_SEED")
            ? qEnvironmentVariable("QETCD_CHECKER_SEED").toUInt()
            : QRandomGenerator::global()->generate();
        qInfo("seed %u (QETCD_CHECKER_SEED=%u repeats this run), %d s", seed, seed, seconds);
        QRandomGenerator random(seed);

        EtcdCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));

        // etcd's history of everything the checker touches, in etcd's order.
        QList<WatchEvent> history;
        WatchOptions everything;
        everything.range = KeyRange::prefix();
        everything.startRevision = 1;
        Watcher historian(&observer, "/checker/", everything);
        connect(&historian, &Watcher::eventsReceived, this,
                [&history](const QList<WatchEvent> &events) { history += events; });
        const auto watching = historian.start();
        QVERIFY(awaitFuture(watching));
        QCOMPARE(watching.result(), Status());

        std::vector<Participant> participants(participantCount);
        for (int i = 0; i < participantCount; ++i) {
            Participant &p = participants[i];
            p.name = QStringLiteral("p%1").arg(i);
            p.proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), cluster.clientPort(0));
            QVERIFY(p.proxy->start());
            p.process = std::make_unique<QProcess>();
            QObject::connect(p.process.get(), &QProcess::readyReadStandardOutput, this, [&p] { p.read(); });
            p.process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
            p.process->start(QStringLiteral(QETCD_MUTEX_PARTICIPANT),
                             {"--endpoint", p.proxy->url(), "--name", p.name, "--lock", QString::fromUtf8(lockPath),
                              "--fenced", QString::fromUtf8(fencedKey), "--seed", QString::number(random.generate())});
            QVERIFY(p.process->waitForStarted());
        }

        // Every second one participant not already in trouble, the holder two times in three,
        // is cut off (Blackhole, its traffic held and delivered when it ends), slowed (Delay,
        // every chunk arrives late) or frozen (SIGSTOP) for 0.5–4 s: sometimes shorter than the
        // 2 s TTL, sometimes well past it. A write held up past the holder's lease arrives stale.
        QTimer driver;
        int blackholes = 0;
        int delays = 0;
        int freezes = 0;
        QObject::connect(&driver, &QTimer::timeout, this, [&] {
            Participant *victim = &participants[random.bounded(participantCount)];
            if (random.bounded(3) != 0) {
                for (Participant &p : participants) {
                    if (p.holding && !p.faulted)
                        victim = &p;
                }
            }
            Participant &p = *victim;
            if (p.faulted)
                return;
            p.faulted = true;
            const int duration = random.bounded(500, 4000);
            switch (random.bounded(3)) {
            case 0:
                ++blackholes;
                p.proxy->setMode(FaultProxy::Mode::Blackhole);
                break;
            case 1:
                ++delays;
                p.proxy->setDelay(std::chrono::milliseconds(random.bounded(1500, 3000)));
                p.proxy->setMode(FaultProxy::Mode::Delay);
                break;
            default:
                ++freezes;
                ::kill(pid_t(p.process->processId()), SIGSTOP);
                break;
            }
            QTimer::singleShot(duration, p.proxy.get(), [&p] {
                p.proxy->setMode(FaultProxy::Mode::Pass);
                ::kill(pid_t(p.process->processId()), SIGCONT);
                p.faulted = false;
            });
        });
        driver.start(1000);
        QEventLoop run;
        QTimer::singleShot(scaledMs(seconds * 1000), &run, &QEventLoop::quit);
        run.exec();
        driver.stop();

        for (Participant &p : participants) {
            p.proxy->setMode(FaultProxy::Mode::Pass);
            ::kill(pid_t(p.process->processId()), SIGCONT);
            p.process->terminate();
        }
        for (Participant &p : participants) {
            QVERIFY2(p.process->waitForFinished(scaledMs(30000)), "a participant did not stop");
            p.read();
            QCOMPARE(p.process->exitCode(), 0);
        }
        if (qEnvironmentVariableIsSet("QETCD_CHECKER_LOG")) {
            QFile log(qEnvironmentVariable("QETCD_CHECKER_LOG"));
            if (log.open(QIODevice::WriteOnly)) {
                for (const Participant &p : participants) {
                    for (const QJsonObject &event : p.events)
                        log.write(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
                }
            }
        }

        // Every participant's last words were understood.
        for (const Participant &p : participants) {
            if (!p.unparsed.isEmpty())
                QFAIL(qPrintable(QStringLiteral("%1 printed %2 lines the checker cannot read, the first: %3")
                                     .arg(p.name)
                                     .arg(p.unparsed.size())
                                     .arg(QString::fromUtf8(p.unparsed.first()))));
            QVERIFY2(p.pending.isEmpty(), qPrintable(p.name + QStringLiteral(" left a line unfinished")));
        }

        // Believed holds never overlap.
        QList<Interval> holds;
        QHash<QString, QString> outcomes;  // "<name>/<seq>" -> accepted, refused or unknown
        QSet<QString> everHeld;
        int lostWhileHeld = 0;
        int unbelieved = 0;
        int refused = 0;
        int accepted = 0;
        qint64 latestRefusalMs = 0;
        for (const Participant &p : participants) {
            for (const QJsonObject &event : p.events) {
                if (event.value("event") == "hold") {
                    if (!event.value("believed").toBool()) {
                        ++unbelieved;
                        continue;
                    }
                    everHeld.insert(p.name);
                    lostWhileHeld += event.value("lost").toBool() ? 1 : 0;
                    holds.append({event.value("start_ns").toInteger(), event.value("end_ns").toInteger(), p.name});
                } else if (event.value("event") == "write") {
                    const QString outcome = event.value("outcome").toString();
                    outcomes.insert(p.name + '/' + QString::number(event.value("seq").toInteger()), outcome);
                    if (outcome == "accepted") {
                        ++accepted;
                    } else if (outcome == "refused") {
                        ++refused;
                        latestRefusalMs = std::max(latestRefusalMs, (event.value("answered_ns").toInteger()
                                                                     - event.value("issued_ns").toInteger())
                                                                        / 1000000);
                    }
                }
            }
        }
        std::sort(holds.begin(), holds.end(), [](const Interval &a, const Interval &b) { return a.start < b.start; });
        for (qsizetype i = 1; i < holds.size(); ++i) {
            if (holds[i].start <= holds[i - 1].end)
                QFAIL(qPrintable(QStringLiteral("%1 believed it held until %2 ns, but %3 believed it held from %4 ns")
                                    .arg(holds[i - 1].name)
                                    .arg(holds[i - 1].end)
                                    .arg(holds[i].name)
                                     .arg(holds[i].start)));
        }

        // The fencing oracle: replay etcd's history up to a marker written after everyone stopped.
        const auto marked = observer.put(endMarker, "end");
        QVERIFY(awaitFuture(marked));
        QCOMPARE(marked.result().status, Status());
        QTRY_VERIFY_WITH_TIMEOUT(!history.isEmpty() && history.last().kv.key == endMarker, scaledMs(20000));
        QMap<QByteArray, qint64> lockKeys;  // present under the lock prefix -> create revision
        QSet<QString> committed;
        for (const WatchEvent &change : std::as_const(history)) {
            const KeyValue &kv = change.kv;
            if (kv.key.startsWith(lockPrefix)) {
                if (change.type == WatchEvent::Type::Put)
                    lockKeys.insert(kv.key, kv.createRevision);
                else
                    lockKeys.remove(kv.key);
                continue;
            }
            if (kv.key != fencedKey)
                continue;
            QVERIFY2(change.type == WatchEvent::Type::Put, "nobody deletes the fenced key");
            const QJsonObject write = QJsonDocument::fromJson(kv.value).object();
            const QString id = write.value("w").toString() + '/' + QString::number(write.value("s").toInteger());
            const QByteArray writerKey = write.value("k").toString().toUtf8();
            const qint64 token = write.value("t").toInteger();
            qint64 lowest = std::numeric_limits<qint64>::max();
            for (const qint64 createRevision : std::as_const(lockKeys))
                lowest = std::min(lowest, createRevision);
            if (lockKeys.value(writerKey, -1) != token || token != lowest)
                QFAIL(qPrintable(QStringLiteral("write %1 (token %2, answered %3) committed at revision %4 while its "
                                               "key %5 %6; the lowest key had create revision %7")
                                    .arg(id)
                                    .arg(token)
                                    .arg(outcomes.value(id, QStringLiteral("never")))
                                    .arg(kv.modRevision)
                                    .arg(QString::fromUtf8(writerKey))
                                    .arg(lockKeys.contains(writerKey)
                                             ? QStringLiteral("had create revision %1").arg(lockKeys.value(writerKey))
                                             : QStringLiteral("was gone"))
                                     .arg(lowest)));
            if (committed.contains(id))
                QFAIL(qPrintable(QStringLiteral("write %1 committed twice").arg(id)));
            committed.insert(id);
            if (outcomes.value(id) != "accepted" && outcomes.value(id) != "unknown")
                QFAIL(qPrintable(QStringLiteral("write %1 committed, but its writer was told %2")
                                     .arg(id, outcomes.value(id, QStringLiteral("nothing")))));
        }
        for (auto it = outcomes.cbegin(); it != outcomes.cend(); ++it) {
            if (it.value() == "accepted" && !committed.contains(it.key()))
                QFAIL(qPrintable(QStringLiteral("write %1 was accepted but is not in etcd's history").arg(it.key())));
        }

        // Nothing is left behind once everyone has stopped: at most a lease running out.
        const auto lockEntries = [&] {
            RangeOptions countOnly;
            countOnly.range = KeyRange::prefix();
            countOnly.countOnly = true;
            const auto future = observer.get(lockPrefix, countOnly);
            return awaitFuture(future) ? future.result().count : qint64(-1);
        };
        QTRY_COMPARE_WITH_TIMEOUT(lockEntries(), qint64(0), scaledMs(5000));

        qInfo("%lld believed holds (%d never believed), %d lost while held; %lld writes: %d accepted, %d stale "
              "and refused (the latest answered after %lld ms), %lld with unknown outcome, %lld committed; "
              "faults: %d blackholes, %d delays, %d freezes",
              qint64(holds.size()), unbelieved, lostWhileHeld, qint64(outcomes.size()), accepted, refused,
              latestRefusalMs, qint64(outcomes.size()) - accepted - refused, qint64(committed.size()), blackholes,
              delays, freezes);
        // A run that exercised too little proves nothing.
        QCOMPARE(everHeld.size(), participantCount);
        QVERIFY2(lostWhileHeld >= 1, "no hold was ever lost while held");
        QVERIFY2(refused >= 1, "no stale write reached etcd: the fence was never tested");
        QVERIFY2(accepted >= 10, "too few writes were accepted");
        QVERIFY2(blackholes >= 1 && delays >= 1 && freezes >= 1, "a kind of fault was never injected");
    }
};

QTEST_GUILESS_MAIN(tst_MutexChecker)
#include "tst_mutexchecker.moc"
