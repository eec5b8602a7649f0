// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QMetaType>
#include <QtCore/QObject>

#include <memory>

namespace QEtcd {

class Client;
class BulkDeletePrivate;

/// How a bulk delete ended.
struct QETCD_EXPORT BulkDeleteResult
{
    Status status;             ///< Ok, or why it stopped.
    bool dryRun = false;       ///< Only counted.
    qint64 counted = 0;        ///< Keys there were to delete when counted.
    QList<QByteArray> sample;  ///< The first BulkDelete::sampleSize of them, in key order.
    qint64 deleted = 0;        ///< Keys deleted: with a failure, by the transactions that succeeded.
    qint64 transactions = 0;   ///< Transactions that deleted.
    qint64 revision = 0;       ///< The revision of the last of them; 0 for none.
};

/// Deletes the keys under a prefix, or a list of keys: counted first, with a sample, then
/// deleted in transactions of at most maxTransactionKeys keys, so that no single request grows
/// with the prefix and etcd's --max-txn-ops holds.
///
/// A prefix is deleted key by key as it is read: keys written under it while the delete runs
/// are deleted too when they sort after the keys already deleted, others stay. Refused under
/// read-only before anything is sent, unless a dry run. A one-shot job: start...() returns at
/// once, the result comes through finished(), exactly once, never inside the call. The client
/// must outlive it.
class QETCD_EXPORT BulkDelete : public QObject
{
    Q_OBJECT
    /// Between start...() and finished().
    Q_PROPERTY(bool running READ isRunning NOTIFY runningChanged)

public:
    /// Keys per transaction at most: etcd's default --max-txn-ops.
    static constexpr int maxTransactionKeys = 128;
    /// Keys counted() names.
    static constexpr int sampleSize = 10;

    /// A delete in \a client's cluster; nothing happens until start...().
    explicit BulkDelete(Client *client, QObject *parent = nullptr);
    /// Cancels a delete still running (after the transaction in flight) and waits for its thread.
    ~BulkDelete() override;
    Q_DISABLE_COPY_MOVE(BulkDelete)

    /// Deletes every key that starts with \a prefix (not empty: delete the whole keyspace with
    /// Client::remove()), or with \a dryRun only counts them. False, with a warning, once started
    /// before.
    bool startPrefix(const QByteArray &prefix, bool dryRun = false);
    /// Deletes \a keys (none empty), or with \a dryRun counts those that exist.
    bool startKeys(const QList<QByteArray> &keys, bool dryRun = false);
    /// Stops between two transactions: finished() reports Cancelled; what was deleted stays so.
    void cancel();
    /// Between start...() and finished().
    bool isRunning() const;

Q_SIGNALS:
    /// The keys to delete were counted; \a sample names the first of them. Before the first delete.
    void counted(qint64 count, const QList<QByteArray> &sample);
    /// \a deleted keys of the \a counted are gone.
    void progressed(qint64 deleted, qint64 counted);
    /// The delete ended. Once per start...().
    void finished(const QEtcd::BulkDeleteResult &result);
    /// isRunning() changed.
    void runningChanged(bool running);

private:
    std::unique_ptr<BulkDeletePrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::BulkDeleteResult)
