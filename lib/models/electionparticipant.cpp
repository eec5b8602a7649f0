// SPDX-License-Identifier: Apache-2.0
#include "electionparticipant.h"

#include <QEtcd/leaderobserver.h>
#include <QEtcd/leaderselector.h>

#include <QtCore/QSemaphore>

namespace QEtcd {

ElectionParticipant::ElectionParticipant(QObject *parent) : RecipeParticipant(parent) {}

QString ElectionParticipant::proclamation() const { return m_proclamation; }
bool ElectionParticipant::autoRequeue() const { return m_autoRequeue; }
bool ElectionParticipant::isLeader() const { return m_fencingToken > 0; }
qint64 ElectionParticipant::fencingToken() const { return m_fencingToken; }
QString ElectionParticipant::key() const { return m_key; }
QVariantList ElectionParticipant::candidates() const { return m_candidates; }

void ElectionParticipant::setProclamation(const QString &proclamation)
{
    if (m_proclamation == proclamation)
        return;
    m_proclamation = proclamation;
    Q_EMIT proclamationChanged();
    if (!m_started)
        return reconfigure();  // a selector made before campaigning carries the old value
    whenDone(static_cast<LeaderSelector *>(currentRecipe())->proclaim(proclamation.toUtf8()),
             [this](const Status &status) { reportError(status); });
}

void ElectionParticipant::setAutoRequeue(bool autoRequeue)
{
    if (changeSetting(m_autoRequeue, autoRequeue))
        Q_EMIT autoRequeueChanged();
}

std::unique_ptr<Recipe> ElectionParticipant::createRecipe(Client *client, const QByteArray &path,
                                                          const RecipeOptions &options)
{
    ElectionOptions electionOptions;
    static_cast<RecipeOptions &>(electionOptions) = options;
    electionOptions.autoRequeue = m_autoRequeue;
    // The term runs on the selector's own thread and simply lasts until it is told to end.
    const auto holdTerm = [](const StopToken &stop) {
        QSemaphore ended;
        StopCallback wake(stop, [&ended] { ended.release(); });
        ended.acquire();
    };
    auto selector = std::make_unique<LeaderSelector>(client, path, m_proclamation.toUtf8(), holdTerm,
                                                     LeaderSelector::Relinquish(), electionOptions);
    relay(selector.get(), &LeaderSelector::elected, [this, selector = selector.get()](qint64 token) {
        setLeadership(token);
        setKey(QString::fromUtf8(selector->key()));
        setState(State::Active);
        record(QStringLiteral("elected"), QStringLiteral("fencing token %1").arg(token));
        Q_EMIT elected(token);
    });
    relay(selector.get(), &LeaderSelector::leadershipLost, [this](const Status &cause) {
        setLeadership(0);
        setState(State::Lost);
        record(QStringLiteral("leadershipLost"), cause.message());
        Q_EMIT leadershipLost(cause);
    });
    relay(selector.get(), &LeaderSelector::termEnded, [this] {
        setLeadership(0);
        if (state() != State::Lost)
            setState(m_autoRequeue ? State::Pending : State::Idle);
        Q_EMIT termEnded();
    });
    m_started = false;
    return selector;
}

void ElectionParticipant::recipeDropped()
{
    m_started = false;
    setLeadership(0);
    setKey({});
}

void ElectionParticipant::campaign()
{
    auto *selector = recipe<LeaderSelector>();
    if (!selector)
        return;
    setState(State::Pending);
    record(QStringLiteral("pending"), QStringLiteral("campaigning"));
    whenDone(std::exchange(m_started, true) ? selector->requeue() : selector->start(),
             [this, selector](const Status &status) {
                 if (!status) {
                     reportError(status);
                     return setState(State::Idle);
                 }
                 setKey(QString::fromUtf8(selector->key()));
             });
}

void ElectionParticipant::resign()
{
    if (m_started)
        record(QStringLiteral("resigned"), isLeader() ? QStringLiteral("as leader") : QStringLiteral("as a candidate"));
    dropRecipe(State::Idle);
}

void ElectionParticipant::refreshCandidates()
{
    auto *selector = recipe<LeaderSelector>();
    if (!selector)
        return;
    whenDone(selector->participants(), [this](const ParticipantsResult &result) {
        if (!result.status)
            return reportError(result.status);
        m_candidates = toVariant(result.participants);
        Q_EMIT candidatesChanged();
    });
}

QVariantMap ElectionParticipant::toVariant(const Participant &candidate)
{
    return {{QStringLiteral("key"), QString::fromUtf8(candidate.key)},
            {QStringLiteral("value"), QString::fromUtf8(candidate.value)},
            {QStringLiteral("clientId"), candidate.clientId},
            {QStringLiteral("createRevision"), candidate.createRevision},
            {QStringLiteral("leaseId"), hex(candidate.leaseId)},
            {QStringLiteral("isLeader"), candidate.isLeader}};
}

QVariantList ElectionParticipant::toVariant(const QList<Participant> &candidates)
{
    QVariantList list;
    for (const Participant &candidate : candidates)
        list.append(toVariant(candidate));
    return list;
}

QString ElectionParticipant::logKey() const
{
    return m_key.isEmpty() ? RecipeParticipant::logKey() : m_key;
}

void ElectionParticipant::setLeadership(qint64 fencingToken)
{
    if (std::exchange(m_fencingToken, fencingToken) != fencingToken)
        Q_EMIT isLeaderChanged();
}

void ElectionParticipant::setKey(const QString &key)
{
    if (std::exchange(m_key, key) != key)
        Q_EMIT keyChanged();
}

} // namespace QEtcd
