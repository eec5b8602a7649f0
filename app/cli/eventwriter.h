// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QJsonObject>
#include <QtCore/QString>

QT_BEGIN_NAMESPACE
class QIODevice;
QT_END_NAMESPACE

namespace QEtcd::Cli {

// The output convention of long-running commands (watch, lock, elect, ...): JSON Lines on
// stdout, one compact object per event, written and flushed at once so a pipe reader sees each
// event when it happens. Every object starts with "event" (what happened) and "mono_ms" (the
// system's CLOCK_MONOTONIC in milliseconds), so the lines of several qetcd processes on one
// machine merge into a single timeline. The other fields follow in key order.
class EventWriter
{
public:
    explicit EventWriter(QIODevice *device);

    // fields may not override "event" or "mono_ms"; such keys are dropped.
    void write(const QString &event, const QJsonObject &fields = {});

    // CLOCK_MONOTONIC, the clock every process on the machine shares (steady_clock's epoch is
    // not promised to be that).
    static qint64 monotonicMs();

private:
    QIODevice *m_device;
};

} // namespace QEtcd::Cli
