// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QFile>
#include <QtCore/QFuture>
#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtCore/QTimer>

#include <chrono>

namespace QEtcd {

class Client;

/// When the store reached which revision, as a RevisionRecorder sampled it: etcd keeps no time
/// per revision, so this is the only way to put a revision on the clock.
///
/// A sample says that at a wall-clock time the store was at a revision. A revision therefore
/// came to be after the last sample that had not reached it and no later than the first that
/// had: bounds() says between which two times, never one guessed time.
///
/// On disk, one sample per line: milliseconds since the epoch and the revision, separated by a
/// space, in time order (what RevisionRecorder appends).
class QETCD_EXPORT RevisionTimes
{
public:
    /// One observation.
    struct Sample
    {
        qint64 msSinceEpoch = 0;  ///< When, by the recorder's clock.
        qint64 revision = 0;      ///< The store's revision then.
    };
    /// When a revision came to be, as far as the samples tell.
    struct Bounds
    {
        qint64 afterMs = -1;  ///< It came after this time; -1 when no sample is older.
        qint64 byMs = -1;     ///< It had come by this time; -1 when no sample is that new.
        /// Both ends are known.
        bool isKnown() const { return afterMs >= 0 && byMs >= 0; }
    };

    /// No samples.
    RevisionTimes() = default;

    /// Reads the samples in \a path. InvalidArgument naming the line for a line that is not
    /// "<ms> <revision>", or whose time or revision goes backwards (a different cluster's
    /// samples, or a clock set back); NotFound when there is no such file. Nothing is kept then.
    static RevisionTimes load(const QString &path, Status *status);

    /// Adds \a sample after the others; one older than the newest is ignored.
    void append(const Sample &sample);
    /// The samples, oldest first.
    QList<Sample> samples() const { return m_samples; }

    /// When \a revision came to be.
    Bounds bounds(qint64 revision) const;
    /// The store's revision at \a msSinceEpoch, by the newest sample taken by then; 0 when no
    /// sample is that old.
    qint64 revisionAt(qint64 msSinceEpoch) const;

private:
    QList<Sample> m_samples;
};

/// Samples a cluster's revision at an interval and appends the samples to a file that
/// RevisionTimes reads: the revision→time map `qetcd history` uses to say when.
///
/// Each sample is one cheap read (a count of no keys) whose answer carries the store's
/// revision. A sample is written only around a change: the first, each one whose revision
/// differs from the one before, and the last one before such a change, so that an idle cluster
/// costs no disk while every change stays bounded by two samples one interval apart. Read-only:
/// nothing is written to etcd.
class QETCD_EXPORT RevisionRecorder : public QObject
{
    Q_OBJECT
public:
    /// Samples through \a client into \a path; nothing happens until start().
    RevisionRecorder(Client *client, const QString &path, QObject *parent = nullptr);
    ~RevisionRecorder() override;
    Q_DISABLE_COPY_MOVE(RevisionRecorder)

    /// How often to sample; default one second. Set it before start().
    void setInterval(std::chrono::milliseconds interval);

    /// Opens the file for appending (created if need be) and takes the first sample; finishes
    /// with Ok once it is written, or why not (the file cannot be written, etcd does not answer).
    /// Samples then follow every interval until the recorder is destroyed.
    QFuture<Status> start();

Q_SIGNALS:
    /// A sample was taken (written or not).
    void sampled(qint64 msSinceEpoch, qint64 revision);
    /// A sample could not be taken or written; the recorder goes on trying.
    void sampleFailed(const QEtcd::Status &status);

private:
    void sample();
    void write(const RevisionTimes::Sample &sample);

    Client *m_client;
    QFile m_file;
    QTimer m_timer;
    bool m_inFlight = false;
    RevisionTimes::Sample m_last;
    bool m_lastWritten = true;
};

} // namespace QEtcd
