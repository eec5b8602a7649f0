// SPDX-License-Identifier: Apache-2.0
#include "scenario.h"

#include "sandbox.h"
#include "scenarioscripts.h"

#include <barrierparticipant.h>
#include <clustermodel.h>
#include <electionparticipant.h>
#include <etcdclientitem.h>
#include <eventlogmodel.h>
#include <mutexparticipant.h>
#include <serviceregistrationparticipant.h>

using namespace std::chrono;
using namespace QEtcd;

// A participant of the scenario: its own client through its own fault link, and its recipes.
struct Scenario::Actor
{
    QPointer<FaultLink> link;
    std::unique_ptr<EtcdClientItem> client;
    std::vector<std::unique_ptr<RecipeParticipant>> recipes;  // destroyed before the client
};

Scenario::Scenario(QObject *parent) : QObject(parent)
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &Scenario::check);
    m_pause.setSingleShot(true);
    m_pause.setInterval(1000);
    connect(&m_pause, &QTimer::timeout, this, &Scenario::next);
}

Scenario::~Scenario()
{
    stop();
}

QStringList Scenario::names()
{
    return ScenarioScripts::names();
}

QString Scenario::titleOf(const QString &name)
{
    std::vector<Step> unused;
    return ScenarioScripts::write(name, this, &unused);
}

void Scenario::setName(const QString &name)
{
    if (m_name == name)
        return;
    stop();
    m_name = name;
    m_steps.clear();
    m_conclusion = nullptr;
    m_title = ScenarioScripts::write(name, this, &m_steps);
    Q_EMIT nameChanged();
}

void Scenario::setSandbox(Sandbox *sandbox)
{
    if (m_sandbox == sandbox)
        return;
    m_sandbox = sandbox;
    Q_EMIT sandboxChanged();
}

Client *Scenario::client() const { return m_client.get(); }
ClusterModel *Scenario::cluster() const { return m_cluster; }
EventLogModel *Scenario::eventLog() const { return m_eventLog; }

void Scenario::setCluster(ClusterModel *cluster)
{
    if (m_cluster == cluster)
        return;
    m_cluster = cluster;
    Q_EMIT clusterChanged();
}

void Scenario::setEventLog(EventLogModel *log)
{
    if (m_eventLog == log)
        return;
    if (m_eventLog)
        disconnect(m_eventLog, nullptr, this, nullptr);
    m_eventLog = log;
    // A waiting step looks again whenever the log changes (at most once a frame).
    if (log)
        connect(log, &EventLogModel::eventsChanged, this, &Scenario::check);
    Q_EMIT eventLogChanged();
}

void Scenario::setAutoplay(bool autoplay)
{
    if (m_autoplay == autoplay)
        return;
    m_autoplay = autoplay;
    Q_EMIT autoplayChanged();
    if (autoplay && m_state == State::Ready)
        m_pause.start();
}

QString Scenario::narration() const
{
    if (m_state == State::Finished)
        return m_conclusion ? m_conclusion() : tr("The scenario is over.");
    return m_step >= 0 && m_step < stepCount() ? m_steps[m_step].narration : QString();
}

QString Scenario::awaiting() const
{
    return m_state == State::Acting ? m_steps[m_step].expect.says : QString();
}

bool Scenario::start()
{
    stop();
    QString problem;
    if (m_steps.empty())
        problem = tr("there is no scenario called \"%1\"; there are %2").arg(m_name, names().join(QLatin1String(", ")));
    else if (!m_sandbox || m_sandbox->state() != Sandbox::Running)
        problem = tr("scenarios run on the sandbox, and it is not running: start it first");
    else if (!m_eventLog)
        problem = tr("the scenario has no event log to write to");
    if (!problem.isEmpty()) {
        m_error = problem;
        setState(State::Failed);
        return false;
    }
    m_error.clear();
    m_eventLog->clear();  // a fresh timeline: the events of this run, in its order
    m_etcdSide.setEventLog(m_eventLog);
    m_etcdSide.setPrefix(prefix());
    m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_sandbox->clientUrls()));
    m_etcdSide.setClient(m_client.get());
    m_matches.assign(m_steps.size(), Match());
    m_matchedAt.assign(m_steps.size(), -1);
    m_step = 0;
    runStep();
    return true;
}

void Scenario::next()
{
    m_pause.stop();
    if (m_state != State::Ready)
        return;
    ++m_step;
    runStep();
}

void Scenario::stop()
{
    m_deadline.stop();
    m_pause.stop();
    m_actors.clear();  // closes every recipe: holds released, registrations withdrawn
    m_etcdSide.setClient(nullptr);
    m_client.reset();
    if (m_state != State::Idle) {
        m_step = -1;
        setState(State::Idle);
    }
}

void Scenario::runStep()
{
    if (m_step >= stepCount()) {
        setState(State::Finished);
        m_eventLog->append(QStringLiteral("scenario"), QStringLiteral("step"), narration());
        Q_EMIT finished(true, narration());
        return;
    }
    const Step &step = m_steps[m_step];
    m_eventLog->append(QStringLiteral("scenario"), QStringLiteral("step"), step.narration);
    setState(State::Acting);
    if (step.act)
        step.act();
    m_deadline.start(step.expect.within);
    check();
}

void Scenario::check()
{
    if (m_state != State::Acting || !m_eventLog)
        return;
    const Expectation &expect = m_steps[m_step].expect;
    const QList<EventLogModel::Event> events = m_eventLog->events();
    const bool quiet = !expect.forbidden.isEmpty();
    const int cause = expect.after >= 0 ? expect.after : m_step - 1;
    const qsizetype from = cause >= 0 ? m_matchedAt[cause] + 1 : 0;
    for (qsizetype i = from; i < events.size(); ++i) {
        const EventLogModel::Event &event = events[i];
        if (!expect.participant.isEmpty() && event.participant != expect.participant)
            continue;
        if (quiet) {
            if (expect.forbidden.contains(event.kind))
                return fail(tr("%1 %2 (%3), which must not happen").arg(event.participant, event.kind, event.detail));
            continue;
        }
        if (event.kind != expect.kind || (!expect.detail.isEmpty() && event.detail != expect.detail)
            || (expect.spurious && event.spurious != *expect.spurious) || (expect.key && event.key != expect.key()))
            continue;
        m_matchedAt[m_step] = i;
        return matched({event.key, event.monotonicMs});
    }
    if (m_deadline.isActive())
        return;
    if (quiet) {
        m_matchedAt[m_step] = events.size() - 1;
        return matched({QString(), EventLogModel::monotonicNowMs()});
    }
    fail(tr("%1 did not happen within %2 s").arg(expect.says).arg(duration<double>(expect.within).count()));
}

void Scenario::matched(const Match &match)
{
    m_deadline.stop();
    m_matches[m_step] = match;
    setState(State::Ready);
    if (m_autoplay || m_step + 1 == stepCount())
        m_pause.start();
}

void Scenario::fail(const QString &why)
{
    m_deadline.stop();
    m_error = tr("step %1 of %2 (%3): %4").arg(m_step + 1).arg(stepCount()).arg(m_steps[m_step].narration, why);
    m_eventLog->append(QStringLiteral("scenario"), QStringLiteral("stepFailed"), m_error);
    setState(State::Failed);
    Q_EMIT finished(false, m_error);
}

void Scenario::setState(State state)
{
    m_state = state;
    Q_EMIT progressChanged();
}

QString Scenario::matchedKey(int step) const
{
    return step >= 0 && step < int(m_matches.size()) ? m_matches[step].key : QString();
}

qint64 Scenario::matchedTime(int step) const
{
    return step >= 0 && step < int(m_matches.size()) ? m_matches[step].monotonicMs : 0;
}

int Scenario::memberIndex(const QString &memberName)
{
    // The sandbox names its members m0, m1, m2.
    bool isNumber = false;
    const int index = memberName.startsWith(QLatin1Char('m')) ? memberName.mid(1).toInt(&isNumber) : -1;
    return isNumber ? index : -1;
}

Scenario::Actor &Scenario::actor(const QString &name)
{
    std::unique_ptr<Actor> &actor = m_actors[name];
    if (!actor) {
        actor = std::make_unique<Actor>();
        actor->link = m_sandbox->createLink(name);
        if (actor->link->mode() != FaultLink::Pass)
            actor->link->pass();  // a link left cut off by an earlier run
        actor->client = std::make_unique<EtcdClientItem>();
        actor->client->classBegin();
        actor->client->setEndpoints(actor->link->endpoints());
        actor->client->componentComplete();
    }
    return *actor;
}

FaultLink *Scenario::linkOf(const QString &participantName)
{
    return actor(participantName).link;
}

template <class Participant>
Participant *Scenario::recipe(const QString &participantName, const QString &path, int ttlSeconds)
{
    Actor &owner = actor(participantName);
    for (const auto &recipe : owner.recipes) {
        if (auto *found = qobject_cast<Participant *>(recipe.get()))
            return found;
    }
    auto *participant = new Participant;
    owner.recipes.emplace_back(participant);
    participant->setParticipantName(participantName);
    participant->setEventLog(m_eventLog);
    participant->setClientId(participantName);
    participant->setClient(owner.client.get());
    participant->setPath(path);
    participant->setTtl(ttlSeconds);
    Q_EMIT participantCreated(participantName, participant);
    return participant;
}

MutexParticipant *Scenario::mutex(const QString &participantName, const QString &path, int ttlSeconds)
{
    return recipe<MutexParticipant>(participantName, path, ttlSeconds);
}

BarrierParticipant *Scenario::barrier(const QString &participantName, const QString &path, int ttlSeconds)
{
    return recipe<BarrierParticipant>(participantName, path, ttlSeconds);
}

ElectionParticipant *Scenario::election(const QString &participantName, const QString &path, int ttlSeconds)
{
    return recipe<ElectionParticipant>(participantName, path, ttlSeconds);
}

ServiceRegistrationParticipant *Scenario::service(const QString &participantName, const QString &path, int ttlSeconds)
{
    return recipe<ServiceRegistrationParticipant>(participantName, path, ttlSeconds);
}
