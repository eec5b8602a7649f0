// SPDX-License-Identifier: Apache-2.0
#include "eventwriter.h"

#include <QtCore/QFileDevice>
#include <QtCore/QJsonDocument>

#include <time.h>

namespace QEtcd::Cli {

EventWriter::EventWriter(QIODevice *device) : m_device(device) {}

void EventWriter::write(const QString &event, const QJsonObject &fields)
{
    QJsonObject rest = fields;
    rest.remove(QLatin1String("event"));
    rest.remove(QLatin1String("mono_ms"));
    // QJsonObject sorts its keys; the two fixed ones are put first by hand so every line
    // reads "what, when, details".
    QByteArray line = QJsonDocument(QJsonObject{{QLatin1String("event"), event}}).toJson(QJsonDocument::Compact);
    line.chop(1);
    line += ",\"mono_ms\":" + QByteArray::number(monotonicMs());
    if (!rest.isEmpty())
        line += ',' + QJsonDocument(rest).toJson(QJsonDocument::Compact).mid(1);
    else
        line += '}';
    line += '\n';
    m_device->write(line);
    if (auto *file = qobject_cast<QFileDevice *>(m_device))
        file->flush();
}

qint64 EventWriter::monotonicMs()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

} // namespace QEtcd::Cli
