// SPDX-License-Identifier: Apache-2.0
#include "coordinationactions.h"

#include "continuation_p.h"
#include "displaytext.h"
#include "eventlogmodel.h"
#include "valuedescription_p.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationinterventions.h>
#include <QEtcd/distributedatomiclong.h>
#include <QEtcd/distributedworkqueue.h>

#include <QtCore/QCoreApplication>

#include <optional>

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

// A queue's kind as CoordinationModel names it; nullopt for any other kind.
std::optional<Kind> queueKind(const QString &name)
{
    if (name == QLatin1String("queue"))
        return Kind::Queue;
    if (name == QLatin1String("priorityQueue"))
        return Kind::PriorityQueue;
    if (name == QLatin1String("workQueue"))
        return Kind::WorkQueue;
    return std::nullopt;
}

InterventionResult resultOf(const Status &status)
{
    InterventionResult result;
    result.status = status;
    return result;
}

// The dead letters ids back into the queue, one after the other.
QFuture<InterventionResult> requeueEach(const std::shared_ptr<DistributedWorkQueue> &queue, QList<QByteArray> ids)
{
    if (ids.isEmpty())
        return QtFuture::makeReadyFuture(InterventionResult());
    const QByteArray id = ids.takeFirst();
    return Internal::after(queue->requeueDeadLetter(id), [queue, ids, id](const Status &moved) {
        if (!moved)
            return QtFuture::makeReadyFuture(resultOf(moved));
        return Internal::after(requeueEach(queue, ids), [id](InterventionResult rest) {
            rest.removedKeys.prepend(id);
            return rest;
        });
    });
}

// A queue's item or dead letter as a card lists it: \a key names it (its key, or a dead letter's
// id), and its value reads as the Keys page shows it, or as hex.
QVariantMap itemOf(const QByteArray &key, const KeyValue &kv)
{
    const QVariantMap shown = Internal::describeValue(kv);
    return QVariantMap{
        {QStringLiteral("key"), DisplayText::fromBytes(key)},
        {QStringLiteral("keyBase64"), QString::fromLatin1(key.toBase64())},
        {QStringLiteral("size"), kv.value.size()},
        {QStringLiteral("value"), shown.value(QStringLiteral("isText")).toBool()
                                      ? shown.value(QStringLiteral("shownText"))
                                      : QVariant(QString::fromLatin1(kv.value.left(32).toHex(' ')))},
    };
}

QString how(const InterventionResult &result)
{
    if (result.method == InterventionResult::Method::None)
        return QCoreApplication::translate("CoordinationActions", "done");
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
    track(name, path, QString::fromUtf8(entry.key), what, done);
}

void CoordinationActions::requeueOrphans(const QString &path)
{
    auto queue = std::make_shared<DistributedWorkQueue>(m_client, path.toUtf8());
    track(QStringLiteral("requeueOrphans"), path, {}, tr("put the orphaned claims of %1 back").arg(path),
          Internal::after(queue->sweep(), [queue](const Status &swept) { return resultOf(swept); }));
}

void CoordinationActions::requeueDeadLetters(const QString &path)
{
    auto queue = std::make_shared<DistributedWorkQueue>(m_client, path.toUtf8());
    const auto requeueAll = [queue](const DeadLetters &letters) {
        QList<QByteArray> ids;
        for (const DeadLetter &letter : letters.letters)
            ids.append(letter.id);
        return letters.status ? requeueEach(queue, ids) : QtFuture::makeReadyFuture(resultOf(letters.status));
    };
    track(QStringLiteral("requeueDeadLetters"), path, {}, tr("put the dead letters of %1 back").arg(path),
          Internal::after(queue->deadLetters(), requeueAll));
}

void CoordinationActions::purgeDeadLetters(const QString &path)
{
    auto queue = std::make_shared<DistributedWorkQueue>(m_client, path.toUtf8());
    track(QStringLiteral("purgeDeadLetters"), path, {}, tr("purged the dead letters of %1").arg(path),
          Internal::after(queue->purgeDeadLetters(), [queue](const DeadLetters &purged) {
              InterventionResult result = resultOf(purged.status);
              for (const DeadLetter &letter : purged.letters)
                  result.removedKeys.append(letter.id);
              return result;
          }));
}

void CoordinationActions::setCounter(const QString &path, const QString &shown, const QString &value)
{
    bool shownOk = false, valueOk = false;
    const qint64 expected = shown.toLongLong(&shownOk);
    const qint64 wanted = value.toLongLong(&valueOk);
    const QString what = tr("set the counter %1 from %2 to %3").arg(path, shown, value);
    if (!shownOk || !valueOk) {
        track(QStringLiteral("setCounter"), path, path, what,
              QtFuture::makeReadyFuture(resultOf(Status(StatusCode::InvalidArgument,
                                                        tr("\"%1\" is not a whole number").arg(valueOk ? shown : value)))));
        return;
    }
    auto counter = std::make_shared<DistributedAtomicLong>(m_client, path.toUtf8());
    track(QStringLiteral("setCounter"), path, path, what,
          Internal::after(counter->compareAndSetAsync(expected, wanted),
                          [counter](const AtomicLongResult &set) { return resultOf(set.status); }));
}

void CoordinationActions::peek(const QString &path, const QString &kind, int count)
{
    const std::optional<Kind> queue = queueKind(kind);
    if (!m_client || !queue || count < 1) {
        const Status refused(StatusCode::InvalidArgument, tr("nothing to peek at in %1 (%2)").arg(path, kind));
        QMetaObject::invokeMethod(this, [this, path, refused] { Q_EMIT peeked(path, {}, refused); }, Qt::QueuedConnection);
        return;
    }
    // In the order the recipes take them: a FIFO queue's by commit (its keys' time stamps can
    // tie within a millisecond), a priority or work queue's by key.
    RangeOptions first;
    first.range = KeyRange::prefix();
    first.limit = count;
    first.sortTarget = *queue == Kind::Queue ? SortTarget::ModRevision : SortTarget::Key;
    first.sortOrder = SortOrder::Ascending;
    const QByteArray under = path.toUtf8() + (*queue == Kind::WorkQueue ? "/items/" : "/");
    Internal::thenOn(m_client->get(under, first), this, [this, path](const RangeResult &read) {
        QVariantList items;
        for (const KeyValue &kv : read.kvs) {
            QVariantMap item = itemOf(kv.key, kv);
            item.insert(QStringLiteral("createRevision"), kv.createRevision);
            items.append(item);
        }
        Q_EMIT peeked(path, items, read.status);
    });
}

void CoordinationActions::peekDeadLetters(const QString &path, int count)
{
    if (!m_client || count < 1) {
        const Status refused(StatusCode::InvalidArgument, tr("no dead letters to read in %1").arg(path));
        QMetaObject::invokeMethod(this, [this, path, refused] { Q_EMIT deadLettersPeeked(path, {}, refused); },
                                  Qt::QueuedConnection);
        return;
    }
    auto queue = std::make_shared<DistributedWorkQueue>(m_client, path.toUtf8());
    Internal::thenOn(queue->deadLetters(count), this, [this, path, queue](const DeadLetters &dead) {
        QVariantList letters;
        for (const DeadLetter &letter : dead.letters) {
            KeyValue payload;
            payload.value = letter.value;
            QVariantMap item = itemOf(letter.id, payload);
            item.insert(QStringLiteral("attempts"), letter.attempts);
            letters.append(item);
        }
        Q_EMIT deadLettersPeeked(path, letters, dead.status);
    });
}

void CoordinationActions::requeueDeadLetter(const QString &path, const QVariantMap &letter)
{
    const QByteArray id = QByteArray::fromBase64(letter.value(QStringLiteral("keyBase64")).toString().toLatin1());
    auto queue = std::make_shared<DistributedWorkQueue>(m_client, path.toUtf8());
    track(QStringLiteral("requeueDeadLetter"), path, QString::fromUtf8(id),
          tr("put the dead letter %1 of %2 back").arg(DisplayText::fromBytes(id), path),
          Internal::after(queue->requeueDeadLetter(id), [queue](const Status &moved) { return resultOf(moved); }));
}

void CoordinationActions::removeQueueItem(const QString &path, const QString &kind, const QVariantMap &item)
{
    CoordinationObject queue;
    queue.kind = queueKind(kind).value_or(Kind::Lock);  // not a queue: refused as such
    queue.path = path.toUtf8();
    const CoordinationEntry entry = entryOf(item);
    track(QStringLiteral("removeQueueItem"), path, QString::fromUtf8(entry.key),
          tr("deleted the item %1 of %2").arg(DisplayText::fromBytes(entry.key), path),
          CoordinationInterventions::removeQueueItem(m_client, queue, entry));
}

void CoordinationActions::track(const QString &name, const QString &path, const QString &key, const QString &what,
                                const QFuture<InterventionResult> &done)
{
    ++m_pending;
    Q_EMIT pendingChanged();
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
