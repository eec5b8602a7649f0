// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/coordinationevent.h>
#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QFuture>
#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMetaType>
#include <QtCore/QObject>

#include <memory>

namespace QEtcd {

class Client;
class CoordinationHistoryPrivate;

/// The coordination objects under a prefix as they were at one revision, or why they could not
/// be read.
struct QETCD_EXPORT CoordinationSnapshot
{
    Status status;     ///< Ok, or why not: OutOfRange for a compacted or future revision.
    qint64 revision = 0;  ///< The revision they are as of.
    QList<CoordinationObject> objects;  ///< Sorted by path, then kind.
};

/// Replays etcd's retained history under a prefix as coordination events: who held what, when,
/// and how it changed hands, for any tool's layout the recogniser knows.
///
/// etcd keeps every revision until it is compacted. A replay reads the keys under the prefix as
/// they were at its first revision, then follows every change after it through a watch, up to
/// its last revision, recognising the objects again at each revision that touched them and
/// telling what changed in eventsReady(). Nothing is written: a read-only client is enough.
///
/// What etcd keeps is what it can tell. A replay that asks for compacted revisions begins at the
/// oldest one etcd still has and says so (began()); one whose revisions are compacted while it
/// runs ends with OutOfRange, naming where to begin again. etcd stores no time per revision
/// (RevisionTimes can tell), and no cause for a deletion: a key deleted alone is
/// Cause::Deleted, whoever deleted it.
///
/// The history is watched in windows side by side, as etcd catches up many watches at the cost
/// of one: a long history costs etcd a few passes, not one per thousand revisions. Memory holds
/// the keys under the prefix at one revision and the changes of the windows not yet told (tens
/// of thousands of revisions at most), never the whole history. Events come on the thread the
/// history lives in, in revision order.
class QETCD_EXPORT CoordinationHistory : public QObject
{
    Q_OBJECT
public:
    /// The history under \a prefix, through \a client; nothing is read until start().
    CoordinationHistory(Client *client, const QByteArray &prefix, QObject *parent = nullptr);
    /// Stops a replay still running.
    ~CoordinationHistory() override;
    Q_DISABLE_COPY_MOVE(CoordinationHistory)

    /// The prefix replayed.
    QByteArray prefix() const;
    /// The first revision whose changes are told; 0 (the default): the oldest etcd keeps.
    /// Set it before start().
    void setFromRevision(qint64 revision);
    /// The last revision told; 0 (the default): the store's revision when start() reads it.
    /// Set it before start().
    void setUntilRevision(qint64 revision);

    /// After the last revision, goes on telling changes as they happen, for as long as it runs:
    /// start()'s future then finishes only with cancel() or a failure (a compaction that
    /// overtakes it included), and progressed() goes on past the last revision. Set it before
    /// start().
    void setFollowing(bool following);

    /// Replays; finishes once every change up to the last revision has been told (Ok), or with
    /// why not: InvalidArgument for a range that is backwards or in the future, Cancelled after
    /// cancel(), or the read's or watch's failure. One-shot.
    QFuture<Status> start();
    /// Stops the replay: start()'s future finishes with Cancelled, and no more events come.
    void cancel();

    /// The coordination objects under \a prefix as of \a revision.
    static QFuture<CoordinationSnapshot> objectsAt(Client *client, const QByteArray &prefix, qint64 revision);

Q_SIGNALS:
    /// The replay read its first state: changes from \a firstRevision to \a untilRevision are
    /// told. \a compactedBefore > 0: etcd had compacted everything before it, and an earlier
    /// first revision was asked for (or none was).
    void began(qint64 firstRevision, qint64 untilRevision, qint64 compactedBefore);
    /// Right after began(): the objects as they were just before \a firstRevision, the holders
    /// and waiters the told changes begin from (an object nothing changes in the range is told
    /// only here).
    void objectsAtStart(const QList<QEtcd::CoordinationObject> &objects);
    /// The events of some revisions, in revision order.
    void eventsReady(const QList<QEtcd::CoordinationEvent> &events);
    /// Every change up to \a revision has been told.
    void progressed(qint64 revision);

private:
    std::unique_ptr<CoordinationHistoryPrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::CoordinationSnapshot)
