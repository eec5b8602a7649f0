// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QEtcd/coordinationinterventions.h>
#include <QEtcd/status.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace QEtcd {

class Client;
class EventLogModel;

/// `CoordinationActions` in QML: an operator's interventions on the objects a CoordinationModel
/// shows (CoordinationInterventions), each written to the event log as it ends.
///
/// Each call takes the path of a card and the entry map the card shows (CoordinationModel's
/// holders, waiters, members), and acts on exactly that entry: one replaced since it was shown
/// is left alone (Mismatch). Calls return at once; finished() follows once per call, never from
/// inside it. A read-only client refuses before anything is sent. Where the console asks first
/// is the view's business: this type only carries out.
class QETCD_QUICK_EXPORT CoordinationActions : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to write through.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// Where each intervention's outcome is logged, as the participant "operator"; none: not logged.
    Q_PROPERTY(QEtcd::EventLogModel *eventLog READ eventLog WRITE setEventLog NOTIFY eventLogChanged)
    /// How many interventions have not finished yet.
    Q_PROPERTY(int pending READ pending NOTIFY pendingChanged)

public:
    /// No client yet.
    explicit CoordinationActions(QObject *parent = nullptr);
    ~CoordinationActions() override;
    Q_DISABLE_COPY_MOVE(CoordinationActions)

    /// The client.
    Client *client() const;
    /// Sets the client.
    void setClient(Client *client);
    /// The event log.
    EventLogModel *eventLog() const;
    /// Sets the event log.
    void setEventLog(EventLogModel *log);
    /// Interventions in flight.
    int pending() const { return m_pending; }

    /// The interventions, by the name of their call.
    enum class Action { BreakHold, RemoveEntry, LiftBarrier, ForceReelection, ReleaseRound };
    /// Carries out \a action on \a entry of the object at \a path: what the invokable calls do
    /// with the entry their map describes, for C++ callers that hold the entry itself.
    void run(Action action, const QString &path, const CoordinationEntry &entry);

    /// Breaks the hold of \a holder on the lock, read/write lock or semaphore at \a path.
    Q_INVOKABLE void breakHold(const QString &path, const QVariantMap &holder);
    /// Removes \a entry (a waiter, a candidate, a service instance) from the object at \a path.
    Q_INVOKABLE void removeEntry(const QString &path, const QVariantMap &entry);
    /// Lifts the barrier at \a path that \a owner set.
    Q_INVOKABLE void liftBarrier(const QString &path, const QVariantMap &owner);
    /// Ends the term of \a leader in the election at \a path.
    Q_INVOKABLE void forceReelection(const QString &path, const QVariantMap &leader);
    /// Releases the round of the counted barrier at \a path that \a opener opened.
    Q_INVOKABLE void releaseRound(const QString &path, const QVariantMap &opener);
    /// Puts the orphaned claims of the work queue at \a path back now, as its sweepers would.
    Q_INVOKABLE void requeueOrphans(const QString &path);
    /// Puts every dead letter of the work queue at \a path back, each with a fresh count.
    Q_INVOKABLE void requeueDeadLetters(const QString &path);
    /// Deletes every dead letter of the work queue at \a path for good.
    Q_INVOKABLE void purgeDeadLetters(const QString &path);
    /// Sets the counter at \a path to \a value if it still holds \a shown (decimal texts, as a
    /// card shows them: a 64-bit value does not fit a JavaScript number).
    Q_INVOKABLE void setCounter(const QString &path, const QString &shown, const QString &value);
    /// Reads the first \a count items waiting in the queue at \a path (\a kind "queue",
    /// "priorityQueue" or "workQueue"), in the order they leave; peeked() answers with maps of
    /// key, keyBase64, createRevision, size and value (its text as the Keys page shows it, or hex).
    Q_INVOKABLE void peek(const QString &path, const QString &kind, int count);
    /// Reads the first \a count dead letters of the work queue at \a path, in id order;
    /// deadLettersPeeked() answers with maps of key (the letter's id), keyBase64, attempts, size
    /// and value, as peek() describes them.
    Q_INVOKABLE void peekDeadLetters(const QString &path, int count);
    /// Puts \a letter (a map deadLettersPeeked() gave) back into the work queue at \a path, with
    /// a fresh delivery count; one requeued or purged meanwhile is NotFound.
    Q_INVOKABLE void requeueDeadLetter(const QString &path, const QVariantMap &letter);
    /// Deletes \a item (a map peeked() gave) from the queue at \a path of \a kind.
    Q_INVOKABLE void removeQueueItem(const QString &path, const QString &kind, const QVariantMap &item);

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// eventLog changed.
    void eventLogChanged();
    /// pending changed.
    void pendingChanged();
    /// An intervention ended: \a action is the name of the call ("breakHold", ...), \a outcome
    /// the sentence logged (what went, or why nothing did).
    void finished(const QString &action, const QString &path, const QEtcd::Status &status, const QString &outcome);
    /// A peek() answered: \a items in the order they leave, or \a status says why none were read.
    void peeked(const QString &path, const QVariantList &items, const QEtcd::Status &status);
    /// A peekDeadLetters() answered: \a letters in id order, or \a status says why none were read.
    void deadLettersPeeked(const QString &path, const QVariantList &letters, const QEtcd::Status &status);

private:
    // Counts the call in flight until done answers, then logs and tells it as finished().
    void track(const QString &name, const QString &path, const QString &key, const QString &what,
               const QFuture<InterventionResult> &done);

    QPointer<Client> m_client;
    QPointer<EventLogModel> m_eventLog;
    int m_pending = 0;
};

} // namespace QEtcd
