// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QEtcd/client.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVariantMap>
#include <QtQml/qqmlregistration.h>

#include <functional>

namespace QEtcd {

class BulkDelete;

/// `KeyTransfer` in QML: export, import and bulk delete of keys, for the console's Keys page.
///
/// Runs KeyExport, KeyImport and BulkDelete, one job at a time, off the GUI thread as they
/// run themselves, and reports their progress and results as properties QML binds to. A job
/// that writes (importFile(), deletePrefix()) is refused by the library under read-only before
/// anything is sent; its dry run (checkImport(), countPrefix()) is allowed and is what the page
/// shows the operator before asking for confirmation.
class QETCD_QUICK_EXPORT KeyTransfer : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to read and write through.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// A job runs.
    Q_PROPERTY(bool running READ isRunning NOTIFY changed)
    /// The job running or last run: "export", "importCheck", "import", "deleteCount", "delete",
    /// "deleteKeysCount", "deleteKeys"; empty before the first.
    Q_PROPERTY(QString operation READ operation NOTIFY changed)
    /// Keys done so far: exported, checked, written or deleted.
    Q_PROPERTY(qint64 done READ done NOTIFY changed)
    /// Keys to do, once known; 0 while unknown (an export, an import's dry run).
    Q_PROPERTY(qint64 total READ total NOTIFY changed)
    /// How the last job ended (see finished()); empty while none has.
    Q_PROPERTY(QVariantMap result READ result NOTIFY changed)

public:
    /// A KeyTransfer without client yet.
    explicit KeyTransfer(QObject *parent = nullptr);
    /// Cancels a job still running and waits for its thread.
    ~KeyTransfer() override;

    /// The client.
    Client *client() const { return m_client; }
    /// Sets the client; a job already running goes on with the one it started with.
    void setClient(Client *client);
    /// A job runs.
    bool isRunning() const { return m_job != nullptr; }
    /// The job running or last run.
    QString operation() const { return m_operation; }
    /// Keys done so far.
    qint64 done() const { return m_done; }
    /// Keys to do; 0 while unknown.
    qint64 total() const { return m_total; }
    /// How the last job ended.
    QVariantMap result() const { return m_result; }

    /// Prefixes are text as DisplayText::toBytes() reads it, like KeyModel's prefix.
    ///
    /// Exports the keys under \a prefix to \a fileName, as etcdctl's `get -w json` document
    /// (\a format "etcdctl") or as JSON lines ("jsonl"), replacing an existing file only with
    /// \a overwrite. False, with nothing started, while another job runs or without a client.
    Q_INVOKABLE bool exportPrefix(const QString &prefix, const QString &fileName, const QString &format,
                                  bool overwrite);
    /// Compares \a fileName with the cluster without writing: result has creates, overwrites,
    /// unchanged and a sample of each.
    Q_INVOKABLE bool checkImport(const QString &fileName);
    /// Imports \a fileName (after a dry run of its own, which guards every transaction).
    Q_INVOKABLE bool importFile(const QString &fileName);
    /// Counts the keys under \a prefix without deleting: result has counted and a sample.
    Q_INVOKABLE bool countPrefix(const QString &prefix);
    /// Deletes the keys under \a prefix (not empty), at most 128 a transaction.
    Q_INVOKABLE bool deletePrefix(const QString &prefix);
    /// Counts which of \a keys (text as DisplayText::toBytes() reads it) exist, without
    /// deleting: result has counted and a sample.
    Q_INVOKABLE bool countKeys(const QStringList &keys);
    /// Deletes \a keys, at most 128 a transaction.
    Q_INVOKABLE bool deleteKeys(const QStringList &keys);
    /// Stops the running job as soon as it can: its result says Cancelled. What an import or a
    /// delete wrote before stays written.
    Q_INVOKABLE void cancel();

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// running, operation, progress or result changed.
    void changed();
    /// A job ended: \a result has `status` (a Status) and, as the operation has them,
    /// `fileName`, `keys`, `revision`, `creates`, `overwrites`, `unchanged`, `createSample`,
    /// `overwriteSample`, `unchangedSample`, `written`, `counted`, `sample`, `deleted` (keys as
    /// DisplayText::fromBytes() gives them: DisplayText.escape() shows them).
    void finished(const QString &operation, const QVariantMap &result);

private:
    bool begin(const QString &operation);
    // An import, or its dry run; a bulk delete of prefix, or its count.
    bool startImport(const QString &operation, const QString &fileName, bool dryRun);
    // A bulk delete, or its count, that \a start starts.
    bool startBulkDelete(const QString &operation, const std::function<void(BulkDelete *)> &start);
    void progress(qint64 done, qint64 total);
    void end(const QVariantMap &result);

    QPointer<Client> m_client;
    QObject *m_job = nullptr;  // the running KeyExport, KeyImport or BulkDelete; a child
    QString m_operation;
    qint64 m_done = 0;
    qint64 m_total = 0;
    QVariantMap m_result;
};

} // namespace QEtcd
