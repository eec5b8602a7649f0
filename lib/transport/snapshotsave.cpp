// SPDX-License-Identifier: Apache-2.0
#include "snapshotsave.h"

#include "client.h"
#include "client_p.h"
#include "logging_p.h"
#include "partfile_p.h"
#include "serverstream_p.h"

#include <QtCore/QFile>
#include <QtCore/QPointer>
#include <QtCore/QThread>

#include <atomic>
#include <mutex>

#include <openssl/evp.h>

namespace QEtcd {

using namespace Internal;

namespace {
using SnapshotStream = ServerStream<etcdserverpb::SnapshotRequest, etcdserverpb::SnapshotResponse>;

// What the stream's handlers on the completion-queue thread reach the writer through: the save
// clears it before its writer goes, and the stream may outlive both.
struct WriterLink
{
    // Messages received and not yet written: the stream reads ahead while fewer than
    // chunksAhead wait, so the network and the disk work at once, within a bounded memory.
    static constexpr int chunksAhead = 16;
    std::atomic<int> queued{0};

    std::mutex mutex;
    QObject *writer = nullptr;

    // Runs work(writer) on the writer's thread, unless the writer is gone.
    template <class Work>
    void post(Work work)
    {
        std::lock_guard lock(mutex);
        if (writer)
            QMetaObject::invokeMethod(writer, [work = std::move(work), target = writer] { work(target); }, Qt::QueuedConnection);
    }
};

// OpenSSL's SHA-256 (libcrypto, which gRPC loads anyway): it uses the CPU's SHA instructions and
// keeps up with a snapshot several times over, where QCryptographicHash's took more CPU than the
// rest of the save together and held its throughput below etcdctl's.
class Sha256
{
public:
    Sha256() { EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr); }
    void add(const QByteArray &bytes) { EVP_DigestUpdate(m_context.get(), bytes.constData(), size_t(bytes.size())); }
    QByteArray result()
    {
        QByteArray digest(EVP_MAX_MD_SIZE, Qt::Uninitialized);
        unsigned int size = 0;
        EVP_DigestFinal_ex(m_context.get(), reinterpret_cast<unsigned char *>(digest.data()), &size);
        digest.truncate(qsizetype(size));
        return digest;
    }

private:
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_context{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
};
} // namespace

class SnapshotSavePrivate
{
public:
    explicit SnapshotSavePrivate(Client *client) : client(client) {}

    // Both run on the owner's thread, posted there by the writer.
    static void progressed(SnapshotSave *q, qint64 written, qint64 total)
    {
        SnapshotSavePrivate *d = q->d.get();
        if (!d->running)
            return;
        d->written = written;
        d->total = total;
        Q_EMIT q->progressed(written, total);
    }

    static void finished(SnapshotSave *q, const SnapshotResult &result)
    {
        SnapshotSavePrivate *d = q->d.get();
        d->running = false;
        d->written = result.size;
        Q_EMIT q->runningChanged(false);
        Q_EMIT q->finished(result);
    }

    QPointer<Client> client;
    QThread thread;
    std::shared_ptr<WriterLink> link = std::make_shared<WriterLink>();
    QObject *writer = nullptr;
    qint64 written = 0;
    qint64 total = 0;
    bool started = false;
    bool running = false;
};

// Lives on the save's own thread: the file is opened, written, hashed, synced and renamed there,
// so neither the completion-queue thread nor the owner's ever waits on the disk.
class SnapshotWriter : public QObject
{
public:
    SnapshotWriter(SnapshotSave *owner, std::shared_ptr<WriterLink> link) : m_owner(owner), m_link(std::move(link)) {}

    void open(Client *client, const QString &fileName, bool overwrite, const QString &endpoint)
    {
        m_result.fileName = fileName;
        ClientPrivate *d = ClientPrivate::get(client);
        if (!d->configurationStatus)
            return fail(d->configurationStatus);
        Status built;
        QString name;
        const int index = d->toOneMember(CallSpec{}, endpoint, &built, &name).fixedEndpoint;
        if (!built)
            return fail(built);
        if (const Status opened = m_part.open(fileName, overwrite, QIODevice::Unbuffered); !opened)
            return fail(opened);
        qCInfo(lcTransport).noquote() << "saving the snapshot of" << name << "to" << fileName;
        const std::shared_ptr<WriterLink> link = m_link;
        m_stream = SnapshotStream::open(
            d->transport(), index, {},
            [](EndpointChannel &c, grpc::ClientContext *ctx, const auto &r, grpc::CompletionQueue *q) {
                return c.maintenance->PrepareAsyncSnapshot(ctx, r, q);
            },
            {[link](etcdserverpb::SnapshotResponse &response) {
                 QByteArray chunk(response.blob().data(), qsizetype(response.blob().size()));
                 const qint64 remaining = qint64(response.remaining_bytes());
                 link->post([chunk = std::move(chunk), remaining](QObject *writer) {
                     static_cast<SnapshotWriter *>(writer)->write(chunk, remaining);
                 });
                 // Full: the writer asks for the next when it has written one (write()).
                 return link->queued.fetch_add(1) + 1 < WriterLink::chunksAhead;
             },
             [link](const Status &status) {
                 link->post([status](QObject *writer) { static_cast<SnapshotWriter *>(writer)->close(status); });
             }});
    }

    void refuse(const SnapshotResult &result)
    {
        m_result = result;
        finish();
    }

    void cancel()
    {
        m_cancelled = true;
        if (m_stream)
            m_stream->cancel();
    }

private:
    void write(const QByteArray &chunk, qint64 remaining)
    {
        if (m_cancelled || !m_part.part().isOpen())
            return;
        if (m_part.part().write(chunk) != chunk.size()) {
            m_writeFailure = Status(StatusCode::DataLoss, QStringLiteral("cannot write %1: %2")
                                                              .arg(m_part.part().fileName(), m_part.part().errorString()));
            m_stream->cancel();
            return;
        }
        m_hash.add(chunk);
        m_result.size += chunk.size();
        const qint64 written = m_result.size;
        const qint64 total = written + remaining;
        QMetaObject::invokeMethod(m_owner, [owner = m_owner, written, total] {
            SnapshotSavePrivate::progressed(owner, written, total);
        }, Qt::QueuedConnection);
        // Only the message that filled the queue left the stream waiting.
        if (m_link->queued.fetch_sub(1) == WriterLink::chunksAhead)
            m_stream->readNext();
    }

    void close(Status status)
    {
        m_stream.reset();
        if (!m_writeFailure.isOk())
            status = m_writeFailure;
        else if (m_cancelled)
            status = Status(StatusCode::Cancelled, QStringLiteral("cancelled"));
        if (status && m_result.size == 0)
            status = Status(StatusCode::DataLoss, QStringLiteral("etcd sent an empty snapshot"));
        if (status)
            status = m_part.commit();
        if (!status) {
            m_part.discard();
            return fail(status.withContext(QStringLiteral("snapshot save to %1").arg(m_result.fileName)));
        }
        m_result.sha256 = m_hash.result();
        finish();
    }

    void fail(const Status &status)
    {
        m_result.status = status;
        m_result.sha256.clear();
        finish();
    }

    void finish()
    {
        QMetaObject::invokeMethod(m_owner, [owner = m_owner, result = m_result] {
            SnapshotSavePrivate::finished(owner, result);
        }, Qt::QueuedConnection);
    }

    SnapshotSave *m_owner;
    std::shared_ptr<WriterLink> m_link;
    std::shared_ptr<StreamHandle> m_stream;
    PartFile m_part;
    Sha256 m_hash;
    SnapshotResult m_result;
    Status m_writeFailure;
    bool m_cancelled = false;
};

SnapshotSave::SnapshotSave(Client *client, QObject *parent)
    : QObject(parent), d(std::make_unique<SnapshotSavePrivate>(client))
{
    d->thread.setObjectName(QStringLiteral("qetcd-snapshot"));
}

SnapshotSave::~SnapshotSave()
{
    if (!d->started)
        return;
    auto *writer = static_cast<SnapshotWriter *>(d->writer);
    QMetaObject::invokeMethod(writer, [writer] { writer->cancel(); }, Qt::BlockingQueuedConnection);
    {
        std::lock_guard lock(d->link->mutex);
        d->link->writer = nullptr;
    }
    d->thread.quit();
    d->thread.wait();
    // The thread has ended: its writer can go from here, removing a part file it still has open.
    delete writer;
}

bool SnapshotSave::start(const QString &fileName, bool overwrite, const QString &endpoint)
{
    if (d->started) {
        qCWarning(lcTransport) << "SnapshotSave::start: a save runs one snapshot; make another for the next";
        return false;
    }
    d->started = true;
    d->running = true;
    auto *writer = new SnapshotWriter(this, d->link);
    d->writer = writer;
    d->link->writer = writer;
    writer->moveToThread(&d->thread);
    d->thread.start();
    Q_EMIT runningChanged(true);
    QMetaObject::invokeMethod(writer, [writer, client = d->client, fileName, overwrite, endpoint] {
        if (!client) {
            SnapshotResult gone;
            gone.fileName = fileName;
            gone.status = Status(StatusCode::Closed, QStringLiteral("snapshot save: the client is gone"));
            return writer->refuse(gone);
        }
        writer->open(client, fileName, overwrite, endpoint);
    }, Qt::QueuedConnection);
    return true;
}

void SnapshotSave::cancel()
{
    if (!d->running)
        return;
    auto *writer = static_cast<SnapshotWriter *>(d->writer);
    QMetaObject::invokeMethod(writer, [writer] { writer->cancel(); }, Qt::QueuedConnection);
}

qint64 SnapshotSave::bytesWritten() const
{
    return d->written;
}

qint64 SnapshotSave::totalBytes() const
{
    return d->total;
}

bool SnapshotSave::isRunning() const
{
    return d->running;
}

} // namespace QEtcd
