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

// What every declarative participant (Mutex, Election, Barrier, ...) shares: its client binding,
// the recipe it creates on first use and drops when its configuration changes, the recipe's
// connection state, lease, errors and history, all carried over to the GUI thread. With an
// eventLog, everything that happens to it is appended there under participantName, in the
// EventLogModel's vocabulary, for a timeline to draw.
//
// Recipes emit from the client's library threads; every signal is relayed with a queued
// connection and every future continued on this object's thread, so bindings only ever read
// GUI-thread values and no action blocks on the network.
class QETCD_QUICK_EXPORT RecipeParticipant : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Participant)
    QML_UNCREATABLE("Participant is the base of Mutex, Election, Barrier and the other participants")
    // The library's enums this type's properties use (ConnectionState, LeaseEventKind...) would
    // otherwise be read into its scope unscoped, where Suspended names three of them and QML
    // warns of the clash at start; State stays unscoped (Participant.Pending) by being a plain enum.
    Q_CLASSINFO("RegisterEnumClassesUnscoped", "false")
    Q_PROPERTY(QEtcd::EtcdClientItem *client READ client WRITE setClient NOTIFY clientChanged)
    Q_PROPERTY(QString path READ path WRITE setPath NOTIFY pathChanged)
    Q_PROPERTY(int ttl READ ttl WRITE setTtl NOTIFY ttlChanged)
    Q_PROPERTY(QString clientId READ clientId WRITE setClientId NOTIFY clientIdChanged)
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    Q_PROPERTY(QEtcd::ConnectionState connectionState READ connectionState NOTIFY connectionStateChanged)
    Q_PROPERTY(QString leaseId READ leaseId NOTIFY leaseChanged)
    Q_PROPERTY(int leaseTtl READ leaseTtl NOTIFY leaseChanged)
    Q_PROPERTY(int leaseTimeLeft READ leaseTimeLeft NOTIFY leaseTimeLeftChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
    Q_PROPERTY(QString participantName READ participantName WRITE setParticipantName NOTIFY participantNameChanged)
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)

public:
    // Idle: nothing asked (or given back); Pending: waiting (to acquire, to lead, at a barrier,
    // for a start); Active: holding, leading, set, registered, passed; Lost: what was held went
    // with its lease; Closed: close() was called.
    enum State { Idle, Pending, Active, Lost, Closed };
    Q_ENUM(State)

    ~RecipeParticipant() override;
    Q_DISABLE_COPY_MOVE(RecipeParticipant)

    EtcdClientItem *client() const;
    void setClient(EtcdClientItem *client);
    QString path() const;
    void setPath(const QString &path);
    int ttl() const;
    void setTtl(int seconds);
    QString clientId() const;
    void setClientId(const QString &clientId);

    State state() const;
    ConnectionState connectionState() const;
    QString leaseId() const;  // hex, as etcdctl prints it; empty without a lease
    int leaseTtl() const;     // seconds
    int leaseTimeLeft() const;  // milliseconds before the lease's loss deadline
    QString errorString() const;
    // Empty means the client id.
    QString participantName() const;
    void setParticipantName(const QString &name);
    EventLogModel *eventLog() const;
    void setEventLog(EventLogModel *log);

    // Releases what the participant holds; its next action starts afresh.
    Q_INVOKABLE void close();

Q_SIGNALS:
    void clientChanged();
    void pathChanged();
    void ttlChanged();
    void clientIdChanged();
    void stateChanged();
    void connectionStateChanged(QEtcd::ConnectionState state, QEtcd::ConnectionState previous);
    void leaseChanged();
    void leaseTimeLeftChanged();
    void errorStringChanged();
    void participantNameChanged();
    void eventLogChanged();
    void errorOccurred(const QEtcd::Status &status);
    // lease names which of the recipe's leases ("hold /locks/a/694d...", "candidacy lease").
    void leaseEvent(QEtcd::LeaseEventKind kind, const QString &leaseId, const QString &newLeaseId,
                    const QEtcd::Status &cause, const QString &lease);
    void historyAppended(const QString &text);

protected:
    explicit RecipeParticipant(QObject *parent = nullptr);

    // The participant's recipe on client, not yet started, its own signals relayed; the options
    // carry ttl and clientId.
    virtual std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path,
                                                 const RecipeOptions &options) = 0;
    // The recipe is gone (configuration changed, close()): forget what it held.
    virtual void recipeDropped() = 0;

    // The current recipe, created on first use; null (and errorOccurred) without a client or path.
    template <class R>
    R *recipe()
    {
        return static_cast<R *>(ensureRecipe());
    }
    Recipe *currentRecipe() const { return m_recipe.get(); }

    // Connects one of the recipe's signals to handler, queued onto this object's thread; an
    // emission still on its way when the recipe is dropped is not delivered.
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

    // Continues future on this object's thread, unless the recipe was dropped meanwhile.
    template <class T, class Handler>
    void whenDone(QFuture<T> future, Handler handler)
    {
        Internal::thenOn(future, this, [this, generation = m_generation, handler](const T &result) {
            if (generation == m_generation)
                handler(result);
        });
    }
    // For actions whose only news is their Status: reported as an error when not ok.
    void whenDone(QFuture<Status> future, State onSuccess, State onFailure);

    // Whatever the recipe held was tied to the old client, path, TTL or settings: drop it.
    void reconfigure();
    // A setting the recipe is built with; a change drops the recipe. False when nothing changed.
    template <class T>
    bool changeSetting(T &field, const T &value)
    {
        if (field == value)
            return false;
        field = value;
        reconfigure();
        return true;
    }
    // Closes and forgets the recipe (releasing what it holds); the next action makes a new one.
    void dropRecipe(State next);

    // For presence recipes (a transient key, a registration): Expired means healing (Pending),
    // Restored Active again, Failed Lost for good.
    void followHealingLease();

    void setState(State state);
    void reportError(const Status &status);
    // Appends to the eventLog, if there is one; an empty key means logKey(), a time of 0 now.
    void record(const QString &kind, const QString &detail = QString(), const QString &key = QString(),
                bool spurious = false, qint64 monotonicMs = 0);
    // What this participant's events are about in etcd: its hold, candidacy, barrier or instance
    // key once it has one, else its path.
    virtual QString logKey() const;
    static QString hex(qint64 leaseId);
    // QML's "no timeout" (a negative number of milliseconds) as the recipes spell it.
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
