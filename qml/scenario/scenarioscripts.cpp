// SPDX-License-Identifier: Apache-2.0
#include "scenarioscripts.h"

#include "continuation_p.h"
#include "sandbox.h"

#include <barrierparticipant.h>
#include <clustermodel.h>
#include <coordinationactions.h>
#include <electionparticipant.h>
#include <mutexparticipant.h>
#include <serviceregistrationparticipant.h>

#include <QEtcd/client.h>
#include <QEtcd/coordinationrecogniser.h>

#include <QtCore/QCoreApplication>

using namespace std::chrono;
using namespace QEtcd;
using Step = Scenario::Step;
using Expectation = Scenario::Expectation;

namespace ScenarioScripts {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("Scenario", text);
}

// The lease every scenario's participants use: short, so a partition shows within seconds.
constexpr int Ttl = 3;

Expectation event(const QString &participant, const QString &kind, const QString &says)
{
    Expectation expect;
    expect.participant = participant;
    expect.kind = kind;
    expect.says = says;
    return expect;
}

Expectation fault(const QString &participant, const QString &mode)
{
    Expectation expect = event(participant, QStringLiteral("fault"), tr("%1's link to %2").arg(participant, mode));
    expect.detail = mode;
    return expect;
}

// etcd's own view of the key a step matched (deleted or put back).
Expectation etcdSees(const QString &kind, Scenario *scenario, int keyStep, const QString &says)
{
    Expectation expect = event(QStringLiteral("etcd"), kind, says);
    expect.key = [scenario, keyStep] { return scenario->matchedKey(keyStep); };
    return expect;
}

// What etcd holds under key, read through the scenario's own client and logged as etcd's
// "keyRead" with the value (or why there is none) as its detail: the story's end state, checked.
void readBack(Scenario *scenario, const QString &key)
{
    if (!scenario->client())
        return;
    Internal::thenOn(scenario->client()->get(key.toUtf8()), scenario, [scenario, key](const RangeResult &read) {
        const QString found = !read.status ? tr("not read: %1").arg(read.status.message())
                            : read.kvs.isEmpty() ? tr("no such key")
                                                 : QString::fromUtf8(read.kvs.constFirst().value);
        if (scenario->eventLog())
            scenario->eventLog()->append(QStringLiteral("etcd"), QStringLiteral("keyRead"), found, false, key);
    });
}

QString secondsText(qint64 ms)
{
    return QString::number(double(ms) / 1000.0, 'f', 2);
}

// A locks, B waits; A is cut off and told of its loss before etcd lets B in; A's unlock() after
// the heal says false.
QString lockPartition(Scenario *s, std::vector<Step> *steps)
{
    const QString lock = QStringLiteral("/demo/lock");
    Expectation bAcquires = event(QStringLiteral("B"), QStringLiteral("acquired"), tr("B acquires the lock"));
    bAcquires.after = 4;  // A lost: etcd's deletion and B's acquisition reach the log in either order
    *steps = {
        {tr("A takes the lock /demo/lock, on a lease of 3 s that it keeps renewing."),
         [s, lock] { s->mutex(QStringLiteral("A"), lock, Ttl)->lock(); },
         event(QStringLiteral("A"), QStringLiteral("acquired"), tr("A acquires the lock"))},
        {tr("B asks for the same lock and queues behind A."),
         [s, lock] { s->mutex(QStringLiteral("B"), lock, Ttl)->lock(); },
         event(QStringLiteral("B"), QStringLiteral("pending"), tr("B waits"))},
        {tr("A is cut off from every member: its link swallows all traffic, both ways."),
         [s] { s->linkOf(QStringLiteral("A"))->blackhole(); }, fault(QStringLiteral("A"), QStringLiteral("blackhole"))},
        {tr("A's keep-alives go unanswered: its lease is suspended. A still holds the lock, on its own clock."),
         nullptr, event(QStringLiteral("A"), QStringLiteral("leaseSuspended"), tr("A's lease is suspended"))},
        {tr("A's clock reaches the loss deadline, set from when its last renewal was sent: A is told it lost the lock."),
         nullptr, event(QStringLiteral("A"), QStringLiteral("lost"), tr("A is told it lost the lock"))},
        {tr("etcd's own clock runs out later: it expires A's lease and deletes A's key."), nullptr,
         etcdSees(QStringLiteral("keyDeleted"), s, 0, tr("etcd deletes A's key"))},
        {tr("B is next in line: it acquires the lock."), nullptr, bAcquires},
        {tr("A's link heals."), [s] { s->linkOf(QStringLiteral("A"))->pass(); },
         fault(QStringLiteral("A"), QStringLiteral("pass"))},
        {tr("A calls unlock(): it says false. The hold was lost, and A was told so."),
         [s, lock] { s->mutex(QStringLiteral("A"), lock, Ttl)->unlock(); },
         event(QStringLiteral("A"), QStringLiteral("releaseFailed"), tr("A's unlock() says false"))},
    };
    s->setConclusion([s] {
        return tr("A knew it had lost the lock %1 s before etcd deleted its key and let B in.")
            .arg(secondsText(s->matchedTime(5) - s->matchedTime(4)));
    });
    return tr("A lock holder is partitioned");
}

// The barrier's owner is cut off past its TTL: the waiter passes and is told the lift was
// spurious; the owner heals and sets the barrier again.
QString spuriousBarrier(Scenario *s, std::vector<Step> *steps)
{
    const QString gate = QStringLiteral("/demo/gate");
    Expectation lifted = event(QStringLiteral("B"), QStringLiteral("barrierLifted"), tr("B passes, told the lift was spurious"));
    lifted.spurious = true;
    lifted.after = 2;  // A cut off: etcd's deletion and B's lift reach the log in either order
    Expectation rearmed = etcdSees(QStringLiteral("keyPut"), s, 0, tr("etcd has the barrier's key again"));
    rearmed.after = 5;  // the heal: the new lease and the key it re-establishes arrive together
    *steps = {
        {tr("A sets the barrier /demo/gate on a lease of 3 s."),
         [s, gate] { s->barrier(QStringLiteral("A"), gate, Ttl)->set(); },
         event(QStringLiteral("A"), QStringLiteral("barrierSet"), tr("A sets the barrier"))},
        {tr("B waits at the barrier."), [s, gate] { s->barrier(QStringLiteral("B"), gate, Ttl)->wait(); },
         event(QStringLiteral("B"), QStringLiteral("pending"), tr("B waits"))},
        {tr("A is cut off from every member."), [s] { s->linkOf(QStringLiteral("A"))->blackhole(); },
         fault(QStringLiteral("A"), QStringLiteral("blackhole"))},
        {tr("A's lease expires in etcd, and the barrier's key goes with it. Nobody removed the barrier."), nullptr,
         etcdSees(QStringLiteral("keyDeleted"), s, 0, tr("etcd deletes the barrier's key"))},
        {tr("B passes the barrier, and is told the lift was spurious: its owner's lease expired."), nullptr, lifted},
        {tr("A's link heals."), [s] { s->linkOf(QStringLiteral("A"))->pass(); },
         fault(QStringLiteral("A"), QStringLiteral("pass"))},
        {tr("A grants itself a new lease…"), nullptr,
         event(QStringLiteral("A"), QStringLiteral("leaseRestored"), tr("A's lease is restored"))},
        {tr("…and sets the barrier again by compare-and-set, since nobody else holds its key."), nullptr, rearmed},
    };
    s->setConclusion([] { return tr("B passed a barrier nobody removed, and was told so; A set it again on healing."); });
    return tr("A barrier is lifted spuriously");
}

// A registration expires during a partition and comes back by compare-and-set; cut off again,
// it finds its key taken by someone else and does not overwrite it.
QString registrationHeal(Scenario *s, std::vector<Step> *steps)
{
    const QString services = QStringLiteral("/demo/services");
    const auto registry = [s, services] {
        ServiceRegistrationParticipant *service = s->service(QStringLiteral("A"), services, Ttl);
        service->setName(QStringLiteral("api"));
        service->setAddress(QStringLiteral("10.0.0.7"));
        service->setPort(8080);
        return service;
    };
    const QString operatorValue = QStringLiteral("{\"owner\":\"operator\"}");
    Expectation kept = etcdSees(QStringLiteral("keyRead"), s, 0, tr("etcd still has the operator's value"));
    kept.detail = operatorValue;
    *steps = {
        {tr("A registers an instance of the service \"api\" at 10.0.0.7:8080, on a lease of 3 s."),
         [registry] { registry()->registerService(); },
         event(QStringLiteral("A"), QStringLiteral("registered"), tr("A's instance is registered"))},
        {tr("A is cut off from every member."), [s] { s->linkOf(QStringLiteral("A"))->blackhole(); },
         fault(QStringLiteral("A"), QStringLiteral("blackhole"))},
        {tr("A's lease expires in etcd, and the instance disappears from the registry."), nullptr,
         etcdSees(QStringLiteral("keyDeleted"), s, 0, tr("etcd deletes A's instance"))},
        {tr("A's link heals."), [s] { s->linkOf(QStringLiteral("A"))->pass(); },
         fault(QStringLiteral("A"), QStringLiteral("pass"))},
        {tr("A grants itself a new lease and puts the instance back, by compare-and-set."), nullptr,
         etcdSees(QStringLiteral("keyPut"), s, 0, tr("etcd has A's instance again"))},
        {tr("A is cut off again, and its instance expires again."), [s] { s->linkOf(QStringLiteral("A"))->blackhole(); },
         etcdSees(QStringLiteral("keyDeleted"), s, 0, tr("etcd deletes A's instance"))},
        {tr("Meanwhile an operator puts another owner's value under the instance's key."),
         [s, operatorValue] {
             if (s->client())
                 s->client()->put(s->matchedKey(0).toUtf8(), operatorValue.toUtf8());
         },
         etcdSees(QStringLiteral("keyPut"), s, 0, tr("etcd has the operator's value"))},
        {tr("A's link heals. Its compare-and-set finds the key taken, and A gives up rather than overwrite it."),
         [s] { s->linkOf(QStringLiteral("A"))->pass(); },
         event(QStringLiteral("A"), QStringLiteral("leaseFailed"), tr("A gives its registration up"))},
        {tr("etcd still holds the operator's value under the instance's key: A's heal did not touch it."),
         [s] { readBack(s, s->matchedKey(0)); }, kept},
    };
    s->setConclusion([] {
        return tr("A's registration healed by compare-and-set, and gave way to another owner's key instead of overwriting it.");
    });
    return tr("A registration heals");
}

// An operator lifts the barrier at path as the Coordination page's Lift button does: the
// barrier as the page recognises it, then CoordinationActions, which logs what it did.
void liftAsOperator(Scenario *s, const QString &path)
{
    if (!s->client())
        return;
    Internal::thenOn(s->client()->get(path.toUtf8()), s, [s, path](const RangeResult &read) {
        const QList<CoordinationObject> objects = CoordinationRecogniser::recognise(read.kvs);
        if (!read.status || objects.isEmpty() || objects.first().kind != CoordinationObject::Kind::Barrier) {
            if (s->eventLog())
                s->eventLog()->append(QStringLiteral("operator"), QStringLiteral("interventionFailed"),
                                      tr("no barrier to lift at %1").arg(path));
            return;
        }
        auto *actions = new CoordinationActions(s);
        actions->setClient(s->client());
        actions->setEventLog(s->eventLog());
        QObject::connect(actions, &CoordinationActions::finished, actions, &QObject::deleteLater);
        actions->run(CoordinationActions::Action::LiftBarrier, path, objects.first().holders.first());
    });
}

// The deploy's gate stays up because its owner hangs with its lease alive; an operator lifts it
// from the console, the waiting jobs go on, and the owner is told instead of setting it again.
QString operatorUnsticksADeploy(Scenario *s, std::vector<Step> *steps)
{
    const QString gate = QStringLiteral("/demo/deploy-gate");
    Expectation stuck;
    stuck.forbidden = {QStringLiteral("barrierLifted"), QStringLiteral("leaseExpired")};
    stuck.within = seconds(2 * Ttl);
    stuck.says = tr("nothing moves for two lease TTLs: the hung deployer still renews its lease");
    const auto passes = [](const QString &job) {
        Expectation lifted = event(job, QStringLiteral("barrierLifted"), tr("%1 goes on").arg(job));
        lifted.spurious = false;
        // The jobs and the owner hear of the deletion through their watches, the operator from
        // its answer: in any order, all after the hang.
        lifted.after = 3;
        return lifted;
    };
    Expectation told = event(QStringLiteral("deployer"), QStringLiteral("removedByOther"),
                             tr("the deployer is told someone else lifted its barrier"));
    told.after = 3;
    *steps = {
        {tr("The deployer sets the barrier /demo/deploy-gate, on a lease of 3 s, and starts rolling out."),
         [s, gate] { s->barrier(QStringLiteral("deployer"), gate, Ttl)->set(); },
         event(QStringLiteral("deployer"), QStringLiteral("barrierSet"), tr("the deployer sets the barrier"))},
        {tr("job-1 waits at the barrier for the deploy to finish."),
         [s, gate] { s->barrier(QStringLiteral("job-1"), gate, Ttl)->wait(); },
         event(QStringLiteral("job-1"), QStringLiteral("pending"), tr("job-1 waits"))},
        {tr("job-2 waits too."), [s, gate] { s->barrier(QStringLiteral("job-2"), gate, Ttl)->wait(); },
         event(QStringLiteral("job-2"), QStringLiteral("pending"), tr("job-2 waits"))},
        {tr("The deploy hangs. Its process still renews its lease, so etcd keeps the barrier up, and the jobs wait on."),
         nullptr, stuck},
        {tr("An operator finds the barrier on the Coordination page and lifts it: its key is deleted."),
         [s, gate] { liftAsOperator(s, gate); },
         event(QStringLiteral("operator"), QStringLiteral("intervention"), tr("the operator lifts the barrier"))},
        {tr("job-1 goes on: the barrier was deleted, not lost with an expired lease."), nullptr,
         passes(QStringLiteral("job-1"))},
        {tr("job-2 goes on as well."), nullptr, passes(QStringLiteral("job-2"))},
        {tr("The deployer is told its barrier was lifted by someone else, and does not set it again."), nullptr, told},
    };
    s->setConclusion([s] {
        return tr("The jobs waited %1 s on a hung deploy; the operator's lift released them, and the deployer was told.")
            .arg(secondsText(s->matchedTime(4) - s->matchedTime(2)));
    });
    return tr("An operator unsticks a deploy");
}

// The raft leader is killed: a new leader is elected, and the participants' lock and
// leadership survive, their clients failing over to the other members.
QString leaderDeath(Scenario *s, std::vector<Step> *steps)
{
    const QString lock = QStringLiteral("/demo/lock");
    const QString leader = QStringLiteral("/demo/leader");
    // A raft election and the clients' failover take a few seconds; leases of 10 s outlast them
    // (one of 3 s does not always: its holder's own clock can run out first).
    constexpr int ttl = 10;
    Expectation survives;
    survives.forbidden = {QStringLiteral("lost"), QStringLiteral("leadershipLost"), QStringLiteral("leaseFailed")};
    survives.within = std::chrono::seconds(ttl + 2);
    survives.after = 2;  // from the kill on
    survives.says = tr("no lock or leadership lost for a whole lease TTL after the kill");
    Expectation newLeader = event(QString(), QStringLiteral("leaderChanged"), tr("the cluster elects a new leader"));
    newLeader.within = std::chrono::seconds(30);
    *steps = {
        {tr("A takes the lock /demo/lock, on a lease of 10 s."),
         [s, lock] { s->mutex(QStringLiteral("A"), lock, ttl)->lock(); },
         event(QStringLiteral("A"), QStringLiteral("acquired"), tr("A acquires the lock"))},
        {tr("B campaigns in the election /demo/leader and wins it."),
         [s, leader] { s->election(QStringLiteral("B"), leader, ttl)->campaign(); },
         event(QStringLiteral("B"), QStringLiteral("elected"), tr("B is elected"))},
        {tr("The member that leads the raft group is killed (SIGKILL)."),
         [s] {
             const QString member = s->cluster() ? s->cluster()->leaderName() : QString();
             s->sandbox()->killMember(s->memberIndex(member));
         },
         event(QString(), QStringLiteral("memberKilled"), tr("the leader member dies"))},
        {tr("The two members left elect a new leader."), nullptr, newLeader},
        {tr("A's lock and B's leadership survive: their clients fail over to the living members and keep renewing."),
         nullptr, survives},
        {tr("A unlocks: true, the hold was never lost."), [s, lock] { s->mutex(QStringLiteral("A"), lock, ttl)->unlock(); },
         event(QStringLiteral("A"), QStringLiteral("released"), tr("A releases the lock"))},
    };
    s->setConclusion([] { return tr("The cluster lost its leader and elected another; no lease, lock or leadership was lost."); });
    return tr("The leader dies");
}

const std::vector<std::pair<QString, QString (*)(Scenario *, std::vector<Step> *)>> &scripts()
{
    static const std::vector<std::pair<QString, QString (*)(Scenario *, std::vector<Step> *)>> all{
        {QStringLiteral("lock-partition"), lockPartition},
        {QStringLiteral("spurious-barrier"), spuriousBarrier},
        {QStringLiteral("registration-heal"), registrationHeal},
        {QStringLiteral("leader-death"), leaderDeath},
        {QStringLiteral("operator-unsticks-a-deploy"), operatorUnsticksADeploy},
    };
    return all;
}
} // namespace

QStringList names()
{
    QStringList list;
    for (const auto &script : scripts())
        list.append(script.first);
    return list;
}

QString write(const QString &name, Scenario *scenario, std::vector<Step> *steps)
{
    for (const auto &script : scripts()) {
        if (script.first == name)
            return script.second(scenario, steps);
    }
    return QString();
}

} // namespace ScenarioScripts
