// SPDX-License-Identifier: Apache-2.0
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

/// What most recipes are configured with besides their client and path.
struct QETCD_EXPORT RecipeOptions
{
    qint64 ttlSeconds = 2;        ///< The TTL of the recipe's leases, in seconds; > 0.
    ResilienceConfig resilience;  ///< How its watches, leases and calls recover.
    QString clientId;  ///< Names the participant in its keys' values; empty: Recipe::defaultClientId().
};

/// One line of a recipe's recent history, for the console's heal timeline.
struct QETCD_EXPORT RecipeHistoryEntry
{
    /// What the line is about.
    enum class Source {
        Lease,            ///< One of the recipe's leases.
        Watch,            ///< One of its watches.
        ConnectionState,  ///< A change of its connection state.
        Error,            ///< An error recorded in the error ring.
        Recipe            ///< The recipe's own steps (started, closed, re-queued...).
    };
    Source source = Source::Recipe;  ///< What the line is about.
    qint64 monotonicMs = 0;          ///< When, by std::chrono::steady_clock, in milliseconds.
    QString text;                    ///< What happened, for people.
};

/// The lease a recipe holds nearest to its loss deadline (see Recipe::leaseStatus()).
struct QETCD_EXPORT RecipeLeaseStatus
{
    qint64 leaseId = -1;    ///< -1: the recipe holds no lease right now.
    qint64 ttlSeconds = 0;  ///< The lease's TTL, in seconds.
    /// By std::chrono::steady_clock: for a hold, lock or leadership, when its holder is told it
    /// is lost unless a renewal lands first; for a healing lease, when etcd may expire it.
    std::chrono::steady_clock::time_point lossDeadline;
};

/// One failure of a recipe's background work (a renewal, a watch, a heal), kept in its error
/// ring.
struct QETCD_EXPORT RecipeError
{
    qint64 monotonicMs = 0;  ///< When, by std::chrono::steady_clock, in milliseconds.
    QString context;         ///< The recipe's context and what it was doing.
    Status status;           ///< What went wrong.
};

/// The lifecycle, connection state, errors and history every qetcd recipe shares.
///
/// What every recipe shares: a lifecycle, a connection state aggregated over every lease and
/// watch it owns, a bounded ring of recent background errors and a bounded event history.
///
/// State, errors and history are updated on the client's library threads and the signals
/// are emitted from them, so they arrive even while the thread that owns the recipe is
/// busy (for example inside a critical section). What an exclusivity lease reports (a hold, a
/// permit, a leadership: stalled renewals, the loss) comes from the client's loss thread, which
/// nothing else runs on, so that a busy dispatcher cannot hold a loss back; once close() has
/// returned, no more of it comes. Getters are safe from any thread.
class QETCD_EXPORT Recipe : public QObject
{
    Q_OBJECT
    /// How the recipe's leases and watches are doing, aggregated (see ConnectionState).
    Q_PROPERTY(QEtcd::ConnectionState connectionState READ connectionState NOTIFY connectionStateChanged)
    /// The participant's name in its keys' values.
    Q_PROPERTY(QString clientId READ clientId CONSTANT)
    /// "Type[path]", as in error messages and logs.
    Q_PROPERTY(QString context READ context CONSTANT)

public:
    /// How many background errors recentErrors() keeps; older ones are dropped.
    static constexpr int MaxRecentErrors = 64;
    /// How many lines history() keeps; older ones are dropped.
    static constexpr int MaxHistory = 256;

    /// The health of one source of connection state: a lease, a watch or a part recipe.
    enum class SourceHealth {
        Healthy,    ///< Answering.
        Suspended,  ///< Not answering; nothing lost yet.
        Lost        ///< Gone.
    };

    /// No loss is told after this; every recipe closes itself (close()) in its destructor.
    ~Recipe() override;
    Q_DISABLE_COPY_MOVE(Recipe)

    /// The client the recipe talks through.
    Client *client() const;
    /// The participant's name in its keys' values.
    QString clientId() const;
    /// "Type[path]", as in error messages and logs.
    QString context() const;

    /// How the recipe's leases and watches are doing, aggregated.
    ConnectionState connectionState() const;
    /// start() (or the recipe's first action) has run.
    bool isStarted() const;
    /// close() has run.
    bool isClosed() const;
    /// Not closed and not Lost; asks nothing of etcd.
    bool isHealthy() const;
    /// Can the cluster be reached right now: one bounded read (2 s, no retries by default).
    QFuture<Status> ping(const RpcResilience &rpc = RpcResilience::probe()) const;

    /// Of every lease the recipe owns right now, the one nearest its loss deadline.
    RecipeLeaseStatus leaseStatus() const;

    /// The last MaxRecentErrors background errors, oldest first.
    QList<RecipeError> recentErrors() const;
    /// Empties recentErrors().
    void clearErrors();
    /// The last MaxHistory lines of the recipe's history, oldest first.
    QList<RecipeHistoryEntry> history() const;

    /// Releases what the recipe holds and wakes its waiters (their calls return Cancelled or
    /// Closed). Idempotent; before start() a no-op. No loss is told once it has begun.
    void close();

    /// "host:pid:random", so an operator can tell participants apart.
    static QString defaultClientId();

Q_SIGNALS:
    /// The connection state moved from \a previous to \a state; once per change, from the
    /// library's thread.
    void connectionStateChanged(QEtcd::ConnectionState state, QEtcd::ConnectionState previous);
    /// Background work failed (a renewal, a watch, a heal); also kept in recentErrors().
    void backgroundError(const QString &context, const QEtcd::Status &status);
    /// A line was added to history().
    void historyAppended(const QEtcd::RecipeHistoryEntry &entry);
    /// Every lease the recipe owns, exclusive or healing, on the library's thread: lease names
    /// which one, as the history names it ("hold /locks/db/694d8a3c5e1f2b07", "candidacy
    /// lease"). Recipes with a single lease also have a narrower leaseEvent signal.
    void leaseEventOccurred(const QString &lease, const QEtcd::LeaseEvent &event);

protected:
    /// For subclasses: a recipe of type \a typeName (its class's name) at \a path.
    Recipe(Client *client, const QString &typeName, const QByteArray &path, const RecipeOptions &options,
           QObject *parent);

    /// The options the recipe was made with, clientId filled in.
    const RecipeOptions &options() const;
    /// Ok, or why the recipe cannot start (refused client options, an invalid retry policy...).
    Status validate() const;

    /// Subclasses release what they hold here; runs once, on the first close() after start().
    virtual void doClose() = 0;

    /// Marks the recipe started: Ok the first time, else Closed or AlreadyStarted (named with
    /// the recipe's context) and nothing changes. One-shot start() methods return its refusal.
    Status beginStart();

    /// Every lease and watch the recipe owns is a source of connection health: adds one, healthy,
    /// and returns its ID.
    int addSource(const QString &name);
    /// Sets a source's health and recomputes the connection state from all of them.
    void reportSource(int source, SourceHealth health);
    /// Forgets a source, counting it healthy as it goes (a released hold no longer keeps the
    /// state at Lost).
    void removeSource(int source);
    /// Wires a lease's events into the state, the error ring and the history.
    int track(SelfHealingKeepAlive *lease, const QString &name);
    /// The same for an exclusivity lease, on its loss thread; onLost, when given, runs there
    /// too, right after the state turned Lost, and never once close() has begun.
    int track(ExclusivityLease *lease, const QString &name, std::function<void(const QEtcd::Status &)> onLost = {});

    /// A recipe made of other recipes (a provider over its cache, a double barrier over two
    /// rendezvous) takes their health and errors as its own.
    int follow(Recipe *part, const QString &name);
    /// A watch the recipe owns recovered, or did not: history, error ring and state in one go.
    void reportWatchRecovery(int source, const QString &name, const WatchRecoveryEvent &event);

    /// Adds a failure to the error ring and the history, and emits backgroundError(); Ok is
    /// ignored.
    void recordError(const QString &context, const Status &status);
    /// Adds a line to the history and emits historyAppended().
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
