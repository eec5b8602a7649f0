#include "coordinationmonitor.h"

#include "continuation_p.h"
#include "coordinationindex_p.h"
#include "keymirror_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QHash>
#include <QtCore/QTimer>

namespace QEtcd {

using namespace Internal;

class CoordinationMonitorPrivate
{
public:
    Client *client;
    QByteArray prefix;
    KeyMirror *mirror = nullptr;  // lives on the client's dispatcher thread
    qsizetype maxValueBytes = -1;
    QTimer coalesce;
    CoordinationIndex index;  // monitor's thread

    // unread: the sizes of the values in changes that were too large to read, by key.
    void apply(const QList<MirrorChange> &changes, const QHash<QByteArray, qsizetype> &unread, MirrorOrigin origin,
               qint64 nowMs)
    {
        // What was there before the monitor started has no known arrival time.
        const qint64 appeared = origin == MirrorOrigin::Snapshot ? -1 : nowMs;
        for (const MirrorChange &change : changes) {
            if (change.kind == MirrorChange::Kind::Removed)
                index.remove(change.key);
            else
                index.put(*change.kv, appeared, unread.value(change.key));
        }
    }
};

CoordinationMonitor::CoordinationMonitor(Client *client, const QByteArray &prefix, QObject *parent)
    : QObject(parent), d(std::make_unique<CoordinationMonitorPrivate>())
{
    d->client = client;
    d->prefix = prefix;
    d->coalesce.setSingleShot(true);
    d->coalesce.setInterval(std::chrono::milliseconds(16));
    qRegisterMetaType<QList<CoordinationObjectChange>>();
    connect(&d->coalesce, &QTimer::timeout, this, [this] {
        if (const QList<CoordinationObjectChange> changes = d->index.refresh(); !changes.isEmpty())
            Q_EMIT objectsChanged(changes);
    });
}

CoordinationMonitor::~CoordinationMonitor()
{
    if (d->mirror) {
        // No handler runs once close() returned; what they queued here dies with this object.
        d->mirror->close();
        d->mirror->deleteLater();
    }
}

QByteArray CoordinationMonitor::prefix() const
{
    return d->prefix;
}

void CoordinationMonitor::setInterval(std::chrono::milliseconds interval)
{
    d->coalesce.setInterval(interval);
}

void CoordinationMonitor::setMaxValueBytes(qsizetype bytes)
{
    d->maxValueBytes = bytes;
}

qsizetype CoordinationMonitor::unreadValueBytes(const QByteArray &key) const
{
    return d->mirror ? d->mirror->unreadValueBytes(key) : 0;
}

QFuture<Status> CoordinationMonitor::start()
{
    if (d->mirror)
        return QtFuture::makeReadyFuture(Status(StatusCode::AlreadyStarted,
                                                QStringLiteral("CoordinationMonitor: already started")));
    KeyMirror::Handlers handlers;
    // Dispatcher thread: the changes cross to this thread and are recognised there.
    handlers.changed = [this](const QList<MirrorChange> &changes, MirrorOrigin origin) {
        // Asked here, as the changes are told: the recogniser must know an empty value from one
        // too large to read (a proposal, not a lock), as of these changes.
        QHash<QByteArray, qsizetype> unread;
        for (const MirrorChange &change : changes) {
            if (change.kv && change.kv->value.isEmpty() && change.kind != MirrorChange::Kind::Removed) {
                if (const qsizetype bytes = d->mirror->unreadValueBytes(change.key))
                    unread.insert(change.key, bytes);
            }
        }
        QMetaObject::invokeMethod(this, [this, changes, unread, origin, now = QDateTime::currentMSecsSinceEpoch()] {
            d->apply(changes, unread, origin, now);
            if (!d->coalesce.isActive())
                d->coalesce.start();
        }, Qt::QueuedConnection);
    };
    handlers.recovery = [this](const WatchRecoveryEvent &event) {
        if (event.kind == WatchRecoveryKind::Failed)
            QMetaObject::invokeMethod(this, [this, cause = event.cause] { Q_EMIT failed(cause); }, Qt::QueuedConnection);
        else if (event.kind != WatchRecoveryKind::Suspended)
            QMetaObject::invokeMethod(this, [this, kind = event.kind] { Q_EMIT watchRecovered(kind); },
                                      Qt::QueuedConnection);
    };
    d->mirror = new KeyMirror(d->client, d->prefix, KeyRange::prefix(), WatchResilience::defaults(), handlers,
                              d->maxValueBytes);
    // The first objects are in place before the future is seen finished: the first read's
    // changes were queued to this thread before the start finished.
    return thenOn(d->mirror->start(true), this, [this](const Status &status) {
        if (status) {
            d->coalesce.stop();
            Q_EMIT objectsChanged(d->index.refresh());
        }
        return status;
    }, [](const Status &status) { return status; });
}

QList<CoordinationObject> CoordinationMonitor::objects() const
{
    return d->index.objects();
}

} // namespace QEtcd
