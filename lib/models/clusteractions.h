// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QEtcd/clustermaintenance.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/status.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QStringList>
#include <QtCore/QVariantList>
#include <QtQml/qqmlregistration.h>

#include <functional>
#include <optional>

namespace QEtcd {

class Client;
class EventLogModel;
class SnapshotSave;

/// `ClusterActions` in QML: an operator's maintenance of the cluster a ClusterModel shows
/// (disarm, compact, defragment, move the leadership, check consistency, save a snapshot, add,
/// remove, promote or move a member), one at a time, each written to the event log as the participant "operator" when it ends.
///
/// Calls return at once; finished() follows once per call, never from inside it. A read-only
/// client refuses the writes before anything is sent. Where the console asks first is the
/// view's business: this type only carries out.
class QETCD_QUICK_EXPORT ClusterActions : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to act through.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// Where each outcome is logged; none: not logged.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    /// What runs now, in words ("defragmenting http://…"); empty when nothing does.
    Q_PROPERTY(QString running READ running NOTIFY runningChanged)
    /// Bytes of the snapshot being saved written so far (a double: sizes outgrow an int).
    Q_PROPERTY(double snapshotBytes READ snapshotBytes NOTIFY snapshotProgressed)
    /// The size of the snapshot being saved, as etcd announced it; 0 until it has.
    Q_PROPERTY(double snapshotTotal READ snapshotTotal NOTIFY snapshotProgressed)
    /// The oldest revision etcd still keeps (it compacted the ones before), as
    /// findRetainedHistory() last found it; 0 until it has.
    Q_PROPERTY(qint64 retainedFrom READ retainedFrom NOTIFY retainedHistoryChanged)
    /// The store's revision when findRetainedHistory() last looked; 0 until it has.
    Q_PROPERTY(qint64 retainedUntil READ retainedUntil NOTIFY retainedHistoryChanged)
    /// Why findRetainedHistory() could not tell; empty while nothing went wrong.
    Q_PROPERTY(QString retainedHistoryError READ retainedHistoryError NOTIFY retainedHistoryChanged)

public:
    /// No client yet.
    explicit ClusterActions(QObject *parent = nullptr);
    ~ClusterActions() override;
    Q_DISABLE_COPY_MOVE(ClusterActions)

    /// The client.
    Client *client() const;
    /// Sets the client.
    void setClient(Client *client);
    /// The event log.
    EventLogModel *eventLog() const;
    /// Sets the event log.
    void setEventLog(EventLogModel *log);
    /// What runs now.
    QString running() const { return m_running; }
    /// Bytes of the snapshot written so far.
    double snapshotBytes() const { return double(m_snapshotBytes); }
    /// The snapshot's announced size.
    double snapshotTotal() const { return double(m_snapshotTotal); }
    /// The oldest revision kept.
    qint64 retainedFrom() const { return m_retained.oldest; }
    /// The store's revision then.
    qint64 retainedUntil() const { return m_retained.current; }
    /// Why the retained history is unknown.
    QString retainedHistoryError() const { return m_retained.status.message(); }

    /// Disarms every raised alarm.
    Q_INVOKABLE void disarmAlarms();
    /// Finds which revisions etcd keeps, for a compaction to choose from; retainedHistoryChanged()
    /// follows. Allowed under read-only and while an action runs: it only reads.
    Q_INVOKABLE void findRetainedHistory();
    /// Discards the history before \a revision (a decimal text: revisions outgrow a JavaScript
    /// number); with \a physical the answer waits until the space is freed.
    Q_INVOKABLE void compact(const QString &revision, bool physical);
    /// Defragments the member reached at one of \a clientUrls (its card's).
    Q_INVOKABLE void defragment(const QStringList &clientUrls);
    /// Defragments every member in turn, the leader last.
    Q_INVOKABLE void defragmentAll();
    /// Hands the leadership to the member \a memberId (hex, as the cards show it).
    Q_INVOKABLE void moveLeader(const QString &memberId);
    /// Adds a member called \a name at \a peerUrls; with \a learner, one that follows the log
    /// without voting until promoted. The outcome says what to start it with.
    Q_INVOKABLE void addMember(const QString &name, const QStringList &peerUrls, bool learner);
    /// Removes the member \a memberId (hex) from the cluster.
    Q_INVOKABLE void removeMember(const QString &memberId);
    /// Makes the learner \a memberId (hex) a voting member.
    Q_INVOKABLE void promoteMember(const QString &memberId);
    /// Gives the member \a memberId (hex) the peer URLs \a peerUrls.
    Q_INVOKABLE void updateMember(const QString &memberId, const QStringList &peerUrls);
    /// Hashes every member's keys at one revision; consistencyChecked() tells the result.
    Q_INVOKABLE void checkConsistency();
    /// Saves the snapshot of the member in use to \a fileName (a path, or a file: URL), which
    /// must not exist unless \a overwrite. Allowed under read-only: it only reads.
    Q_INVOKABLE void saveSnapshot(const QString &fileName, bool overwrite);
    /// Stops the snapshot being saved; nothing is left on disk.
    Q_INVOKABLE void cancelSnapshot();

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// eventLog changed.
    void eventLogChanged();
    /// running changed.
    void runningChanged();
    /// snapshotBytes or snapshotTotal changed.
    void snapshotProgressed();
    /// An action ended: \a action is the name of the call, \a outcome the sentence logged.
    void finished(const QString &action, const QEtcd::Status &status, const QString &outcome);
    /// addMember() added \a name as the member \a memberId (hex); \a startFlags are what to start
    /// its etcd with (`--name … --initial-cluster … --initial-advertise-peer-urls …
    /// --initial-cluster-state existing`). Before finished().
    void memberAdded(const QString &name, const QString &memberId, const QString &startFlags);
    /// retainedFrom, retainedUntil or retainedHistoryError changed.
    void retainedHistoryChanged();
    /// checkConsistency() answered: \a members (maps of endpoint, memberId, hash), \a revision,
    /// and whether every hash is the same.
    void consistencyChecked(const QVariantList &members, qint64 revision, bool consistent);

private:
    // Tells, after this call, that name did nothing because of refused.
    void refuse(const QString &name, const Status &refused);
    // Starts name unless another action runs; false (and finished() with the refusal) if one does.
    bool begin(const QString &name, const QString &running);
    // The member ID memberId names, or nullopt after finished() has told name's refusal.
    std::optional<quint64> memberIdOf(const QString &name, const QString &memberId);
    // Runs a change of the member id: running while it does, done once it has.
    void changeMember(const QString &name, const QString &running,
                      const std::function<QFuture<MemberListResult>(Client *)> &change, const QString &done);
    // Ends the running action: logs outcome (what was done, or why nothing was) and tells it.
    void end(const QString &name, const Status &status, const QString &done);
    void disarmInTurn(QList<Alarm> alarms, const QString &name, int count);
    // count: members done so far; before, after: their database sizes added up (-1: unknown).
    void defragmentInTurn(QStringList endpoints, const QString &name, int count = 0, qint64 before = 0, qint64 after = 0);

    QPointer<Client> m_client;
    QPointer<EventLogModel> m_eventLog;
    QString m_running;
    QPointer<SnapshotSave> m_snapshot;
    qint64 m_snapshotBytes = 0;
    qint64 m_snapshotTotal = 0;
    RetainedHistory m_retained;
};

} // namespace QEtcd
