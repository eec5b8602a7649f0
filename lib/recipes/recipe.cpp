// SPDX-License-Identifier: Apache-2.0
#include "recipe.h"

#include "client.h"
#include "client_p.h"
#include "continuation_p.h"
#include "exclusivitylease.h"
#include "leasemetrics_p.h"
#include "leasereport_p.h"
#include "logging_p.h"
#include "lossgate_p.h"
#include "recipe_p.h"
#include "watcher.h"
#include "selfhealingkeepalive.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QHash>
#include <QtCore/QMetaEnum>
#include <QtCore/QMutex>
#include <QtCore/QRandomGenerator>
#include <QtCore/QSysInfo>

#include <deque>
#include <optional>

namespace QEtcd {

namespace {
qint64 monotonicMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct StateChange
{
    ConnectionState next;
    ConnectionState previous;
};

template <class Enum>
QString enumName(Enum value)
{
    return QString::fromLatin1(QMetaEnum::fromType<Enum>().valueToKey(int(value)));
}

QString describe(const StateChange &change)
{
    return enumName(change.previous) + QStringLiteral(" → ") + enumName(change.next);
}
} // namespace

class RecipePrivate
{
public:
    Client *client;
    RecipeOptions options;
    QString context;
    QString typeName;

    std::atomic<bool> started{false};
    std::atomic<bool> closed{false};
    std::atomic<ConnectionState> state{ConnectionState::Connected};

    mutable QMutex mutex;
    QHash<int, Recipe::SourceHealth> sources;  // guarded by mutex
    QHash<int, std::shared_ptr<const Internal::LeaseReport>> leaseReports;  // by source, guarded by mutex
    int nextSource = 0;
    std::deque<RecipeError> errors;
    std::deque<RecipeHistoryEntry> history;
    // What exclusivity leases tell from the loss thread passes here; close() shuts it.
    const std::shared_ptr<Internal::LossGate> lossGate = std::make_shared<Internal::LossGate>();

    // With mutex held: the state the sources add up to now, and the change it makes.
    std::optional<StateChange> recomputeState()
    {
        bool anyLost = false;
        bool anySuspended = false;
        for (Recipe::SourceHealth each : std::as_const(sources)) {
            anyLost |= each == Recipe::SourceHealth::Lost;
            anySuspended |= each == Recipe::SourceHealth::Suspended;
        }
        const ConnectionState previous = state.load();
        // Connected is only ever the first state: once anything went wrong, health is Reconnected.
        const ConnectionState next = anyLost        ? ConnectionState::Lost
            : anySuspended                          ? ConnectionState::Suspended
            : previous == ConnectionState::Connected ? ConnectionState::Connected
                                                     : ConnectionState::Reconnected;
        if (next == previous)
            return std::nullopt;
        state = next;
        return StateChange{next, previous};
    }

    // Every lease the recipe tracks comes here: from now on it counts in LeaseMetrics as the
    // recipe's, and the recipe's leases are counted in one place, not by each recipe.
    void reportLease(int source, std::shared_ptr<const Internal::LeaseReport> report)
    {
        report->metricsKind = Internal::leaseMetricsKind(typeName);
        QMutexLocker locker(&mutex);
        leaseReports.insert(source, std::move(report));
    }
};

Recipe::Recipe(Client *client, const QString &typeName, const QByteArray &path, const RecipeOptions &options,
               QObject *parent)
    : QObject(parent), d(std::make_unique<RecipePrivate>())
{
    d->client = client;
    d->options = options;
    if (d->options.clientId.isEmpty())
        d->options.clientId = defaultClientId();
    d->context = typeName + QLatin1Char('[') + QString::fromUtf8(path) + QLatin1Char(']');
    d->typeName = typeName;
}

Recipe::~Recipe()
{
    d->lossGate->close();
}

Client *Recipe::client() const
{
    return d->client;
}

QString Recipe::clientId() const
{
    return d->options.clientId;
}

QString Recipe::context() const
{
    return d->context;
}

const RecipeOptions &Recipe::options() const
{
    return d->options;
}

Status Recipe::validate() const
{
    if (!d->client)
        return Status(StatusCode::InvalidArgument, d->context + QStringLiteral(": no client"));
    if (Status status = d->client->configurationStatus(); !status)
        return status.withContext(d->context);
    if (d->options.ttlSeconds <= 0)
        return Status(StatusCode::InvalidArgument,
                      d->context + QStringLiteral(": TTL must be > 0 seconds (got %1)").arg(d->options.ttlSeconds));
    return d->options.resilience.validate().withContext(d->context);
}

ConnectionState Recipe::connectionState() const
{
    return d->state.load();
}

bool Recipe::isStarted() const
{
    return d->started.load();
}

bool Recipe::isClosed() const
{
    return d->closed.load();
}

bool Recipe::isHealthy() const
{
    return !d->closed.load() && d->state.load() != ConnectionState::Lost;
}

QFuture<Status> Recipe::ping(const RpcResilience &rpc) const
{
    return Internal::after(d->client->ping(rpc), [](const Result &result) { return result.status; });
}

RecipeLeaseStatus Recipe::leaseStatus() const
{
    QMutexLocker locker(&d->mutex);
    std::shared_ptr<const Internal::LeaseReport> nearest;
    for (const auto &report : std::as_const(d->leaseReports)) {
        if (report->leaseId.load() > 0 && (!nearest || report->deadline() < nearest->deadline()))
            nearest = report;
    }
    if (!nearest)
        return {};
    return {nearest->leaseId.load(), nearest->ttlSeconds.load(), Internal::LeaseClock::toSteady(nearest->deadline())};
}

QList<RecipeError> Recipe::recentErrors() const
{
    QMutexLocker locker(&d->mutex);
    return QList<RecipeError>(d->errors.cbegin(), d->errors.cend());
}

void Recipe::clearErrors()
{
    QMutexLocker locker(&d->mutex);
    d->errors.clear();
}

QList<RecipeHistoryEntry> Recipe::history() const
{
    QMutexLocker locker(&d->mutex);
    return QList<RecipeHistoryEntry>(d->history.cbegin(), d->history.cend());
}

void Recipe::close()
{
    // Before start() a no-op, as promised: the gate stays open for the holds still to come.
    if (!d->started.load())
        return;
    // Before anything is released: a loss told now would be of something already let go.
    d->lossGate->close();
    if (d->closed.exchange(true))
        return;
    doClose();
    recordHistory(RecipeHistoryEntry::Source::Recipe, QStringLiteral("closed"));
}

QString Recipe::defaultClientId()
{
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    QString token;
    for (int i = 0; i < 6; ++i)
        token += QLatin1Char(alphabet[QRandomGenerator::global()->bounded(36)]);
    return QSysInfo::machineHostName() + QLatin1Char(':') + QString::number(QCoreApplication::applicationPid())
        + QLatin1Char(':') + token;
}

Status Recipe::beginStart()
{
    if (d->closed.load())
        return Status(StatusCode::Closed, d->context + QStringLiteral(": closed"));
    if (d->started.exchange(true))
        return Status(StatusCode::AlreadyStarted, d->context + QStringLiteral(": start() was already called"));
    return {};
}

int Recipe::addSource(const QString &name)
{
    QMutexLocker locker(&d->mutex);
    const int id = d->nextSource++;
    d->sources.insert(id, SourceHealth::Healthy);
    locker.unlock();
    qCDebug(lcCore).noquote() << d->context << "tracks" << name;
    return id;
}

// A change is told outside the lock (house rule: no lock across an emission), so two threads'
// changes may reach a listener in the other order. Not serialised on purpose: a lock held across
// the emission would let a slot that blocks, or reports in turn, stall every lease and watch of
// the recipe. Each change carries its own previous state, so a listener can tell a late one, and
// connectionState() always reads the state computed last.
void Recipe::reportSource(int source, SourceHealth health)
{
    QMutexLocker locker(&d->mutex);
    if (!d->sources.contains(source))
        return;
    d->sources[source] = health;
    const std::optional<StateChange> change = d->recomputeState();
    locker.unlock();
    if (!change)
        return;
    recordHistory(RecipeHistoryEntry::Source::ConnectionState, describe(*change));
    Q_EMIT connectionStateChanged(change->next, change->previous);
}

void Recipe::removeSource(int source)
{
    // Gone counts as healthy (a lost hold that its owner has let go of no longer keeps the
    // state at Lost), judged in the same critical section as the removal, so that no report
    // can slip in between and leave the state at what a source that is gone said.
    QMutexLocker locker(&d->mutex);
    if (!d->sources.remove(source))
        return;
    d->leaseReports.remove(source);
    const std::optional<StateChange> change = d->recomputeState();
    locker.unlock();
    if (!change)
        return;
    recordHistory(RecipeHistoryEntry::Source::ConnectionState, describe(*change));
    Q_EMIT connectionStateChanged(change->next, change->previous);
}

namespace {
Recipe::SourceHealth healthAfter(LeaseEventKind kind)
{
    switch (kind) {
    case LeaseEventKind::Suspended: return Recipe::SourceHealth::Suspended;
    case LeaseEventKind::Restored: return Recipe::SourceHealth::Healthy;
    case LeaseEventKind::Expired:
    case LeaseEventKind::Failed: break;
    }
    return Recipe::SourceHealth::Lost;
}
} // namespace

void Recipe::onLeaseEvent(int source, const QString &name, const LeaseEvent &event)
{
    recordHistory(RecipeHistoryEntry::Source::Lease, name + QStringLiteral(": ") + event.toString());
    if (event.kind != LeaseEventKind::Restored)
        recordError(name, event.cause);
    reportSource(source, healthAfter(event.kind));
    Q_EMIT leaseEventOccurred(name, event);
}

void Recipe::onLeaseResumed(int source, const QString &name, qint64 leaseId)
{
    recordHistory(RecipeHistoryEntry::Source::Lease,
                  name + QStringLiteral(": renewals resumed on lease %1").arg(leaseId, 0, 16));
    reportSource(source, SourceHealth::Healthy);
}

// Direct connections: leases emit on the client's library threads, and so must the recipe, so
// that a loss is told even while the recipe's own thread is busy.
int Recipe::track(SelfHealingKeepAlive *lease, const QString &name)
{
    const int source = addSource(name);
    d->reportLease(source, lease->m_report);
    connect(lease, &SelfHealingKeepAlive::leaseEvent, this,
            [=, this](const LeaseEvent &event) { onLeaseEvent(source, name, event); }, Qt::DirectConnection);
    connect(lease, &SelfHealingKeepAlive::keepAliveResumed, this,
            [=, this](qint64 leaseId) { onLeaseResumed(source, name, leaseId); }, Qt::DirectConnection);
    return source;
}

// The gate is captured, not reached through this: it must be asked before this is touched.
int Recipe::track(ExclusivityLease *lease, const QString &name, std::function<void(const Status &)> onLost)
{
    const int source = addSource(name);
    d->reportLease(source, lease->m_report);
    const std::shared_ptr<Internal::LossGate> gate = d->lossGate;
    connect(lease, &ExclusivityLease::leaseEvent, this,
            [=, this](const LeaseEvent &event) { gate->run([&] { onLeaseEvent(source, name, event); }); },
            Qt::DirectConnection);
    connect(lease, &ExclusivityLease::keepAliveResumed, this,
            [=, this](qint64 leaseId) { gate->run([&] { onLeaseResumed(source, name, leaseId); }); },
            Qt::DirectConnection);
    if (onLost) {
        connect(lease, &ExclusivityLease::lost, this,
                [gate, onLost = std::move(onLost)](const Status &cause) { gate->run([&] { onLost(cause); }); },
                Qt::DirectConnection);
    }
    return source;
}

int Recipe::follow(Recipe *part, const QString &name)
{
    const int source = addSource(name);
    // Direct: the part reports from the dispatcher thread, and so must we.
    connect(part, &Recipe::connectionStateChanged, this,
            [this, source](ConnectionState state) { reportSource(source, Internal::healthOf(state)); },
            Qt::DirectConnection);
    connect(part, &Recipe::backgroundError, this,
            [this, name](const QString &where, const Status &status) {
                recordError(name + QStringLiteral(": ") + where, status);
            },
            Qt::DirectConnection);
    return source;
}

void Recipe::reportWatchRecovery(int source, const QString &name, const WatchRecoveryEvent &event)
{
    recordHistory(RecipeHistoryEntry::Source::Watch, name + QStringLiteral(": ") + event.toString());
    if (event.kind == WatchRecoveryKind::Failed)
        recordError(name, event.cause);
    reportSource(source, Internal::healthAfter(event.kind));
}

namespace Internal {
Recipe::SourceHealth healthAfter(WatchRecoveryKind kind)
{
    switch (kind) {
    case WatchRecoveryKind::Suspended: return Recipe::SourceHealth::Suspended;
    case WatchRecoveryKind::Resubscribed:
    case WatchRecoveryKind::Resynced: return Recipe::SourceHealth::Healthy;
    case WatchRecoveryKind::Failed: break;
    }
    return Recipe::SourceHealth::Lost;
}

Recipe::SourceHealth healthOf(ConnectionState state)
{
    switch (state) {
    case ConnectionState::Suspended: return Recipe::SourceHealth::Suspended;
    case ConnectionState::Lost: return Recipe::SourceHealth::Lost;
    case ConnectionState::Connected:
    case ConnectionState::Reconnected: break;
    }
    return Recipe::SourceHealth::Healthy;
}
} // namespace Internal

void Recipe::recordError(const QString &context, const Status &status)
{
    if (status.isOk())
        return;
    const RecipeError error{monotonicMs(), d->context + QStringLiteral(" ") + context, status};
    {
        QMutexLocker locker(&d->mutex);
        d->errors.push_back(error);
        if (d->errors.size() > MaxRecentErrors)
            d->errors.pop_front();
    }
    recordHistory(RecipeHistoryEntry::Source::Error, error.context + QStringLiteral(": ") + status.toString());
    Q_EMIT backgroundError(error.context, status);
}

void Recipe::recordHistory(RecipeHistoryEntry::Source source, const QString &text)
{
    const RecipeHistoryEntry entry{source, monotonicMs(), text};
    {
        QMutexLocker locker(&d->mutex);
        d->history.push_back(entry);
        if (d->history.size() > MaxHistory)
            d->history.pop_front();
    }
    Q_EMIT historyAppended(entry);
}

} // namespace QEtcd
