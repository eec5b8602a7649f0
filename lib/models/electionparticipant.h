// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

#include <QtCore/QVariantList>

namespace QEtcd {

struct Participant;

/// `Election` in QML: a LeaderSelector whose term lasts until resign(), leadership loss or close.
/// campaign() queues us; isLeader turns true with elected() and false with leadershipLost()
/// (declared by our own clock before etcd can elect anyone else) or after resign().
class QETCD_QUICK_EXPORT ElectionParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Election)
    /// The value of our key; empty proclaims qetcd's identity JSON. While campaigning a new
    /// value is proclaimed at once.
    Q_PROPERTY(QString proclamation READ proclamation WRITE setProclamation NOTIFY proclamationChanged)
    /// After a term (a loss), campaign again at the tail (default true). Changing it drops what
    /// was held.
    Q_PROPERTY(bool autoRequeue READ autoRequeue WRITE setAutoRequeue NOTIFY autoRequeueChanged)
    /// We lead.
    Q_PROPERTY(bool isLeader READ isLeader NOTIFY isLeaderChanged)
    /// The term's fencing token; 0 when not leading.
    Q_PROPERTY(qint64 fencingToken READ fencingToken NOTIFY isLeaderChanged)
    /// Our key, also while queued; empty when not a candidate.
    Q_PROPERTY(QString key READ key NOTIFY keyChanged)
    /// Every candidate, leader first, as of the last refreshCandidates().
    Q_PROPERTY(QVariantList candidates READ candidates NOTIFY candidatesChanged)

public:
    /// An Election without client or path yet.
    explicit ElectionParticipant(QObject *parent = nullptr);

    /// The proclamation.
    QString proclamation() const;
    /// Sets the proclamation; while campaigning, proclaims the new value at once.
    void setProclamation(const QString &proclamation);
    /// Whether to campaign again after a term.
    bool autoRequeue() const;
    /// Sets whether to campaign again after a term.
    void setAutoRequeue(bool autoRequeue);
    /// We lead.
    bool isLeader() const;
    /// The term's fencing token; 0 when not leading.
    qint64 fencingToken() const;
    /// Our key, also while queued.
    QString key() const;
    /// Every candidate, leader first, as of the last refreshCandidates(): key, value, clientId,
    /// createRevision, leaseId (hex), isLeader.
    QVariantList candidates() const;

    /// Joins the election (or, after a term with autoRequeue off, joins again) and returns at
    /// once: state turns Pending, key is set once queued, and elected() follows when we lead.
    Q_INVOKABLE void campaign();
    /// Leaves the election: our key goes and state turns Idle.
    Q_INVOKABLE void resign();
    /// Reads candidates afresh.
    Q_INVOKABLE void refreshCandidates();

    /// One candidate as QML reads it (ElectionObserver's too).
    static QVariantMap toVariant(const Participant &candidate);
    /// Candidates as QML reads them, in the same order.
    static QVariantList toVariant(const QList<Participant> &candidates);

Q_SIGNALS:
    /// proclamation changed.
    void proclamationChanged();
    /// autoRequeue changed.
    void autoRequeueChanged();
    /// isLeader or fencingToken changed.
    void isLeaderChanged();
    /// key changed.
    void keyChanged();
    /// candidates changed.
    void candidatesChanged();
    /// We lead, with \a fencingToken.
    void elected(qint64 fencingToken);
    /// Leadership was lost (isLeader is false already), told before etcd can elect anyone else.
    void leadershipLost(const QEtcd::Status &cause);
    /// The term is over; with autoRequeue we are a candidate again.
    void termEnded();

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;
    QString logKey() const override;

private:
    void setLeadership(qint64 fencingToken);
    void setKey(const QString &key);

    QString m_proclamation;
    bool m_autoRequeue = true;
    bool m_started = false;
    qint64 m_fencingToken = 0;
    QString m_key;
    QVariantList m_candidates;
};

} // namespace QEtcd
