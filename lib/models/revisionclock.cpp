// SPDX-License-Identifier: Apache-2.0
#include "revisionclock.h"

#include "continuation_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QDir>
#include <QtCore/QStandardPaths>

namespace QEtcd {

RevisionClock::RevisionClock(QObject *parent) : QObject(parent) {}

RevisionClock::~RevisionClock() = default;

void RevisionClock::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
    restart();
}

void RevisionClock::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    Q_EMIT activeChanged();
    restart();
}

QString RevisionClock::pathFor(quint64 clusterId)
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(QStringLiteral("qetcd/revisions/%1.map").arg(clusterId, 16, 16, QLatin1Char('0')));
}

void RevisionClock::restart()
{
    const quint64 generation = ++m_generation;
    m_recorder.reset();
    if (!m_client || !m_active)
        return;
    // The cluster's ID names its file: samples of another cluster would put its revisions on
    // this one's clock.
    RangeOptions probe;
    probe.countOnly = true;
    Internal::thenOn(m_client->get(QByteArray(1, '\0'), probe), this, [this, generation](const RangeResult &answer) {
        if (generation != m_generation)
            return;
        if (!answer.status)
            return setError(answer.status.withContext(tr("ask the cluster its ID")).message());
        record(answer.header.clusterId);
    });
}

void RevisionClock::record(quint64 clusterId)
{
    const QString path = pathFor(clusterId);
    if (path != m_path) {
        Status loaded;
        m_times = RevisionTimes::load(path, &loaded);
        // A file that is not there yet is the usual first run; one that is wrong is said, and
        // this run's samples go after it all the same (a load refuses the whole file).
        setError(loaded || loaded.code() == StatusCode::NotFound ? QString() : loaded.message());
        m_path = path;
        Q_EMIT pathChanged();
        Q_EMIT samplesChanged();
    }
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return setError(tr("cannot make the folder of %1").arg(path));
    m_recorder = std::make_unique<RevisionRecorder>(m_client, path);
    // Kept as the recorder writes them, around changes only: an idle cluster costs no memory.
    connect(m_recorder.get(), &RevisionRecorder::sampled, this, [this](qint64 msSinceEpoch, qint64 revision) {
        const RevisionTimes::Sample sample{msSinceEpoch, revision};
        const QList<RevisionTimes::Sample> known = m_times.samples();
        if (!known.isEmpty() && known.constLast().revision == revision) {
            m_unchangedSince = sample;
            return;
        }
        if (m_unchangedSince.revision > 0)
            m_times.append(std::exchange(m_unchangedSince, {}));
        m_times.append(sample);
        Q_EMIT samplesChanged();
    });
    connect(m_recorder.get(), &RevisionRecorder::sampleFailed, this,
            [this](const Status &status) { setError(status.message()); });
    const quint64 generation = m_generation;
    Internal::thenOn(m_recorder->start(), this, [this, generation](const Status &started) {
        if (generation == m_generation && !started)
            setError(started.message());
    });
}

void RevisionClock::setError(const QString &error)
{
    if (error == m_error)
        return;
    m_error = error;
    Q_EMIT errorStringChanged();
}

double RevisionClock::firstSampleMs() const
{
    return m_times.samples().isEmpty() ? -1 : double(m_times.samples().constFirst().msSinceEpoch);
}

qint64 RevisionClock::revisionAt(double msSinceEpoch) const
{
    return m_times.revisionAt(qint64(msSinceEpoch));
}

QVariantMap RevisionClock::bounds(qint64 revision) const
{
    const RevisionTimes::Bounds known = m_times.bounds(revision);
    return {{QStringLiteral("afterMs"), known.afterMs}, {QStringLiteral("byMs"), known.byMs}};
}

QString RevisionClock::when(qint64 revision) const
{
    const RevisionTimes::Bounds known = m_times.bounds(revision);
    const auto clock = [](qint64 ms) {
        return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
    };
    if (known.isKnown())
        return tr("between %1 and %2").arg(clock(known.afterMs), clock(known.byMs));
    if (known.afterMs >= 0)
        return tr("after %1").arg(clock(known.afterMs));
    if (known.byMs >= 0)
        return tr("by %1").arg(clock(known.byMs));
    return {};
}

} // namespace QEtcd
