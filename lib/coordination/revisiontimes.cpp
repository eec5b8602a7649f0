// SPDX-License-Identifier: Apache-2.0
#include "revisiontimes.h"

#include "client.h"
#include "continuation_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QPromise>

#include <algorithm>

namespace QEtcd {

using namespace Internal;

RevisionTimes RevisionTimes::load(const QString &path, Status *status)
{
    QFile file(path);
    if (!file.exists()) {
        *status = Status(StatusCode::NotFound, QStringLiteral("%1: no such file").arg(path));
        return {};
    }
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        *status = Status(StatusCode::FailedPrecondition, QStringLiteral("%1: %2").arg(path, file.errorString()));
        return {};
    }
    RevisionTimes times;
    int line = 0;
    while (!file.atEnd()) {
        ++line;
        const QByteArray text = file.readLine().trimmed();
        if (text.isEmpty())
            continue;
        const QList<QByteArray> fields = text.split(' ');
        bool timeOk = false, revisionOk = false;
        const Sample sample{fields.value(0).toLongLong(&timeOk), fields.value(1).toLongLong(&revisionOk)};
        const auto refuse = [&](const QString &why) {
            *status = Status(StatusCode::InvalidArgument, QStringLiteral("%1 line %2: %3").arg(path).arg(line).arg(why));
            return RevisionTimes();
        };
        if (fields.size() != 2 || !timeOk || !revisionOk || sample.msSinceEpoch < 0 || sample.revision < 1)
            return refuse(QStringLiteral("expected \"<milliseconds since the epoch> <revision>\", not \"%1\"")
                              .arg(QString::fromUtf8(text.left(80))));
        if (!times.m_samples.isEmpty()) {
            const Sample &newest = times.m_samples.constLast();
            if (sample.msSinceEpoch < newest.msSinceEpoch)
                return refuse(QStringLiteral("the time goes back (a clock set back?)"));
            if (sample.revision < newest.revision)
                return refuse(QStringLiteral("revision %1 after %2: samples of another cluster?")
                                  .arg(sample.revision)
                                  .arg(newest.revision));
        }
        times.m_samples.append(sample);
    }
    *status = Status();
    return times;
}

void RevisionTimes::append(const Sample &sample)
{
    if (m_samples.isEmpty() || sample.msSinceEpoch >= m_samples.constLast().msSinceEpoch)
        m_samples.append(sample);
}

RevisionTimes::Bounds RevisionTimes::bounds(qint64 revision) const
{
    Bounds bounds;
    // The first sample that had reached the revision; the one before it had not.
    const auto reached = std::lower_bound(m_samples.cbegin(), m_samples.cend(), revision,
                                          [](const Sample &sample, qint64 wanted) { return sample.revision < wanted; });
    if (reached != m_samples.cend())
        bounds.byMs = reached->msSinceEpoch;
    if (reached != m_samples.cbegin())
        bounds.afterMs = std::prev(reached)->msSinceEpoch;
    return bounds;
}

qint64 RevisionTimes::revisionAt(qint64 msSinceEpoch) const
{
    const auto after = std::upper_bound(m_samples.cbegin(), m_samples.cend(), msSinceEpoch,
                                        [](qint64 wanted, const Sample &sample) { return wanted < sample.msSinceEpoch; });
    return after == m_samples.cbegin() ? 0 : std::prev(after)->revision;
}

RevisionRecorder::RevisionRecorder(Client *client, const QString &path, QObject *parent)
    : QObject(parent), m_client(client), m_file(path)
{
    m_timer.setInterval(std::chrono::seconds(1));
    connect(&m_timer, &QTimer::timeout, this, &RevisionRecorder::sample);
}

RevisionRecorder::~RevisionRecorder()
{
    // The last sample bounds the changes before it: keep it even when it changed nothing.
    if (!m_lastWritten && m_file.isOpen())
        write(m_last);
}

void RevisionRecorder::setInterval(std::chrono::milliseconds interval)
{
    m_timer.setInterval(interval);
}

QFuture<Status> RevisionRecorder::start()
{
    if (!m_file.open(QIODevice::Append | QIODevice::Text)) {
        return QtFuture::makeReadyFuture(
            Status(StatusCode::FailedPrecondition, QStringLiteral("%1: %2").arg(m_file.fileName(), m_file.errorString())));
    }
    auto first = std::make_shared<QPromise<Status>>();
    first->start();
    // The first answer, good or bad, settles start().
    const auto settle = [first](const Status &status) {
        if (!first->future().isFinished()) {
            first->addResult(status);
            first->finish();
        }
    };
    connect(this, &RevisionRecorder::sampled, this, [settle] { settle(Status()); });
    connect(this, &RevisionRecorder::sampleFailed, this, settle);
    sample();
    m_timer.start();
    return first->future();
}

void RevisionRecorder::sample()
{
    if (std::exchange(m_inFlight, true))
        return;  // etcd is slow to answer: no pile of reads behind it
    RangeOptions none;
    none.countOnly = true;
    thenOn(m_client->get(QByteArray(1, '\0'), none), this, [this](const RangeResult &read) {
        m_inFlight = false;
        if (!read.status)
            return Q_EMIT sampleFailed(read.status.withContext(QStringLiteral("sample the revision")));
        const RevisionTimes::Sample now{QDateTime::currentMSecsSinceEpoch(), read.header.revision};
        const bool first = m_last.revision == 0;
        if (first || now.revision != m_last.revision) {
            if (!m_lastWritten)
                write(m_last);
            write(now);
            m_lastWritten = true;
        } else {
            m_lastWritten = false;
        }
        m_last = now;
        Q_EMIT sampled(now.msSinceEpoch, now.revision);
    });
}

void RevisionRecorder::write(const RevisionTimes::Sample &sample)
{
    const QByteArray line = QByteArray::number(sample.msSinceEpoch) + ' ' + QByteArray::number(sample.revision) + '\n';
    if (m_file.write(line) != line.size() || !m_file.flush())
        Q_EMIT sampleFailed(Status(StatusCode::FailedPrecondition, QStringLiteral("%1: %2").arg(m_file.fileName(), m_file.errorString())));
}

} // namespace QEtcd
