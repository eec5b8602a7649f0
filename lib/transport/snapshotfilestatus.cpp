// SPDX-License-Identifier: Apache-2.0
// A reader of bbolt's file format, enough to walk every bucket's B+tree in key order: two meta
// pages (the valid one with the newer transaction wins), branch and leaf pages, overflow pages,
// and buckets inline in their parent's leaf. bbolt writes its integers in the machine's byte order;
// etcd's snapshots come from little-endian machines, as this one is.
#include "snapshotsave.h"

#include <QtCore/QFile>
#include <QtCore/QPromise>
#include <QtCore/QThreadPool>
#include <QtCore/QSet>
#include <QtCore/QtEndian>

#include <array>
#include <cstring>
#include <functional>

namespace QEtcd {

namespace {
constexpr quint32 Magic = 0xED0CDAED;
constexpr quint32 Version = 2;
constexpr quint16 BranchPage = 0x01;
constexpr quint16 LeafPage = 0x02;
constexpr quint32 BucketLeaf = 0x01;
constexpr qint64 PageHeaderSize = 16;  // id, flags, count, overflow
constexpr qint64 ElementSize = 16;     // a branch's or a leaf's element
constexpr qint64 BucketHeaderSize = 16;  // root page id, sequence
constexpr int MaxDepth = 64;

template <class T>
T read(const uchar *at)
{
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
}

// CRC-32C (Castagnoli), as Go's hash/crc32 computes it with crc32.Castagnoli.
class Crc32c
{
public:
    void write(const uchar *bytes, qint64 size)
    {
        static const std::array<quint32, 256> table = [] {
            std::array<quint32, 256> t{};
            for (quint32 i = 0; i < 256; ++i) {
                quint32 c = i;
                for (int k = 0; k < 8; ++k)
                    c = c & 1 ? 0x82F63B78 ^ (c >> 1) : c >> 1;
                t[i] = c;
            }
            return t;
        }();
        for (qint64 i = 0; i < size; ++i)
            m_crc = table[(m_crc ^ bytes[i]) & 0xff] ^ (m_crc >> 8);
    }
    quint32 sum() const { return ~m_crc; }

private:
    quint32 m_crc = 0xFFFFFFFF;
};

// FNV-1a, 64 bits: bbolt's checksum of a meta page.
quint64 fnv64a(const uchar *bytes, qint64 size)
{
    quint64 hash = 0xcbf29ce484222325ULL;
    for (qint64 i = 0; i < size; ++i)
        hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    return hash;
}

struct Meta
{
    quint32 pageSize = 0;
    quint64 root = 0;
    quint64 highWater = 0;  // the first page id past the file's pages in use
    quint64 txid = 0;
};

class BoltFile
{
public:
    using Visit = std::function<bool(const uchar *key, quint32 keySize, const uchar *value, quint32 valueSize, quint32 flags)>;

    BoltFile(const uchar *data, qint64 size, QString *error) : m_data(data), m_size(size), m_error(error) {}

    bool open()
    {
        std::optional<Meta> first = meta(0, 0);
        std::optional<Meta> second = first ? meta(1, first->pageSize) : std::nullopt;
        if (!first && !second)
            second = meta(1, 4096);
        if (!first && !second)
            return fail(QStringLiteral("no valid bbolt meta page: not an etcd database file"));
        m_meta = !second || (first && first->txid >= second->txid) ? *first : *second;
        return true;
    }

    const Meta &meta() const { return m_meta; }

    // The entries of the tree rooted at page id, in key order.
    bool forEachIn(quint64 id, const Visit &visit, int depth = 0)
    {
        qint64 limit = 0;
        const uchar *page = pageAt(id, &limit);
        return page && forEachOnPage(page, limit, visit, depth);
    }

    // A bucket's entries, whether its tree has pages of its own or sits inline in value.
    bool forEachInBucket(const uchar *value, quint32 valueSize, const Visit &visit, int depth = 0)
    {
        if (valueSize < BucketHeaderSize)
            return fail(QStringLiteral("a bucket header is cut short"));
        const quint64 root = read<quint64>(value);
        if (root != 0)
            return forEachIn(root, visit, depth + 1);
        return forEachOnPage(value + BucketHeaderSize, valueSize - BucketHeaderSize, visit, depth + 1);
    }

    bool fail(const QString &message)
    {
        *m_error = message;
        return false;
    }

private:
    std::optional<Meta> meta(quint64 id, quint32 pageSize) const
    {
        const qint64 offset = qint64(id) * pageSize;
        if (offset + PageHeaderSize + 64 > m_size)
            return std::nullopt;
        const uchar *at = m_data + offset + PageHeaderSize;
        Meta meta;
        meta.pageSize = read<quint32>(at + 8);
        meta.root = read<quint64>(at + 16);
        meta.highWater = read<quint64>(at + 40);
        meta.txid = read<quint64>(at + 48);
        if (read<quint32>(at) != Magic || read<quint32>(at + 4) != Version || read<quint64>(at + 56) != fnv64a(at, 56)
            || meta.pageSize < 512 || (id == 1 && pageSize != 0 && meta.pageSize != pageSize))
            return std::nullopt;
        return meta;
    }

    // A page of a tree, once: a corrupt file whose pages point back, or many times at one page,
    // would otherwise be walked for ever.
    const uchar *pageAt(quint64 id, qint64 *limit)
    {
        const quint64 pagesInFile = quint64(m_size / m_meta.pageSize);
        if (id < 2 || id >= m_meta.highWater || id >= pagesInFile) {
            fail(QStringLiteral("page %1 is outside the file's %2 pages").arg(id).arg(std::min(m_meta.highWater, pagesInFile)));
            return nullptr;
        }
        if (m_visited.contains(id)) {
            fail(QStringLiteral("page %1 is reached twice: the file's trees are damaged").arg(id));
            return nullptr;
        }
        m_visited.insert(id);
        const qint64 offset = qint64(id) * m_meta.pageSize;
        const uchar *page = m_data + offset;
        const quint64 spans = 1 + quint64(read<quint32>(page + 12));
        const qint64 left = m_size - offset;
        *limit = spans > quint64(left / m_meta.pageSize) ? left : qint64(spans) * m_meta.pageSize;
        return page;
    }

    bool forEachOnPage(const uchar *page, qint64 limit, const Visit &visit, int depth)
    {
        if (depth > MaxDepth)
            return fail(QStringLiteral("the trees nest deeper than %1 levels").arg(MaxDepth));
        if (limit < PageHeaderSize)
            return fail(QStringLiteral("a page is cut short"));
        const quint16 flags = read<quint16>(page + 8);
        const quint16 count = read<quint16>(page + 10);
        if (PageHeaderSize + count * ElementSize > limit)
            return fail(QStringLiteral("a page of %1 elements does not fit in it").arg(count));
        for (quint16 i = 0; i < count; ++i) {
            const uchar *element = page + PageHeaderSize + i * ElementSize;
            const qint64 within = element - page;
            if (flags & LeafPage) {
                const quint32 elementFlags = read<quint32>(element);
                const quint32 position = read<quint32>(element + 4);
                const quint32 keySize = read<quint32>(element + 8);
                const quint32 valueSize = read<quint32>(element + 12);
                if (within + qint64(position) + keySize + valueSize > limit)
                    return fail(QStringLiteral("an entry runs past its page"));
                const uchar *key = element + position;
                if (!visit(key, keySize, key + keySize, valueSize, elementFlags))
                    return false;
            } else if (flags & BranchPage) {
                if (!forEachIn(read<quint64>(element + 8), visit, depth + 1))
                    return false;
            } else {
                return fail(QStringLiteral("a page that is neither a branch nor a leaf (flags %1) in a tree").arg(flags));
            }
        }
        return true;
    }

    const uchar *m_data;
    qint64 m_size;
    QString *m_error;
    Meta m_meta;
    QSet<quint64> m_visited;
};

SnapshotFileStatus readStatus(const QString &path)
{
    SnapshotFileStatus status;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        status.status = Status(StatusCode::NotFound, QStringLiteral("%1: %2").arg(path, file.errorString()));
        return status;
    }
    const qint64 size = file.size();
    const uchar *data = size > 0 ? file.map(0, size) : nullptr;
    if (!data) {
        status.status = Status(StatusCode::InvalidArgument,
                               QStringLiteral("%1: %2").arg(path, size > 0 ? file.errorString() : QStringLiteral("the file is empty")));
        return status;
    }
    QString problem;
    BoltFile bolt(data, size, &problem);
    Crc32c crc;
    const bool read = bolt.open() && bolt.forEachIn(bolt.meta().root, [&](const uchar *name, quint32 nameSize, const uchar *value,
                                                                          quint32 valueSize, quint32 flags) {
        if (!(flags & BucketLeaf))
            return bolt.fail(QStringLiteral("the root holds a value, not a bucket"));
        crc.write(name, nameSize);
        const bool revisions = QByteArray::fromRawData(reinterpret_cast<const char *>(name), nameSize) == "key";
        return bolt.forEachInBucket(value, valueSize, [&](const uchar *key, quint32 keySize, const uchar *entry, quint32 entrySize,
                                                          quint32 entryFlags) {
            crc.write(key, keySize);
            // A bucket nested in this one counts as an entry with no value, as bbolt's ForEach says.
            if (!(entryFlags & BucketLeaf))
                crc.write(entry, entrySize);
            // The key bucket's keys are revisions: 8 bytes big-endian, then '_' and the sub-revision.
            if (revisions && keySize >= 8)
                status.revision = qint64(qFromBigEndian<quint64>(key));
            ++status.totalKeys;
            return true;
        });
    });
    if (!read) {
        status.status = Status(StatusCode::InvalidArgument, QStringLiteral("%1: %2").arg(path, problem));
        return status;
    }
    status.hash = crc.sum();
    status.totalSize = qint64(bolt.meta().highWater * bolt.meta().pageSize);
    return status;
}
} // namespace

QFuture<SnapshotFileStatus> snapshotFileStatus(const QString &fileName)
{
    auto promise = std::make_shared<QPromise<SnapshotFileStatus>>();
    promise->start();
    QFuture<SnapshotFileStatus> future = promise->future();
    QThreadPool::globalInstance()->start([promise, fileName] {
        promise->addResult(readStatus(fileName));
        promise->finish();
    });
    return future;
}

} // namespace QEtcd
