// SPDX-License-Identifier: Apache-2.0
#include "coordinationhistorymodel.h"

#include "clustermaintenance.h"
#include "continuation_p.h"
#include "displaytext.h"
#include "wholefile_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QThread>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace QEtcd {

namespace {
using Type = CoordinationEvent::Type;
using Cause = CoordinationEvent::Cause;
using MarkKind = CoordinationHistoryModel::MarkKind;

constexpr int MarkKindCount = int(MarkKind::Changed) + 1;

MarkKind endOf(Cause cause)
{
    switch (cause) {
    case Cause::Deleted:
        return MarkKind::Deleted;
    case Cause::LeaseEnded:
        return MarkKind::LeaseEnded;
    case Cause::RemovedByOwner:
        return MarkKind::RemovedByOwner;
    case Cause::LiftedByOperator:
        return MarkKind::LiftedByOperator;
    case Cause::None:
        break;
    }
    return MarkKind::Released;
}

QByteArray objectId(CoordinationObject::Kind kind, const QByteArray &path)
{
    return QByteArray::number(int(kind)) + ' ' + path;
}

// Who an entry is on a bar: its name, else an election's proposal (what its candidate
// proclaimed), else its lease or key.
QString whoOf(CoordinationObject::Kind kind, const CoordinationEntry &entry)
{
    if (kind == CoordinationObject::Kind::Election && entry.name.isEmpty() && !entry.value.isEmpty())
        return entry.valueText();
    return entry.displayName();
}

QString kindName(CoordinationObject::Kind kind)
{
    CoordinationObject object;
    object.kind = kind;
    return object.kindName();
}
} // namespace

CoordinationHistoryModel::CoordinationHistoryModel(QObject *parent)
    : QAbstractListModel(parent), m_markCounts(MarkKindCount, 0)
{
    m_publish.setSingleShot(true);
    m_publish.setInterval(PublishIntervalMs);
    connect(&m_publish, &QTimer::timeout, this, &CoordinationHistoryModel::publish);
}

CoordinationHistoryModel::~CoordinationHistoryModel()
{
    stopReplay();
    for (const QPointer<QThread> &thread : std::as_const(m_stopping)) {
        if (thread)
            thread->wait();
    }
}

void CoordinationHistoryModel::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    Q_EMIT clientChanged();
}

void CoordinationHistoryModel::setPrefix(const QString &prefix)
{
    if (prefix == m_prefix)
        return;
    m_prefix = prefix;
    Q_EMIT prefixChanged();
}

void CoordinationHistoryModel::setLastRevisions(qint64 revisions)
{
    revisions = std::max<qint64>(revisions, 0);
    if (revisions == m_lastRevisions)
        return;
    m_lastRevisions = revisions;
    Q_EMIT lastRevisionsChanged();
}

double CoordinationHistoryModel::progress() const
{
    if (m_status == ModelStatus::Ready)
        return 1;
    if (m_last <= 0 || m_last < m_first)
        return 0;
    if (m_seam == 0)
        return std::clamp(double(m_progress - m_first + 1) / double(m_last - m_first + 1), 0.0, 1.0);
    const qint64 newest = std::max<qint64>(0, m_progress - m_seam + 1);
    const qint64 older = m_older ? std::max<qint64>(0, m_older->m_progress - m_first + 1) : m_seam - m_first;
    return std::clamp(double(newest + older) / double(m_last - m_first + 1), 0.0, 1.0);
}

qint64 CoordinationHistoryModel::olderRevision() const
{
    return m_older && m_older->m_status == ModelStatus::Loading ? std::max(m_older->m_progress, m_first - 1) : 0;
}

qint64 CoordinationHistoryModel::eventCount() const
{
    return m_eventCount + (m_older ? m_older->m_eventCount : 0);
}

QStringList CoordinationHistoryModel::markKinds() const
{
    QStringList kinds;
    for (int kind = 0; kind < MarkKindCount; ++kind) {
        if (m_markCounts[kind] > 0)
            kinds.append(markKindName(MarkKind(kind)));
    }
    return kinds;
}

QString CoordinationHistoryModel::markKindName(MarkKind kind)
{
    static const char *const names[] = {"acquired",       "handedOn",         "elected",       "barrierSet",
                                        "released",       "deleted",          "leaseEnded",    "removedByOwner",
                                        "liftedByOperator", "roundReleased",  "healed",        "changed"};
    static_assert(std::size(names) == size_t(MarkKindCount));
    return QString::fromLatin1(names[int(kind)]);
}

void CoordinationHistoryModel::start()
{
    stopReplay();
    const quint64 generation = ++m_generation;
    beginResetModel();
    m_lanes.clear();
    m_rowOfObject.clear();
    endResetModel();
    m_items = 0;
    std::fill(m_markCounts.begin(), m_markCounts.end(), 0);
    m_first = m_last = m_progress = m_eventCount = m_keptFrom = 0;
    m_compacted = false;
    if (m_older) {
        m_older->disconnect(this);
        std::exchange(m_older, nullptr)->deleteLater();  // its destruction stops its replay
    }
    m_seam = m_olderFrom = 0;
    Q_EMIT countChanged();
    Q_EMIT rangeChanged();
    publish();
    if (!m_client)
        return setStatus(ModelStatus::Error, tr("there is no connection to read the history through"));
    setStatus(ModelStatus::Loading);
    // The range is fixed first: it ends at the store's revision now and begins lastRevisions
    // before, or where etcd's history begins. Count-only reads of one key the client may read.
    const QByteArray probeKey = m_prefix.isEmpty() ? QByteArray(1, '\0') : m_prefix.toUtf8();
    Internal::thenOn(ClusterMaintenance::retainedHistory(m_client, 1, probeKey), this, [this, generation](const RetainedHistory &kept) {
        if (generation != m_generation)
            return;
        if (!kept.status)
            return finished(kept.status.withContext(tr("read the store's revision")));
        const qint64 until = kept.current;
        // Revision 1 is etcd's first: from there on is the whole history.
        const qint64 from = m_lastRevisions > 0 && until - m_lastRevisions + 1 > 1 ? until - m_lastRevisions + 1 : 0;
        // The replay's state is read at the revision before its first, or at the oldest kept.
        const qint64 first = std::max(from > 0 ? from : 1, kept.oldest + 1);
        if (until - first + 1 > 2 * NewestFirstRevisions) {
            m_seam = until - NewestFirstRevisions + 1;
            m_olderFrom = from;
            return replay(m_seam, until);
        }
        replay(from, until);
    });
}

void CoordinationHistoryModel::replay(qint64 from, qint64 until)
{
    // The replay recognises the objects again at every revision that touched them: on a thread
    // of its own, where its events and answers come, so that a long history never holds up a frame.
    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("qetcd-history"));
    connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
    m_anchor = new QObject;
    m_anchor->moveToThread(m_thread);
    m_thread->start();
    const quint64 generation = m_generation;
    Client *client = m_client;
    const QByteArray prefix = m_prefix.toUtf8();
    const bool following = m_following;
    QMetaObject::invokeMethod(m_anchor, [this, anchor = m_anchor, client, prefix, from, until, following, generation] {
        auto *history = new CoordinationHistory(client, prefix, anchor);
        history->setFromRevision(from);
        history->setUntilRevision(until);
        history->setFollowing(following);
        // Queued to the model's thread; dropped once the model is gone.
        connect(history, &CoordinationHistory::began, this, [this, generation](qint64 first, qint64 last, qint64 compactedBefore) {
            if (generation == m_generation)
                began(first, last, compactedBefore);
        });
        connect(history, &CoordinationHistory::objectsAtStart, this, [this, generation](const QList<CoordinationObject> &objects) {
            if (generation == m_generation)
                seed(objects);
        });
        connect(history, &CoordinationHistory::eventsReady, this, [this, generation](const QList<CoordinationEvent> &events) {
            if (generation == m_generation)
                fold(events);
        });
        connect(history, &CoordinationHistory::progressed, this, [this, generation](qint64 revision) {
            if (generation != m_generation)
                return;
            m_progress = revision;
            if (m_following)
                followTo(revision);
            // Following, the newest revisions' replay goes on: the older ones start once it has
            // told its range.
            if (m_following && m_seam > 0 && !m_older && revision >= m_caughtUpAt)
                replayOlder();
            if (!m_publish.isActive())
                m_publish.start();
        });
        Internal::thenOn(history->start(), this, [this, generation](const Status &status) {
            if (generation == m_generation)
                finished(status);
        });
    });
}

void CoordinationHistoryModel::stopReplay()
{
    m_publish.stop();
    if (!m_thread)
        return;
    // The history goes on its own thread (its destruction cancels it), and the thread after it.
    QObject *anchor = std::exchange(m_anchor, nullptr);
    QThread *thread = std::exchange(m_thread, nullptr);
    m_stopping.removeIf([](const QPointer<QThread> &stopped) { return stopped.isNull(); });
    m_stopping.append(thread);
    QMetaObject::invokeMethod(anchor, [anchor, thread] {
        delete anchor;
        thread->quit();
    });
}

void CoordinationHistoryModel::cancel()
{
    if (!isRunning())
        return;
    const bool live = m_status == ModelStatus::Ready;  // following, past the range
    ++m_generation;
    stopReplay();
    if (m_older)
        endOlder();
    publish();
    if (live) {
        Q_EMIT statusChanged();  // no longer running; what was read stays, Ready
        return;
    }
    setStatus(ModelStatus::Error, tr("the replay was cancelled at revision %1").arg(m_progress));
}

void CoordinationHistoryModel::setFollowing(bool following)
{
    if (following == m_following)
        return;
    m_following = following;
    Q_EMIT followingChanged();
}

void CoordinationHistoryModel::setMaxItems(int items)
{
    items = std::max(1, items);
    if (items == m_maxItems)
        return;
    m_maxItems = items;
    Q_EMIT maxItemsChanged();
    if (m_items > m_maxItems) {
        dropOldest();
        publish();
    }
}

void CoordinationHistoryModel::followTo(qint64 revision)
{
    if (revision > m_last) {
        m_last = revision;
        Q_EMIT rangeChanged();
    }
    // The range is told: from here on it is live, and ready to look at.
    if (m_status == ModelStatus::Loading && revision >= m_caughtUpAt && m_seam == 0) {
        publish();
        setStatus(ModelStatus::Ready);
    }
}

void CoordinationHistoryModel::began(qint64 first, qint64 until, qint64 compactedBefore)
{
    if (m_seam > 0) {  // the newest revisions: the range is the whole one, found at start()
        m_first = first;
        m_last = until;
        m_caughtUpAt = until;
        m_progress = first - 1;
        Q_EMIT rangeChanged();
        Q_EMIT progressChanged();
        return;
    }
    m_first = first;
    m_last = until;
    m_caughtUpAt = until;
    m_progress = first - 1;
    m_compacted = compactedBefore > 0;
    Q_EMIT rangeChanged();
    Q_EMIT progressChanged();
}

void CoordinationHistoryModel::seed(const QList<CoordinationObject> &objects)
{
    using Kind = CoordinationObject::Kind;
    for (const CoordinationObject &object : objects) {
        Lane &lane = m_lanes[laneFor(object.kind, object.path, object.rule)];
        const auto holdersFromBefore = [&](const QList<CoordinationEntry> &entries, bool waiters) {
            for (const CoordinationEntry &entry : entries)
                beginBar(lane, entry, m_first, waiters, true);
        };
        switch (object.kind) {
        case Kind::Service:  // an instance is a holder's bar, as fold() draws InstanceUp
            holdersFromBefore(object.members, false);
            break;
        case Kind::CountedBarrier:
        case Kind::DoubleBarrier:
            holdersFromBefore(object.members, true);
            break;
        default:
            holdersFromBefore(object.holders, false);
            holdersFromBefore(object.waiters, true);
            if (object.kind == Kind::PostgresCluster)
                holdersFromBefore(object.members, true);
        }
    }
    if (!m_publish.isActive())
        m_publish.start();
}

void CoordinationHistoryModel::finished(const Status &status)
{
    stopReplay();
    if (status && m_seam > 0 && !m_older) {
        publish();
        return replayOlder();
    }
    if (m_older)
        endOlder();
    publish();
    if (status)
        setStatus(ModelStatus::Ready);
    else
        setStatus(ModelStatus::Error, status.message());
    Q_EMIT progressChanged();
}

void CoordinationHistoryModel::replayOlder()
{
    m_older = new CoordinationHistoryModel(this);
    m_older->m_client = m_client;
    m_older->m_prefix = m_prefix;
    m_older->m_maxItems = m_maxItems;
    m_older->setStatus(ModelStatus::Loading);
    // Their range: where they begin is known once their replay has read its first state.
    connect(m_older, &CoordinationHistoryModel::rangeChanged, this, [this] {
        m_first = m_older->m_first;
        m_compacted = m_older->m_compacted;
        Q_EMIT rangeChanged();
    });
    connect(m_older, &CoordinationHistoryModel::statusChanged, this, [this] {
        if (m_older->m_status != ModelStatus::Loading)
            olderFinished();
    });
    connect(m_older, &CoordinationHistoryModel::progressChanged, this, &CoordinationHistoryModel::progressChanged);
    // What they fold in is taken when this model paints.
    connect(m_older, &CoordinationHistoryModel::lanesChanged, this, [this] {
        if (!m_publish.isActive())
            m_publish.start();
    });
    m_older->replay(m_olderFrom, m_seam - 1);
}

void CoordinationHistoryModel::olderFinished()
{
    const bool replayed = m_older->m_status == ModelStatus::Ready;
    const QString error = m_older->m_error;
    m_older->disconnect(this);
    takeOlder(true);
    publish();
    if (!replayed)
        return setStatus(ModelStatus::Error, tr("the revisions before %1 were not replayed: %2").arg(m_seam).arg(error));
    m_seam = 0;  // one range from here on
    // Following, the newest revisions' replay goes on, live.
    if (m_following && m_thread)
        return followTo(m_progress);
    setStatus(ModelStatus::Ready);
    Q_EMIT progressChanged();
}

void CoordinationHistoryModel::endOlder()
{
    m_older->disconnect(this);
    m_older->cancel();
    takeOlder(true);
}

void CoordinationHistoryModel::takeOlder(bool last)
{
    CoordinationHistoryModel &older = *m_older;
    for (Lane &from : older.m_lanes) {
        const bool nothingEnded = std::all_of(from.bars.begin(), from.bars.end(), [](const Bar &bar) { return bar.to == 0; });
        if (!last && from.marks.empty() && nothingEnded)
            continue;
        Lane &to = m_lanes[laneFor(from.kind, from.path, from.rule)];
        // Everything of theirs comes before the newest revisions' own.
        const auto newestMarks = std::lower_bound(to.marks.begin(), to.marks.end(), m_seam,
                                                  [](const Mark &mark, qint64 seam) { return mark.revision < seam; });
        to.marks.insert(newestMarks, from.marks.begin(), from.marks.end());
        for (const Mark &mark : from.marks) {
            ++m_markCounts[int(mark.kind)];
            --older.m_markCounts[int(mark.kind)];
        }
        m_items += qsizetype(from.marks.size());
        older.m_items -= qsizetype(from.marks.size());
        from.marks.clear();

        std::deque<Bar> stillOn;
        std::vector<Bar> taken;
        for (Bar &bar : from.bars) {
            if (bar.to != 0) {
                taken.push_back(std::move(bar));
                continue;
            }
            if (!last) {
                stillOn.push_back(std::move(bar));
                continue;
            }
            // The same key, created at the same revision, is one hold that lasted: the newest
            // revisions' replay began with it on, and its bar now starts where this one did.
            const auto joined = std::find_if(to.bars.begin(), to.bars.end(), [&](const Bar &newest) {
                return newest.fromBefore && newest.from == m_seam && newest.waiter == bar.waiter && newest.key == bar.key
                    && newest.token == bar.token;
            });
            if (joined != to.bars.end()) {
                joined->from = bar.from;
                joined->fromBefore = bar.fromBefore;
            }
            // Otherwise it ended where the older replay did not reach (it was stopped short of the
            // seam): its end is unknown, and it is not drawn as if it had lasted.
            --older.m_items;
        }
        std::stable_sort(taken.begin(), taken.end(), [](const Bar &a, const Bar &b) { return a.from < b.from; });
        const auto newestBars = std::find_if(to.bars.begin(), to.bars.end(), [this](const Bar &bar) {
            return bar.from >= m_seam && !bar.fromBefore;
        });
        to.bars.insert(newestBars, std::make_move_iterator(taken.begin()), std::make_move_iterator(taken.end()));
        m_items += qsizetype(taken.size());
        older.m_items -= qsizetype(taken.size());
        from.bars = std::move(stillOn);
        if (last)
            std::stable_sort(to.bars.begin(), to.bars.end(), [](const Bar &a, const Bar &b) { return a.from < b.from; });
    }
    if (last) {
        m_eventCount += older.m_eventCount;
        std::exchange(m_older, nullptr)->deleteLater();  // may be inside its own signal
    }
    if (m_items > m_maxItems)
        dropOldest();
}

void CoordinationHistoryModel::fold(const QList<CoordinationEvent> &events)
{
    for (const CoordinationEvent &event : events)
        fold(event);
    m_eventCount += events.size();
    if (m_items > m_maxItems)
        dropOldest();
    if (!m_publish.isActive())
        m_publish.start();
}

void CoordinationHistoryModel::fold(const CoordinationEvent &event)
{
    Lane &lane = m_lanes[laneFor(event.kind, event.path, event.rule)];
    const qint64 revision = event.revision;
    const QString text = event.summary();
    switch (event.type) {
    case Type::Acquired:
    case Type::BarrierSet:
    case Type::InstanceUp:
        endBar(lane, event.entry, revision, true, MarkKind::Acquired);
        beginBar(lane, event.entry, revision, false);
        return addMark(lane, revision, event.type == Type::BarrierSet ? MarkKind::BarrierSet : MarkKind::Acquired, text);
    case Type::HandedOn:
    case Type::Elected:
        if (!event.previous.key.isEmpty())
            endBar(lane, event.previous, revision, false, MarkKind::HandedOn);
        endBar(lane, event.entry, revision, true, MarkKind::Acquired);
        beginBar(lane, event.entry, revision, false);
        return addMark(lane, revision, event.type == Type::Elected ? MarkKind::Elected : MarkKind::HandedOn, text);
    case Type::Released:
    case Type::LeaderEnded:
    case Type::BarrierLifted:
    case Type::InstanceDown:
        endBar(lane, event.entry, revision, false, endOf(event.cause));
        return addMark(lane, revision, endOf(event.cause), text);
    case Type::WaiterJoined:
    case Type::CandidateJoined:
    case Type::MemberArrived:
        return beginBar(lane, event.entry, revision, true);
    case Type::WaiterLeft:
    case Type::CandidateLeft:
    case Type::MemberLeft:
        endBar(lane, event.entry, revision, true, endOf(event.cause));
        // A waiter's lease that ended is worth a mark; one that stopped waiting is the bar's end.
        if (event.cause == Cause::LeaseEnded)
            addMark(lane, revision, MarkKind::LeaseEnded, text);
        return;
    case Type::RoundOpened:
        return addMark(lane, revision, MarkKind::BarrierSet, text);
    case Type::RoundReleased:
        return addMark(lane, revision, MarkKind::RoundReleased, text);
    case Type::Healed:
        return addMark(lane, revision, MarkKind::Healed, text);
    case Type::ItemsPut:
    case Type::ItemsTaken:
    case Type::CounterChanged:
        return addMark(lane, revision, MarkKind::Changed, text);
    }
}

QString CoordinationHistoryModel::exportJsonLines(const QString &path) const
{
    QJsonObject range{{QLatin1String("record"), QLatin1String("range")},
                      {QLatin1String("prefix"), m_prefix},
                      {QLatin1String("first_revision"), m_first},
                      {QLatin1String("last_revision"), m_last},
                      {QLatin1String("compacted"), m_compacted}};
    if (m_keptFrom > 0)
        range.insert(QLatin1String("kept_from"), m_keptFrom);
    // In revision order across the lanes: what began first comes first, a lane's own order kept.
    std::vector<std::pair<qint64, QJsonObject>> records;
    for (const Lane &lane : m_lanes) {
        const QJsonObject object{{QLatin1String("path"), QString::fromUtf8(lane.path)},
                                 {QLatin1String("kind"), kindName(lane.kind)},
                                 {QLatin1String("rule"), lane.rule}};
        for (const Bar &bar : lane.bars) {
            QJsonObject record = object;
            record.insert(QLatin1String("record"), bar.waiter ? QLatin1String("wait") : QLatin1String("hold"));
            record.insert(QLatin1String("who"), bar.who);
            record.insert(QLatin1String("key"), QString::fromUtf8(bar.key));
            record.insert(QLatin1String("token"), bar.token);
            record.insert(QLatin1String("from"), bar.from);
            record.insert(QLatin1String("to"), bar.to);
            record.insert(QLatin1String("from_before"), bar.fromBefore);
            if (bar.to > 0)
                record.insert(QLatin1String("end"), markKindName(bar.end));
            records.emplace_back(bar.from, record);
        }
        for (const Mark &mark : lane.marks) {
            QJsonObject record = object;
            record.insert(QLatin1String("record"), QLatin1String("event"));
            record.insert(QLatin1String("revision"), mark.revision);
            record.insert(QLatin1String("event"), markKindName(mark.kind));
            record.insert(QLatin1String("text"), mark.text);
            records.emplace_back(mark.revision, record);
        }
    }
    std::stable_sort(records.begin(), records.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    QByteArray lines = QJsonDocument(range).toJson(QJsonDocument::Compact) + '\n';
    for (const auto &[revision, record] : records)
        lines += QJsonDocument(record).toJson(QJsonDocument::Compact) + '\n';
    return Internal::writeWholeFile(path, lines);
}

int CoordinationHistoryModel::laneFor(CoordinationObject::Kind kind, const QByteArray &path, const QString &rule)
{
    const QByteArray id = objectId(kind, path);
    if (const auto found = m_rowOfObject.constFind(id); found != m_rowOfObject.constEnd())
        return *found;
    const int row = int(m_lanes.size());
    beginInsertRows({}, row, row);
    Lane lane;
    lane.path = path;
    lane.kind = kind;
    lane.rule = rule;
    m_lanes.push_back(std::move(lane));
    m_rowOfObject.insert(id, row);
    endInsertRows();
    Q_EMIT countChanged();
    return row;
}

CoordinationHistoryModel::Bar *CoordinationHistoryModel::openBar(Lane &lane, const QByteArray &key, bool waiter)
{
    // The open ones are the latest: a key is on a lane once at a time.
    for (auto bar = lane.bars.rbegin(); bar != lane.bars.rend(); ++bar) {
        if (bar->to == 0 && bar->waiter == waiter && bar->key == key)
            return &*bar;
    }
    return nullptr;
}

void CoordinationHistoryModel::beginBar(Lane &lane, const CoordinationEntry &entry, qint64 revision, bool waiter,
                                        bool fromBefore)
{
    if (openBar(lane, entry.key, waiter))
        return;
    Bar bar;
    bar.from = revision;
    bar.fromBefore = fromBefore;
    bar.waiter = waiter;
    bar.who = whoOf(lane.kind, entry);
    bar.key = entry.key;
    bar.token = entry.createRevision;
    lane.bars.push_back(std::move(bar));
    ++m_items;
}

void CoordinationHistoryModel::endBar(Lane &lane, const CoordinationEntry &entry, qint64 revision, bool waiter, MarkKind end)
{
    Bar *bar = openBar(lane, entry.key, waiter);
    if (!bar) {
        // A waiter that was never seen waiting just took its turn: nothing to end.
        if (waiter && end == MarkKind::Acquired)
            return;
        // On before the replay's first revision: it runs from there. Bars stay in the order
        // they began, so it goes first.
        Bar before;
        before.from = m_first;
        before.fromBefore = true;
        before.waiter = waiter;
        before.who = whoOf(lane.kind, entry);
        before.key = entry.key;
        before.token = entry.createRevision;
        lane.bars.push_front(std::move(before));
        ++m_items;
        bar = &lane.bars.front();
    }
    bar->to = revision;
    bar->end = end;
}

void CoordinationHistoryModel::addMark(Lane &lane, qint64 revision, MarkKind kind, const QString &text)
{
    lane.marks.push_back({revision, kind, text});
    ++m_markCounts[int(kind)];
    ++m_items;
}

void CoordinationHistoryModel::dropOldest()
{
    // Bars still open never go: when nothing else is left to drop, more than maxItems stay.
    for (qsizetype before = -1; m_items > m_maxItems && m_items != before;) {
        before = m_items;
        dropOldestQuarter();
    }
}

void CoordinationHistoryModel::dropOldestQuarter()
{
    // The revision before which a quarter of what is kept lies: everything that ended before it goes.
    std::vector<qint64> ends;
    ends.reserve(size_t(m_items));
    for (const Lane &lane : m_lanes) {
        for (const Mark &mark : lane.marks)
            ends.push_back(mark.revision);
        for (const Bar &bar : lane.bars) {
            if (bar.to != 0)
                ends.push_back(bar.to);
        }
    }
    if (ends.empty())
        return;
    const auto quarter = ends.begin() + qsizetype(ends.size() / 4);
    std::nth_element(ends.begin(), quarter, ends.end());
    const qint64 cut = *quarter + 1;
    for (Lane &lane : m_lanes) {
        while (!lane.marks.empty() && lane.marks.front().revision < cut) {
            --m_markCounts[int(lane.marks.front().kind)];
            lane.marks.pop_front();
            --m_items;
        }
        const auto gone = std::remove_if(lane.bars.begin(), lane.bars.end(),
                                         [cut](const Bar &bar) { return bar.to != 0 && bar.to < cut; });
        m_items -= qsizetype(lane.bars.end() - gone);
        lane.bars.erase(gone, lane.bars.end());
    }
    m_keptFrom = cut;
}

void CoordinationHistoryModel::publish()
{
    m_publish.stop();
    if (m_older)
        takeOlder(false);
    const QStringList kinds = markKinds();
    if (kinds != m_markKindsPublished) {
        m_markKindsPublished = kinds;
        Q_EMIT markKindsChanged();
    }
    if (!m_lanes.empty())
        Q_EMIT dataChanged(index(0), index(int(m_lanes.size()) - 1), {BarCountRole, MarkCountRole});
    Q_EMIT progressChanged();
    Q_EMIT lanesChanged();
}

void CoordinationHistoryModel::setStatus(ModelStatus::Status status, const QString &error)
{
    if (status == m_status && error == m_error)
        return;
    m_status = status;
    m_error = error;
    Q_EMIT statusChanged();
}

QString CoordinationHistoryModel::describe(int row, qint64 revision) const
{
    if (row < 0 || row >= int(m_lanes.size()))
        return {};
    const Lane &lane = m_lanes[size_t(row)];
    QStringList holders;
    QStringList waiters;
    for (const Bar &bar : lane.bars) {
        if (bar.from > revision || (bar.to != 0 && bar.to <= revision))
            continue;
        (bar.waiter ? waiters : holders).append(bar.who);
    }
    // Names, paths and proposals are anyone's bytes: each line is escaped, the lines stay lines.
    QStringList lines{tr("%1 %2 at revision %3").arg(kindName(lane.kind), DisplayText::fromBytes(lane.path)).arg(revision)};
    if (!holders.isEmpty())
        lines.append(tr("held by %1").arg(holders.join(QStringLiteral(", "))));
    if (!waiters.isEmpty())
        lines.append(tr("waiting: %1").arg(waiters.join(QStringLiteral(", "))));
    const auto at = std::lower_bound(lane.marks.cbegin(), lane.marks.cend(), revision,
                                     [](const Mark &mark, qint64 wanted) { return mark.revision < wanted; });
    for (auto mark = at; mark != lane.marks.cend() && mark->revision == revision; ++mark)
        lines.append(mark->text);
    for (QString &line : lines)
        line = DisplayText::escape(line);
    return lines.join(QLatin1Char('\n'));
}

QVariantList CoordinationHistoryModel::barsOf(int row) const
{
    QVariantList bars;
    if (row < 0 || row >= int(m_lanes.size()))
        return bars;
    for (const Bar &bar : m_lanes[size_t(row)].bars) {
        bars.append(QVariantMap{{QStringLiteral("from"), bar.from},
                                {QStringLiteral("to"), bar.to},
                                {QStringLiteral("who"), bar.who},
                                {QStringLiteral("key"), DisplayText::fromBytes(bar.key)},
                                {QStringLiteral("token"), bar.token},
                                {QStringLiteral("waiter"), bar.waiter},
                                {QStringLiteral("fromBefore"), bar.fromBefore},
                                {QStringLiteral("end"), bar.to != 0 ? markKindName(bar.end) : QString()}});
    }
    return bars;
}

QVariantList CoordinationHistoryModel::marksOf(int row) const
{
    QVariantList marks;
    if (row < 0 || row >= int(m_lanes.size()))
        return marks;
    for (const Mark &mark : m_lanes[size_t(row)].marks) {
        marks.append(QVariantMap{{QStringLiteral("revision"), mark.revision},
                                 {QStringLiteral("kind"), markKindName(mark.kind)},
                                 {QStringLiteral("text"), mark.text}});
    }
    return marks;
}

QList<double> CoordinationHistoryModel::ticks(double from, double to, double pixels, double spacing) const
{
    QList<double> ticks;
    if (!(to > from) || !(pixels > 0))
        return ticks;
    // The smallest of 1, 2, 5 × 10^k revisions that leaves spacing pixels between labels.
    const double wanted = std::max(1.0, spacing * (to - from) / pixels);
    double magnitude = std::pow(10.0, std::floor(std::log10(wanted)));
    qint64 step = qint64(magnitude);
    for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
        if (factor * magnitude >= wanted) {
            step = std::max<qint64>(1, qint64(factor * magnitude));
            break;
        }
    }
    for (qint64 tick = qint64(std::ceil(from / double(step))) * step; tick <= to; tick += step)
        ticks.append(double(tick));
    return ticks;
}

int CoordinationHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant CoordinationHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Lane &lane = m_lanes[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case PathRole:
        return DisplayText::fromBytes(lane.path);
    case KindRole:
        return kindName(lane.kind);
    case RuleRole:
        return lane.rule;
    case BarCountRole:
        return int(lane.bars.size());
    case MarkCountRole:
        return int(lane.marks.size());
    }
    return {};
}

QHash<int, QByteArray> CoordinationHistoryModel::roleNames() const
{
    return {{PathRole, "path"}, {KindRole, "kind"}, {RuleRole, "rule"}, {BarCountRole, "barCount"}, {MarkCountRole, "markCount"}};
}

} // namespace QEtcd
