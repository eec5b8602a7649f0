// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>

#include <QtCore/QFuture>
#include <QtCore/QList>
#include <QtCore/QMetaType>

#include <memory>
#include <optional>

namespace QEtcd {

/// One candidate of an election on etcd's native layout (see LeaderSelector).
struct QETCD_EXPORT Participant
{
    QByteArray key;             ///< `<path>/<lease id in hex>`.
    QByteArray value;           ///< The proclamation, as written (qetcd's default: its identity JSON).
    qint64 createRevision = 0;  ///< The place in the queue; the leader's is its fencing token.
    qint64 leaseId = 0;         ///< The candidate's lease.
    bool isLeader = false;      ///< It leads: its key was created first.
    QString clientId;           ///< From qetcd's identity JSON; empty for other tools' values.

    /// Every field is the same.
    friend bool operator==(const Participant &a, const Participant &b)
    {
        return a.key == b.key && a.value == b.value && a.createRevision == b.createRevision
            && a.leaseId == b.leaseId && a.isLeader == b.isLeader && a.clientId == b.clientId;
    }
    /// Some field differs.
    friend bool operator!=(const Participant &a, const Participant &b) { return !(a == b); }
};

/// The candidates of an election, as one read found them.
struct QETCD_EXPORT ParticipantsResult : Result
{
    QList<Participant> participants;  ///< Every candidate, leader first.
};

class LeaderObserverPrivate;

/// Follows the leader of an election on etcd's native layout, whoever the candidates are.
///
/// Follows who leads an election without taking part: qetcd's selectors and latches, `etcdctl
/// elect` and Go's concurrency.Election alike. It reads every key under `<path>/` once, then
/// watches them from the revision after that read, so no change in between is missed; the
/// leader is recomputed after every change (a new candidate, a resignation, an expiry, a new
/// proclamation). After a compaction swallowed part of the history it re-reads everything.
///
/// leaderChanged() is emitted from the client's dispatcher thread, also for the leader found by
/// start()'s first read (a property's reader should not have to ask twice); currentLeader() is
/// safe from any thread.
class QETCD_EXPORT LeaderObserver : public Recipe
{
    Q_OBJECT

public:
    /// Follows the election at \a path, through \a client. Only options.resilience is used: an
    /// observer owns no lease.
    LeaderObserver(Client *client, const QByteArray &path, const RecipeOptions &options = RecipeOptions(),
                   QObject *parent = nullptr);
    /// Closes the observer: its watch ends.
    ~LeaderObserver() override;

    /// The election's path.
    QByteArray path() const;

    /// Finishes once: Ok when the first read is done and the watch is live, else why not.
    QFuture<Status> start();

    /// The leader; empty while nobody leads, and before start().
    std::optional<Participant> currentLeader() const;
    /// A fresh read of every candidate, leader first. Advisory.
    QFuture<ParticipantsResult> participants() const;

Q_SIGNALS:
    /// Someone else leads now (a new leader, the same one's new proclamation), or nobody
    /// (empty). From the client's dispatcher thread.
    void leaderChanged(const std::optional<QEtcd::Participant> &leader);

protected:
    void doClose() override;

private:
    friend class LeaderObserverPrivate;
    std::unique_ptr<LeaderObserverPrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::Participant)
Q_DECLARE_METATYPE(std::optional<QEtcd::Participant>)
