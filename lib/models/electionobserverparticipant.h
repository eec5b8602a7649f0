#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

#include <QtCore/QVariantList>

namespace QEtcd {

// `ElectionObserver` in QML: a LeaderObserver. After start(), leader* follow the election live.
class QETCD_QUICK_EXPORT ElectionObserverParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(ElectionObserver)
    Q_PROPERTY(bool hasLeader READ hasLeader NOTIFY leaderChanged)
    Q_PROPERTY(QString leader READ leader NOTIFY leaderChanged)
    Q_PROPERTY(QString leaderKey READ leaderKey NOTIFY leaderChanged)
    Q_PROPERTY(QString leaderClientId READ leaderClientId NOTIFY leaderChanged)
    Q_PROPERTY(qint64 leaderFencingToken READ leaderFencingToken NOTIFY leaderChanged)
    Q_PROPERTY(QVariantList candidates READ candidates NOTIFY candidatesChanged)

public:
    explicit ElectionObserverParticipant(QObject *parent = nullptr);

    bool hasLeader() const;
    QString leader() const;  // the leader's proclamation
    QString leaderKey() const;
    QString leaderClientId() const;  // empty for leaders that are not qetcd's
    qint64 leaderFencingToken() const;
    QVariantList candidates() const;  // as Election.candidates

    Q_INVOKABLE void start();
    // Re-read on every change of leader; call it to see candidates join or leave meanwhile.
    Q_INVOKABLE void refreshCandidates();

Q_SIGNALS:
    void leaderChanged();
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
