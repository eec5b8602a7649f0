// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QEtcd/client.h>
#include <QEtcd/revisiontimes.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtQml/qqmlregistration.h>

#include <memory>

namespace QEtcd {

/// `RevisionClock` in QML: puts a cluster's revisions on the wall clock while the console runs.
///
/// etcd keeps no time per revision. While active, the clock samples the store's revision every
/// second (RevisionRecorder, a read) into a file of the cluster's own,
/// `qetcd/revisions/<cluster ID>.map` in the user's data folder (`~/.local/share`), the format
/// `qetcd record` writes and `qetcd history --map` reads; the samples an earlier run kept there
/// are read first. when() then says between which two sampled times a revision came to be, and
/// never one guessed time. Nothing is written to etcd.
class QETCD_QUICK_EXPORT RevisionClock : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to sample through; setting it starts again.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// Sampling while true (the default).
    Q_PROPERTY(bool active READ isActive WRITE setActive NOTIFY activeChanged)
    /// The cluster's file of samples; empty until the cluster has answered.
    Q_PROPERTY(QString path READ path NOTIFY pathChanged)
    /// How many samples are known, this run's and the file's.
    Q_PROPERTY(int sampleCount READ sampleCount NOTIFY samplesChanged)
    /// When the oldest known sample was taken, in ms since the epoch; -1 while none is known.
    Q_PROPERTY(double firstSampleMs READ firstSampleMs NOTIFY samplesChanged)
    /// Why sampling or reading the file failed; empty while it works.
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

public:
    /// A clock without client yet.
    explicit RevisionClock(QObject *parent = nullptr);
    /// Stops sampling.
    ~RevisionClock() override;
    Q_DISABLE_COPY_MOVE(RevisionClock)

    /// The client.
    Client *client() const { return m_client; }
    /// Sets the client and starts again.
    void setClient(Client *client);
    /// Sampling.
    bool isActive() const { return m_active; }
    /// Starts (true) or stops (false) sampling.
    void setActive(bool active);
    /// The file of samples.
    QString path() const { return m_path; }
    /// The samples known.
    int sampleCount() const { return int(m_times.samples().size()); }
    /// The oldest sample's time.
    double firstSampleMs() const;
    /// The error.
    QString errorString() const { return m_error; }

    /// When \a revision came to be, in words, with local times: "between 14:02:11 and
    /// 14:02:12", "after 14:02:11" (no later sample yet), "by 14:02:12" (no earlier one), or empty
    /// when no sample tells.
    Q_INVOKABLE QString when(qint64 revision) const;
    /// The same as a map: afterMs and byMs, ms since the epoch, -1 where no sample tells.
    Q_INVOKABLE QVariantMap bounds(qint64 revision) const;

    /// The store's revision at \a msSinceEpoch, by the newest sample taken by then; 0 when no
    /// sample is that old.
    Q_INVOKABLE qint64 revisionAt(double msSinceEpoch) const;

    /// Where the samples of the cluster \a clusterId are kept.
    static QString pathFor(quint64 clusterId);

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// active changed.
    void activeChanged();
    /// path changed.
    void pathChanged();
    /// sampleCount changed: when() may say more.
    void samplesChanged();
    /// errorString changed.
    void errorStringChanged();

private:
    void restart();
    void record(quint64 clusterId);
    void setError(const QString &error);

    QPointer<Client> m_client;
    bool m_active = true;
    QString m_path;
    QString m_error;
    RevisionTimes m_times;
    RevisionTimes::Sample m_unchangedSince;  // the newest sample that saw no change, not kept yet
    std::unique_ptr<RevisionRecorder> m_recorder;
    quint64 m_generation = 0;  // an answer for a client since replaced is dropped
};

} // namespace QEtcd
