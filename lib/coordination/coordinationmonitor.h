// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/coordinationevent.h>
#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <chrono>
#include <memory>

namespace QEtcd {

class Client;
class CoordinationMonitorPrivate;

/// The coordination objects under a prefix, recognised again after every burst of changes.
///
/// The coordination objects under a prefix, kept current: one read, then one watch from right
/// after it (re-read after a compaction), and the recogniser run again after changes. Changes
/// are coalesced: objectsChanged() comes at most once per interval, on the thread the monitor
/// lives in, and only the objects whose keys changed are recognised again, so following a large
/// store costs what its changes cost.
///
/// It also tells what happened, as a replay would (CoordinationHistory): hand-overs, releases,
/// elections, barriers set and lifted, instances up and down, and heals, for any process on the
/// cluster, each with the time the monitor saw it (CoordinationEvent::timeMs) and, for a heal,
/// how long its entry was gone. They are worked out revision by revision, so a heal between two
/// signals is still a heal.
///
/// A queued entry whose tool wrote no time (etcdctl, etcd-recipes) gets the time the monitor
/// saw it appear as its sinceMs; entries already there at the start stay unknown (-1).
class QETCD_EXPORT CoordinationMonitor : public QObject
{
    Q_OBJECT
public:
    /// Follows the keys under \a prefix, through \a client; nothing is read until start().
    CoordinationMonitor(Client *client, const QByteArray &prefix, QObject *parent = nullptr);
    /// Stops following; the watch ends.
    ~CoordinationMonitor() override;
    Q_DISABLE_COPY_MOVE(CoordinationMonitor)

    /// The prefix followed.
    QByteArray prefix() const;
    /// The least time between two objectsChanged(); default 16 ms, a frame. Set it before
    /// start().
    void setInterval(std::chrono::milliseconds interval);

    /// Values larger than \a bytes are not read into the objects (their entries carry an empty
    /// value; unreadValueBytes() tells the size); default: every value, whatever its size. The
    /// recogniser needs small values only, and a store of large ones would otherwise be held in
    /// memory whole. Set it before start().
    void setMaxValueBytes(qsizetype bytes);
    /// The size of \a key's value when it was too large to read; 0 otherwise.
    qsizetype unreadValueBytes(const QByteArray &key) const;

    /// Finishes once the first read is in objects() and the watch runs; one-shot.
    QFuture<Status> start();

    /// The objects as of the last objectsChanged(), sorted by path, then kind.
    QList<CoordinationObject> objects() const;

Q_SIGNALS:
    /// What appeared, changed or went since the previous signal; the first, when start()
    /// finishes, lists every object as Added.
    void objectsChanged(const QList<QEtcd::CoordinationObjectChange> &changes);
    /// What happened since the previous signal, in revision order; right after objectsChanged().
    /// Nothing is told for the first read, nor across a re-read after a compaction (what
    /// happened in the revisions etcd discarded is lost).
    void eventsHappened(const QList<QEtcd::CoordinationEvent> &events);
    /// The watch could not be recovered: objects() no longer follows etcd.
    void failed(const QEtcd::Status &status);
    /// The watch was interrupted and came back (WatchRecoveryKind): Resynced after a
    /// compaction made it read the prefix again.
    void watchRecovered(QEtcd::WatchRecoveryKind kind);

private:
    std::unique_ptr<CoordinationMonitorPrivate> d;
};

} // namespace QEtcd
