// SPDX-License-Identifier: Apache-2.0
#include "servicecache.h"

#include "discovery_p.h"
#include "keymirror_p.h"

#include <QtCore/QMap>
#include <QtCore/QMutex>

namespace QEtcd {

using namespace Internal;

class ServiceCachePrivate
{
public:
    ServiceCachePrivate(ServiceCache *q, const QByteArray &namesPath, const QString &serviceName)
        : q(q), namesPath(namesPath), serviceName(serviceName), prefix(servicePrefix(namesPath, serviceName))
    {
    }

    // "<service>/<id>", as etcd-recipes names cache entries.
    QString relativeKey(const QByteArray &key) const
    {
        return serviceName + QLatin1Char('/') + QString::fromUtf8(key.mid(prefix.size()));
    }

    std::optional<ServiceInstance> decode(const KeyValue &kv)
    {
        QString why;
        auto instance = ServiceInstance::fromJson(kv.value, &why);
        if (!instance)
            q->recordError(QStringLiteral("decode"),
                           Status(StatusCode::InvalidArgument, QStringLiteral("%1 is not a service instance: %2")
                                                                   .arg(QString::fromUtf8(kv.key), why)));
        return instance;
    }

    // dispatcher thread
    void onChanges(const QList<MirrorChange> &changes, MirrorOrigin origin)
    {
        QList<ServiceCacheEvent> events;
        for (const MirrorChange &change : changes) {
            ServiceCacheEvent event;
            event.key = relativeKey(change.key);
            QMutexLocker locker(&mutex);
            if (change.kind == MirrorChange::Kind::Removed) {
                event.type = ServiceCacheEvent::Type::Delete;
                event.instance = instances.take(change.key);
                if (!event.instance->isValid())
                    event.instance.reset();
                events.append(event);
                continue;
            }
            locker.unlock();
            const auto instance = decode(*change.kv);
            locker.relock();
            if (!instance) {
                instances.remove(change.key);  // what etcd holds now is not an instance
                continue;
            }
            event.isAdd = !instances.contains(change.key);
            event.instance = instance;
            instances.insert(change.key, *instance);
            events.append(event);
        }
        if (origin == MirrorOrigin::Snapshot)
            return;  // the initial list is state, not news
        if (origin == MirrorOrigin::Reconcile)
            q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                             QStringLiteral("re-read the instances: %1 changes").arg(changes.size()));
        for (const ServiceCacheEvent &event : std::as_const(events))
            Q_EMIT q->cacheChanged(event);
        if (!events.isEmpty())
            Q_EMIT q->instancesChanged();
    }

    ServiceCache *const q;
    const QByteArray namesPath;
    const QString serviceName;
    const QByteArray prefix;
    std::atomic<KeyMirror *> mirror{nullptr};  // set once, by start()

    mutable QMutex mutex;
    QMap<QByteArray, ServiceInstance> instances;  // by full key; written on the dispatcher thread
};

ServiceCache::ServiceCache(Client *client, const QByteArray &namesPath, const QString &serviceName,
                           const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("ServiceCache"), serviceName.toUtf8(), options, parent),
      d(std::make_unique<ServiceCachePrivate>(this, namesPath, serviceName))
{
    qRegisterMetaType<ServiceCacheEvent>();
    qRegisterMetaType<WatchRecoveryEvent>();
}

ServiceCache::~ServiceCache()
{
    close();
    if (KeyMirror *mirror = d->mirror.load())
        mirror->deleteLater();
}

QString ServiceCache::serviceName() const
{
    return d->serviceName;
}

QFuture<Status> ServiceCache::start()
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (Status status = checkServiceName(d->serviceName, context()); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->namesPath.isEmpty())
        return QtFuture::makeReadyFuture(
            Status(StatusCode::InvalidArgument, context() + QStringLiteral(": the names path is empty")));
    if (Status refused = beginStart(); !refused)
        return QtFuture::makeReadyFuture(refused);
    const int watchSource = addSource(QStringLiteral("watch"));
    KeyMirror::Handlers handlers;
    handlers.changed = [this](const QList<MirrorChange> &changes, MirrorOrigin origin) {
        d->onChanges(changes, origin);
    };
    handlers.recovery = [this, watchSource](const WatchRecoveryEvent &event) {
        reportWatchRecovery(watchSource, QStringLiteral("watch"), event);
        Q_EMIT watchRecovery(event);
    };
    auto *mirror = new KeyMirror(client(), d->prefix, KeyRange::prefix(), options().resilience.watch, handlers);
    d->mirror = mirror;
    return mirror->start(true);
}

QList<ServiceInstance> ServiceCache::instances() const
{
    QMutexLocker locker(&d->mutex);
    return d->instances.values();
}

int ServiceCache::count() const
{
    QMutexLocker locker(&d->mutex);
    return int(d->instances.size());
}

void ServiceCache::doClose()
{
    if (KeyMirror *mirror = d->mirror.load())
        mirror->close();
}

} // namespace QEtcd
