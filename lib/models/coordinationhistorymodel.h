// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "modelstatus.h"
#include "qetcdquickexport.h"

#include <QEtcd/client.h>
#include <QEtcd/coordinationhistory.h>

#include <QtCore/QAbstractListModel>
#include <QtCore/QPointer>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtCore/QVariantList>
#include <QtQml/qqmlregistration.h>

#include <deque>
#include <vector>

namespace QEtcd {

/// `CoordinationHistoryModel` in QML: etcd's retained history under a prefix as swim lanes,
/// one per coordination object, along the revision axis.
///
/// start() replays the history (CoordinationHistory) on a thread of its own, so a long one never
/// holds up the GUI, and folds its events into lanes as they come: a holder (a lock's, a
/// leader, a barrier's owner, a service instance) is a bar from the revision it came to the one
/// it went, a waiter (a candidate, a barrier's member) a thinner one; what happened at a
/// revision (acquired, handed on, elected, set, lifted, healed, items put...) is a mark, and
/// how a hold ended (its key deleted, its lease ended, removed by its owner, lifted by an
/// operator) is the mark at the bar's end. A hold that began before the replay's first
/// revision runs from there (Bar::fromBefore); one still on at its last runs to it (Bar::to 0).
///
/// etcd keeps no time per revision: the axis is revisions. Rows are lanes: first the objects
/// there at the first revision (by path; their holders and waiters run from before it), then
/// the others in the order they first changed. Memory: bars and marks, not events; past maxItems the oldest are
/// dropped (keptFrom says from which revision on everything is kept).
///
/// A long range is replayed newest first: etcd answers a watch from an old revision only after
/// reading every revision from there to now (half a minute for a million), so the last
/// NewestFirstRevisions are replayed on their own, from the objects as they were before them,
/// and are painted at once; the older revisions follow (olderRevision says how far) and move in
/// front as they come, their holds joining the ones that ran on into the newest revisions.
class QETCD_QUICK_EXPORT CoordinationHistoryModel : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    /// The client to read through; a read-only one is enough.
    Q_PROPERTY(QEtcd::Client *client READ client WRITE setClient NOTIFY clientChanged)
    /// The objects replayed are under it (empty: every key). Read at start().
    Q_PROPERTY(QString prefix READ prefix WRITE setPrefix NOTIFY prefixChanged)
    /// How many revisions back from now to replay; 0: the whole history etcd keeps. Read at start().
    Q_PROPERTY(qint64 lastRevisions READ lastRevisions WRITE setLastRevisions NOTIFY lastRevisionsChanged)
    /// Go on past the range's end, folding in changes as they happen (CoordinationHistory::
    /// setFollowing): Ready once the range is replayed, running until cancel(), lastRevision
    /// growing with the store. Read at start().
    Q_PROPERTY(bool following READ isFollowing WRITE setFollowing NOTIFY followingChanged)
    /// At most this many bars and marks are kept (default DefaultMaxItems); past it the oldest
    /// quarter goes and keptFrom says from where everything is kept. Bounds the memory a long
    /// replay or a follow needs.
    Q_PROPERTY(int maxItems READ maxItems WRITE setMaxItems NOTIFY maxItemsChanged)
    /// Null before start(), Loading while it replays, Ready once done, Error (errorString) otherwise.
    Q_PROPERTY(QEtcd::ModelStatus::Status status READ status NOTIFY statusChanged)
    /// Why the replay failed, or was cancelled; empty otherwise.
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
    /// A replay is running.
    Q_PROPERTY(bool running READ isRunning NOTIFY statusChanged)
    /// The first revision whose changes are told, and the last; 0 until the replay has begun.
    Q_PROPERTY(qint64 firstRevision READ firstRevision NOTIFY rangeChanged)
    /// The last revision whose changes are told; 0 until the replay has begun.
    Q_PROPERTY(qint64 lastRevision READ lastRevision NOTIFY rangeChanged)
    /// etcd had compacted the revisions before firstRevision, and earlier ones were asked for.
    Q_PROPERTY(bool compacted READ isCompacted NOTIFY rangeChanged)
    /// Every change up to this revision has been folded in.
    Q_PROPERTY(qint64 progressRevision READ progressRevision NOTIFY progressChanged)
    /// progressRevision's place from firstRevision to lastRevision, 0 to 1.
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
    /// A long range's older revisions, replayed after its newest: folded in up to this one; 0
    /// when there are none left to fold in.
    Q_PROPERTY(qint64 olderRevision READ olderRevision NOTIFY progressChanged)
    /// Events folded in so far.
    Q_PROPERTY(qint64 eventCount READ eventCount NOTIFY progressChanged)
    /// Bars and marks before it were dropped to bound memory; 0 when none were.
    Q_PROPERTY(qint64 keptFrom READ keptFrom NOTIFY progressChanged)
    /// The marks' kinds the lanes hold ("acquired", "deleted", ...), in MarkKind's order (a legend's).
    Q_PROPERTY(QStringList markKinds READ markKinds NOTIFY markKindsChanged)
    /// How many lanes there are.
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    /// The bars and marks kept unless maxItems says otherwise: a million revisions' worth of
    /// a busy cluster's hand-overs in a few tens of MiB.
    static constexpr int DefaultMaxItems = 200000;
    /// What is painted changes this often at most while a replay runs.
    static constexpr int PublishIntervalMs = 100;
    /// A range longer than twice this is replayed newest first: these last revisions, then the
    /// ones before them.
    static constexpr qint64 NewestFirstRevisions = 2000;

    /// What a mark says happened.
    enum class MarkKind {
        Acquired,          ///< A holder came (acquired, elected, set, instance up).
        HandedOn,          ///< A hold passed from one holder to the next in one revision.
        Elected,           ///< A leader was elected.
        BarrierSet,        ///< A barrier was set, a counted barrier's round opened.
        Released,          ///< A hold ended and its key is still there (it no longer counts).
        Deleted,           ///< A hold ended with its key deleted alone.
        LeaseEnded,        ///< A hold ended with its lease, which took several keys at once.
        RemovedByOwner,    ///< A qetcd barrier's owner took it down.
        LiftedByOperator,  ///< An operator lifted a barrier.
        RoundReleased,     ///< A counted barrier's round was released.
        Healed,            ///< A presence entry came back under its own name on a new lease.
        Changed,           ///< Items put or taken, a counter changed.
    };
    Q_ENUM(MarkKind)

    /// Someone's time on a lane.
    struct Bar
    {
        qint64 from = 0;  ///< The revision it began at.
        qint64 to = 0;    ///< The revision it ended at; 0 while it is still on.
        bool waiter = false;      ///< A waiter, candidate or member: drawn thinner.
        bool fromBefore = false;  ///< It was on before the replay's first revision.
        MarkKind end = MarkKind::Released;  ///< How it ended, once it has.
        QString who;       ///< Its entry's displayName(); an unnamed candidate's proposal.
        QByteArray key;    ///< Its entry's key.
        qint64 token = 0;  ///< Its key's create revision: a hold's fencing token, a term.
    };
    /// What happened at one revision of a lane.
    struct Mark
    {
        qint64 revision = 0;                 ///< When.
        MarkKind kind = MarkKind::Acquired;  ///< What.
        QString text;  ///< The event as `qetcd history` tells it.
    };
    /// One coordination object's lane.
    struct Lane
    {
        QByteArray path;                                                 ///< The object's path.
        CoordinationObject::Kind kind = CoordinationObject::Kind::Lock;  ///< The object's kind.
        QString rule;  ///< The client convention that made the object, if one did.
        std::deque<Bar> bars;    ///< By the revision they began at.
        std::deque<Mark> marks;  ///< By revision.
    };

    /// The roles of a row (a lane).
    enum Role {
        PathRole = Qt::UserRole + 1,  ///< `path`, fit to show.
        KindRole,                     ///< `kind`: "lock", "election", ...
        RuleRole,                     ///< `rule`: the client convention that made the object.
        BarCountRole,                 ///< `barCount`.
        MarkCountRole,                ///< `markCount`.
    };
    Q_ENUM(Role)

    /// A model with nothing replayed.
    explicit CoordinationHistoryModel(QObject *parent = nullptr);
    /// Stops a replay still running.
    ~CoordinationHistoryModel() override;
    Q_DISABLE_COPY_MOVE(CoordinationHistoryModel)

    /// The client.
    Client *client() const { return m_client; }
    /// Sets the client; a replay running through the old one stops.
    void setClient(Client *client);
    /// The prefix.
    QString prefix() const { return m_prefix; }
    /// Sets the prefix.
    void setPrefix(const QString &prefix);
    /// How many revisions back to replay.
    qint64 lastRevisions() const { return m_lastRevisions; }
    /// Sets how many revisions back to replay.
    void setLastRevisions(qint64 revisions);
    /// Goes on past the range's end.
    bool isFollowing() const { return m_following; }
    /// Sets whether to go on past the range's end.
    void setFollowing(bool following);
    /// The bars and marks kept at most.
    int maxItems() const { return m_maxItems; }
    /// Sets how many bars and marks are kept at most (at least 1); the oldest go at once when
    /// more are kept already.
    void setMaxItems(int items);
    /// The status.
    ModelStatus::Status status() const { return m_status; }
    /// The error.
    QString errorString() const { return m_error; }
    /// A replay is running (following: also once Ready).
    bool isRunning() const { return m_status == ModelStatus::Loading || (m_following && m_thread); }
    /// The first revision told.
    qint64 firstRevision() const { return m_first; }
    /// The last revision told.
    qint64 lastRevision() const { return m_last; }
    /// etcd had compacted what was asked for.
    bool isCompacted() const { return m_compacted; }
    /// Folded in up to here.
    qint64 progressRevision() const { return m_progress; }
    /// From 0 to 1.
    double progress() const;
    /// The older revisions are folded in up to here; 0 when none are left to.
    qint64 olderRevision() const;
    /// Events folded in.
    qint64 eventCount() const;
    /// Bars and marks before it were dropped; 0 when none were.
    qint64 keptFrom() const { return m_keptFrom; }
    /// The mark kinds' names.
    QStringList markKinds() const;
    /// The lanes.
    int count() const { return int(m_lanes.size()); }

    /// The lanes, by row.
    const std::vector<Lane> &lanes() const { return m_lanes; }
    /// A mark kind's name, as markKinds() lists it: "acquired", "handedOn", "deleted", ...
    static QString markKindName(MarkKind kind);

    /// Forgets what was replayed and replays the history under prefix, from lastRevisions back
    /// (or the oldest revision etcd keeps) to now.
    Q_INVOKABLE void start();
    /// Stops the replay; what it folded in so far stays. A replay still reading its range ends
    /// as Error (cancelled); one following past it stays Ready.
    Q_INVOKABLE void cancel();
    /// What lane \a row shows at \a revision, in words: who held, who waited, and what happened
    /// there, one line each, escaped (DisplayText::escape); empty outside the lanes.
    Q_INVOKABLE QString describe(int row, qint64 revision) const;
    /// Lane \a row's bars, in the order they began: [{from, to, who, key, token, waiter,
    /// fromBefore, end}] (end: how it ended, a markKindName(); to 0: still on), for tests and
    /// scripts; empty outside the lanes.
    Q_INVOKABLE QVariantList barsOf(int row) const;
    /// Lane \a row's marks in revision order: [{revision, kind, text}].
    Q_INVOKABLE QVariantList marksOf(int row) const;
    /// Writes what the lanes hold to \a path as JSON lines, all or nothing: first the range
    /// ({"record": "range", "prefix", "first_revision", "last_revision", "compacted", "kept_from"}),
    /// then in revision order each hold or wait ({"record": "hold" or "wait", "path", "kind",
    /// "rule", "who", "key", "token", "from", "to" (0: still on), "from_before", "end"}) and each
    /// mark ({"record": "event", "revision", "path", "kind", "rule", "event", "text"}). Empty
    /// when written, else why not.
    Q_INVOKABLE QString exportJsonLines(const QString &path) const;
    /// Revisions to label from \a from to \a to across \a pixels, a round step at least
    /// \a spacing pixels apart.
    Q_INVOKABLE QList<double> ticks(double from, double to, double pixels, double spacing) const;

    /// One row per lane.
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    /// A lane's \a role.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The Role names.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// client changed.
    void clientChanged();
    /// prefix changed.
    void prefixChanged();
    /// lastRevisions changed.
    void lastRevisionsChanged();
    /// following changed.
    void followingChanged();
    /// maxItems changed.
    void maxItemsChanged();
    /// status, errorString or running changed.
    void statusChanged();
    /// firstRevision, lastRevision or compacted changed.
    void rangeChanged();
    /// progressRevision, progress, eventCount or keptFrom changed.
    void progressChanged();
    /// markKinds changed.
    void markKindsChanged();
    /// count changed.
    void countChanged();
    /// Bars or marks came or went: what shows them paints again.
    void lanesChanged();

private:
    void stopReplay();
    void replay(qint64 from, qint64 until);
    void began(qint64 first, qint64 until, qint64 compactedBefore);
    void followTo(qint64 revision);
    void seed(const QList<CoordinationObject> &objects);
    void fold(const QList<CoordinationEvent> &events);
    void fold(const CoordinationEvent &event);
    void finished(const Status &status);
    // The older revisions of a range replayed newest first.
    void replayOlder();
    void olderFinished();
    // Stops the older replay and takes what it told.
    void endOlder();
    // Moves what the older replay has told for good (its marks, its bars that ended) in front
    // of the newest revisions' own; \a last: the rest too, its holds still on joining theirs.
    void takeOlder(bool last);
    int laneFor(CoordinationObject::Kind kind, const QByteArray &path, const QString &rule);
    Bar *openBar(Lane &lane, const QByteArray &key, bool waiter);
    void beginBar(Lane &lane, const CoordinationEntry &entry, qint64 revision, bool waiter, bool fromBefore = false);
    void endBar(Lane &lane, const CoordinationEntry &entry, qint64 revision, bool waiter, MarkKind end);
    void addMark(Lane &lane, qint64 revision, MarkKind kind, const QString &text);
    // Drops the oldest bars and marks, a quarter at a time, until at most maxItems are kept.
    void dropOldest();
    void dropOldestQuarter();
    void publish();
    void setStatus(ModelStatus::Status status, const QString &error = {});

    QPointer<Client> m_client;
    QString m_prefix;
    qint64 m_lastRevisions = 0;
    bool m_following = false;
    int m_maxItems = DefaultMaxItems;
    qint64 m_caughtUpAt = 0;  // following: the range's end, after which the replay is Ready
    ModelStatus::Status m_status = ModelStatus::Null;
    QString m_error;
    quint64 m_generation = 0;  // a replay's answers after another started are dropped
    QThread *m_thread = nullptr;  // the running replay's
    QObject *m_anchor = nullptr;  // lives on m_thread; owns its CoordinationHistory
    QList<QPointer<QThread>> m_stopping;  // replays' threads on their way out
    // A range replayed newest first: the revisions before m_seam, folded in by a model of their
    // own and taken from it; m_seam 0 when the range is replayed in one go.
    CoordinationHistoryModel *m_older = nullptr;  // a child
    qint64 m_seam = 0;
    qint64 m_olderFrom = 0;  // where the older replay begins (0: the oldest revision kept)

    qint64 m_first = 0;
    qint64 m_last = 0;
    bool m_compacted = false;
    qint64 m_progress = 0;
    qint64 m_eventCount = 0;
    qint64 m_keptFrom = 0;
    std::vector<Lane> m_lanes;
    QHash<QByteArray, int> m_rowOfObject;  // by kind and path
    qsizetype m_items = 0;                 // bars and marks kept
    QList<int> m_markCounts;               // by MarkKind
    QStringList m_markKindsPublished;
    QTimer m_publish;
};

} // namespace QEtcd
