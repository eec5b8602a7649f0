// SPDX-License-Identifier: Apache-2.0
#pragma once

// The checkers' side of the participant programs in participants/: each participant is a
// process of its own, talking to etcd through a FaultProxy of its own, whose JSON lines are
// parsed as they arrive; a seeded driver cuts participants off, slows them or freezes them
// (SIGSTOP); and the holds they believed in are checked against how many may overlap.

#include <QEtcd/faultproxy.h>
#include <QEtcd/testtimeouts.h>

#include <QtCore/QDebug>
#include <QtCore/QEventLoop>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QStandardPaths>
#include <QtCore/QTimer>

#include <algorithm>
#include <csignal>
#include <functional>
#include <memory>
#include <vector>

namespace QEtcd::Testing {

// Every participant program prints "acquired" when a hold (lock, permit, term of leadership)
// begins and "hold" when it ends, with start_ns/end_ns on the monotonic clock and whether it
// was believed at all.
struct BelievedHold
{
    QString name;
    qint64 start = 0;
    qint64 end = 0;
};

// Not movable: its process reports to it by address.
struct ParticipantProcess
{
    ParticipantProcess() = default;
    ParticipantProcess(const ParticipantProcess &) = delete;
    ParticipantProcess &operator=(const ParticipantProcess &) = delete;

    QString name;
    QByteArray pending;  // declared before the process: it may still write while it dies
    QList<QJsonObject> events;
    QList<QByteArray> unparsed;
    bool holding = false;  // by its last "acquired" / "hold" line
    bool faulted = false;  // the driver's
    std::unique_ptr<FaultProxy> proxy;
    std::unique_ptr<QProcess> process;

    // Starts `program --endpoint <its proxy> --name <name> arguments...`.
    bool start(const QString &program, const QString &participantName, quint16 etcdPort, const QStringList &arguments)
    {
        name = participantName;
        return startProxy(etcdPort)
            && launch(program, QStringList{QStringLiteral("--endpoint"), proxy->url(), QStringLiteral("--name"), name}
                                   + arguments);
    }

    // Its fault proxy, before anything runs: a participant that is a program run again and
    // again (one `qetcd barrier count` per round) keeps one proxy across its runs.
    bool startProxy(quint16 etcdPort)
    {
        proxy = std::make_unique<FaultProxy>(QStringLiteral("127.0.0.1"), etcdPort);
        return proxy->start();
    }

    // Runs program; once it has exited, again in the same QProcess, whose lines keep coming here.
    bool launch(const QString &program, const QStringList &arguments)
    {
        if (!process) {
            process = std::make_unique<QProcess>();
            QObject::connect(process.get(), &QProcess::readyReadStandardOutput, process.get(), [this] { read(); });
            process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        }
        process->start(program, arguments);
        return process->waitForStarted();
    }

    void read()
    {
        pending += process->readAllStandardOutput();
        for (qsizetype end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
            const QByteArray line = pending.left(end);
            pending.remove(0, end + 1);
            QJsonParseError error;
            const QJsonObject event = QJsonDocument::fromJson(line, &error).object();
            if (error.error != QJsonParseError::NoError || !event.contains(QLatin1String("event"))) {
                unparsed.append(line);
                continue;
            }
            events.append(event);
            if (event.value(QLatin1String("event")) == QLatin1String("acquired"))
                holding = true;
            else if (event.value(QLatin1String("event")) == QLatin1String("hold"))
                holding = false;
        }
    }

    // Once the process has exited its pid is 0, and kill(0, ...) would signal our own group.
    void signal(int signo)
    {
        if (const qint64 pid = process ? process->processId() : 0; pid > 0)
            ::kill(pid_t(pid), signo);
    }

    QList<QJsonObject> eventsNamed(const QString &event) const
    {
        QList<QJsonObject> named;
        for (const QJsonObject &each : events) {
            if (each.value(QLatin1String("event")).toString() == event)
                named.append(each);
        }
        return named;
    }

    // The holds it acted on: a hold whose first check said no was never believed.
    QList<BelievedHold> believedHolds() const
    {
        QList<BelievedHold> holds;
        for (const QJsonObject &hold : eventsNamed(QStringLiteral("hold"))) {
            if (hold.value(QLatin1String("believed")).toBool())
                holds.append({name, hold.value(QLatin1String("start_ns")).toInteger(),
                              hold.value(QLatin1String("end_ns")).toInteger()});
        }
        return holds;
    }
};

// A participant that does not stop has hung, and its JSON lines cannot say where: its threads'
// stacks, taken by gdb (scripts/setup installs it) before the process is killed, are all the
// record there is of a hang seen once in a hundred runs.
inline QString threadStacks(qint64 pid)
{
    const QString gdb = QStandardPaths::findExecutable(QStringLiteral("gdb"));
    if (gdb.isEmpty())
        return QStringLiteral("(gdb is not installed: no stacks)");
    QProcess attach;
    attach.setProcessChannelMode(QProcess::MergedChannels);
    attach.start(gdb, {QStringLiteral("-batch"), QStringLiteral("-p"), QString::number(pid),
                       QStringLiteral("-ex"), QStringLiteral("thread apply all bt")});
    if (!attach.waitForFinished(scaledMs(60000)))
        attach.kill();
    return QString::fromLocal8Bit(attach.readAll());
}

// Heals and thaws everyone, asks them to stop (SIGTERM) and reads their last words. Empty when
// every participant exited 0 and every line it printed was understood, else what went wrong.
inline QString stopParticipants(std::vector<ParticipantProcess> &participants)
{
    for (ParticipantProcess &p : participants) {
        p.proxy->setMode(FaultProxy::Mode::Pass);
        p.signal(SIGCONT);
        p.process->terminate();
    }
    for (ParticipantProcess &p : participants) {
        if (!p.process->waitForFinished(scaledMs(30000))) {
            qWarning().noquote() << p.name << "did not stop; its threads:\n" << threadStacks(p.process->processId());
            return p.name + QStringLiteral(" did not stop (its threads' stacks are in the log above)");
        }
        p.read();
        if (p.process->exitStatus() != QProcess::NormalExit)
            return p.name + QStringLiteral(" crashed (signal %1; its backtrace is on stderr above)").arg(p.process->exitCode());
        if (p.process->exitCode() != 0)
            return p.name + QStringLiteral(" exited with %1").arg(p.process->exitCode());
    }
    for (const ParticipantProcess &p : participants) {
        if (!p.unparsed.isEmpty())
            return QStringLiteral("%1 printed %2 lines the checker cannot read, the first: %3")
                .arg(p.name)
                .arg(p.unparsed.size())
                .arg(QString::fromUtf8(p.unparsed.first()));
        if (!p.pending.isEmpty())
            return p.name + QStringLiteral(" left a line unfinished");
    }
    return {};
}

// Empty when at no instant more than `capacity` holds were believed at once, else who believed
// what when it first happened. A sweep over every start and end, starts first at equal instants,
// so holds that merely touch count as overlapping. *peak: the most believed at once.
inline QString overCapacity(const QList<BelievedHold> &holds, int capacity, int *peak)
{
    QList<std::pair<qint64, int>> edges;
    for (const BelievedHold &hold : holds) {
        edges.append({hold.start, +1});
        edges.append({hold.end, -1});
    }
    std::sort(edges.begin(), edges.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    int believed = 0;
    *peak = 0;
    for (const auto &[when, change] : edges) {
        believed += change;
        *peak = std::max(*peak, believed);
        if (believed <= capacity)
            continue;
        QStringList who;
        for (const BelievedHold &hold : holds) {
            if (hold.start <= when && when <= hold.end)
                who << QStringLiteral("%1 [%2, %3] ns").arg(hold.name).arg(hold.start).arg(hold.end);
        }
        return QStringLiteral("%1 participants believed they held at %2 ns (at most %3 may): %4")
            .arg(believed)
            .arg(when)
            .arg(capacity)
            .arg(who.join(QStringLiteral(", ")));
    }
    return {};
}

// Every `every` one participant not already in trouble (one that holds, preferHolderPercent of
// the time) is cut off (Blackhole: its traffic is held and delivered when the fault ends),
// slowed (Delay: every chunk 1.5–3 s late) or frozen (SIGSTOP), for shortestMs–longestMs.
class FaultDriver
{
public:
    struct Plan
    {
        std::chrono::milliseconds every{1000};
        int shortestMs = 500;
        int longestMs = 4000;
        int preferHolderPercent = 0;
    };

    FaultDriver(std::vector<ParticipantProcess> &participants, QRandomGenerator &random, const Plan &plan)
        : m_participants(participants), m_random(random), m_plan(plan)
    {
        QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] { injectOne(); });
    }

    // Injects faults for seconds (scaled) while the event loop runs. Then no new ones: those
    // running end when they are due (or at stopParticipants()).
    void runFor(int seconds)
    {
        m_timer.start(m_plan.every);
        QEventLoop run;
        QTimer::singleShot(scaledMs(seconds * 1000), &run, &QEventLoop::quit);
        run.exec();
        m_timer.stop();
    }

    int blackholes = 0;
    int delays = 0;
    int freezes = 0;
    int total() const { return blackholes + delays + freezes; }
    QString summary() const
    {
        return QStringLiteral("%1 blackholes, %2 delays, %3 freezes").arg(blackholes).arg(delays).arg(freezes);
    }

private:
    void injectOne()
    {
        ParticipantProcess *victim = &m_participants[m_random.bounded(int(m_participants.size()))];
        if (int(m_random.bounded(100)) < m_plan.preferHolderPercent) {
            for (ParticipantProcess &p : m_participants) {
                if (p.holding && !p.faulted)
                    victim = &p;
            }
        }
        ParticipantProcess &p = *victim;
        if (p.faulted)
            return;
        p.faulted = true;
        const int duration = m_random.bounded(m_plan.shortestMs, m_plan.longestMs);
        switch (m_random.bounded(3)) {
        case 0:
            ++blackholes;
            p.proxy->setMode(FaultProxy::Mode::Blackhole);
            break;
        case 1:
            ++delays;
            p.proxy->setDelay(std::chrono::milliseconds(m_random.bounded(1500, 3000)));
            p.proxy->setMode(FaultProxy::Mode::Delay);
            break;
        default:
            ++freezes;
            p.signal(SIGSTOP);
            break;
        }
        // Bound to the proxy, so a fault still due when its test ends goes with it.
        QTimer::singleShot(duration, p.proxy.get(), [&p] {
            p.proxy->setMode(FaultProxy::Mode::Pass);
            p.signal(SIGCONT);
            p.faulted = false;
        });
    }

    std::vector<ParticipantProcess> &m_participants;
    QRandomGenerator &m_random;
    const Plan m_plan;
    QTimer m_timer;
};

// A checker's self-check: faults as in a run, until `violation` (the checker's verdict on what it
// has seen so far) finds something, for at most `seconds`. What it found, or empty.
inline QString runUntilCaught(std::vector<ParticipantProcess> &participants, QRandomGenerator &random,
                              const FaultDriver::Plan &plan, int seconds, const std::function<QString()> &violation)
{
    FaultDriver driver(participants, random, plan);
    QString found;
    for (int ran = 0; ran < seconds && found.isEmpty(); ran += 5) {
        driver.runFor(5);
        found = violation();
    }
    qInfo("after %s: %s", qPrintable(driver.summary()), found.isEmpty() ? "nothing found" : qPrintable(found));
    return found;
}

} // namespace QEtcd::Testing
