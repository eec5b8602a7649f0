// SPDX-License-Identifier: Apache-2.0
#include "scenario.h"

#include "continuation_p.h"
#include "sandbox.h"

#include <clustermodel.h>
#include <coordinationactions.h>
#include <etcdclientitem.h>
#include <eventlogmodel.h>

#include <QEtcd/coordinationrecogniser.h>

#include <algorithm>
#include <array>

using namespace std::chrono;
using namespace QEtcd;

// A participant of the scenario: its own client through its own fault link, and its recipe.
struct Scenario::Actor
{
    QPointer<FaultLink> link;
    std::unique_ptr<EtcdClientItem> client;
    std::unique_ptr<RecipeParticipant> recipe;  // destroyed before the client
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
    return Story::builtInNames();
}

QString Scenario::titleOf(const QString &name)
{
    static QHash<QString, QString> titles;  // the built-ins', read once
    if (const auto known = titles.constFind(name); known != titles.cend())
        return *known;
    QString unused;
    const std::optional<Story> story = Story::read(Story::fileOf(name), &unused);
    const QString title = story ? story->title : QString();
    if (Story::builtInNames().contains(name))
        titles.insert(name, title);
    return title;
}

void Scenario::setName(const QString &name)
{
    if (m_name == name)
        return;
    stop();
    m_name = name;
    m_story = Story();
    m_loadError.clear();
    if (!name.isEmpty()) {
        if (std::optional<Story> story = Story::read(Story::fileOf(name), &m_loadError))
            m_story = std::move(*story);
    }
    Q_EMIT nameChanged();
    m_error = m_loadError;
    setState(m_loadError.isEmpty() ? State::Idle : State::Failed);
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
        return m_story.conclusion.isEmpty() ? tr("The scenario is over.")
                                            : m_story.concludedWith([this](int step) { return m_matches[step].monotonicMs; });
    return m_step >= 0 && m_step < stepCount() ? m_story.steps[m_step].narration : QString();
}

QString Scenario::awaiting() const
{
    return m_state == State::Acting ? m_story.steps[m_step].await.says : QString();
}

bool Scenario::start()
{
    stop();
    QString problem;
    if (!m_loadError.isEmpty())
        problem = m_loadError;
    else if (m_story.steps.empty())
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
    m_etcdSide.setPrefix(Story::prefix());
    m_client = std::make_unique<Client>(ClientOptions::fromEndpoints(m_sandbox->clientUrls()));
    m_etcdSide.setClient(m_client.get());
    m_matches.assign(m_story.steps.size(), Match());
    m_matchedAt.assign(m_story.steps.size(), -1);
    m_step = 0;
    runStep();
    return true;
}

std::optional<qint64> Scenario::momentOf(int step) const
{
    if (step < 0 || step >= int(m_matchedAt.size()) || m_matchedAt[step] < 0)
        return std::nullopt;
    return m_matches[step].monotonicMs;
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
    const Story::Step &step = m_story.steps[m_step];
    m_eventLog->append(QStringLiteral("scenario"), QStringLiteral("step"), step.narration);
    setState(State::Acting);
    if (step.action)
        act(*step.action);
    m_deadline.start(step.await.within);
    check();
}

void Scenario::check()
{
    if (m_state != State::Acting || !m_eventLog)
        return;
    const Story::Await &expect = m_story.steps[m_step].await;
    const QList<EventLogModel::Event> events = m_eventLog->events();
    const bool quiet = expect.quiet;
    const QString key = keyOf(expect.key, expect.keyOf);
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
            || (expect.spurious && event.spurious != *expect.spurious) || (!key.isEmpty() && event.key != key))
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
    m_error = tr("step %1 of %2 (%3): %4").arg(m_step + 1).arg(stepCount()).arg(m_story.steps[m_step].narration, why);
    m_eventLog->append(QStringLiteral("scenario"), QStringLiteral("stepFailed"), m_error);
    setState(State::Failed);
    Q_EMIT finished(false, m_error);
}

void Scenario::setState(State state)
{
    m_state = state;
    Q_EMIT progressChanged();
}

// The key given, or that of the event step matched.
QString Scenario::keyOf(const QString &key, int step) const
{
    return step >= 0 && step < int(m_matches.size()) ? m_matches[step].key : key;
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

// A step's action, as the console's own controls would do it.
void Scenario::act(const Story::Action &action)
{
    using Kind = Story::Action::Kind;
    switch (action.kind) {
    case Kind::Call: return call(action);
    case Kind::Fault: {
        FaultLink *link = actor(action.participant).link;
        if (action.fault == QLatin1String("blackhole"))
            link->blackhole();
        else if (action.fault == QLatin1String("delay"))
            link->delay(action.delayMs);
        else if (action.fault == QLatin1String("reset"))
            link->reset();
        else
            link->pass();
        return;
    }
    case Kind::Member: return actOnMember(action.member, action.memberAction);
    case Kind::Put:
        if (m_client)
            m_client->put(keyOf(action.key, action.keyOf).toUtf8(), action.value.toUtf8());
        return;
    case Kind::Read: return read(keyOf(action.key, action.keyOf));
    case Kind::Intervene: return intervene(action.intervention, action.path);
    }
}

// The participant's recipe, made on first use with the story's settings, then the method the
// story names; the story was checked when read, so the method is there and takes the arguments.
void Scenario::call(const Story::Action &action)
{
    Actor &owner = actor(action.participant);
    if (!owner.recipe) {
        const Story::Participant &spec = *m_story.participant(action.participant);
        owner.recipe = Story::makeRecipe(spec);
        RecipeParticipant *participant = owner.recipe.get();
        participant->setParticipantName(spec.name);
        participant->setEventLog(m_eventLog);
        participant->setClientId(spec.name);
        participant->setClient(owner.client.get());
        participant->setPath(spec.path);
        participant->setTtl(spec.ttlSeconds);
        for (auto option = spec.options.cbegin(); option != spec.options.cend(); ++option)
            participant->setProperty(option.key().toLatin1().constData(), option.value());
        Q_EMIT participantCreated(spec.name, participant);
    }
    const QMetaMethod method = Story::methodOf(owner.recipe.get(), action);
    QVariantList arguments = action.arguments;
    std::array<QGenericArgument, 3> passed;
    for (int i = 0; i < method.parameterCount(); ++i) {
        arguments[i].convert(method.parameterMetaType(i));
        passed[i] = QGenericArgument(method.parameterMetaType(i).name(), arguments[i].constData());
    }
    method.invoke(owner.recipe.get(), Qt::DirectConnection, passed[0], passed[1], passed[2]);
}

void Scenario::actOnMember(const QString &member, const QString &memberAction)
{
    if (!m_sandbox)
        return;
    const QString name = member == QLatin1String("leader") ? (m_cluster ? m_cluster->leaderName() : QString()) : member;
    // The sandbox names its members m0, m1, m2.
    bool isNumber = false;
    const int index = name.startsWith(QLatin1Char('m')) ? name.mid(1).toInt(&isNumber) : -1;
    static const QHash<QString, bool (Sandbox::*)(int)> actions{
        {QStringLiteral("stop"), &Sandbox::stopMember},       {QStringLiteral("kill"), &Sandbox::killMember},
        {QStringLiteral("pause"), &Sandbox::pauseMember},     {QStringLiteral("resume"), &Sandbox::resumeMember},
        {QStringLiteral("restart"), &Sandbox::restartMember},
    };
    (m_sandbox->*actions.value(memberAction))(isNumber ? index : -1);
}

// What etcd holds under key, read through the scenario's own client and logged as etcd's
// "keyRead" with the value (or why there is none) as its detail: the story's end state, checked.
void Scenario::read(const QString &key)
{
    if (!m_client)
        return;
    Internal::thenOn(m_client->get(key.toUtf8()), this, [this, key](const RangeResult &read) {
        const QString found = !read.status ? tr("not read: %1").arg(read.status.message())
                            : read.kvs.isEmpty() ? tr("no such key")
                                                 : QString::fromUtf8(read.kvs.constFirst().value);
        if (m_eventLog)
            m_eventLog->append(QStringLiteral("etcd"), QStringLiteral("keyRead"), found, false, key);
    });
}

// An operator's intervention on the object at path, as its card on the Coordination page does
// it: the object as the page recognises it, the entry the card would offer first (the holder,
// the leader, the barrier's owner), then CoordinationActions, which logs what it did.
void Scenario::intervene(const QString &intervention, const QString &path)
{
    if (!m_client)
        return;
    RangeOptions everyKey;
    everyKey.range = KeyRange::prefix();
    Internal::thenOn(m_client->get(path.toUtf8(), everyKey), this, [this, intervention, path](const RangeResult &read) {
        const QList<CoordinationObject> objects = read.status ? CoordinationRecogniser::recognise(read.kvs)
                                                              : QList<CoordinationObject>();
        const auto object = std::find_if(objects.cbegin(), objects.cend(), [&path](const CoordinationObject &object) {
            return object.path == path.toUtf8() && !object.holders.isEmpty();
        });
        if (object == objects.cend()) {
            if (m_eventLog)
                m_eventLog->append(QStringLiteral("operator"), QStringLiteral("interventionFailed"),
                                   tr("%1: nothing at %2 that the Coordination page could act on").arg(intervention, path));
            return;
        }
        static const QHash<QString, CoordinationActions::Action> actions{
            {QStringLiteral("breakHold"), CoordinationActions::Action::BreakHold},
            {QStringLiteral("removeEntry"), CoordinationActions::Action::RemoveEntry},
            {QStringLiteral("liftBarrier"), CoordinationActions::Action::LiftBarrier},
            {QStringLiteral("forceReelection"), CoordinationActions::Action::ForceReelection},
            {QStringLiteral("releaseRound"), CoordinationActions::Action::ReleaseRound},
        };
        auto *operatorActions = new CoordinationActions(this);
        operatorActions->setClient(m_client.get());
        operatorActions->setEventLog(m_eventLog);
        connect(operatorActions, &CoordinationActions::finished, operatorActions, &QObject::deleteLater);
        operatorActions->run(actions.value(intervention), path, object->holders.first());
    });
}
