// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>
#include <QEtcd/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QString>

#include <memory>

namespace QEtcd {

class Client;
class KeyExportPrivate;

/// How a key export ended.
struct QETCD_EXPORT KeyExportResult
{
    Status status;         ///< Ok, or why no file was written.
    QString fileName;      ///< The file written, as given to KeyExport::start().
    qint64 revision = 0;   ///< The revision every key was read at.
    qint64 keys = 0;       ///< How many keys the file holds; when the export failed, those read before.
};

/// Exports the keys under a prefix to a file, all read at one revision, for KeyImport (or a
/// script) to read back.
///
/// Two shapes, both with etcdctl's `get -w json` fields for each key ("key" and "value" in
/// base64, "create_revision", "mod_revision", "version", "lease"; "value" and "lease" left out
/// when empty, as etcdctl leaves them):
/// - Format::Etcdctl: etcdctl's document, `{"header":{...},"kvs":[...],"count":N}`, one key a
///   line; what `etcdctl get PREFIX --prefix -w json` prints, and what tools reading that read.
/// - Format::JsonLines: a first line `{"header":{...},"prefix":"<base64>","revision":R}`, then
///   one key a line: for line tools (grep, jq -c, split).
///
/// The keys are read in pages at the revision of the first (or the one given), each page
/// written before the next is asked for: memory holds one page, whatever the prefix holds. The
/// file is written to FILE.part, synced and renamed to FILE at the end: a failed or cancelled
/// export leaves no file and never replaces a good one; an existing FILE is refused unless
/// start() is told to overwrite it.
///
/// A one-shot job: start() returns at once, the result comes through finished(), exactly once,
/// never inside start(). The client must outlive the export. Allowed under read-only.
class QETCD_EXPORT KeyExport : public QObject
{
    Q_OBJECT
    /// Keys written so far.
    Q_PROPERTY(qint64 keysWritten READ keysWritten NOTIFY progressed)
    /// Between start() and finished().
    Q_PROPERTY(bool running READ isRunning NOTIFY runningChanged)

public:
    /// The file's shape (see the class).
    enum class Format { Etcdctl, JsonLines };
    Q_ENUM(Format)

    /// An export from \a client's cluster; nothing happens until start().
    explicit KeyExport(Client *client, QObject *parent = nullptr);
    /// Cancels an export still running, removing its part file, and waits for its thread.
    ~KeyExport() override;
    Q_DISABLE_COPY_MOVE(KeyExport)

    /// Keys read per request; a page too large for the client's receive limit is halved and read
    /// again.
    static constexpr int defaultPageSize = 1000;

    /// Starts exporting every key that starts with \a prefix (empty: every key) to \a fileName in
    /// \a format, as of \a revision (0: now). False, with a warning and nothing started, once
    /// started before; every other refusal comes through finished().
    bool start(const QByteArray &prefix, const QString &fileName, Format format = Format::Etcdctl,
               qint64 revision = 0, bool overwrite = false);
    /// Keys per read (>= 1), before start(); defaultPageSize unless set.
    void setPageSize(int keys);
    /// Stops the export after the page in flight: finished() reports Cancelled, no file is left.
    void cancel();

    /// Keys written so far.
    qint64 keysWritten() const;
    /// Between start() and finished().
    bool isRunning() const;

Q_SIGNALS:
    /// Another page of keys is in the file.
    void progressed(qint64 keysWritten);
    /// The export ended: written (result.status ok), failed or cancelled. Once per start().
    void finished(const QEtcd::KeyExportResult &result);
    /// isRunning() changed.
    void runningChanged(bool running);

private:
    std::unique_ptr<KeyExportPrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::KeyExportResult)
