#pragma once

#include <QEtcd/enums.h>
#include <QEtcd/leaseevent.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/resilience.h>
#include <QEtcd/status.h>

#include <QtCore/QFuture>
#include <QtCore/QList>
#include <QtCore/QObject>

#include <chrono>
#include <functional>
#include <memory>

namespace QEtcd {

class Client;
class RecipePrivate;
namespace Internal {
class HoldQueue;
}
class SelfHealingKeepAlive;
class ExclusivityLease;
struct WatchRecoveryEvent;

// What most recipes are configured with besides their client and path.
struct QETCD_EXPORT RecipeOptions
{
    qint64 ttlSeconds = 2;
    ResilienceConfig resilience;
    QString clientId;  // empty: Recipe::defaultClientId()
};

// One line of a recipe's recent history, for the console's heal timeline.
struct QETCD_EXPORT RecipeHistoryEntry
{
    enum class Source { Lease, Watch, ConnectionState, Error, Recipe };
    Source source = Source::Recipe;
    qint64 monotonicMs = 0;  // std::chrono::steady_clock, in milliseconds
    QString text;
};

// The lease a recipe holds nearest to its loss deadline (see Recipe::leaseStatus()).
struct QETCD_EXPORT RecipeLeaseStatus
{
    qint64 leaseId = -1;  // -1: the recipe holds no lease right now
    qint64 ttlSeconds = 0;
    // By std::chrono::steady_clock: for a hold, lock or leadership, when its holder is told it
    // is lost unless a renewal lands first; for a healing lease, when etcd may expire it.
    std::chrono::steady_clock::time_point lossDeadline;
};

struct QETCD_EXPORT RecipeError
{
    qint64 monotonicMs = 0;
    QString context;
    Status status;
};

// What every recipe shares: a lifecycle, a connection state aggregated over every lease and
// watch it owns, a bounded ring of recent background errors and a bounded event history.
//
// State, errors and history are updated on the client's library threads and the signals
// below are emitted from them, so they arrive even while the thread that owns the recipe is
// busy (for example inside a critical section). What an exclusivity lease reports (a hold, a
// permit, a leadership: stalled renewals, the loss) comes from the client's loss thread, which
// nothing else runs on, so that a busy dispatcher cannot hold a loss back; once close() has
// returned, no more of it comes. Getters are safe from any thread.
class QETCD_EXPORT Recipe : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QEtcd::ConnectionState connectionState READ connectionState NOTIFY connectionStateChanged)
    Q_PROPERTY(QString clientId READ clientId CONSTANT)
    Q_PROPERTY(QString context READ context CONSTANT)

public:
    static constexpr int MaxRecentErrors = 64;
    static constexpr int MaxHistory = 256;

    enum class SourceHealth { Healthy, Suspended, Lost };

    ~Recipe() override;
    Q_DISABLE_COPY_MOVE(Recipe)

    Client *client() const;
    QString clientId() const;
    // "<Type>[<path>]", as in error messages and logs.
    QString context() const;

    ConnectionState connectionState() const;
    bool isStarted() const;
    bool isClosed() const;
    // No RPC: not closed and not Lost.
    bool isHealthy() const;
    // One bounded read (2 s, no retries by default): can the cluster be reached right now?
    QFuture<Status> ping(const RpcResilience &rpc = RpcResilience::probe()) const;

    // Of every lease the recipe owns right now, the one nearest its loss deadline.
    RecipeLeaseStatus leaseStatus() const;

    QList<RecipeError> recentErrors() const;
    void clearErrors();
    QList<RecipeHistoryEntry> history() const;

    // Idempotent; before start() a no-op. Releases what the recipe holds and wakes its waiters.
    void close();

    // "<host>:<pid>:<random>", so an operator can tell participants apart.
    static QString defaultClientId();

Q_SIGNALS:
    void connectionStateChanged(QEtcd::ConnectionState state, QEtcd::ConnectionState previous);
    void backgroundError(const QString &context, const QEtcd::Status &status);
    void historyAppended(const QEtcd::RecipeHistoryEntry &entry);
    // Every lease the recipe owns, exclusive or healing, on the library's thread: lease names
    // which one, as the history names it ("hold /locks/db/694d8a3c5e1f2b07", "candidacy
    // lease"). Recipes with a single lease also have a narrower leaseEvent signal.
    void leaseEventOccurred(const QString &lease, const QEtcd::LeaseEvent &event);

protected:
    Recipe(Client *client, const QString &typeName, const QByteArray &path, const RecipeOptions &options,
           QObject *parent);

    const RecipeOptions &options() const;
    // Ok, or why the recipe cannot start (refused client options, an invalid retry policy...).
    Status validate() const;

    // Subclasses release what they hold here; runs once, on the first close() after start().
    virtual void doClose() = 0;

    // Marks the recipe started: Ok the first time, else Closed or AlreadyStarted (named with
    // the recipe's context) and nothing changes. One-shot start() methods return its refusal.
    Status beginStart();

    // Every lease and watch the recipe owns is a source of connection health.
    int addSource(const QString &name);
    void reportSource(int source, SourceHealth health);
    void removeSource(int source);
    // Wires a lease's events into the state, the error ring and the history.
    int track(SelfHealingKeepAlive *lease, const QString &name);
    // The same for an exclusivity lease, on its loss thread; onLost, when given, runs there
    // too, right after the state turned Lost, and never once close() has begun.
    int track(ExclusivityLease *lease, const QString &name, std::function<void(const QEtcd::Status &)> onLost = {});

    // A recipe made of other recipes (a provider over its cache, a double barrier over two
    // rendezvous) takes their health and errors as its own.
    int follow(Recipe *part, const QString &name);
    // A watch the recipe owns recovered, or did not: history, error ring and state in one go.
    void reportWatchRecovery(int source, const QString &name, const WatchRecoveryEvent &event);

    void recordError(const QString &context, const Status &status);
    void recordHistory(RecipeHistoryEntry::Source source, const QString &text);

private:
    // The queue engine of the lock recipes records their history and tracks their leases.
    friend class Internal::HoldQueue;

    void onLeaseEvent(int source, const QString &name, const LeaseEvent &event);
    void onLeaseResumed(int source, const QString &name, qint64 leaseId);

    std::unique_ptr<RecipePrivate> d;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::RecipeHistoryEntry)
