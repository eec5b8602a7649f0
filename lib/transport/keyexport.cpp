// SPDX-License-Identifier: Apache-2.0
#include "keyexport.h"

#include "client.h"
#include "keyfile_p.h"
#include "keyjob_p.h"
#include "logging_p.h"
#include "partfile_p.h"

#include <QtCore/QPointer>

namespace QEtcd {

using namespace Internal;

class KeyExportPrivate
{
public:
    KeyExportPrivate(KeyExport *q, Client *client) : client(client), job(q) {}

    // On the job's thread.
    KeyExportResult run(const QByteArray &prefix, const QString &fileName, KeyExport::Format format, qint64 revision,
                        bool overwrite);

    QPointer<Client> client;
    int pageSize = KeyExport::defaultPageSize;
    qint64 written = 0;
    bool started = false;
    bool running = false;
    // Last, so destroyed first: it waits for the job's thread, which uses the members above.
    KeyJobThread job;
};

KeyExportResult KeyExportPrivate::run(const QByteArray &prefix, const QString &fileName, KeyExport::Format format,
                                      qint64 revision, bool overwrite)
{
    KeyExportResult result;
    result.fileName = fileName;
    const QString context = QStringLiteral("export of \"%1\" to %2").arg(QString::fromUtf8(prefix), fileName);
    const auto fail = [&](const Status &status) {
        result.status = status.withContext(context);
        return result;
    };
    PartFile file;
    if (const Status opened = file.open(fileName, overwrite); !opened)
        return fail(opened);
    QFile &out = file.part();
    const bool document = format == KeyExport::Format::Etcdctl;

    RangeOptions page;
    page.range = KeyRange::prefix();
    page.limit = pageSize;
    page.revision = revision;
    QByteArray from = prefix;
    for (bool first = true;; first = false) {
        if (job.isCancelled())
            return fail(Status(StatusCode::Cancelled, QStringLiteral("cancelled")));
        const RangeResult read = KeyJobThread::await(client->get(from, page));
        if (read.status.code() == StatusCode::ResourceExhausted && page.limit > 1) {
            page.limit /= 2;
            continue;
        }
        if (!read.status)
            return fail(read.status);
        if (first) {
            // Every later page reads the store as the first one saw it.
            result.revision = page.revision = revision > 0 ? revision : read.header.revision;
            page.range = KeyRange::upTo(prefixRangeEnd(prefix));
            const QByteArray header = KeyFileText::header(read.header);
            out.write(document ? "{\"header\":" + header
                               : "{\"header\":" + header + ",\"prefix\":\"" + prefix.toBase64() + "\",\"revision\":"
                                     + QByteArray::number(result.revision) + "}\n");
        }
        for (const KeyValue &kv : read.kvs) {
            if (document)
                out.write(result.keys == 0 ? ",\"kvs\":[\n" : ",\n");
            out.write(KeyFileText::keyValue(kv));
            if (!document)
                out.write("\n");
            ++result.keys;
        }
        if (out.error() != QFileDevice::NoError)
            return fail(Status(StatusCode::DataLoss, QStringLiteral("cannot write %1: %2").arg(out.fileName(), out.errorString())));
        job.report([this, q = static_cast<KeyExport *>(job.owner()), keys = result.keys] {
            if (!running)
                return;
            written = keys;
            Q_EMIT q->progressed(keys);
        });
        if (!read.more || read.kvs.isEmpty())
            break;
        from = read.kvs.last().key + '\0';
    }
    // etcdctl leaves "kvs" and "count" out when there is no key.
    if (document)
        out.write(result.keys > 0 ? "\n],\"count\":" + QByteArray::number(result.keys) + "}\n" : QByteArray("}\n"));
    if (const Status committed = file.commit(); !committed)
        return fail(committed);
    qCInfo(lcTransport).noquote() << "exported" << result.keys << "keys to" << fileName << "at revision" << result.revision;
    return result;
}

KeyExport::KeyExport(Client *client, QObject *parent)
    : QObject(parent), d(std::make_unique<KeyExportPrivate>(this, client))
{
}

KeyExport::~KeyExport() = default;

bool KeyExport::start(const QByteArray &prefix, const QString &fileName, Format format, qint64 revision, bool overwrite)
{
    if (d->started) {
        qCWarning(lcTransport) << "KeyExport::start: an export runs once; make another for the next";
        return false;
    }
    d->started = true;
    d->running = true;
    Q_EMIT runningChanged(true);
    KeyExportPrivate *dp = d.get();
    const auto finish = [this, dp](const KeyExportResult &result) {
        dp->job.report([this, dp, result] {
            dp->running = false;
            Q_EMIT runningChanged(false);
            Q_EMIT finished(result);
        });
    };
    if (fileName.isEmpty() || revision < 0 || !d->client) {
        KeyExportResult refused;
        refused.fileName = fileName;
        refused.status = !d->client ? Status(StatusCode::Closed, QStringLiteral("export: the client is gone"))
                                    : Status(StatusCode::InvalidArgument,
                                             fileName.isEmpty() ? QStringLiteral("export: no file name")
                                                                : QStringLiteral("export: the revision must be >= 0, not %1").arg(revision));
        finish(refused);
        return true;
    }
    d->job.start(QStringLiteral("qetcd-export"), [dp, finish, prefix, fileName, format, revision, overwrite] {
        finish(dp->run(prefix, fileName, format, revision, overwrite));
    });
    return true;
}

void KeyExport::setPageSize(int keys)
{
    if (keys < 1 || d->started) {
        qCWarning(lcTransport) << "KeyExport::setPageSize: a page size >= 1, before start(); not" << keys;
        return;
    }
    d->pageSize = keys;
}

void KeyExport::cancel()
{
    if (d->running)
        d->job.cancel();
}

qint64 KeyExport::keysWritten() const
{
    return d->written;
}

bool KeyExport::isRunning() const
{
    return d->running;
}

} // namespace QEtcd
