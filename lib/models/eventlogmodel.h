// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qetcdquickexport.h"

#include <QtCore/QAbstractListModel>
#include <QtCore/QTimer>
#include <QtQml/qqmlregistration.h>

#include <limits>

namespace QEtcd {

/// `EventLogModel` in QML: what an app's participants were told, in time order, for a timeline.
///
/// The events of the participants an app runs, oldest first: lease events, connection states,
/// acquired / released / lost, elected / leadership lost, barrier set / lifted (a spurious lift
/// marked), each with the monotonic time (CLOCK_MONOTONIC in ms, the clock the qetcd CLI prints
/// as mono_ms, so both merge into one timeline), the participant, a kind, a detail for people and
/// the key it is about. Appended events become rows at most once per frame. The filter keeps rows
/// whose participant, kind, detail or key contains it (case-insensitive); the exports write the
/// rows the filter keeps.
///
/// The log keeps at most `capacity` events (DefaultCapacity, 100,000, unless set): beyond it the
/// oldest are dropped, and their rows removed, at the next frame. An event costs about 300 bytes
/// with its strings, so the default bounds the log near 30 MB; at 200 events a second it holds
/// the last eight minutes. Readers that need every event, not only the rows the filter keeps (the
/// timeline), follow the sequence numbers: each event has one, counted from the first the log ever
/// held, and eventsChanged() says when events were appended, dropped or cleared.
///
/// The vocabulary the console's participants, sandbox and timeline share (any other kind is kept
/// as it is):
/// - a participant (participant = its name): leaseSuspended, leaseExpired, leaseRestored,
///   leaseFailed (key = the recipe's key on that lease); connectionState (detail: Suspended,
///   Connected, Reconnected, Lost); pending (it started to wait: for a hold, a leadership, a
///   barrier); acquired, released, lost, releaseFailed (an unlock()/release() that said false);
///   elected, leadershipLost, resigned; barrierSet, barrierRemoved, barrierLifted (spurious when
///   its owner's lease expired rather than a removal; also a counted barrier's pass); entered,
///   left (a double barrier); registered, unregistered (a service instance, a transient key);
///   removedByOther (another client deleted a barrier, instance or transient key it kept, or
///   moved it to another lease: honoured, not put back; detail: what happened);
///   enqueued, taken (a queue); received (detail: "attempt N: value"; key: the claim),
///   acknowledged, requeued, ackRefused (its claim was lost: someone else has the item), swept
///   (a work queue); error (detail: what failed). For holds, leadership, instances and claims
///   the key is the participant's own key in etcd.
/// - etcd as an unpartitioned observer sees it (participant = "etcd"; KeyEventRecorder): keyPut,
///   keyDeleted; keyRead (a scenario's read-back: detail, the value found).
///   A participant's loss is drawn against the keyDeleted of its key: the margin between them is
///   how long before etcd let anyone else in the participant knew.
/// - faults on a participant's proxy (participant = its name): fault, detail pass, blackhole,
///   "delay N ms" or reset; a band runs from a fault until the next pass.
/// - sandbox members (participant = member name, "m0"): memberStopped, memberKilled,
///   memberPaused, memberResumed, memberRestarted, leaderChanged (detail: the new leader).
/// - an operator's interventions from the console (participant = "operator"; CoordinationActions):
///   intervention (detail: what went, and how), interventionFailed (detail: why nothing was
///   written); key = the entry acted on.
/// - a scenario's narration (participant = "scenario"): step (detail: what happens now),
///   stepFailed (detail: what was expected and did not happen).
class QETCD_QUICK_EXPORT EventLogModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// Rows are the events whose participant, kind, detail or key contains it (case-insensitive).
    Q_PROPERTY(QString filter READ filter WRITE setFilter NOTIFY filterChanged)
    /// Rows shown.
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    /// The most events kept (default DefaultCapacity); the oldest beyond it are dropped.
    Q_PROPERTY(int capacity READ capacity WRITE setCapacity NOTIFY capacityChanged)
    /// Why the last export failed.
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

public:
    /// A time no clock gives: an event appended with it is stamped now. Not 0, which
    /// CLOCK_MONOTONIC reads on a machine that has just booted.
    static constexpr qint64 StampNow = std::numeric_limits<qint64>::min();

    /// One event.
    struct Event
    {
        qint64 monotonicMs = StampNow;  ///< When, by CLOCK_MONOTONIC in ms (the CLI's mono_ms).
        QString participant;     ///< Who it happened to.
        QString kind;            ///< What happened, in the vocabulary above.
        QString detail;          ///< For people.
        bool spurious = false;   ///< A barrier lift that was not a removal (the owner's lease expired).
        QString key;             ///< The key it is about.
    };

    /// The roles of a row, with the names QML reads them by.
    enum Role {
        TimeRole = Qt::UserRole + 1,  ///< `time`: monotonic ms.
        ParticipantRole,              ///< `participant`.
        KindRole,                     ///< `kind`.
        DetailRole,                   ///< `detail`.
        SpuriousRole,                 ///< `spurious`.
        KeyRole,                      ///< `key`.
    };
    Q_ENUM(Role)

    /// The capacity unless set: 100,000 events, about 30 MB.
    static constexpr int DefaultCapacity = 100000;

    /// An empty log.
    explicit EventLogModel(QObject *parent = nullptr);
    /// Destroys the log.
    ~EventLogModel() override;

    /// Appends \a event; it becomes a row at the next frame. GUI thread. An event with
    /// monotonicMs StampNow is stamped now.
    void append(Event event);
    /// Appends an event stamped now.
    Q_INVOKABLE void append(const QString &participant, const QString &kind, const QString &detail,
                            bool spurious = false, const QString &key = QString());
    /// Forgets every event; firstSequence() moves on.
    Q_INVOKABLE void clear();
    /// Every event, the filter aside, including those not yet rows.
    QList<Event> events() const;
    /// One row as {time, participant, kind, detail, spurious, key}, as scripts and tests read it.
    Q_INVOKABLE QVariantMap get(int row) const;

    /// The events kept are numbered firstSequence() up to endSequence() - 1, the filter aside and
    /// including those not yet rows; clear() and the capacity move firstSequence() on, never back.
    qint64 firstSequence() const { return m_firstSequence; }
    /// One past the sequence of the newest event.
    qint64 endSequence() const { return m_firstSequence + m_events.size(); }
    /// The event numbered \a sequence, from firstSequence() to endSequence() - 1.
    const Event &eventAt(qint64 sequence) const { return m_events.at(sequence - m_firstSequence); }

    /// The most events kept.
    int capacity() const { return m_capacity; }
    /// Sets the most events kept, at least 1; the oldest beyond it go at once.
    void setCapacity(int capacity);

    /// The filter.
    QString filter() const { return m_filter; }
    /// Sets the filter; the rows are chosen again.
    void setFilter(const QString &filter);
    /// Rows shown.
    int count() const { return int(m_rows.size()); }
    /// Why the last export failed.
    QString errorString() const { return m_error; }

    /// Writes the rows to \a path as JSON lines, one `{"mono_ms", "participant", "kind", "detail",
    /// "spurious", "key"}` object per line; false with errorString() when the file could not be
    /// written.
    Q_INVOKABLE bool exportJsonLines(const QString &path);
    /// Writes the rows to \a path as CSV with a header line; false with errorString() when the
    /// file could not be written.
    Q_INVOKABLE bool exportCsv(const QString &path);
    /// The rows as JSON lines.
    QByteArray toJsonLines() const;
    /// The rows as CSV, header line first.
    QByteArray toCsv() const;

    /// Now, by CLOCK_MONOTONIC in ms: the clock events are stamped with.
    static qint64 monotonicNowMs();

    /// The events the filter keeps, oldest first.
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// An event's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// filter changed.
    void filterChanged();
    /// count changed.
    void countChanged();
    /// capacity changed.
    void capacityChanged();
    /// errorString changed.
    void errorStringChanged();
    /// At most once a frame: events were appended, or dropped for the capacity; and at once on
    /// clear().
    void eventsChanged();

private:
    bool matches(const Event &event) const;
    void flush();
    bool dropBeyondCapacity();  // whether any were dropped
    bool write(const QString &path, const QByteArray &contents);

    // Dropping from the front of a QList is cheap in Qt 6 (it moves its start), so the oldest
    // events go without moving the rest.
    QList<Event> m_events;
    qint64 m_firstSequence = 0;  // of m_events.first()
    QList<qint64> m_rows;  // sequences of the events the filter keeps
    qint64 m_flushed = 0;  // events before this sequence are rows (or filtered out)
    int m_capacity = DefaultCapacity;
    QString m_filter;
    QString m_error;
    QTimer m_frame;
};

} // namespace QEtcd
