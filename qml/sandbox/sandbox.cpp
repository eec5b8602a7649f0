// SPDX-License-Identifier: Apache-2.0
#include "sandbox.h"

#include "stopprocess.h"

#include <QEtcd/etcdcluster.h>

#include <QtCore/QLoggingCategory>
#include <QtCore/QTimer>
#include <QtQml/QQmlEngine>

#include <deque>
#include <memory>

#include <signal.h>
#include <unistd.h>

namespace {
Q_LOGGING_CATEGORY(lcSandbox, "qetcd.console.sandbox", QtInfoMsg)

// How soon a member that exits on its own shows as Exited.
constexpr std::chrono::seconds ExitCheckInterval{1};
// How long a seed program has to let go of what it holds after SIGTERM before it and whatever
// it started are killed.
constexpr int SeedStopMs = 5000;

// A seed runs in a process group of its own, so that a seed that does not end on SIGTERM is
// killed with everything it started (a script's participants would outlive it otherwise).
void killProcessGroup(QProcess *process)
{
    if (process->processId() > 0)
        ::kill(-pid_t(process->processId()), SIGKILL);
}

using Action = SandboxMemberModel::Action;
using MemberState = SandboxMemberModel::MemberState;

// EtcdCluster's failures end with the member's log: the full text goes to the console's log
// output, the window gets the sentence before it.
QString withoutLog(const QString &message)
{
    const qsizetype log = message.indexOf(QLatin1String("; its log ends:"));
    return log < 0 ? message : message.left(log) + QStringLiteral(" (the member's log is in the console's output)");
}

QString eventKind(Action action)
{
    switch (action) {
    case Action::Stop:
        return QStringLiteral("memberStopped");
    case Action::Kill:
        return QStringLiteral("memberKilled");
    case Action::Pause:
        return QStringLiteral("memberPaused");
    case Action::Resume:
        return QStringLiteral("memberResumed");
    case Action::Restart:
        return QStringLiteral("memberRestarted");
    case Action::NoAction:
        break;
    }
    return {};
}

} // namespace

// Owns the EtcdCluster on the sandbox's thread. EtcdCluster waits in nested event loops, where
// the next job posted here would run inside the one still waiting: jobs go through a queue
// and run one after another, never inside one another.
class SandboxWorker : public QObject
{
public:
    using Member = SandboxMemberModel::Member;

    // On the worker's thread, when a member exited without being asked to.
    std::function<void(quint64 run, const QList<Member> &members)> membersChanged;

    SandboxWorker()
    {
        m_exitCheck.setInterval(ExitCheckInterval);
        QObject::connect(&m_exitCheck, &QTimer::timeout, this, [this] { checkExits(); });
    }

    void enqueue(std::function<void()> job)
    {
        m_jobs.push_back(std::move(job));
        if (m_busy)
            return;  // the loop below, further up the stack, runs it next
        m_busy = true;
        while (!m_jobs.empty()) {
            const std::function<void()> next = std::move(m_jobs.front());
            m_jobs.pop_front();
            next();
        }
        m_busy = false;
    }

    bool startCluster(quint64 run, QString *error)
    {
        QEtcd::Testing::EtcdCluster::Options options;
        options.members = Sandbox::MemberCount;
        m_cluster = std::make_unique<QEtcd::Testing::EtcdCluster>(options);
        if (!m_cluster->start()) {
            qCWarning(lcSandbox).noquote() << "The sandbox did not start:" << m_cluster->errorString();
            *error = withoutLog(m_cluster->errorString());
            m_cluster.reset();  // and its directories
            return false;
        }
        m_run = run;
        m_states = QList<MemberState>(Sandbox::MemberCount, MemberState::Running);
        m_exitCheck.start();
        return true;
    }

    void stopCluster()
    {
        m_exitCheck.stop();
        m_cluster.reset();  // stops every member (a paused one is resumed first), removes the directories
    }

    // False with the reason; signalledMs is when the signal went to the member.
    bool act(Action action, int member, QString *error, qint64 *signalledMs)
    {
        *signalledMs = QEtcd::EventLogModel::monotonicNowMs();
        const MemberState before = m_states[member];
        bool done = false;
        MemberState after = before;
        switch (action) {
        case Action::Stop:
            done = m_cluster->stopMember(member);
            after = MemberState::Stopped;
            break;
        case Action::Kill:
            done = m_cluster->killMember(member);
            after = MemberState::Killed;
            break;
        case Action::Pause:
            done = m_cluster->pauseMember(member);
            after = MemberState::Paused;
            break;
        case Action::Resume:
            done = m_cluster->resumeMember(member);
            after = MemberState::Running;
            break;
        case Action::Restart:
            done = m_cluster->restartMember(member);
            after = MemberState::Running;
            break;
        case Action::NoAction:
            break;
        }
        if (done) {
            m_states[member] = after;
            return true;
        }
        qCWarning(lcSandbox).noquote() << m_cluster->errorString();
        *error = withoutLog(m_cluster->errorString());
        // What the member is now, whatever the failed action left of it.
        if (!m_cluster->isRunning(member))
            m_states[member] = before == MemberState::Stopped || before == MemberState::Killed ? before : MemberState::Exited;
        else if (before != MemberState::Paused || action == Action::Restart)
            m_states[member] = MemberState::Running;
        return false;
    }

    QList<Member> members() const
    {
        QList<Member> members;
        for (int i = 0; m_cluster && i < m_cluster->memberCount(); ++i) {
            members.append({m_cluster->memberName(i), m_cluster->clientUrl(i), m_cluster->clientPort(i),
                            m_cluster->pid(i), m_states[i]});
        }
        return members;
    }

    // The last job: the cluster goes, then the thread.
    void shutDown()
    {
        stopCluster();
        QThread::currentThread()->quit();
    }

private:
    void checkExits()
    {
        // Inside a job the cluster is in the middle of something (a member being restarted is
        // briefly not running): only look between jobs.
        if (m_busy || !m_cluster)
            return;
        bool changed = false;
        for (int i = 0; i < m_cluster->memberCount(); ++i) {
            const bool expected = m_states[i] == MemberState::Running || m_states[i] == MemberState::Paused;
            if (expected && !m_cluster->isRunning(i)) {
                qCWarning(lcSandbox).noquote() << "Sandbox member" << m_cluster->memberName(i)
                                               << "exited on its own; its log ends:\n"
                                               << m_cluster->logTail(i, 20);
                m_states[i] = MemberState::Exited;
                changed = true;
            }
        }
        if (changed)
            membersChanged(m_run, members());
    }

    std::unique_ptr<QEtcd::Testing::EtcdCluster> m_cluster;
    QList<MemberState> m_states;
    quint64 m_run = 0;
    std::deque<std::function<void()>> m_jobs;
    bool m_busy = false;
    QTimer m_exitCheck{this};
};

/*!
    \qmltype Sandbox
    \brief A local 3-member etcd cluster to stop, kill, pause and partition from the console.
*/

Sandbox::Sandbox(QObject *parent)
    : QObject(parent), m_members(new SandboxMemberModel(this)), m_worker(new SandboxWorker)
{
    m_worker->membersChanged = [this](quint64 run, const QList<Member> &members) {
        QMetaObject::invokeMethod(this, [this, run, members] { membersChanged(run, members); });
    };
    m_thread.setObjectName(QStringLiteral("Sandbox"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

Sandbox::~Sandbox()
{
    // The seed's participants let go of what they hold while the members still answer.
    if (m_seed) {
        m_seed->terminate();
        if (!m_seed->waitForFinished(SeedStopMs))
            killProcessGroup(m_seed);
    }
    // etcd's members die with the thread that started them (PR_SET_PDEATHSIG), so that thread
    // ends only after the cluster has stopped them and removed its directories.
    post([](SandboxWorker &worker) { worker.shutDown(); });
    m_thread.wait();
}

QStringList Sandbox::clientUrls() const
{
    QStringList urls;
    for (int i = 0; m_state == Running && i < m_members->count(); ++i)
        urls.append(m_members->member(i).clientUrl);
    return urls;
}

void Sandbox::setEventLog(QEtcd::EventLogModel *eventLog)
{
    if (eventLog == m_eventLog)
        return;
    m_eventLog = eventLog;
    Q_EMIT eventLogChanged();
}

bool Sandbox::start()
{
    if (m_state == Starting || m_state == Running)
        return refuse(tr("The sandbox runs already: stop it before starting it again."));
    const quint64 run = ++m_run;
    setErrorString({});
    setState(Starting);
    post([this, run](SandboxWorker &worker) {
        QString error;
        const bool started = worker.startCluster(run, &error);
        const QList<Member> members = worker.members();
        QMetaObject::invokeMethod(this, [this, run, started, error, members] {
            startFinished(run, started, error, members);
        });
    });
    return true;
}

void Sandbox::startFinished(quint64 run, bool started, const QString &error, const QList<Member> &members)
{
    if (run != m_run)
        return;  // stopped meanwhile
    if (!started) {
        setErrorString(tr("The sandbox did not start: %1").arg(error));
        return setState(Failed);
    }
    m_members->resetMembers(members);
    setState(Running);
}

bool Sandbox::stop()
{
    if (m_state == Stopped)
        return refuse(tr("The sandbox is not running."));
    if (m_state == Stopping)
        return refuse(tr("The sandbox is stopping already."));
    setErrorString({});
    if (m_state == Failed) {
        setState(Stopped);  // a failed start left nothing behind
        return true;
    }
    const quint64 run = ++m_run;
    setState(Stopping);
    post([this, run](SandboxWorker &worker) {
        worker.stopCluster();
        QMetaObject::invokeMethod(this, [this, run] {
            if (run != m_run)
                return;  // started again meanwhile
            m_members->resetMembers({});
            setState(Stopped);
        });
    });
    return true;
}

bool Sandbox::stopMember(int member)
{
    return act(Action::Stop, member);
}

bool Sandbox::killMember(int member)
{
    return act(Action::Kill, member);
}

bool Sandbox::pauseMember(int member)
{
    return act(Action::Pause, member);
}

bool Sandbox::resumeMember(int member)
{
    return act(Action::Resume, member);
}

bool Sandbox::restartMember(int member)
{
    return act(Action::Restart, member);
}

bool Sandbox::act(Action action, int member)
{
    if (m_state != Running)
        return refuse(tr("The sandbox is not running: start it first."));
    if (member < 0 || member >= m_members->count()) {
        return refuse(tr("There is no member %1: the sandbox's members are 0 to %2 (m0 to m%2).")
                          .arg(member)
                          .arg(m_members->count() - 1));
    }
    if (const QString blocked = m_members->blockedReason(member, action); !blocked.isEmpty())
        return refuse(blocked);
    setErrorString({});
    m_members->setAction(member, action);
    post([this, run = m_run, action, member](SandboxWorker &worker) {
        QString error;
        qint64 signalledMs = 0;
        worker.act(action, member, &error, &signalledMs);
        const qint64 finishedMs = QEtcd::EventLogModel::monotonicNowMs();
        const QList<Member> members = worker.members();
        QMetaObject::invokeMethod(this, [this, run, member, action, error, signalledMs, finishedMs, members] {
            actionFinished(run, member, action, error, signalledMs, finishedMs, members);
        });
    });
    return true;
}

void Sandbox::actionFinished(quint64 run, int member, Action action, const QString &error, qint64 signalledMs,
                             qint64 finishedMs, const QList<Member> &members)
{
    if (run != m_run)
        return;  // the cluster it acted on is gone
    m_members->setAction(member, Action::NoAction);
    m_members->updateMembers(members);
    const QString name = m_members->member(member).name;
    if (!error.isEmpty())
        return setErrorString(tr("%1 could not be %2: %3").arg(name, SandboxMemberModel::pastTense(action), error));
    if (m_eventLog) {
        // A restart counts from when the member answers again, the others from the signal.
        m_eventLog->append({action == Action::Restart ? finishedMs : signalledMs, name, eventKind(action), {}, false, {}});
    }
}

void Sandbox::membersChanged(quint64 run, const QList<Member> &members)
{
    if (run == m_run && m_state == Running)
        m_members->updateMembers(members);
}

FaultLink *Sandbox::createLink(const QString &participantName)
{
    if (participantName.isEmpty()) {
        refuse(tr("A fault link needs the name of the participant it carries."));
        return nullptr;
    }
    for (FaultLink *link : std::as_const(m_links)) {
        if (link->name() == participantName)
            return link;
    }
    auto *link = new FaultLink(participantName, memberPorts(), this);
    QQmlEngine::setObjectOwnership(link, QQmlEngine::CppOwnership);
    m_links.append(link);
    return link;
}

QList<quint16> Sandbox::memberPorts() const
{
    QList<quint16> ports;
    for (int i = 0; m_state == Running && i < m_members->count(); ++i)
        ports.append(m_members->member(i).clientPort);
    return ports;
}

void Sandbox::post(std::function<void(SandboxWorker &)> job)
{
    SandboxWorker *worker = m_worker;
    QMetaObject::invokeMethod(worker, [worker, job = std::move(job)] { worker->enqueue([worker, job] { job(*worker); }); });
}

bool Sandbox::refuse(const QString &reason)
{
    qCWarning(lcSandbox).noquote() << "Sandbox:" << reason;
    setErrorString(reason);
    return false;
}

void Sandbox::setState(State state)
{
    if (state == m_state)
        return;
    const bool wasRunning = m_state == Running;
    m_state = state;
    if (wasRunning != (state == Running)) {
        const QList<quint16> ports = memberPorts();
        for (FaultLink *link : std::as_const(m_links))
            link->follow(ports);
        Q_EMIT clientUrlsChanged();
        if (state == Running)
            startSeed();
        else
            stopSeed();
    }
    Q_EMIT stateChanged();
}

void Sandbox::setSeedProgram(const QString &program)
{
    if (program == m_seedProgram)
        return;
    m_seedProgram = program;
    Q_EMIT seedProgramChanged();
}

void Sandbox::startSeed()
{
    if (m_seedProgram.isEmpty())
        return;
    m_seed = new QProcess(this);
    // What the seed says goes where the console's own messages go; on its standard output only
    // a line "ready" means something.
    m_seed->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_seed->setChildProcessModifier([] { ::setpgid(0, 0); });
    QProcess *seed = m_seed;
    connect(seed, &QProcess::errorOccurred, this, [this, seed](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            setErrorString(tr("The sandbox's seed program %1 did not start: %2").arg(m_seedProgram, seed->errorString()));
    });
    connect(seed, &QProcess::readyReadStandardOutput, this, [this, seed] {
        while (seed->canReadLine()) {
            if (seed->readLine().trimmed() == "ready" && seed == m_seed)
                setSeedReady(true);
        }
    });
    connect(seed, &QProcess::finished, this, [this, seed](int exitCode, QProcess::ExitStatus status) {
        if (seed != m_seed)
            return;  // stopped with the sandbox
        if (status != QProcess::NormalExit || exitCode != 0)
            setErrorString(tr("The sandbox's seed program %1 ended with %2; what it said is on the console's standard error.")
                               .arg(m_seedProgram,
                                    status == QProcess::NormalExit ? tr("exit code %1").arg(exitCode) : tr("a crash")));
    });
    seed->start(m_seedProgram, {clientUrls().join(QLatin1Char(','))});
}

void Sandbox::setSeedReady(bool ready)
{
    if (ready == m_seedReady)
        return;
    m_seedReady = ready;
    Q_EMIT seedReadyChanged();
}

void Sandbox::stopSeed()
{
    setSeedReady(false);
    if (!m_seed)
        return;
    stopProcess(std::exchange(m_seed, nullptr), std::chrono::milliseconds(SeedStopMs), killProcessGroup);
}

void Sandbox::setErrorString(const QString &errorString)
{
    if (errorString == m_errorString)
        return;
    m_errorString = errorString;
    Q_EMIT errorStringChanged();
}
