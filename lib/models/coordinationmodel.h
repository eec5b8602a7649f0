#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

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

// The coordination objects under a prefix (locks, elections, barriers, semaphores, services,
// queues, counters), recognised from etcd's contents and kept live through one watch; a burst
// of changes becomes one update per frame. Entries (holders, waiters, candidates, members) are
// lists of maps: key, name, clientId, host, pid, sinceMs, lease (hex), createRevision, value.
class QETCD_QUICK_EXPORT CoordinationModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    Q_PROPERTY(QString prefix READ prefix WRITE setPrefix NOTIFY prefixChanged)
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        KindRole = Qt::UserRole + 1,  // "lock", "election", "semaphore", ...
        NameRole,                     // the path
        HoldersRole,                  // holders; an election's leader; a barrier's owner
        WaitersRole,                  // in FIFO order; an election's candidates behind the leader
        MembersRole,                  // arrived / entered members, service instances
        LeavingRole,
        PermitsRole,
        SetRole,                      // barrier set, counted barrier open
        DepthRole,
        OldestRole,                   // ms since the epoch, -1 unknown
        DelayedRole,
        InFlightRole,
        OrphansRole,
        DeadLettersRole,
        ValueRole,                    // counters
        KeysRole,
    };
    Q_ENUM(Role)

    explicit CoordinationModel(QObject *parent = nullptr);
    ~CoordinationModel() override;

    Client *client() const;
    void setClient(Client *client);
    QString prefix() const;
    void setPrefix(const QString &prefix);
    ModelStatus::Status status() const { return m_status; }
    QString errorString() const { return m_error; }
    int count() const { return int(m_objects.size()); }
    CoordinationObject object(int row) const { return m_objects.value(row); }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void clientChanged();
    void prefixChanged();
    void statusChanged();
    void countChanged();

private:
    void restart();
    void apply(const QList<CoordinationObject> &objects);
    void applyChanges(const QList<CoordinationObjectChange> &changes);
    Internal::RowNotifications rowNotifications();
    void setStatus(ModelStatus::Status status, const QString &error = {});

    QPointer<Client> m_client;
    QByteArray m_prefix;
    std::unique_ptr<CoordinationMonitor> m_monitor;
    QList<CoordinationObject> m_objects;  // sorted by path, then kind (the recogniser's order)
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
};

} // namespace QEtcd
