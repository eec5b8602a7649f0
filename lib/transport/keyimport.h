// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QString>

#include <memory>

namespace QEtcd {

class Client;
class KeyImportPrivate;

/// How an import reads its file and what it writes.
struct QETCD_EXPORT KeyImportOptions
{
    /// Only compare the file with the cluster: KeyImport::planned() and finished() tell what an
    /// import would do, nothing is written. Allowed under read-only.
    bool dryRun = false;
    /// Keys in the file that start with rewriteFrom are written under rewriteTo instead (an
    /// export of /a/ imported as /b/); with rewriteFrom set, a key that does not start with it is
    /// an error. Empty: keys are written as they are.
    QByteArray rewriteFrom;
    /// What replaces rewriteFrom at the start of each key.
    QByteArray rewriteTo;
    /// Bind keys to the lease IDs the file names. Off by default: a file's lease IDs are those of
    /// the cluster and moment it was exported from, and a lease that does not exist fails the
    /// write; without it keys are written without a lease.
    bool keepLeases = false;
};

/// What an import does, or would do, key by key.
struct QETCD_EXPORT KeyImportPlan
{
    /// How many keys of each kind a sample keeps.
    static constexpr int sampleSize = 10;
    qint64 creates = 0;     ///< Keys the cluster does not have.
    qint64 overwrites = 0;  ///< Keys the cluster has with another value (or lease, with keepLeases).
    qint64 unchanged = 0;   ///< Keys the cluster has exactly so: not written.
    QList<QByteArray> createSample;     ///< The first sampleSize keys created, in file order.
    QList<QByteArray> overwriteSample;  ///< The first sampleSize keys overwritten.
    QList<QByteArray> unchangedSample;  ///< The first sampleSize keys left unchanged.
    /// Keys to write: creates and overwrites.
    qint64 toWrite() const { return creates + overwrites; }
};

/// How an import ended.
struct QETCD_EXPORT KeyImportResult
{
    Status status;          ///< Ok, or why it stopped.
    QString fileName;       ///< The file, as given to KeyImport::start().
    bool dryRun = false;    ///< Nothing was to be written.
    KeyImportPlan plan;     ///< What the dry run found (empty when the file was refused).
    qint64 written = 0;     ///< Keys written: with a failure, by the transactions that succeeded.
    qint64 transactions = 0;  ///< Transactions that wrote.
    qint64 revision = 0;    ///< The revision of the last transaction that wrote; 0 for none.
};

/// Imports a file KeyExport wrote, or etcdctl's `get -w json` output, into a cluster, after a
/// dry run that compares every key of the file with the cluster's.
///
/// The whole file is read and checked first (JSON, base64, the shape): a bad file is refused,
/// naming its line and entry, before anything is written. The dry run sorts its keys into
/// creates, overwrites and unchanged (planned()). Then the keys to write go in transactions of
/// at most maxTransactionKeys keys and maxTransactionBytes, in file order, each guarded: a key
/// whose mod_revision is not what the dry run saw (changed, deleted, or appeared since) fails
/// its whole transaction, and the import stops with an error naming the key. What earlier
/// transactions wrote stays written (result.written says how much). The file is read twice,
/// once per phase, one batch at a time: memory holds a batch and a few bytes per key; a file
/// that changed in between is refused.
///
/// Refused under read-only before anything is sent, unless a dry run. A one-shot job: start()
/// returns at once, the result comes through finished(), exactly once, never inside start().
/// The client must outlive the import.
class QETCD_EXPORT KeyImport : public QObject
{
    Q_OBJECT
    /// Between start() and finished().
    Q_PROPERTY(bool running READ isRunning NOTIFY runningChanged)

public:
    /// Keys per transaction at most: etcd's default --max-txn-ops.
    static constexpr int maxTransactionKeys = 128;
    /// Bytes of keys and values per transaction at most, unless one key alone has more: below
    /// etcd's default --max-request-bytes (1.5 MiB), which refuses a larger request whole.
    static constexpr qint64 maxTransactionBytes = 1024 * 1024;

    /// An import into \a client's cluster; nothing happens until start().
    explicit KeyImport(Client *client, QObject *parent = nullptr);
    /// Cancels an import still running (after the transaction in flight) and waits for its thread.
    ~KeyImport() override;
    Q_DISABLE_COPY_MOVE(KeyImport)

    /// Starts importing \a fileName (either shape, told apart by its first line) as \a options
    /// say. False, with a warning and nothing started, once started before; every other refusal
    /// comes through finished().
    bool start(const QString &fileName, const KeyImportOptions &options = {});
    /// Stops the import between two transactions: finished() reports Cancelled; what was
    /// written stays written.
    void cancel();
    /// Between start() and finished().
    bool isRunning() const;

Q_SIGNALS:
    /// During the dry run, \a done keys of the file checked and \a total 0; while writing,
    /// \a done keys written of \a total to write.
    void progressed(qint64 done, qint64 total);
    /// The dry run is over: what the import will write (before the first write).
    void planned(const QEtcd::KeyImportPlan &plan);
    /// The import ended. Once per start().
    void finished(const QEtcd::KeyImportResult &result);
    /// isRunning() changed.
    void runningChanged(bool running);

private:
    std::unique_ptr<KeyImportPrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::KeyImportPlan)
Q_DECLARE_METATYPE(QEtcd::KeyImportResult)
