// SPDX-License-Identifier: Apache-2.0
#include "clusteractions.h"

#include "continuation_p.h"
#include "eventlogmodel.h"
#include "wholefile_p.h"

#include <QEtcd/client.h>
#include <QEtcd/clustermaintenance.h>
#include <QEtcd/snapshotsave.h>

#include <QtCore/QLocale>


namespace QEtcd {

ClusterActions::ClusterActions(QObject *parent) : QObject(parent) {}

ClusterActions::~ClusterActions() = default;

Client *ClusterActions::client() const
{
    return m_client;
}

void ClusterActions::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
}

EventLogModel *ClusterActions::eventLog() const
{
    return m_eventLog;
}

void ClusterActions::setEventLog(EventLogModel *log)
{
    if (log == m_eventLog)
        return;
    m_eventLog = log;
    Q_EMIT eventLogChanged();
}

void ClusterActions::refuse(const QString &name, const Status &refused)
{
    QMetaObject::invokeMethod(this, [this, name, refused] {
        Q_EMIT finished(name, refused, tr("nothing done: %1").arg(refused.message()));
    }, Qt::QueuedConnection);
}

bool ClusterActions::begin(const QString &name, const QString &running)
{
    const Status refused = !m_client ? Status(StatusCode::FailedPrecondition, tr("not connected"))
                         : !m_running.isEmpty() ? Status(StatusCode::FailedPrecondition, tr("wait until %1 has ended").arg(m_running))
                                                : Status();
    if (!refused) {
        refuse(name, refused);
        return false;
    }
    m_running = running;
    Q_EMIT runningChanged();
    return true;
}

void ClusterActions::end(const QString &name, const Status &status, const QString &done)
{
    const QString outcome = status ? done : tr("nothing more done: %1").arg(status.message());
    if (m_eventLog)
        m_eventLog->append(QStringLiteral("operator"), status ? QStringLiteral("intervention") : QStringLiteral("interventionFailed"),
                           outcome, false, {});
    m_running.clear();
    Q_EMIT runningChanged();
    Q_EMIT finished(name, status, outcome);
}

void ClusterActions::disarmAlarms()
{
    const QString name = QStringLiteral("disarmAlarms");
    if (!begin(name, tr("disarming the alarms")))
        return;
    Internal::thenOn(m_client->alarms(), this, [this, name](const AlarmListResult &listed) {
        if (!listed.status || listed.alarms.isEmpty())
            return end(name, listed.status, tr("no alarm was raised"));
        disarmInTurn(listed.alarms, name, int(listed.alarms.size()));
    });
}

// One alarm after the other; the first refusal ends it.
void ClusterActions::disarmInTurn(QList<Alarm> alarms, const QString &name, int count)
{
    if (alarms.isEmpty())
        return end(name, Status(), tr("disarmed %n alarm(s)", nullptr, count));
    // Taken before the continuation copies the rest: the order in which a call's arguments are
    // built is the compiler's, and GCC copied the list first, so the same alarm came round forever.
    const Alarm next = alarms.takeFirst();
    Internal::thenOn(m_client->disarmAlarm(next), this, [this, alarms, name, count](const Result &disarmed) {
        if (!disarmed.status)
            return end(name, disarmed.status, {});
        disarmInTurn(alarms, name, count);
    });
}

void ClusterActions::findRetainedHistory()
{
    if (!m_client) {
        m_retained = RetainedHistory{Status(StatusCode::FailedPrecondition, tr("not connected")), 0, 0};
        return Q_EMIT retainedHistoryChanged();
    }
    Internal::thenOn(ClusterMaintenance::retainedHistory(m_client), this, [this](const RetainedHistory &found) {
        m_retained = found;
        Q_EMIT retainedHistoryChanged();
    });
}

void ClusterActions::compact(const QString &revision, bool physical)
{
    const QString name = QStringLiteral("compact");
    bool ok = false;
    const qint64 to = revision.toLongLong(&ok);
    if (!ok || to < 1)
        return refuse(name, Status(StatusCode::InvalidArgument, tr("\"%1\" is not a revision").arg(revision)));
    if (!begin(name, tr("compacting to revision %1").arg(to)))
        return;
    Internal::thenOn(m_client->compact(to, physical), this, [this, name, to, physical](const Result &compacted) {
        if (compacted.status && to > m_retained.oldest) {
            m_retained.oldest = to;
            m_retained.current = std::max(m_retained.current, compacted.header.revision);
            Q_EMIT retainedHistoryChanged();
        }
        end(name, compacted.status, physical ? tr("compacted the history before revision %1, its space freed").arg(to)
                                             : tr("compacted the history before revision %1").arg(to));
    });
}

void ClusterActions::defragment(const QStringList &clientUrls)
{
    const QString name = QStringLiteral("defragment");
    if (!m_client)
        return void(begin(name, {}));
    const QStringList endpoints = m_client->endpoints();
    const auto reached = std::find_if(clientUrls.begin(), clientUrls.end(),
                                      [&endpoints](const QString &url) { return endpoints.contains(url); });
    if (reached == clientUrls.end())
        return refuse(name, Status(StatusCode::InvalidArgument, tr("the console does not reach this member (%1 is none of its endpoints)")
                                                                    .arg(clientUrls.join(QLatin1String(", ")))));
    if (begin(name, tr("defragmenting %1").arg(*reached)))
        defragmentInTurn({*reached}, name);
}

void ClusterActions::defragmentAll()
{
    const QString name = QStringLiteral("defragmentAll");
    if (!begin(name, tr("reading the members")))
        return;
    Internal::thenOn(ClusterMaintenance::statuses(m_client), this, [this, name](const MemberStatuses &members) {
        if (!members.status)
            return end(name, members.status, {});
        QStringList endpoints;
        for (const EndpointStatusResult &member : members.members)
            endpoints.append(member.endpoint);
        defragmentInTurn(endpoints, name);
    });
}

namespace {
QString sizeText(qint64 bytes)
{
    return bytes < 0 ? ClusterActions::tr("size unknown") : QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat);
}
} // namespace

// One member after the other, never two at once: a member defragmenting serves nothing. Each
// member's database size is read before and after, and the sizes add up for the outcome.
void ClusterActions::defragmentInTurn(QStringList endpoints, const QString &name, int count, qint64 before, qint64 after)
{
    if (endpoints.isEmpty()) {
        return end(name, Status(), tr("defragmented %n member(s): %1 before, %2 after", nullptr, count)
                                       .arg(sizeText(before), sizeText(after)));
    }
    const QString endpoint = endpoints.takeFirst();
    const int position = count + 1;
    const int members = position + int(endpoints.size());
    m_running = members > 1 ? tr("defragmenting %1 (member %2 of %3)").arg(endpoint).arg(position).arg(members)
                            : tr("defragmenting %1").arg(endpoint);
    Q_EMIT runningChanged();
    // A size that could not be read makes the sum unknown, not smaller.
    const auto added = [](qint64 sum, qint64 size) { return sum < 0 || size < 0 ? -1 : sum + size; };
    Internal::thenOn(m_client->endpointStatus(endpoint), this, [=, this](const EndpointStatusResult &was) {
        const qint64 sizeBefore = was.status ? was.dbSize : -1;
        Internal::thenOn(m_client->defragment(endpoint), this, [=, this](const Result &done) {
            if (!done.status)
                return end(name, done.status.withContext(endpoint), {});
            Internal::thenOn(m_client->endpointStatus(endpoint), this, [=, this](const EndpointStatusResult &now) {
                const qint64 sizeAfter = now.status ? now.dbSize : -1;
                if (m_eventLog) {
                    m_eventLog->append(QStringLiteral("operator"), QStringLiteral("intervention"),
                                       tr("defragmented %1: %2 before, %3 after").arg(endpoint, sizeText(sizeBefore), sizeText(sizeAfter)),
                                       false, {});
                }
                defragmentInTurn(endpoints, name, position, added(before, sizeBefore), added(after, sizeAfter));
            });
        });
    });
}

void ClusterActions::moveLeader(const QString &memberId)
{
    const QString name = QStringLiteral("moveLeader");
    const auto target = memberIdOf(name, memberId);
    if (!target || !begin(name, tr("moving the leadership to %1").arg(memberId)))
        return;
    Internal::thenOn(ClusterMaintenance::moveLeader(m_client, *target), this, [this, name, memberId](const Result &moved) {
        end(name, moved.status, tr("moved the leadership to member %1").arg(memberId));
    });
}

std::optional<quint64> ClusterActions::memberIdOf(const QString &name, const QString &memberId)
{
    bool ok = false;
    const quint64 id = memberId.toULongLong(&ok, 16);
    if (ok && id != 0)
        return id;
    refuse(name, Status(StatusCode::InvalidArgument, tr("\"%1\" is no member ID (hex, as a card shows it)").arg(memberId)));
    return std::nullopt;
}

void ClusterActions::changeMember(const QString &name, const QString &running,
                                  const std::function<QFuture<MemberListResult>(Client *)> &change, const QString &done)
{
    if (!begin(name, running))
        return;
    Internal::thenOn(change(m_client), this, [this, name, done](const MemberListResult &changed) { end(name, changed.status, done); });
}

void ClusterActions::addMember(const QString &name, const QStringList &peerUrls, bool learner)
{
    const QString action = QStringLiteral("addMember");
    if (name.trimmed().isEmpty())
        return refuse(action, Status(StatusCode::InvalidArgument, tr("the new member needs a name: it is started with it")));
    if (!begin(action, tr("adding %1 at %2").arg(name, peerUrls.join(QLatin1Char(',')))))
        return;
    Internal::thenOn(m_client->memberAdd(peerUrls, learner), this, [this, action, name, peerUrls, learner](const MemberAddResult &added) {
        const QString id = QString::number(added.member.id, 16);
        const QString startFlags = QStringLiteral("--name %1 --initial-cluster %2 --initial-advertise-peer-urls %3 "
                                                  "--initial-cluster-state existing")
                                       .arg(name, ClusterMaintenance::initialCluster(added, name), peerUrls.join(QLatin1Char(',')));
        if (added.status)
            Q_EMIT memberAdded(name, id, startFlags);
        end(action, added.status, tr("added %1 as %2 %3; start it with %4").arg(name, learner ? tr("learner") : tr("member"), id, startFlags));
    });
}

void ClusterActions::removeMember(const QString &memberId)
{
    const QString name = QStringLiteral("removeMember");
    if (const auto id = memberIdOf(name, memberId)) {
        changeMember(name, tr("removing member %1").arg(memberId), [id](Client *client) { return client->memberRemove(*id); },
                     tr("removed member %1").arg(memberId));
    }
}

void ClusterActions::promoteMember(const QString &memberId)
{
    const QString name = QStringLiteral("promoteMember");
    if (const auto id = memberIdOf(name, memberId)) {
        changeMember(name, tr("promoting member %1").arg(memberId), [id](Client *client) { return client->memberPromote(*id); },
                     tr("made member %1 a voting member").arg(memberId));
    }
}

void ClusterActions::updateMember(const QString &memberId, const QStringList &peerUrls)
{
    const QString name = QStringLiteral("updateMember");
    if (const auto id = memberIdOf(name, memberId)) {
        changeMember(name, tr("moving member %1 to %2").arg(memberId, peerUrls.join(QLatin1Char(','))),
                     [id, peerUrls](Client *client) { return client->memberUpdate(*id, peerUrls); },
                     tr("gave member %1 the peer URLs %2").arg(memberId, peerUrls.join(QLatin1Char(','))));
    }
}

void ClusterActions::checkConsistency()
{
    const QString name = QStringLiteral("checkConsistency");
    if (!begin(name, tr("hashing every member's keys")))
        return;
    Internal::thenOn(ClusterMaintenance::checkConsistency(m_client), this, [this, name](const ConsistencyReport &report) {
        QVariantList members;
        for (const HashKVResult &hashed : report.hashes) {
            members.append(QVariantMap{{QStringLiteral("endpoint"), hashed.endpoint},
                                       {QStringLiteral("memberId"), QString::number(hashed.header.memberId, 16)},
                                       {QStringLiteral("hash"), QString::number(hashed.hash)},
                                       {QStringLiteral("differs"), report.differing.contains(hashed.endpoint)}});
        }
        m_running.clear();
        Q_EMIT runningChanged();
        if (report.status)
            Q_EMIT consistencyChecked(members, report.revision, report.isConsistent());
        Q_EMIT finished(name, report.status, report.status ? tr("checked") : report.status.message());
    });
}

void ClusterActions::saveSnapshot(const QString &fileName, bool overwrite)
{
    const QString name = QStringLiteral("saveSnapshot");
    const QString path = Internal::localPath(fileName);
    if (path.isEmpty())
        return refuse(name, Status(StatusCode::InvalidArgument, tr("no file chosen")));
    if (!begin(name, tr("saving a snapshot to %1").arg(path)))
        return;
    auto *save = new SnapshotSave(m_client, this);
    m_snapshot = save;
    m_snapshotBytes = 0;
    m_snapshotTotal = 0;
    Q_EMIT snapshotProgressed();
    connect(save, &SnapshotSave::progressed, this, [this](qint64 written, qint64 total) {
        m_snapshotBytes = written;
        m_snapshotTotal = total;
        Q_EMIT snapshotProgressed();
    });
    connect(save, &SnapshotSave::finished, this, [this, name, save](const SnapshotResult &result) {
        save->deleteLater();
        const QString saved = tr("saved a snapshot to %1 (%2 bytes, SHA-256 %3)")
                                  .arg(result.fileName).arg(result.size).arg(QString::fromLatin1(result.sha256.toHex()));
        if (!result.status)
            return end(name, result.status, saved);
        // Read back as etcdctl snapshot status reads it: a backup that does not read is no backup.
        Internal::thenOn(snapshotFileStatus(result.fileName), this, [this, name, saved](const SnapshotFileStatus &file) {
            end(name, file.status.withContext(tr("the snapshot saved does not read back")),
                saved + tr(": revision %1, %2 entries").arg(file.revision).arg(file.totalKeys));
        });
    });
    save->start(path, overwrite);
}

void ClusterActions::cancelSnapshot()
{
    if (m_snapshot)
        m_snapshot->cancel();
}

} // namespace QEtcd
