#include "../common/awaitfuture.h"
#include "checkerrun.h"
#include "participantprocess.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/watcher.h>

#include <QtTest/QtTest>

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

private Q_SLOTS:
    void believedHoldsNeverOverlapAndFencedWritesLandInTheirHold()
    {
        CheckerRun checker(45);

        EtcdCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        Client observer(ClientOptions::fromEndpoints(cluster.clientUrls()));

        // etcd's history of everything the checker touches, in etcd's order.
        QList<WatchEvent> history;
        WatchOptions everything;
        everything.range = KeyRange::prefix();
        everything.startRevision = 1;
        Watcher historian(&observer, "/checker/", everything);
        connect(&historian, &Watcher::eventsReceived, &historian,
                [&history](const QList<WatchEvent> &events) { history += events; });
        const auto watching = historian.start();
        QVERIFY(awaitFuture(watching));
        QCOMPARE(watching.result(), Status());

        std::vector<ParticipantProcess> participants(participantCount);
        for (int i = 0; i < participantCount; ++i) {
            QVERIFY(participants[i].start(QStringLiteral(QETCD_MUTEX_PARTICIPANT), QStringLiteral("p%1").arg(i),
                                          cluster.clientPort(0),
                                          {"--lock", QString::fromUtf8(lockPath), "--fenced", QString::fromUtf8(fencedKey),
                                           "--seed", QString::number(checker.random.generate())}));
        }

        // Every second one participant not already in trouble, the holder two times in three,
        // is cut off, slowed or frozen for 0.5–4 s: sometimes shorter than the 2 s TTL,
        // sometimes well past it. A write held up past the holder's lease arrives stale.
        FaultDriver driver(participants, checker.random, {1000ms, 500, 4000, 67});
        driver.runFor(checker.seconds);

        const QString stopped = stopParticipants(participants);
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        if (qEnvironmentVariableIsSet("QETCD_CHECKER_LOG")) {
            QFile log(qEnvironmentVariable("QETCD_CHECKER_LOG"));
            if (log.open(QIODevice::WriteOnly)) {
                for (const ParticipantProcess &p : participants) {
                    for (const QJsonObject &event : p.events)
                        log.write(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
                }
            }
        }

        // Believed holds never overlap.
        QList<BelievedHold> holds;
        QHash<QString, QString> outcomes;  // "<name>/<seq>" -> accepted, refused or unknown
        QSet<QString> everHeld;
        int lostWhileHeld = 0;
        int unlockedLost = 0;  // unlock() returned false
        int lockLost = 0;
        int unbelieved = 0;
        int refused = 0;
        int accepted = 0;
        qint64 latestRefusalMs = 0;
        for (const ParticipantProcess &p : participants) {
            holds += p.believedHolds();
            lockLost += int(p.eventsNamed("lockLost").size());
            for (const QJsonObject &event : p.eventsNamed("hold")) {
                unlockedLost += event.value("released").toBool() ? 0 : 1;
                if (!event.value("believed").toBool()) {
                    ++unbelieved;
                    continue;
                }
                everHeld.insert(p.name);
                lostWhileHeld += event.value("lost").toBool() ? 1 : 0;
            }
            for (const QJsonObject &event : p.eventsNamed("write")) {
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
        int peak = 0;
        const QString overlap = overCapacity(holds, 1, &peak);
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        // Never hidden: every hold unlock() found lost was told by lockLost() as well, even when
        // unlock() read the clock past the deadline before the loss thread told it.
        QVERIFY2(lockLost >= unlockedLost,
                 qPrintable(QStringLiteral("unlock() found %1 holds lost, %2 lockLost() signals")
                                .arg(unlockedLost)
                                .arg(lockLost)));

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
              "faults: %s",
              qint64(holds.size()), unbelieved, lostWhileHeld, qint64(outcomes.size()), accepted, refused,
              latestRefusalMs, qint64(outcomes.size()) - accepted - refused, qint64(committed.size()),
              qPrintable(driver.summary()));
        // A run that exercised too little proves nothing.
        QCOMPARE(everHeld.size(), participantCount);
        QVERIFY2(lostWhileHeld >= 1, "no hold was ever lost while held");
        QVERIFY2(refused >= 1, "no stale write reached etcd: the fence was never tested");
        QVERIFY2(accepted >= 10, "too few writes were accepted");
        QVERIFY2(driver.blackholes >= 1 && driver.delays >= 1 && driver.freezes >= 1,
                 "a kind of fault was never injected");
    }
};

QTEST_GUILESS_MAIN(tst_MutexChecker)
#include "tst_mutexchecker.moc"
