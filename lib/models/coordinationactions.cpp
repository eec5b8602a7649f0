#include "coordinationactions.h"

#include "continuation_p.h"
#include "eventlogmodel.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationinterventions.h>

#include <QtCore/QCoreApplication>

namespace QEtcd {

namespace {
using Kind = CoordinationObject::Kind;

// The entry a card showed, as CoordinationModel wrote it into its map.
CoordinationEntry entryOf(const QVariantMap &map)
{
    CoordinationEntry entry;
    entry.key = QByteArray::fromBase64(map.value(QStringLiteral("keyBase64")).toString().toLatin1());
    entry.name = map.value(QStringLiteral("clientId")).toString();
    entry.value = map.value(QStringLiteral("value")).toString().toUtf8();
    entry.host = map.value(QStringLiteral("host")).toString();
    entry.pid = map.value(QStringLiteral("pid")).toLongLong();
    entry.lease = qint64(map.value(QStringLiteral("lease")).toString().toULongLong(nullptr, 16));
    entry.createRevision = map.value(QStringLiteral("createRevision")).toLongLong();
    return entry;
}

QString who(const CoordinationEntry &entry)
{
    return entry.displayName();
}

QString how(const InterventionResult &result)
{
    if (result.method == InterventionResult::Method::LeaseRevoked) {
        return QCoreApplication::translate("CoordinationActions", "lease %1 revoked, %n key(s) gone", nullptr,
                                           int(result.removedKeys.size()))
            .arg(QString::number(quint64(result.lease), 16));
    }
    return QCoreApplication::translate("CoordinationActions", "key deleted");
}
} // namespace

CoordinationActions::CoordinationActions(QObject *parent) : QObject(parent) {}

CoordinationActions::~CoordinationActions() = default;

Client *CoordinationActions::client() const
{
    return m_client;
}

void CoordinationActions::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
}

EventLogModel *CoordinationActions::eventLog() const
{
    return m_eventLog;
}

void CoordinationActions::setEventLog(EventLogModel *log)
{
    if (log == m_eventLog)
        return;
    m_eventLog = log;
    Q_EMIT eventLogChanged();
}

void CoordinationActions::breakHold(const QString &path, const QVariantMap &holder)
{
    run(Action::BreakHold, path, entryOf(holder));
}

void CoordinationActions::removeEntry(const QString &path, const QVariantMap &entry)
{
    run(Action::RemoveEntry, path, entryOf(entry));
}

void CoordinationActions::liftBarrier(const QString &path, const QVariantMap &owner)
{
    run(Action::LiftBarrier, path, entryOf(owner));
}

void CoordinationActions::forceReelection(const QString &path, const QVariantMap &leader)
{
    run(Action::ForceReelection, path, entryOf(leader));
}

void CoordinationActions::releaseRound(const QString &path, const QVariantMap &opener)
{
    run(Action::ReleaseRound, path, entryOf(opener));
}

void CoordinationActions::run(Action action, const QString &path, const CoordinationEntry &entry)
{
    CoordinationObject object;
    object.path = path.toUtf8();
    object.set = true;
    object.holders = {entry};
    QFuture<InterventionResult> done;
    QString name, what;
    switch (action) {
    case Action::BreakHold:
        name = QStringLiteral("breakHold");
        what = tr("broke the hold of %1 on %2 (token %3)").arg(who(entry), path).arg(entry.createRevision);
        done = CoordinationInterventions::breakHold(m_client, entry);
        break;
    case Action::RemoveEntry:
        name = QStringLiteral("removeEntry");
        what = tr("removed %1 from %2").arg(who(entry), path);
        done = CoordinationInterventions::removeEntry(m_client, entry);
        break;
    case Action::LiftBarrier:
        name = QStringLiteral("liftBarrier");
        what = tr("lifted the barrier %1, set by %2").arg(path, who(entry));
        object.kind = Kind::Barrier;
        done = CoordinationInterventions::liftBarrier(m_client, object);
        break;
    case Action::ForceReelection:
        name = QStringLiteral("forceReelection");
        what = tr("ended the term of %1 in %2 (term %3)").arg(who(entry), path).arg(entry.createRevision);
        object.kind = Kind::Election;
        done = CoordinationInterventions::forceReelection(m_client, object);
        break;
    case Action::ReleaseRound:
        name = QStringLiteral("releaseRound");
        what = tr("released the open round of %1").arg(path);
        object.kind = Kind::CountedBarrier;
        done = CoordinationInterventions::releaseRound(m_client, object);
        break;
    }
    ++m_pending;
    Q_EMIT pendingChanged();
    const QString key = QString::fromUtf8(entry.key);
    Internal::thenOn(done, this, [this, name, path, what, key](const InterventionResult &result) {
        const QString outcome = result.status ? tr("%1: %2").arg(what, how(result))
                                              : tr("nothing written: %1").arg(result.status.message());
        if (m_eventLog) {
            m_eventLog->append(QStringLiteral("operator"),
                               result.status ? QStringLiteral("intervention") : QStringLiteral("interventionFailed"),
                               outcome, false, key);
        }
        --m_pending;
        Q_EMIT pendingChanged();
        Q_EMIT finished(name, path, result.status, outcome);
    });
}

} // namespace QEtcd
