// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QString>

#include <optional>

namespace QEtcd::Cli {

// What etcdctl snapshot status reports of an etcd database file (a bbolt file, as `snapshot save`
// writes it): the CRC-32C of every bucket's name and its keys and values in order, the newest
// revision in the "key" bucket, how many entries the buckets hold, and the size bbolt counts
// (its pages up to the high-water mark).
struct SnapshotStatus
{
    quint32 hash = 0;
    qint64 revision = 0;
    qint64 totalKeys = 0;
    qint64 totalSize = 0;
};

// Reads path; nullopt with *error naming what is wrong in it (not a bbolt file, a page out of
// bounds, a tree too deep).
std::optional<SnapshotStatus> snapshotStatus(const QString &path, QString *error);

// A size as etcdctl prints it (go-humanize's Bytes): "82 B", "25 kB", "1.5 MB", powers of 1000.
QString humanBytes(quint64 bytes);

} // namespace QEtcd::Cli
