// SPDX-License-Identifier: Apache-2.0
#include "electionobserverparticipant.h"

#include "electionparticipant.h"

#include <QEtcd/leaderobserver.h>

namespace QEtcd {

ElectionObserverParticipant::ElectionObserverParticipant(QObject *parent) : RecipeParticipant(parent) {}

bool ElectionObserverParticipant::hasLeader() const { return !m_leader.isEmpty(); }
QString ElectionObserverParticipant::leader() const { return m_leader.value(QStringLiteral("value")).toString(); }
QString ElectionObserverParticipant::leaderKey() const { return m_leader.value(QStringLiteral("key")).toString(); }
QString ElectionObserverParticipant::leaderClientId() const { return m_leader.value(QStringLiteral("clientId")).toString(); }
qint64 ElectionObserverParticipant::leaderFencingToken() const
{
    return m_leader.value(QStringLiteral("createRevision")).toLongLong();
}
QVariantList ElectionObserverParticipant::candidates() const { return m_candidates; }

std::unique_ptr<Recipe> ElectionObserverParticipant::createRecipe(Client *client, const QByteArray &path,
                                                                  const RecipeOptions &options)
{
    auto observer = std::make_unique<LeaderObserver>(client, path, options);
    relay(observer.get(), &LeaderObserver::leaderChanged, [this](const std::optional<Participant> &leader) {
        setLeader(leader ? ElectionParticipant::toVariant(*leader) : QVariantMap());
        refreshCandidates();
    });
    return observer;
}

void ElectionObserverParticipant::recipeDropped()
{
    setLeader({});
    m_candidates.clear();
    Q_EMIT candidatesChanged();
}

void ElectionObserverParticipant::start()
{
    auto *observer = recipe<LeaderObserver>();
    if (!observer)
        return;
    setState(State::Pending);
    whenDone(observer->start(), [this, observer](const Status &status) {
        if (!status) {
            reportError(status);
            return setState(State::Idle);
        }
        const std::optional<Participant> leader = observer->currentLeader();
        setLeader(leader ? ElectionParticipant::toVariant(*leader) : QVariantMap());
        refreshCandidates();
        setState(State::Active);
    });
}

void ElectionObserverParticipant::setLeader(const QVariantMap &leader)
{
    if (m_leader == leader)
        return;
    m_leader = leader;
    Q_EMIT leaderChanged();
}

void ElectionObserverParticipant::refreshCandidates()
{
    auto *observer = recipe<LeaderObserver>();
    if (!observer)
        return;
    whenDone(observer->participants(), [this](const ParticipantsResult &result) {
        if (!result.status)
            return reportError(result.status);
        m_candidates = ElectionParticipant::toVariant(result.participants);
        Q_EMIT candidatesChanged();
    });
}

} // namespace QEtcd
