#include "../common/awaitfuture.h"

#include <QEtcd/client.h>
#include <QEtcd/etcdcluster.h>
#include <QEtcd/faultproxy.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtTest/QtTest>

#include <csignal>

using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono_literals;

// Five processes contend for one DistributedMutex while a seeded driver cuts random ones off
// through their proxies and freezes random ones with SIGSTOP. Each logs the interval in which
// it believed it held the lock and every guarded write it tried. Pass: no two believed
// intervals overlap, no value was accepted twice, and every step of the counter is a write
// that was accepted or whose answer was lost in a fault (no stale write got through).
class tst_MutexChecker : public QObject
{
    Q_OBJECT

private:
    struct Participant
    {
        QByteArray output;  // declared first: the process may still write to it while it dies
        bool faulted = false;
        std::unique_ptr<FaultProxy> proxy;
        std::unique_ptr<QProcess> process;
    };

    struct Interval
    {
        qint64 start = 0;
        qint64 end = 0;
        QString name;
    };

private Q_SLOTS:
    void believedHoldsNeverOverlap()
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

        std::vector<Participant> participants(5);
        for (size_t i = 0; i < participants.size(); ++i) {
            Participant &p = participants[i];
            p.proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), cluster.clientPort(0));
            QVERIFY(p.proxy->start());
            p.process = std::make_unique<QProcess>();
            QObject::connect(p.process.get(), &QProcess::readyReadStandardOutput, this,
                             [&p] { p.output += p.process->readAllStandardOutput(); });
            p.process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
            p.process->start(QStringLiteral(QETCD_MUTEX_PARTICIPANT),
                             {"--endpoint", p.proxy->url(), "--name", QStringLiteral("p%1").arg(i), "--lock",
                              "/checker/lock", "--counter", "/checker/counter", "--seed",
                              QString::number(random.generate())});
            QVERIFY(p.process->waitForStarted());
        }

        // Every second, one participant not already in trouble gets a partition or a freeze of
        // 0.5–4 s: sometimes shorter than the 2 s TTL, sometimes well past it.
        QTimer driver;
        int faults = 0;
        QObject::connect(&driver, &QTimer::timeout, this, [&] {
            Participant &p = participants[random.bounded(int(participants.size()))];
            if (p.faulted)
                return;
            p.faulted = true;
            ++faults;
            const int duration = random.bounded(500, 4000);
            if (random.bounded(2) == 0) {
                p.proxy->setMode(FaultProxy::Mode::Blackhole);
                QTimer::singleShot(duration, this, [&p] {
                    p.proxy->setMode(FaultProxy::Mode::Pass);
                    p.faulted = false;
                });
            } else {
                ::kill(pid_t(p.process->processId()), SIGSTOP);
                QTimer::singleShot(duration, this, [&p] {
                    ::kill(pid_t(p.process->processId()), SIGCONT);
                    p.faulted = false;
                });
            }
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
            QVERIFY2(p.process->waitForFinished(scaledMs(20000)), "a participant did not stop");
            p.output += p.process->readAllStandardOutput();
            QCOMPARE(p.process->exitCode(), 0);
        }

        QList<Interval> holds;
        QList<qint64> accepted;
        // A write whose answer never came (a partition, a frozen process) may or may not have
        // committed: its value may fill a gap, but nothing else may.
        QSet<qint64> unknown;
        int rejected = 0;
        for (const Participant &p : participants) {
            for (const QByteArray &line : p.output.split('\n')) {
                if (line.isEmpty())
                    continue;
                const QJsonObject event = QJsonDocument::fromJson(line).object();
                if (event.value("event") == "hold") {
                    holds.append({event.value("start_ns").toInteger(), event.value("end_ns").toInteger(),
                                  event.value("name").toString()});
                } else if (event.value("event") == "write") {
                    if (event.value("accepted").toBool())
                        accepted.append(event.value("value").toInteger());
                    else if (event.value("status").toString() != "Ok")
                        unknown.insert(event.value("value").toInteger());
                    else
                        ++rejected;
                }
            }
        }
        if (qEnvironmentVariableIsSet("QETCD_CHECKER_LOG")) {
            QFile log(qEnvironmentVariable("QETCD_CHECKER_LOG"));
            if (log.open(QIODevice::WriteOnly))
                for (const Participant &p : participants)
                    log.write(p.output);
        }
        std::sort(holds.begin(), holds.end(), [](const Interval &a, const Interval &b) { return a.start < b.start; });
        for (qsizetype i = 1; i < holds.size(); ++i) {
            QVERIFY2(holds[i].start > holds[i - 1].end,
                     qPrintable(QStringLiteral("%1 believed it held until %2 ns, but %3 believed it held from %4 ns")
                                    .arg(holds[i - 1].name)
                                    .arg(holds[i - 1].end)
                                    .arg(holds[i].name)
                                    .arg(holds[i].start)));
        }
        std::sort(accepted.begin(), accepted.end());
        const auto counter = observer.get("/checker/counter");
        QVERIFY(awaitFuture(counter));
        const qint64 finalValue = counter.result().kvs.value(0).value.toLongLong();
        const QSet<qint64> acceptedSet(accepted.cbegin(), accepted.cend());
        QCOMPARE(qsizetype(acceptedSet.size()), accepted.size());  // no value accepted twice
        QVERIFY(accepted.isEmpty() || accepted.last() <= finalValue);
        // Every step of the counter is an accepted write or one whose outcome was unknown.
        for (qint64 value = 1; value <= finalValue; ++value)
            QVERIFY2(acceptedSet.contains(value) || unknown.contains(value),
                     qPrintable(QStringLiteral("counter value %1 came from no write we know of").arg(value)));
        qInfo("%lld holds, %lld accepted writes, %lld with unknown outcome, %d refused, %d faults injected",
              qint64(holds.size()), qint64(accepted.size()), qint64(unknown.size()), rejected, faults);
        QVERIFY(holds.size() > 10);
        QVERIFY(faults > 5);
    }
};

QTEST_GUILESS_MAIN(tst_MutexChecker)
#include "tst_mutexchecker.moc"
