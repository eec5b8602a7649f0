#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

#include <QtCore/QVariantList>

namespace QEtcd {

struct Participant;

// `Election` in QML: a LeaderSelector whose term lasts until resign(), leadership loss or close.
// campaign() queues us; isLeader turns true with elected() and false with leadershipLost()
// (declared by our own clock before etcd can elect anyone else) or after resign().
class QETCD_QUICK_EXPORT ElectionParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Election)
    Q_PROPERTY(QString proclamation READ proclamation WRITE setProclamation NOTIFY proclamationChanged)
    Q_PROPERTY(bool autoRequeue READ autoRequeue WRITE setAutoRequeue NOTIFY autoRequeueChanged)
    Q_PROPERTY(bool isLeader READ isLeader NOTIFY isLeaderChanged)
    Q_PROPERTY(qint64 fencingToken READ fencingToken NOTIFY isLeaderChanged)
    Q_PROPERTY(QString key READ key NOTIFY keyChanged)
    Q_PROPERTY(QVariantList candidates READ candidates NOTIFY candidatesChanged)

public:
    explicit ElectionParticipant(QObject *parent = nullptr);

    QString proclamation() const;
    // While campaigning, proclaims the new value at once.
    void setProclamation(const QString &proclamation);
    bool autoRequeue() const;
    void setAutoRequeue(bool autoRequeue);
    bool isLeader() const;
    qint64 fencingToken() const;
    QString key() const;  // our key, also while queued
    // Every candidate, leader first, as of the last refreshCandidates(): key, value, clientId,
    // createRevision, leaseId (hex), isLeader.
    QVariantList candidates() const;

    Q_INVOKABLE void campaign();
    Q_INVOKABLE void resign();
    Q_INVOKABLE void refreshCandidates();

    // One candidate as QML reads it; ElectionObserver's too.
    static QVariantMap toVariant(const Participant &candidate);
    static QVariantList toVariant(const QList<Participant> &candidates);

Q_SIGNALS:
    void proclamationChanged();
    void autoRequeueChanged();
    void isLeaderChanged();
    void keyChanged();
    void candidatesChanged();
    void elected(qint64 fencingToken);
    void leadershipLost(const QEtcd::Status &cause);
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
