// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

#include <QtCore/QVariantList>

namespace QEtcd {

/// `ElectionObserver` in QML: a LeaderObserver. After start(), leader* follow the election live.
class QETCD_QUICK_EXPORT ElectionObserverParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(ElectionObserver)
    /// Someone leads.
    Q_PROPERTY(bool hasLeader READ hasLeader NOTIFY leaderChanged)
    /// The leader's proclamation.
    Q_PROPERTY(QString leader READ leader NOTIFY leaderChanged)
    /// The leader's key.
    Q_PROPERTY(QString leaderKey READ leaderKey NOTIFY leaderChanged)
    /// The leader's client id; empty for leaders that are not qetcd's.
    Q_PROPERTY(QString leaderClientId READ leaderClientId NOTIFY leaderChanged)
    /// The leader's fencing token (its key's create revision).
    Q_PROPERTY(qint64 leaderFencingToken READ leaderFencingToken NOTIFY leaderChanged)
    /// Every candidate, leader first, as Election.candidates.
    Q_PROPERTY(QVariantList candidates READ candidates NOTIFY candidatesChanged)

public:
    /// An ElectionObserver without client or path yet.
    explicit ElectionObserverParticipant(QObject *parent = nullptr);

    /// Someone leads.
    bool hasLeader() const;
    /// The leader's proclamation.
    QString leader() const;
    /// The leader's key.
    QString leaderKey() const;
    /// The leader's client id; empty for leaders that are not qetcd's.
    QString leaderClientId() const;
    /// The leader's fencing token.
    qint64 leaderFencingToken() const;
    /// Every candidate, leader first.
    QVariantList candidates() const;

    /// Starts following the election; the leader properties follow it live from then on.
    Q_INVOKABLE void start();
    /// Re-read on every change of leader; call it to see candidates join or leave meanwhile.
    Q_INVOKABLE void refreshCandidates();

Q_SIGNALS:
    /// The leader properties changed.
    void leaderChanged();
    /// candidates changed.
    void candidatesChanged();

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;

private:
    void setLeader(const QVariantMap &leader);

    QVariantMap m_leader;
    QVariantList m_candidates;
};

} // namespace QEtcd
