// SPDX-License-Identifier: Apache-2.0
#include "pathchildrencache.h"

#include "blockingwait_p.h"
#include "keymirror_p.h"

namespace QEtcd {

using namespace Internal;

class PathChildrenCachePrivate
{
public:
    PathChildrenCachePrivate(PathChildrenCache *q, const QByteArray &path)
        : q(q), prefix(path.endsWith('/') ? path : path + '/'), pathIsEmpty(path.isEmpty())
    {
    }

    QByteArray nameOf(const QByteArray &key) const { return key.mid(prefix.size()); }
    ChildData childOf(const KeyValue &kv) const { return {nameOf(kv.key), kv}; }

    // dispatcher thread
    void onChanges(const QList<MirrorChange> &changes, MirrorOrigin origin)
    {
        if (origin == MirrorOrigin::Snapshot) {
            if (mode != PathChildrenCache::StartMode::PostInitializedEvent)
                return;
            PathChildrenCacheEvent initialized;
            initialized.type = PathChildrenCacheEvent::Type::Initialized;
            for (const MirrorChange &change : changes)
                initialized.initialData.append(childOf(*change.kv));
            Q_EMIT q->cacheEvent(initialized);
            return;
        }
        if (origin == MirrorOrigin::Reconcile)
            q->recordHistory(RecipeHistoryEntry::Source::Recipe,
                             QStringLiteral("re-read the children: %1 changes").arg(changes.size()));
        for (const MirrorChange &change : changes) {
            PathChildrenCacheEvent event;
            switch (change.kind) {
            case MirrorChange::Kind::Added: event.type = PathChildrenCacheEvent::Type::ChildAdded; break;
            case MirrorChange::Kind::Updated: event.type = PathChildrenCacheEvent::Type::ChildUpdated; break;
            case MirrorChange::Kind::Removed: event.type = PathChildrenCacheEvent::Type::ChildRemoved; break;
            }
            event.childName = nameOf(change.key);
            event.data = change.kv;
            Q_EMIT q->cacheEvent(event);
        }
    }

    PathChildrenCache *const q;
    const QByteArray prefix;
    const bool pathIsEmpty;
    PathChildrenCache::StartMode mode = PathChildrenCache::StartMode::Normal;  // set before the mirror starts
    std::atomic<KeyMirror *> mirror{nullptr};  // set once, by start()
    std::optional<QFuture<Status>> started;    // set once, by start(), before mirror
};

PathChildrenCache::PathChildrenCache(Client *client, const QByteArray &path, const RecipeOptions &options,
                                     QObject *parent)
    : Recipe(client, QStringLiteral("PathChildrenCache"), path, options, parent),
      d(std::make_unique<PathChildrenCachePrivate>(this, path))
{
    qRegisterMetaType<PathChildrenCacheEvent>();
    qRegisterMetaType<WatchRecoveryEvent>();
}

PathChildrenCache::~PathChildrenCache()
{
    close();
    if (KeyMirror *mirror = d->mirror.load())
        mirror->deleteLater();
}

QByteArray PathChildrenCache::prefix() const
{
    return d->prefix;
}

QFuture<Status> PathChildrenCache::start(StartMode mode)
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->pathIsEmpty)
        return QtFuture::makeReadyFuture(
            Status(StatusCode::InvalidArgument, context() + QStringLiteral(": the path is empty")));
    if (Status refused = beginStart(); !refused)
        return QtFuture::makeReadyFuture(refused);
    d->mode = mode;
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
    d->started = mirror->start(mode != StartMode::Normal);
    d->mirror = mirror;
    return *d->started;
}

Status PathChildrenCache::waitOnStartComplete(std::chrono::milliseconds timeout) const
{
    if (!d->mirror.load())
        return Status(StatusCode::NotStarted, context() + QStringLiteral(": start() was not called"));
    const QFuture<Status> started = *d->started;
    if (!started.isFinished()) {
        const QDeadlineTimer deadline = timeout == WaitForever ? QDeadlineTimer(QDeadlineTimer::Forever)
                                                               : QDeadlineTimer(timeout);
        if (Status waited = waitBlocking(client(), started, deadline, StopToken(),
                                         context() + QStringLiteral(": waitOnStartComplete"));
            !waited)
            return waited;
    }
    return started.result();
}

QList<ChildData> PathChildrenCache::currentData() const
{
    QList<ChildData> children;
    if (KeyMirror *mirror = d->mirror.load()) {
        for (const KeyValue &kv : mirror->entries())
            children.append(d->childOf(kv));
    }
    return children;
}

std::optional<ChildData> PathChildrenCache::currentData(const QByteArray &childName) const
{
    KeyMirror *mirror = d->mirror.load();
    if (!mirror)
        return std::nullopt;
    if (const auto kv = mirror->entry(d->prefix + childName))
        return d->childOf(*kv);
    return std::nullopt;
}

QMap<QByteArray, QByteArray> PathChildrenCache::currentDataAsMap() const
{
    QMap<QByteArray, QByteArray> map;
    for (const ChildData &child : currentData())
        map.insert(child.name, child.kv.value);
    return map;
}

QFuture<Status> PathChildrenCache::rebuild()
{
    if (KeyMirror *mirror = d->mirror.load())
        return mirror->rebuild();
    return QtFuture::makeReadyFuture(Status(StatusCode::NotStarted, context() + QStringLiteral(": start() was not called")));
}

void PathChildrenCache::clear()
{
    if (KeyMirror *mirror = d->mirror.load())
        mirror->clear();
}

void PathChildrenCache::doClose()
{
    if (KeyMirror *mirror = d->mirror.load())
        mirror->close();
}

} // namespace QEtcd
