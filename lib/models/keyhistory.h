// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

/// `KeyHistory` in QML: one key's earlier values, one version at a time.
///
/// One key's earlier values, read from etcd at older revisions while etcd still has them. etcd
/// keeps no list of a key's versions, but a read at (mod revision - 1) answers with the version
/// before, so older() walks back one version per read, from the current one down to the
/// version the key was created with; newer() retraces the walk. Once etcd has compacted the
/// revision a step needs, `compacted` says so and the walk stops there.
class QETCD_QUICK_EXPORT KeyHistory : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to read through.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// The key whose history is walked; setting it returns to the latest.
    Q_PROPERTY(QString key READ key WRITE setKey NOTIFY keyChanged)
    /// The key's current mod revision (KeyModel.selected.modRevision): where the walk starts,
    /// and where latest() returns to.
    Q_PROPERTY(qint64 latestRevision READ latestRevision WRITE setLatestRevision NOTIFY latestRevisionChanged)
    /// Its current version (KeyModel.selected.version): version 1 has nothing before it.
    Q_PROPERTY(qint64 latestVersion READ latestVersion WRITE setLatestVersion NOTIFY latestRevisionChanged)
    /// Loading while a step back is read; Error when it failed.
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY changed)
    /// Why the last step back failed.
    Q_PROPERTY(QString errorString READ errorString NOTIFY changed)
    /// The version shown: modRevision, createRevision, version, lease (hex), views (as
    /// KeyModel.selected's); empty while the latest is shown.
    Q_PROPERTY(QVariantMap shown READ shown NOTIFY changed)
    /// The latest version is shown.
    Q_PROPERTY(bool atLatest READ atLatest NOTIFY changed)
    /// older() has somewhere to go: the version shown is not the first, nothing is loading, and
    /// the walk has not met compaction.
    Q_PROPERTY(bool canGoOlder READ canGoOlder NOTIFY changed)
    /// The last step back needed a revision etcd has compacted: compactedRevision, and every
    /// one before it, is gone.
    Q_PROPERTY(bool compacted READ compacted NOTIFY changed)
    /// The compacted revision the last step back needed; 0 when it met none.
    Q_PROPERTY(qint64 compactedRevision READ compactedRevision NOTIFY changed)

public:
    /// A KeyHistory without client or key yet.
    explicit KeyHistory(QObject *parent = nullptr);
    /// Destroys it; a read on its way is dropped.
    ~KeyHistory() override;

    /// The client.
    Client *client() const;
    /// Sets the client.
    void setClient(Client *client);
    /// The key.
    QString key() const;
    /// Sets the key and returns to the latest.
    void setKey(const QString &key);
    /// The key's current mod revision.
    qint64 latestRevision() const;
    /// Sets the key's current mod revision.
    void setLatestRevision(qint64 revision);
    /// The key's current version.
    qint64 latestVersion() const { return m_latestVersion; }
    /// Sets the key's current version.
    void setLatestVersion(qint64 version);
    /// The status of the walk.
    ModelStatus::Status status() const { return m_status; }
    /// Why the last step back failed.
    QString errorString() const { return m_error; }
    /// The version shown; empty at the latest.
    QVariantMap shown() const;
    /// The latest version is shown.
    bool atLatest() const { return m_steps.isEmpty(); }
    /// older() has somewhere to go.
    bool canGoOlder() const;
    /// The last step back met compaction.
    bool compacted() const { return m_compactedRevision > 0; }
    /// The compacted revision it met; 0 when none.
    qint64 compactedRevision() const { return m_compactedRevision; }

    /// Reads the version before the one shown; status turns Loading until it is in.
    Q_INVOKABLE void older();
    /// Goes back to the version after the one shown (no read: it was read on the way back).
    Q_INVOKABLE void newer();
    /// Goes back to the latest version.
    Q_INVOKABLE void latest();

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// key changed.
    void keyChanged();
    /// latestRevision or latestVersion changed.
    void latestRevisionChanged();
    /// What is shown, the status or the compaction changed.
    void changed();

private:
    // Where the step before the shown one is read: below the shown version's mod revision.
    qint64 nextOlderRevision() const;

    QPointer<Client> m_client;
    QByteArray m_key;
    qint64 m_latest = 0;
    qint64 m_latestVersion = 0;
    QList<KeyValue> m_steps;  // the versions walked back to, newest first
    // shown() for each step, described once when read: `changed` comes with every new latest
    // revision, and each binding reads shown() again.
    QList<QVariantMap> m_shownSteps;
    ModelStatus::Status m_status = ModelStatus::Ready;
    QString m_error;
    qint64 m_compactedRevision = 0;
    quint64 m_generation = 0;  // answers to a walk that was started over are dropped
};

} // namespace QEtcd
