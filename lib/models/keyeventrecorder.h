#pragma once

#include "eventlogmodel.h"
#include "qetcdquickexport.h"

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

class Client;
class Watcher;

// etcd's side of a timeline: every put and delete under prefix, as one unpartitioned client
// sees them, appended to eventLog as keyPut / keyDeleted events of participant "etcd", stamped
// when the watch delivered them. Beside a participant's "lost", the keyDeleted of its key says
// when etcd let the next holder in.
class QETCD_QUICK_EXPORT KeyEventRecorder : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    Q_PROPERTY(QString prefix READ prefix WRITE setPrefix NOTIFY prefixChanged)
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    Q_PROPERTY(bool watching READ isWatching NOTIFY watchingChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

public:
    explicit KeyEventRecorder(QObject *parent = nullptr);
    ~KeyEventRecorder() override;
    Q_DISABLE_COPY_MOVE(KeyEventRecorder)

    Client *client() const;
    void setClient(Client *client);
    QString prefix() const;
    void setPrefix(const QString &prefix);
    EventLogModel *eventLog() const;
    void setEventLog(EventLogModel *log);
    // The watch is created on etcd: nothing under prefix changes unrecorded.
    bool isWatching() const;
    QString errorString() const;

Q_SIGNALS:
    void clientChanged();
    void prefixChanged();
    void eventLogChanged();
    void watchingChanged();
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
