// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QFuture>
#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QString>

#include <memory>

namespace QEtcd {

class Client;
class SnapshotSavePrivate;

/// How a snapshot save ended.
struct QETCD_EXPORT SnapshotResult
{
    Status status;      ///< Ok, or why nothing was saved.
    QString fileName;   ///< The file saved to, as given to SnapshotSave::start().
    qint64 size = 0;    ///< Its size in bytes; when the save failed, the bytes received before.
    QByteArray sha256;  ///< The SHA-256 of its content, 32 bytes; empty when the save failed.
};

/// What `etcdctl snapshot status` reports of a snapshot file, read from the file alone: see
/// snapshotFileStatus().
struct QETCD_EXPORT SnapshotFileStatus
{
    Status status;         ///< Ok; NotFound when the file cannot be opened; InvalidArgument naming what is wrong in it.
    quint32 hash = 0;      ///< CRC-32C of every bucket's name, keys and values, in order (etcdctl's hash).
    qint64 revision = 0;   ///< The store's newest revision.
    qint64 totalKeys = 0;  ///< The entries of every bucket.
    qint64 totalSize = 0;  ///< The bytes bbolt uses: its pages up to the high-water mark.
};

/// Reads the status of the snapshot (an etcd database file) at \a fileName as etcdctl does, on a
/// thread of the global pool: every page is read once, which takes a while for a large file.
/// Every page and entry is bounds-checked and read at most once, so a damaged file ends in a
/// status naming the damage, never a crash or a hang.
QETCD_EXPORT QFuture<SnapshotFileStatus> snapshotFileStatus(const QString &fileName);

/// Saves a member's snapshot of its database to a file (etcd's Maintenance.Snapshot stream), as
/// `etcdctl snapshot save` does, for backups.
///
/// The snapshot is written as it arrives, one message at a time, by a thread of its own: never
/// more than a message of it is held in memory, and a slow disk slows the stream down rather
/// than filling memory. It goes to FILE.part first, which is synced and renamed to FILE once
/// the last byte is in: a save that fails, is cancelled or is destroyed leaves no partial file
/// behind and never replaces a good one. A file that exists is never overwritten unless
/// start() is told to.
///
/// A one-shot job: start() returns at once, the result comes through finished(), exactly once,
/// never inside start(). The client must outlive the save. Allowed under read-only: it reads.
class QETCD_EXPORT SnapshotSave : public QObject
{
    Q_OBJECT
    /// Bytes written so far.
    Q_PROPERTY(qint64 bytesWritten READ bytesWritten NOTIFY progressed)
    /// The snapshot's whole size as etcd announced it with the first message; 0 until then.
    Q_PROPERTY(qint64 totalBytes READ totalBytes NOTIFY progressed)
    /// Between start() and finished().
    Q_PROPERTY(bool running READ isRunning NOTIFY runningChanged)

public:
    /// A save of a snapshot from \a client's cluster; nothing happens until start().
    explicit SnapshotSave(Client *client, QObject *parent = nullptr);
    /// Cancels a save still running, removing its part file, and waits for its thread.
    ~SnapshotSave() override;
    Q_DISABLE_COPY_MOVE(SnapshotSave)

    /// Starts saving the snapshot of the member at \a endpoint (one of the client's endpoints;
    /// empty: the one in use) to \a fileName. An existing file is refused (AlreadyExists) unless
    /// \a overwrite. False, with a warning and nothing started, while a save runs; every other
    /// refusal comes through finished().
    bool start(const QString &fileName, bool overwrite = false, const QString &endpoint = {});
    /// Stops the save: finished() reports Cancelled and the part file is removed. Nothing when
    /// no save runs.
    void cancel();

    /// Bytes written so far.
    qint64 bytesWritten() const;
    /// The snapshot's whole size as etcd announced it; 0 until the first message.
    qint64 totalBytes() const;
    /// Between start() and finished().
    bool isRunning() const;

Q_SIGNALS:
    /// More of the snapshot is on disk.
    void progressed(qint64 bytesWritten, qint64 totalBytes);
    /// The save ended: saved (result.status ok), failed or cancelled. Once per start().
    void finished(const QEtcd::SnapshotResult &result);
    /// isRunning() changed.
    void runningChanged(bool running);

private:
    friend class SnapshotSavePrivate;
    std::unique_ptr<SnapshotSavePrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::SnapshotResult)
