// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "etcdclientitem.h"
#include "eventlogmodel.h"
#include "qetcdquickexport.h"

#include "continuation_p.h"

#include <QEtcd/leaseevent.h>
#include <QEtcd/recipe.h>

#include <QtCore/QFuture>
#include <QtCore/QPointer>
#include <QtCore/QTimer>

#include <memory>

namespace QEtcd {

/// `Participant` in QML: the base of every declarative participant (not creatable itself).
///
/// What every declarative participant (Mutex, Election, Barrier, ...) shares: its client binding,
/// the recipe it creates on first use and drops when its configuration changes, the recipe's
/// connection state, lease, errors and history, all carried over to the GUI thread. With an
/// eventLog, everything that happens to it is appended there under participantName, in the
/// EventLogModel's vocabulary, for a timeline to draw.
///
/// Recipes emit from the client's library threads; every signal is relayed with a queued
/// connection and every future continued on this object's thread, so bindings only ever read
/// GUI-thread values and no action blocks on the network.
class QETCD_QUICK_EXPORT RecipeParticipant : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Participant)
    QML_UNCREATABLE("Participant is the base of Mutex, Election, Barrier and the other participants")
    // The library's enums this type's properties use (ConnectionState, LeaseEventKind...) would
    // otherwise be read into its scope unscoped, where Suspended names three of them and QML
    // warns of the clash at start; State stays unscoped (Participant.Pending) by being a plain enum.
    Q_CLASSINFO("RegisterEnumClassesUnscoped", "false")
    /// The EtcdClient to talk through. Changing it (or its connection) drops the recipe and
    /// what it held.
    Q_PROPERTY(QEtcd::EtcdClientItem *client READ client WRITE setClient NOTIFY clientChanged)
    /// The recipe's path in etcd ("/locks/deploy"). Changing it drops what was held.
    Q_PROPERTY(QString path READ path WRITE setPath NOTIFY pathChanged)
    /// The TTL of the recipe's leases, in seconds (default 2). Changing it drops what was held.
    Q_PROPERTY(int ttl READ ttl WRITE setTtl NOTIFY ttlChanged)
    /// The name written into the participant's keys; empty: the recipe picks one
    /// (host:pid:random).
    Q_PROPERTY(QString clientId READ clientId WRITE setClientId NOTIFY clientIdChanged)
    /// Where the participant stands (see State).
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    /// How the recipe's leases and watches are doing (Etcd.ConnectionState).
    Q_PROPERTY(QEtcd::ConnectionState connectionState READ connectionState NOTIFY connectionStateChanged)
    /// The lease nearest its loss deadline, in hex as etcdctl prints it; empty without a lease.
    Q_PROPERTY(QString leaseId READ leaseId NOTIFY leaseChanged)
    /// That lease's TTL, in seconds.
    Q_PROPERTY(int leaseTtl READ leaseTtl NOTIFY leaseChanged)
    /// Milliseconds before that lease's loss deadline, updated every 100 ms; 0 without a lease.
    Q_PROPERTY(int leaseTimeLeft READ leaseTimeLeft NOTIFY leaseTimeLeftChanged)
    /// The message of the last error.
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
    /// The name events are logged under; empty means the client id.
    Q_PROPERTY(QString participantName READ participantName WRITE setParticipantName NOTIFY participantNameChanged)
    /// Where everything that happens to the participant is appended, for a timeline; optional.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)

public:
    /// Where a participant stands; plain, so QML spells Participant.Pending.
    enum State {
        Idle,     ///< Nothing asked, or given back.
        Pending,  ///< Waiting: to acquire, to lead, at a barrier, for a start (or healing).
        Active,   ///< Holding, leading, set, registered, passed.
        Lost,     ///< What was held went with its lease.
        Closed    ///< close() was called.
    };
    Q_ENUM(State)

    /// Drops the recipe, releasing what it holds.
    ~RecipeParticipant() override;
    Q_DISABLE_COPY_MOVE(RecipeParticipant)

    /// The EtcdClient.
    EtcdClientItem *client() const;
    /// Sets the EtcdClient.
    void setClient(EtcdClientItem *client);
    /// The path.
    QString path() const;
    /// Sets the path.
    void setPath(const QString &path);
    /// The lease TTL, in seconds.
    int ttl() const;
    /// Sets the lease TTL.
    void setTtl(int seconds);
    /// The client id: the recipe's once it exists, else as set.
    QString clientId() const;
    /// Sets the client id.
    void setClientId(const QString &clientId);

    /// Where the participant stands.
    State state() const;
    /// The recipe's connection state; Connected without a recipe.
    ConnectionState connectionState() const;
    /// The lease nearest its loss deadline, in hex; empty without a lease.
    QString leaseId() const;
    /// That lease's TTL, in seconds.
    int leaseTtl() const;
    /// Milliseconds before that lease's loss deadline.
    int leaseTimeLeft() const;
    /// The message of the last error.
    QString errorString() const;
    /// The name events are logged under; the client id unless set.
    QString participantName() const;
    /// Sets the name events are logged under.
    void setParticipantName(const QString &name);
    /// The event log; null without one.
    EventLogModel *eventLog() const;
    /// Sets the event log.
    void setEventLog(EventLogModel *log);

    /// Releases what the participant holds (its recipe is closed); its next action starts
    /// afresh. state turns Closed.
    Q_INVOKABLE void close();

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// path changed.
    void pathChanged();
    /// ttl changed.
    void ttlChanged();
    /// clientId changed.
    void clientIdChanged();
    /// state changed.
    void stateChanged();
    /// The recipe's connection state moved from \a previous to \a state.
    void connectionStateChanged(QEtcd::ConnectionState state, QEtcd::ConnectionState previous);
    /// leaseId or leaseTtl changed.
    void leaseChanged();
    /// leaseTimeLeft changed.
    void leaseTimeLeftChanged();
    /// errorString changed.
    void errorStringChanged();
    /// participantName changed.
    void participantNameChanged();
    /// eventLog changed.
    void eventLogChanged();
    /// An action failed, or the recipe's background work did; errorString holds the message.
    void errorOccurred(const QEtcd::Status &status);
    /// One of the recipe's leases stalled, expired, healed or failed (lease IDs in hex).
    /// \a lease names which of them ("hold /locks/a/694d...", "candidacy lease").
    void leaseEvent(QEtcd::LeaseEventKind kind, const QString &leaseId, const QString &newLeaseId,
                    const QEtcd::Status &cause, const QString &lease);
    /// A line was added to the recipe's history.
    void historyAppended(const QString &text);

protected:
    /// For the participant types.
    explicit RecipeParticipant(QObject *parent = nullptr);

    /// The participant's recipe on client, not yet started, its own signals relayed; the options
    /// carry ttl and clientId.
    virtual std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path,
                                                 const RecipeOptions &options) = 0;
    /// The recipe is gone (configuration changed, close()): forget what it held.
    virtual void recipeDropped() = 0;

    /// The current recipe, created on first use; null (and errorOccurred) without a client or path.
    template <class R>
    R *recipe()
    {
        return static_cast<R *>(ensureRecipe());
    }
    /// The current recipe; null while there is none.
    Recipe *currentRecipe() const { return m_recipe.get(); }

    /// Connects one of the recipe's signals to handler, queued onto this object's thread; an
    /// emission still on its way when the recipe is dropped is not delivered.
    template <class Sender, class... Args, class Handler>
    void relay(Sender *recipe, void (Sender::*signal)(Args...), Handler handler)
    {
        connect(recipe, signal, this,
                [this, generation = m_generation, handler](std::decay_t<Args>... args) {
                    if (generation == m_generation)
                        handler(args...);
                },
                Qt::QueuedConnection);
    }

    /// Continues future on this object's thread, unless the recipe was dropped meanwhile.
    template <class T, class Handler>
    void whenDone(QFuture<T> future, Handler handler)
    {
        Internal::thenOn(future, this, [this, generation = m_generation, handler](const T &result) {
            if (generation == m_generation)
                handler(result);
        });
    }
    /// For actions whose only news is their Status: the state moves to \a onSuccess, or the
    /// error is reported and it moves to \a onFailure.
    void whenDone(QFuture<Status> future, State onSuccess, State onFailure);

    /// Whatever the recipe held was tied to the old client, path, TTL or settings: drop it.
    void reconfigure();
    /// A setting the recipe is built with; a change drops the recipe. False when nothing changed.
    template <class T>
    bool changeSetting(T &field, const T &value)
    {
        if (field == value)
            return false;
        field = value;
        reconfigure();
        return true;
    }
    /// Closes and forgets the recipe (releasing what it holds); the next action makes a new one.
    void dropRecipe(State next);

    /// For presence recipes (a transient key, a registration): Expired means healing (Pending),
    /// Restored Active again, Failed Lost for good.
    void followHealingLease();

    /// Moves to \a state (and reads the lease afresh, as it changes with the state).
    void setState(State state);
    /// Sets errorString, logs an error event and emits errorOccurred(); Ok is ignored.
    void reportError(const Status &status);
    /// Appends to the eventLog, if there is one; an empty key means logKey(), a time of
    /// EventLogModel::StampNow now.
    void record(const QString &kind, const QString &detail = QString(), const QString &key = QString(),
                bool spurious = false, qint64 monotonicMs = EventLogModel::StampNow);
    /// What this participant's events are about in etcd: its hold, candidacy, barrier or instance
    /// key once it has one, else its path.
    virtual QString logKey() const;
    /// A lease ID as etcdctl prints it.
    static QString hex(qint64 leaseId);
    /// QML's "no timeout" (a negative number of milliseconds) as the recipes spell it.
    static std::chrono::milliseconds waitTime(int timeoutMs);

private:
    Recipe *ensureRecipe();
    void refreshLease();
    void recordLeaseEvent(const QString &lease, const LeaseEvent &event);
    void setConnectionState(ConnectionState state, ConnectionState previous);

    QPointer<EtcdClientItem> m_client;
    QString m_path;
    int m_ttl = 2;
    QString m_clientId;
    std::unique_ptr<Recipe> m_recipe;
    quint64 m_generation = 0;  // of m_recipe
    State m_state = State::Idle;
    ConnectionState m_connectionState = ConnectionState::Connected;
    RecipeLeaseStatus m_lease;
    int m_leaseTimeLeft = 0;
    QTimer m_leaseTimer;
    QString m_errorString;
    QString m_participantName;
    QPointer<EventLogModel> m_eventLog;
};

} // namespace QEtcd
