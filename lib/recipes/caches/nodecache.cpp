// SPDX-License-Identifier: Apache-2.0
#include "nodecache.h"

#include "keymirror_p.h"

namespace QEtcd {

using namespace Internal;

class NodeCachePrivate
{
public:
    NodeCachePrivate(NodeCache *q, const QByteArray &key) : q(q), key(key) {}

    // dispatcher thread
    void onChanges(const QList<MirrorChange> &changes, MirrorOrigin origin)
    {
        if (origin == MirrorOrigin::Snapshot)
            return;  // the initial value is state, not news
        for (const MirrorChange &change : changes) {
            NodeCacheEvent event;
            switch (change.kind) {
            case MirrorChange::Kind::Added: event.type = NodeCacheEvent::Type::Created; break;
            case MirrorChange::Kind::Updated: event.type = NodeCacheEvent::Type::Updated; break;
            case MirrorChange::Kind::Removed: event.type = NodeCacheEvent::Type::Deleted; break;
            }
            if (event.type == NodeCacheEvent::Type::Deleted) {
                event.kv.key = change.key;
            } else {
                event.kv = *change.kv;
                if (check && !check(event.kv.value)) {
                    q->recordError(QStringLiteral("decode"),
                                   Status(StatusCode::InvalidArgument,
                                          QStringLiteral("the value at revision %1 does not decode; event skipped")
                                              .arg(event.kv.modRevision)));
                    continue;
                }
            }
            Q_EMIT q->nodeChanged(event);
        }
    }

    NodeCache *const q;
    const QByteArray key;
    NodeCache::ValueCheck check;  // set before start(), read on the dispatcher thread after
    std::atomic<KeyMirror *> mirror{nullptr};  // set once, by start()
};

NodeCache::NodeCache(Client *client, const QByteArray &key, const RecipeOptions &options, QObject *parent)
    : Recipe(client, QStringLiteral("NodeCache"), key, options, parent), d(std::make_unique<NodeCachePrivate>(this, key))
{
    qRegisterMetaType<NodeCacheEvent>();
    qRegisterMetaType<WatchRecoveryEvent>();
}

NodeCache::~NodeCache()
{
    close();
    if (KeyMirror *mirror = d->mirror.load())
        mirror->deleteLater();
}

QByteArray NodeCache::key() const
{
    return d->key;
}

void NodeCache::setValueCheck(ValueCheck check)
{
    if (isStarted()) {
        qWarning().noquote() << context() << "setValueCheck() after start() is ignored";
        return;
    }
    d->check = std::move(check);
}

QFuture<Status> NodeCache::start()
{
    if (Status status = validate(); !status)
        return QtFuture::makeReadyFuture(status);
    if (d->key.isEmpty())
        return QtFuture::makeReadyFuture(Status(StatusCode::InvalidArgument, context() + QStringLiteral(": key is empty")));
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
    auto *mirror = new KeyMirror(client(), d->key, KeyRange::single(), options().resilience.watch, handlers);
    d->mirror = mirror;
    return mirror->start(true);
}

std::optional<KeyValue> NodeCache::current() const
{
    KeyMirror *mirror = d->mirror.load();
    return mirror ? mirror->entry(d->key) : std::nullopt;
}

QByteArray NodeCache::currentBytes() const
{
    const auto kv = current();
    return kv ? kv->value : QByteArray();
}

void NodeCache::doClose()
{
    if (KeyMirror *mirror = d->mirror.load())
        mirror->close();
}

} // namespace QEtcd
