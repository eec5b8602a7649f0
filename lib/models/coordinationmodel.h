// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QEtcd/coordinationevent.h>
#include <QEtcd/coordinationrecogniser.h>

#include <QtCore/QAbstractListModel>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

class CoordinationMonitor;
namespace Internal {
struct RowNotifications;
}

/// `CoordinationModel` in QML: the coordination objects under a prefix, live.
///
/// The coordination objects under a prefix (locks, elections, barriers, semaphores, services,
/// queues, counters), recognised from etcd's contents and kept live through one watch; a burst
/// of changes becomes one update per frame. Entries (holders, waiters, candidates, members) are
/// lists of maps: key (fit to show), keyBase64 (its bytes), name, clientId, host, pid, sinceMs,
/// lease (hex), createRevision, value, and valueTooLarge: the value's size when it was above 64 KiB and so not read (0 otherwise).
/// Runs only while active.
class QETCD_QUICK_EXPORT CoordinationModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to read and watch through; setting it starts again.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// The objects shown live under it; setting it starts again.
    Q_PROPERTY(QString prefix READ prefix WRITE setPrefix NOTIFY prefixChanged)
    /// For a view's placeholders (ModelStatus).
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    /// Why the read failed or the watch gave up.
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
    /// How many objects there are.
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    /// The revision the objects are shown as of: 0 (the default), live; otherwise the objects
    /// as they were at that revision, read once (CoordinationHistory::objectsAt) and not watched.
    /// A compacted or future revision is an Error naming it. Setting it starts again.
    Q_PROPERTY(qint64 asOfRevision READ asOfRevision WRITE setAsOfRevision NOTIFY asOfRevisionChanged)
    /// While false the model mirrors nothing: no read, no watch, no rows (a page nobody sees
    /// holds no copy of the keyspace). Turning true starts again. Default true.
    Q_PROPERTY(bool active READ isActive WRITE setActive NOTIFY activeChanged)

public:
    /// The roles of a row (CoordinationObject's fields), with the names QML reads them by.
    enum Role {
        KindRole = Qt::UserRole + 1,  ///< `kind`: "lock", "election", "semaphore", ...
        NameRole,                     ///< `name`: the path.
        HoldersRole,                  ///< `holders`: holders; an election's leader; a barrier's owner.
        WaitersRole,  ///< `waiters`: in FIFO order; an election's candidates behind the leader.
        MembersRole,                  ///< `members`: arrived / entered members, service instances.
        LeavingRole,                  ///< `leaving`: a double barrier's members at the leave barrier.
        PermitsRole,                  ///< `permits`: a semaphore's N; -1 when not stored.
        SetRole,                      ///< `set`: barrier set, counted barrier open.
        DepthRole,                    ///< `depth`: a queue's items waiting.
        OldestRole,                   ///< `oldest`: ms since the epoch, -1 unknown.
        DelayedRole,                  ///< `delayed`: a work queue's items scheduled for later.
        InFlightRole,                 ///< `inFlight`: a work queue's claimed items.
        OrphansRole,                  ///< `orphans`: a work queue's claims without a live consumer.
        DeadLettersRole,              ///< `deadLetters`: a work queue's dead letters.
        ValueRole,                    ///< `value`: a counter's value.
        KeysRole,                     ///< `keys`: every key of the object.
        RuleRole,  ///< `rule`: the client convention that made the keys this object, else empty.
        /// `recent`: what happened to it lately, newest first, while live (at most RecentEvents):
        /// maps of text (CoordinationEvent::summary()), event (its typeName()), cause and timeMs.
        /// Hand-overs, releases and heals of any process on the cluster, as the monitor saw them.
        RecentRole,
    };
    Q_ENUM(Role)

    /// How many events a row's `recent` keeps.
    static constexpr int RecentEvents = 3;

    /// A CoordinationModel without client yet.
    explicit CoordinationModel(QObject *parent = nullptr);
    /// Destroys the model; its watch ends.
    ~CoordinationModel() override;

    /// The client.
    Client *client() const;
    /// Sets the client and starts again.
    void setClient(Client *client);
    /// The prefix.
    QString prefix() const;
    /// Sets the prefix and starts again.
    void setPrefix(const QString &prefix);
    /// The revision shown as of; 0: live.
    qint64 asOfRevision() const { return m_asOfRevision; }
    /// Shows the objects as of \a revision (0: live) and starts again.
    void setAsOfRevision(qint64 revision);
    /// The model mirrors the objects.
    bool isActive() const { return m_active; }
    /// Starts (true) or stops and forgets (false) the mirror.
    void setActive(bool active);
    /// The status.
    ModelStatus::Status status() const { return m_status; }
    /// Why the read failed or the watch gave up.
    QString errorString() const { return m_error; }
    /// How many objects there are.
    int count() const { return int(m_objects.size()); }
    /// The object at \a row; an empty one outside the rows.
    CoordinationObject object(int row) const { return m_objects.value(row); }

    /// One row per object, sorted by path, then kind.
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// An object's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// prefix changed.
    void prefixChanged();
    /// status or errorString changed.
    void statusChanged();
    /// count changed.
    void countChanged();
    /// active changed.
    void activeChanged();
    /// asOfRevision changed.
    void asOfRevisionChanged();

private:
    void restart();
    void apply(const QList<CoordinationObject> &objects);
    void applyChanges(const QList<CoordinationObjectChange> &changes);
    void remember(const QList<CoordinationEvent> &events);
    Internal::RowNotifications rowNotifications();
    void setStatus(ModelStatus::Status status, const QString &error = {});

    QPointer<Client> m_client;
    QByteArray m_prefix;
    qint64 m_asOfRevision = 0;
    std::unique_ptr<CoordinationMonitor> m_monitor;
    quint64 m_generation = 0;  // a start's answer for a monitor since replaced is dropped
    QList<CoordinationObject> m_objects;  // sorted by path, then kind (the recogniser's order)
    QHash<QPair<QByteArray, int>, QList<CoordinationEvent>> m_recent;  // by path and kind, newest first
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
    bool m_active = true;
};

} // namespace QEtcd
