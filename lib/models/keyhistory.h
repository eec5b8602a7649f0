#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

// One key's earlier values, read from etcd at older revisions while etcd still has them. etcd
// keeps no list of a key's versions, but a read at (mod revision - 1) answers with the version
// before, so older() walks back one version per read, from the current one down to the
// version the key was created with; newer() retraces the walk. Once etcd has compacted the
// revision a step needs, `compacted` says so and the walk stops there.
class QETCD_QUICK_EXPORT KeyHistory : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    Q_PROPERTY(QString key READ key WRITE setKey NOTIFY keyChanged)
    // The key's current mod revision (KeyModel.selected.modRevision): where the walk starts,
    // and where latest() returns to.
    Q_PROPERTY(qint64 latestRevision READ latestRevision WRITE setLatestRevision NOTIFY latestRevisionChanged)
    // Its current version (KeyModel.selected.version): version 1 has nothing before it.
    Q_PROPERTY(qint64 latestVersion READ latestVersion WRITE setLatestVersion NOTIFY latestRevisionChanged)
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY changed)
    Q_PROPERTY(QString errorString READ errorString NOTIFY changed)
    // The version shown: modRevision, createRevision, version, lease (hex), views (as
    // KeyModel.selected's); empty while the latest is shown.
    Q_PROPERTY(QVariantMap shown READ shown NOTIFY changed)
    Q_PROPERTY(bool atLatest READ atLatest NOTIFY changed)
    Q_PROPERTY(bool canGoOlder READ canGoOlder NOTIFY changed)
    // The last step back needed a revision etcd has compacted: compactedRevision, and every
    // one before it, is gone.
    Q_PROPERTY(bool compacted READ compacted NOTIFY changed)
    Q_PROPERTY(qint64 compactedRevision READ compactedRevision NOTIFY changed)

public:
    explicit KeyHistory(QObject *parent = nullptr);
    ~KeyHistory() override;

    Client *client() const;
    void setClient(Client *client);
    QString key() const;
    void setKey(const QString &key);
    qint64 latestRevision() const;
    void setLatestRevision(qint64 revision);
    qint64 latestVersion() const { return m_latestVersion; }
    void setLatestVersion(qint64 version);
    ModelStatus::Status status() const { return m_status; }
    QString errorString() const { return m_error; }
    QVariantMap shown() const;
    bool atLatest() const { return m_steps.isEmpty(); }
    bool canGoOlder() const;
    bool compacted() const { return m_compactedRevision > 0; }
    qint64 compactedRevision() const { return m_compactedRevision; }

    Q_INVOKABLE void older();
    Q_INVOKABLE void newer();
    Q_INVOKABLE void latest();

Q_SIGNALS:
    void clientChanged();
    void keyChanged();
    void latestRevisionChanged();
    void changed();

private:
    // Where the step before the shown one is read: below the shown version's mod revision.
    qint64 nextOlderRevision() const;

    QPointer<Client> m_client;
    QByteArray m_key;
    qint64 m_latest = 0;
    qint64 m_latestVersion = 0;
    QList<KeyValue> m_steps;  // the versions walked back to, newest first
    ModelStatus::Status m_status = ModelStatus::Ready;
    QString m_error;
    qint64 m_compactedRevision = 0;
    quint64 m_generation = 0;  // answers to a walk that was started over are dropped
};

} // namespace QEtcd
