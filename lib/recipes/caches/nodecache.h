// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/codecs.h>
#include <QEtcd/kvtypes.h>
#include <QEtcd/qetcdexport.h>
#include <QEtcd/recipe.h>
#include <QEtcd/watcher.h>

#include <functional>
#include <memory>
#include <optional>

namespace QEtcd {

/// One change of a NodeCache's key.
struct QETCD_EXPORT NodeCacheEvent
{
    /// What happened; Created and Updated speak of the cache: Created when it held no value
    /// before.
    enum class Type {
        Created,  ///< The key appeared.
        Updated,  ///< The key was written again.
        Deleted   ///< The key went.
    };
    Type type = Type::Created;  ///< What happened.
    KeyValue kv;                ///< The key now; for Deleted only the key and the deleting revision.
};

class NodeCachePrivate;

/// A live local copy of one key.
///
/// A live local copy of one key, kept by a resilient watch that starts right after the
/// initial read and is re-read after a compaction.
///
/// Events and recovery signals are emitted from the client's dispatcher thread; getters are
/// safe from any thread. TypedNodeCache below reads the value through a codec.
class QETCD_EXPORT NodeCache : public Recipe
{
    Q_OBJECT

public:
    /// Says whether bytes are a valid encoding; an invalid value is still cached, but its
    /// event is recorded as an error and not emitted.
    using ValueCheck = std::function<bool(const QByteArray &value)>;

    /// A copy of \a key, through \a client.
    NodeCache(Client *client, const QByteArray &key, const RecipeOptions &options = RecipeOptions(),
              QObject *parent = nullptr);
    /// Closes the cache: its watch ends.
    ~NodeCache() override;

    /// The key followed.
    QByteArray key() const;
    /// Sets the check of the key's values. Before start(); ignored afterwards.
    void setValueCheck(ValueCheck check);

    /// Reads the key and creates the watch; finishes once both are done. One-shot.
    QFuture<Status> start();

    /// The key as the cache holds it; nothing while it is absent.
    std::optional<KeyValue> current() const;
    /// The value as the cache holds it; empty when the key is absent.
    QByteArray currentBytes() const;

Q_SIGNALS:
    /// The key was created, updated or deleted.
    void nodeChanged(const QEtcd::NodeCacheEvent &event);
    /// The cache's watch failed, recovered, or gave up (then the copy stops changing).
    void watchRecovery(const QEtcd::WatchRecoveryEvent &event);

protected:
    void doClose() override;

private:
    friend class NodeCachePrivate;
    std::unique_ptr<NodeCachePrivate> d;
};

/// A NodeCache read through a codec: TypedNodeCache<JsonCodec> follows a JSON document, for
/// example.
///
/// Not a QObject: connect to untyped() for signals, and read an event's value with valueOf().
template <class Codec>
class TypedNodeCache
{
public:
    /// The type of the values.
    using Type = typename Codec::Type;

    /// A copy of \a key whose values are checked with the codec.
    TypedNodeCache(Client *client, const QByteArray &key, const RecipeOptions &options = RecipeOptions(),
                   QObject *parent = nullptr)
        : m_untyped(std::make_unique<NodeCache>(client, key, options, parent))
    {
        m_untyped->setValueCheck([](const QByteArray &value) { return Codec::decode(value).has_value(); });
    }

    /// The cache underneath, for its signals and state.
    NodeCache *untyped() const { return m_untyped.get(); }
    /// As NodeCache::start().
    QFuture<Status> start() { return m_untyped->start(); }
    /// As Recipe::close().
    void close() { m_untyped->close(); }
    /// The value, decoded; nothing when the key is absent or its value does not decode.
    std::optional<Type> current() const
    {
        const auto kv = m_untyped->current();
        return kv ? Codec::decode(kv->value) : std::nullopt;
    }
    /// The value an event carries, decoded; nothing for Deleted.
    static std::optional<Type> valueOf(const NodeCacheEvent &event)
    {
        if (event.type == NodeCacheEvent::Type::Deleted)
            return std::nullopt;
        return Codec::decode(event.kv.value);
    }

private:
    std::unique_ptr<NodeCache> m_untyped;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::NodeCacheEvent)
