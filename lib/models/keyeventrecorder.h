// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "eventlogmodel.h"
#include "qetcdquickexport.h"

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

class Client;
class Watcher;

/// `KeyEventRecorder` in QML: etcd's side of a timeline, every put and delete under a prefix.
///
/// etcd's side of a timeline: every put and delete under prefix, as one unpartitioned client
/// sees them, appended to eventLog as keyPut / keyDeleted events of participant "etcd", stamped
/// when the watch delivered them. Beside a participant's "lost", the keyDeleted of its key says
/// when etcd let the next holder in.
class QETCD_QUICK_EXPORT KeyEventRecorder : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to watch through; one that no fault link cuts off.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// The keys recorded start with it.
    Q_PROPERTY(QString prefix READ prefix WRITE setPrefix NOTIFY prefixChanged)
    /// Where the events are appended.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    /// The watch is created on etcd: nothing under prefix changes unrecorded.
    Q_PROPERTY(bool watching READ isWatching NOTIFY watchingChanged)
    /// Why the watch could not be created or was lost.
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

public:
    /// A recorder without client yet.
    explicit KeyEventRecorder(QObject *parent = nullptr);
    /// Destroys it; the watch ends.
    ~KeyEventRecorder() override;
    Q_DISABLE_COPY_MOVE(KeyEventRecorder)

    /// The client.
    Client *client() const;
    /// Sets the client and watches afresh.
    void setClient(Client *client);
    /// The prefix.
    QString prefix() const;
    /// Sets the prefix and watches afresh.
    void setPrefix(const QString &prefix);
    /// The event log.
    EventLogModel *eventLog() const;
    /// Sets the event log.
    void setEventLog(EventLogModel *log);
    /// The watch is created on etcd: nothing under prefix changes unrecorded.
    bool isWatching() const;
    /// Why the watch could not be created or was lost.
    QString errorString() const;

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// prefix changed.
    void prefixChanged();
    /// eventLog changed.
    void eventLogChanged();
    /// watching changed.
    void watchingChanged();
    /// errorString changed.
    void errorStringChanged();

private:
    void restart();
    void record(const QString &kind, const QString &key, qint64 revision);
    void setWatching(bool watching, const QString &error = QString());

    QPointer<Client> m_client;
    QString m_prefix;
    QPointer<EventLogModel> m_eventLog;
    Watcher *m_watcher = nullptr;
    quint64 m_generation = 0;  // of m_watcher
    bool m_watching = false;
    QString m_errorString;
};

} // namespace QEtcd
