#include "coordinationmonitor.h"

#include "keymirror_p.h"

#include <QtCore/QDateTime>
#include <QtCore/QHash>
#include <QtCore/QPointer>
#include <QtCore/QTimer>

namespace QEtcd {

using namespace Internal;

class CoordinationMonitorPrivate
{
public:
    Client *client;
    QByteArray prefix;
    KeyMirror *mirror = nullptr;  // lives on the client's dispatcher thread
    QTimer coalesce;
    QList<CoordinationObject> objects;
    // monitor's thread: when a key was seen to appear, for tools that write no time
    QHash<QByteArray, qint64> appeared;
};

/*!
    \class QEtcd::CoordinationMonitor
    \brief The coordination objects under a prefix, recognised again after every burst of changes.
*/

CoordinationMonitor::CoordinationMonitor(Client *client, const QByteArray &prefix, QObject *parent)
    : QObject(parent), d(std::make_unique<CoordinationMonitorPrivate>())
{
    d->client = client;
    d->prefix = prefix;
    d->coalesce.setSingleShot(true);
    d->coalesce.setInterval(std::chrono::milliseconds(16));
    connect(&d->coalesce, &QTimer::timeout, this, [this] {
        QList<CoordinationObject> objects = CoordinationRecogniser::recognise(d->mirror->entries());
        for (CoordinationObject &object : objects) {
            for (auto *entries : {&object.holders, &object.waiters, &object.members, &object.leaving}) {
                for (CoordinationEntry &entry : *entries) {
                    if (entry.sinceMs < 0)
                        entry.sinceMs = d->appeared.value(entry.key, -1);
                }
            }
        }
        if (objects == d->objects)
            return;
        d->objects = objects;
        Q_EMIT objectsChanged();
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

QFuture<Status> CoordinationMonitor::start()
{
    if (d->mirror)
        return QtFuture::makeReadyFuture(Status(StatusCode::AlreadyStarted,
                                                QStringLiteral("CoordinationMonitor: already started")));
    KeyMirror::Handlers handlers;
    // Dispatcher thread: only the news that something changed crosses to this thread.
    handlers.changed = [this](const QList<MirrorChange> &changes, MirrorOrigin origin) {
        QList<QByteArray> added;
        if (origin != MirrorOrigin::Snapshot) {
            for (const MirrorChange &change : changes) {
                if (change.kind == MirrorChange::Kind::Added)
                    added.append(change.key);
            }
        }
        QMetaObject::invokeMethod(this, [this, added, now = QDateTime::currentMSecsSinceEpoch()] {
            for (const QByteArray &key : added)
                d->appeared.insert(key, now);
            if (!d->coalesce.isActive())
                d->coalesce.start();
        }, Qt::QueuedConnection);
    };
    handlers.recovery = [this](const WatchRecoveryEvent &event) {
        if (event.kind == WatchRecoveryKind::Failed)
            QMetaObject::invokeMethod(this, [this, cause = event.cause] { Q_EMIT failed(cause); }, Qt::QueuedConnection);
    };
    d->mirror = new KeyMirror(d->client, d->prefix, KeyRange::prefix(), WatchResilience::defaults(), handlers);
    // The first objects are in place before the future is seen finished.
    return d->mirror->start(true).then(this, [this](const Status &status) {
        if (status) {
            d->coalesce.stop();
            d->objects = CoordinationRecogniser::recognise(d->mirror->entries());
            Q_EMIT objectsChanged();
        }
        return status;
    });
}

QList<CoordinationObject> CoordinationMonitor::objects() const
{
    return d->objects;
}

} // namespace QEtcd
